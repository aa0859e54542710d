// Reads a tensor that a student's own program printed or saved, in the forms people paste:
//   PyTorch   tensor([[0.5000, 0.5000], ...], dtype=torch.float64, grad_fn=<...>, device='cuda:0')
//   NumPy     array([[0.5, 0.5], ...], dtype=float32)  and print()'s  [[0.5 0.5]\n [0.5 0.5]]
//   lists     [[0.5, 0.5], [0.5, 0.5]]   (JSON or Python, trailing commas allowed)
//   rows      one row per line, numbers separated by commas, tabs or spaces (a CSV file)
//   .npy      NumPy's file format 1.0 to 3.0: float64, float32, integers and booleans, C or Fortran order
// Values: decimal and scientific numbers, nan, inf and -inf (a fully masked row is NaN; masked
// scores are -inf), True/False. Each value keeps the precision it was printed with (`resolution`,
// see finish()), so that a comparison can tell 0.3333 (PyTorch's four decimals) from a wrong number.
// Nothing here evaluates the text: it is scanned token by token, with limits on its length, its
// depth and its number of values. A text that cannot be read throws a ParseError with a code and
// parameters (the page words them; docs/api.md, "Check my numbers").
export const LIMITS = Object.freeze({ chars: 2_000_000, values: 200_000, depth: 6 });

export class ParseError extends Error {
  constructor(code, params = {}, message = code) {
    super(message);
    this.name = 'ParseError';
    this.code = code;
    this.params = params;
  }
}

const fail = (code, params, message) => { throw new ParseError(code, params, message); };

// a number as Python, NumPy and PyTorch print it; nan and inf in their spellings
const NUMBER = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|NaN|[iI]nf(?:inity)?)/;

/** The value of a number token, its printed decimals (-1: nan or inf) and its exponent. */
function readNumber(token) {
  const lower = token.toLowerCase().replace(/^\+/, '');
  if (lower === 'nan' || lower === '-nan') return [NaN, -1, 0];
  if (/^-?inf(inity)?$/.test(lower)) return [lower.startsWith('-') ? -Infinity : Infinity, -1, 0];
  const m = /^-?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/.exec(lower);
  return [Number(lower), m[2]?.length ?? 0, Number(m[3] ?? 0)];
}

/** Tokens of a bracketed text: '[', ']', ',', numbers; anything else is an error naming it. */
function* tokens(text, start, end) {
  let i = start;
  while (i < end) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t') { i++; continue; }
    if (c === '[' || c === ']' || c === ',' || c === '(' || c === ')') { yield { t: c, at: i }; i++; continue; }
    if (text.startsWith('...', i) || c === '…') fail('paste_elided', { at: i }, 'the printed tensor leaves values out (...)');
    if (text.startsWith('True', i) || text.startsWith('False', i)) {
      const v = text.startsWith('True', i) ? 1 : 0;
      yield { t: 'n', v, d: 0, e: 0, at: i };
      i += v ? 4 : 5;
      continue;
    }
    const m = NUMBER.exec(text.slice(i, i + 64));
    if (!m) {
      const word = /^[^\s,\[\]()]{1,24}/.exec(text.slice(i))?.[0] ?? c;
      fail('paste_not_number', { token: word, at: i }, `"${word}" is not a number`);
    }
    const [v, d, e] = readNumber(m[0]);
    yield { t: 'n', v, d, e, at: i };
    i += m[0].length;
  }
}

/** Nested brackets (commas optional between numbers: NumPy's print()) into shape, data and resolution. */
function readNested(text, start, end) {
  const shape = [];
  const counts = [];     // elements of the list open at each depth
  const holds = [];      // what that list holds: 'n' numbers or 'l' lists (never both)
  const data = [], decimals = [], exponents = [];
  let depth = 0, leafDepth = 0, done = false;
  const ragged = (at) => fail('paste_ragged', { at }, 'rows of different depths or lengths');
  for (const tok of tokens(text, start, end)) {
    if (done) fail('paste_trailing', { at: tok.at }, 'text after the tensor');
    if (tok.t === '[' || tok.t === '(') {
      if (depth > 0) {
        if (holds[depth - 1] === 'n') ragged(tok.at);
        holds[depth - 1] = 'l';
        counts[depth - 1]++;
      }
      depth++;
      if (depth > LIMITS.depth) fail('paste_too_deep', { max: LIMITS.depth }, `more than ${LIMITS.depth} levels of brackets`);
      if (leafDepth && depth > leafDepth) ragged(tok.at);
      counts[depth - 1] = 0;
      holds[depth - 1] = null;
    } else if (tok.t === ']' || tok.t === ')') {
      if (depth === 0) fail('paste_brackets', { at: tok.at }, 'a closing bracket without its opening one');
      const axis = depth - 1, n = counts[axis];
      if (shape[axis] === undefined) shape[axis] = n;
      else if (shape[axis] !== n) fail('paste_ragged', { axis, expected: shape[axis], got: n, at: tok.at }, `rows of ${shape[axis]} and ${n} values along axis ${axis}`);
      depth--;
      if (depth === 0) done = true;
    } else if (tok.t === 'n') {
      if (depth === 0) fail('paste_trailing', { at: tok.at }, 'a number outside the brackets');
      if (holds[depth - 1] === 'l' || (leafDepth && depth !== leafDepth)) ragged(tok.at);
      holds[depth - 1] = 'n';
      leafDepth = depth;
      counts[depth - 1]++;
      if (data.length >= LIMITS.values) fail('paste_too_large', { max: LIMITS.values }, `more than ${LIMITS.values} values`);
      data.push(tok.v);
      decimals.push(tok.d);
      exponents.push(tok.e);
    }
  }
  if (!done) fail('paste_brackets', {}, 'a bracket is not closed');
  if (data.length !== shape.reduce((a, b) => a * b, 1)) ragged(end);
  return { shape, data, decimals, exponents };
}

/** One row per line, separated by commas, semicolons, tabs or spaces. */
function readRows(text) {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const data = [], decimals = [], exponents = [];
  let width = -1;
  for (const [row, line] of lines.entries()) {
    const cells = line.split(/\s*[,;\t]\s*|\s+/).filter((c) => c !== '');
    if (width >= 0 && cells.length !== width) fail('paste_ragged', { axis: 1, expected: width, got: cells.length, row }, `row ${row} has ${cells.length} values, row 0 has ${width}`);
    width = cells.length;
    for (const cell of cells) {
      const m = NUMBER.exec(cell);
      if (!m || m[0].length !== cell.length) fail('paste_not_number', { token: cell.slice(0, 24), row }, `"${cell.slice(0, 24)}" is not a number`);
      if (data.length >= LIMITS.values) fail('paste_too_large', { max: LIMITS.values }, `more than ${LIMITS.values} values`);
      const [v, d, e] = readNumber(cell);
      data.push(v);
      decimals.push(d);
      exponents.push(e);
    }
  }
  if (!data.length) fail('paste_empty', {}, 'no numbers');
  const shape = lines.length === 1 ? [width] : [lines.length, width];
  return { shape, data, decimals, exponents };
}

// the tails PyTorch and NumPy print after the values
const TORCH_DTYPE = /dtype\s*=\s*torch\.(float64|double|float32|float|float16|half|bfloat16|int64|long|int32|int|bool)/;
const NUMPY_DTYPE = /dtype\s*=\s*(?:np\.|numpy\.)?['"]?(float64|float32|float16|int64|int32|bool)/;
const DTYPES = { double: 'float64', float: 'float32', half: 'float16', long: 'int64', int: 'int32' };

/**
 * Parse a pasted tensor. Returns {shape, data: Float64Array, resolution: Float64Array, form,
 * dtype, dtypeStated}: form is 'pytorch', 'numpy', 'list' or 'rows'; dtype the element type the
 * text states or implies (PyTorch prints no dtype for its default, float32), or null; dtypeStated
 * whether the text says it (a PyTorch tensor without dtype= may be float64 all the same, after
 * torch.set_default_dtype(torch.float64), as the lab's copied inputs do).
 */
export function parseTensor(text) {
  if (typeof text !== 'string') fail('paste_not_text', { got: typeof text }, 'not text');
  if (text.length > LIMITS.chars) fail('paste_too_large', { max: LIMITS.chars }, `more than ${LIMITS.chars} characters`);
  const s = text.trim();
  if (!s) fail('paste_empty', {}, 'no numbers');
  const call = /^(tensor|array|torch\.tensor|np\.array|numpy\.array)\s*\(/.exec(s);
  if (call) {
    const form = call[1].endsWith('tensor') ? 'pytorch' : 'numpy';
    if (!s.endsWith(')')) fail('paste_brackets', {}, `${call[1]}( is not closed`);
    const body = s.slice(call[0].length, -1);
    // the values end at the bracket that closes the first one (or at the first comma of a scalar)
    let end = body.length;
    if (body.trimStart().startsWith('[')) {
      let depth = 0;
      for (let i = 0; i < body.length; i++) {
        if (body[i] === '[') depth++;
        else if (body[i] === ']' && --depth === 0) { end = i + 1; break; }
      }
    } else {
      const comma = body.indexOf(',');
      if (comma >= 0) end = comma;
    }
    const tail = body.slice(end);
    // after the values only PyTorch's and NumPy's keyword tails: dtype=..., grad_fn=<...>, size=(...)
    if (!/^\s*(,\s*[a-z_]+\s*=\s*(<[^>]*>|\([^)]*\)|'[^']*'|"[^"]*"|[\w.:]+)\s*)*,?\s*$/.test(tail)) {
      fail('paste_trailing', { at: call[0].length + end }, 'text after the tensor (two pasted at once?)');
    }
    if (/size\s*=\s*\(/.test(tail) && /\[\s*\]/.test(body.slice(0, end))) fail('paste_empty', {}, 'an empty tensor');
    const scalar = !body.trimStart().startsWith('[');
    const parsed = scalar ? readScalar(body.slice(0, end)) : readNested(body, 0, end);
    const m = (form === 'pytorch' ? TORCH_DTYPE : NUMPY_DTYPE).exec(tail);
    // PyTorch leaves out the dtype it would infer: float32 for decimals, int64 for whole numbers, bool
    const values = body.slice(0, end);
    const implied = /True|False/.test(values) ? 'bool' : /[.eE]|nan|inf/.test(values) ? 'float32' : 'int64';
    const dtype = m ? (DTYPES[m[1]] ?? m[1]) : form === 'pytorch' ? implied : null;
    return finish(parsed, form, dtype, !!m);
  }
  // NumPy's print() writes no commas: [[0.5 0.5]\n [0.5 0.5]]
  if (s.startsWith('[')) return finish(readNested(s, 0, s.length), s.includes(',') ? 'list' : 'numpy', null);
  return finish(readRows(s), 'rows', null);
}

function readScalar(text) {
  const t = text.trim();
  if (t === 'True' || t === 'False') return { shape: [], data: [t === 'True' ? 1 : 0], decimals: [0], exponents: [0] };
  const m = NUMBER.exec(t);
  if (!m || m[0].length !== t.length) fail('paste_not_number', { token: t.slice(0, 24) }, `"${t.slice(0, 24)}" is not a number`);
  const [v, d, e] = readNumber(t);
  return { shape: [], data: [v], decimals: [d], exponents: [e] };
}

/** The parsed tensor. PyTorch and NumPy print every value of a tensor to the same number of
 * decimals (NumPy then drops trailing zeros: 0.2934289 beside 1.54099611), so each value is known
 * to half a unit of the tensor's most decimals, at its own exponent (1.0000e-05); a tensor of whole
 * numbers (1., 0.) is exact, and Python's repr (0.1, 0.3333333333333333) is exact to 1e-16. The
 * text of a float32 (or float16) adds half its ulp. */
function finish({ shape, data, decimals, exponents }, form, dtype, dtypeStated = dtype !== null) {
  let most = 0;
  decimals.forEach((d) => { if (d > most) most = d; });
  const resolution = Float64Array.from(decimals, (d, i) => (d < 0 || most === 0 ? 0 : 0.5 * 10 ** (exponents[i] - most)));
  // a float32 printed in its shortest form (NumPy's repr: 1.5409961) is its value to half an ulp
  const ulp = { float32: 2 ** -24, float16: 2 ** -11 }[dtype];
  if (ulp) resolution.forEach((r, i) => { if (Number.isFinite(data[i])) resolution[i] = Math.max(r, Math.abs(data[i]) * ulp); });
  return { shape, data: Float64Array.from(data), resolution, form, dtype, dtypeStated };
}

/**
 * Parse a NumPy .npy file (an ArrayBuffer or Uint8Array): format versions 1.0 to 3.0; float64,
 * float32, float16-free integer and boolean element types, either byte order, C or Fortran order.
 */
export function parseNpy(input) {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) fail('npy_not_npy', {}, 'not a .npy file (no \\x93NUMPY at its start)');
  const major = bytes[6];
  if (bytes.length < (major === 1 ? 10 : 12)) fail('npy_truncated', {}, 'the .npy file ends inside its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (major < 1 || major > 3) fail('npy_version', { version: `${major}.${bytes[7]}` }, `.npy format ${major}.${bytes[7]} is not one this reads`);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  if (headerStart + headerLen > bytes.length) fail('npy_truncated', {}, 'the .npy file ends inside its header');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, headerStart + headerLen));
  const descr = /'descr'\s*:\s*'([<>|=])([A-Za-z])(\d+)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeText) fail('npy_header', { header: header.slice(0, 80) }, 'the .npy header lacks descr, fortran_order or shape');
  const [, order, kind, sizeText] = descr;
  const size = Number(sizeText);
  const readers = {
    f8: (o, le) => view.getFloat64(o, le), f4: (o, le) => view.getFloat32(o, le),
    i8: (o, le) => Number(view.getBigInt64(o, le)), i4: (o, le) => view.getInt32(o, le), i2: (o, le) => view.getInt16(o, le), i1: (o) => view.getInt8(o),
    u8: (o, le) => Number(view.getBigUint64(o, le)), u4: (o, le) => view.getUint32(o, le), u2: (o, le) => view.getUint16(o, le), u1: (o) => view.getUint8(o),
    b1: (o) => view.getUint8(o),
  };
  const read = readers[`${kind}${size}`];
  if (!read) fail('npy_dtype', { dtype: `${order}${kind}${size}` }, `element type ${descr[1]}${kind}${size} is not one this reads`);
  const shape = shapeText[1].split(',').map((d) => d.trim()).filter(Boolean).map(Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 0)) fail('npy_header', { header: header.slice(0, 80) }, 'the .npy shape is not a list of sizes');
  if (shape.length > LIMITS.depth) fail('paste_too_deep', { max: LIMITS.depth }, `more than ${LIMITS.depth} axes`);
  const n = shape.reduce((a, b) => a * b, 1);
  if (n > LIMITS.values) fail('paste_too_large', { max: LIMITS.values }, `more than ${LIMITS.values} values`);
  const dataStart = headerStart + headerLen;
  if (dataStart + n * size > bytes.length) fail('npy_truncated', {}, 'the .npy file ends before its data');
  const little = order !== '>';
  const raw = new Float64Array(n);
  for (let i = 0; i < n; i++) raw[i] = read(dataStart + i * size, little);
  const data = fortran[1] === 'True' ? fortranToC(raw, shape) : raw;
  const dtype = { f8: 'float64', f4: 'float32', b1: 'bool' }[`${kind}${size}`] ?? `${kind === 'u' ? 'uint' : 'int'}${size * 8}`;
  return { shape, data, resolution: new Float64Array(n), form: 'npy', dtype, dtypeStated: true };
}

/** Column-major (Fortran) values of `shape` in row-major order. */
function fortranToC(raw, shape) {
  const out = new Float64Array(raw.length);
  const rank = shape.length;
  const index = new Array(rank).fill(0);
  for (let c = 0; c < raw.length; c++) {
    let f = 0, stride = 1;
    for (let a = 0; a < rank; a++) { f += index[a] * stride; stride *= shape[a]; }
    out[c] = raw[f];
    for (let a = rank - 1; a >= 0; a--) { if (++index[a] < shape[a]) break; index[a] = 0; }
  }
  return out;
}
