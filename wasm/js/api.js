// The JS API over the WebAssembly core, without knowing where the .wasm file lives (index.js does):
// a Web Worker imports this and instantiates a WebAssembly.Module it was sent.
//
// The API is built from the core's table of entry points (wasm/bindings/table.cpp, exported with
// the wire protocol's numbers): one function per row, the model's methods from the rows that take
// a model, and core.describe() from the rows' documentation. This module checks only the JS types
// of arguments, per kind and the same for every function (a tensor is {shape: number[], data:
// Float64Array | number[]}), and copies them into the request. Shapes, ranks, option names and
// values are checked in one place: the C++ core. Every error, a wrong JS type included, is raised
// by the core and thrown here as an Error with .message, .code and .params (docs/api.md, "Errors").
import createAttnCore from './gen/attn_core.js';
import { toPyTorch } from './pytorch.js';

// What a JS value is, as error.params.gotType names it.
function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (ArrayBuffer.isView(v)) return v.constructor.name;
  return typeof v;
}

// A value of the wrong JS type: sent to the core in place of the argument, which raises the
// wrong_type error (so that every error, with its message, comes from one place).
class Bad {
  constructor(arg, expected, value) { this.arg = arg; this.expected = expected; this.got = typeOf(value); }
}

/** A tensor {shape, data: Float64Array | Uint8Array} from a tensor-like value, or a Bad. */
function tensorArg(name, t) {
  if (t === null || typeof t !== 'object' || Array.isArray(t) || ArrayBuffer.isView(t)) return new Bad(name, 'tensor', t);
  const { shape, data } = t;
  if (!Array.isArray(shape)) return new Bad(`${name}.shape`, 'numbers', shape);
  for (let i = 0; i < shape.length; i++) if (typeof shape[i] !== 'number') return new Bad(`${name}.shape[${i}]`, 'number', shape[i]);
  if (data instanceof Float64Array || data instanceof Uint8Array) return t;
  if (Array.isArray(data)) {
    if (data.length && typeof data[0] === 'boolean') {   // a boolean mask written as true/false
      const bad = data.findIndex((v) => typeof v !== 'boolean');
      return bad >= 0 ? new Bad(`${name}.data[${bad}]`, 'boolean', data[bad]) : { shape, data: Uint8Array.from(data, (v) => (v ? 1 : 0)) };
    }
    const bad = data.findIndex((v) => typeof v !== 'number');
    return bad >= 0 ? new Bad(`${name}.data[${bad}]`, 'number', data[bad]) : { shape, data: Float64Array.from(data) };
  }
  if (ArrayBuffer.isView(data) && !(data instanceof DataView) && typeof data[0] !== 'bigint') return { shape, data: Float64Array.from(data) };
  return new Bad(`${name}.data`, 'numbers', data);
}

function numberArrayArg(name, v) {
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView))) return new Bad(name, 'numbers', v);
  const bad = Array.prototype.findIndex.call(v, (d) => typeof d !== 'number');
  return bad >= 0 ? new Bad(`${name}[${bad}]`, 'number', v[bad]) : v;
}

/** Options: a plain object of booleans, numbers, strings and tensors; or a Bad. */
function optionsArg(opts) {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts) || ArrayBuffer.isView(opts)) return new Bad('opts', 'options', opts);
  const out = {};
  for (const key of Object.keys(opts)) {
    const v = opts[key];
    if (v === undefined) continue;
    if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') out[key] = v;
    else if (v !== null && typeof v === 'object') {
      const t = tensorArg(`opts.${key}`, v);
      if (t instanceof Bad) return t;
      out[key] = t;
    } else return new Bad(`opts.${key}`, 'optionValue', v);
  }
  return out;
}

// ---- The wire (wasm/bindings/request.hpp, bindings.cpp) ------------------------------------
// A request is a list of numbers (argument descriptions, then tensor data) and a list of bytes
// (strings, boolean masks), written into reused regions of the WASM heap; one call runs it.
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// names and option keys repeat on every call: keep their UTF-8 bytes
const encoded = new Map();
const encode = (s) => {
  let b = encoded.get(s);
  if (b === undefined) {
    b = encoder.encode(s);
    if (s.length <= 64 && encoded.size < 4096) encoded.set(s, b);
  }
  return b;
};

class Request {
  constructor(tags) { this.tag = tags; this.head = new Float64Array(1024); this.reset(); }
  reset() { this.n = 0; this.data = []; this.chunks = []; this.bytes = 0; this.dataLength = 0; return this; }
  push(...xs) {
    if (this.n + xs.length > this.head.length) {
      const bigger = new Float64Array(Math.max(this.head.length * 2, this.n + xs.length));
      bigger.set(this.head.subarray(0, this.n));
      this.head = bigger;
    }
    for (const x of xs) this.head[this.n++] = x;
  }
  text(s) {
    const b = encode(s);
    this.push(this.bytes, b.length);
    this.chunks.push(b);
    this.bytes += b.length;
  }
  number(v) { this.push(this.tag.number, v); }
  string(s) { this.push(this.tag.string); this.text(s); }
  numbers(xs) { this.push(this.tag.numbers, xs.length, ...xs); }
  bad(b) { this.push(this.tag.bad); this.text(b.arg); this.text(b.expected); this.text(b.got); }
  tensor(name, t) {
    if (t.data instanceof Uint8Array) {   // a boolean tensor: its bytes travel with the strings
      this.push(this.tag.boolTensor);
      this.text(name);
      this.push(t.shape.length, ...t.shape, t.data.length, this.bytes);
      this.chunks.push(t.data);
      this.bytes += t.data.length;
      return;
    }
    this.push(this.tag.tensor);
    this.text(name);
    this.push(t.shape.length, ...t.shape, t.data.length);
    this.data.push(t.data);
    this.dataLength += t.data.length;
  }
  /** options after optionsArg(): booleans, numbers, strings and tensors */
  options(o) {
    const keys = Object.keys(o);
    this.push(this.tag.options, keys.length);
    for (const key of keys) {
      const v = o[key];
      this.text(key);
      if (typeof v === 'boolean') this.push(this.tag.boolean, v ? 1 : 0);
      else if (typeof v === 'number') this.number(v);
      else if (typeof v === 'string') this.string(v);
      else this.tensor(`opts.${key}`, v);
    }
  }
}

// Each kind of argument: check the JS type, then add the value (or its Bad) to the request.
const encoders = {
  tensor(r, name, v) {
    const t = tensorArg(name, v);
    if (t instanceof Bad) r.bad(t);
    else r.tensor(name, t.data instanceof Uint8Array ? { shape: t.shape, data: Float64Array.from(t.data) } : t);   // positional tensors are float64
  },
  number(r, name, v) { if (typeof v === 'number') r.number(v); else r.bad(new Bad(name, 'number', v)); },
  string(r, name, v) { if (typeof v === 'string') r.string(v); else r.bad(new Bad(name, 'string', v)); },
  numbers(r, name, v) { const c = numberArrayArg(name, v); if (c instanceof Bad) r.bad(c); else r.numbers(c); },
  options(r, name, v) { const c = optionsArg(v); if (c instanceof Bad) r.bad(c); else r.options(c); },
  model(r, name, v) { r.number(v); },   // a GptModel's id in the core (-1 once disposed)
};

// The result's JSON gives its structure: {"$":[offset, length], "s": shape} is a tensor, {"$": ...}
// without a shape a Float64Array, {"#": i} a number, all read from `out`, one copy of the result
// region (a view of WASM memory would die when memory grows; each tensor is a disjoint part of
// the copy). It is compiled once into a function that builds the result.
const compile = (node) => {
  if (Array.isArray(node)) { const parts = node.map(compile); return (out) => parts.map((p) => p(out)); }
  if (node === null || typeof node !== 'object') return () => node;
  if ('#' in node) { const i = node['#']; return (out) => out[i]; }
  if ('$' in node) {
    const [o, l] = node.$, s = node.s;
    return s ? (out) => ({ shape: s.slice(), data: out.subarray(o, o + l) }) : (out) => out.subarray(o, o + l);
  }
  const keys = Object.keys(node), parts = keys.map((k) => compile(node[k]));
  return (out) => { const r = {}; for (let i = 0; i < keys.length; i++) r[keys[i]] = parts[i](out); return r; };
};

/** call(index, row, values): run row number `index` of the table on JS values. */
function makeCall(m, table) {
  const desc = m.descriptor() / 8;   // the descriptor block: table.slots says what each value is
  const S = table.slots, absent = table.tags.absent;
  const request = new Request(table.tags);   // calls are synchronous and never nested: one request serves all
  // compiled result readers, by the structure's hash (the same function on the same shapes: one JSON)
  const readers = new Map();
  const json = (F) => decoder.decode(m.HEAPU8.subarray(F[desc + S.jsonAddress], F[desc + S.jsonAddress] + F[desc + S.jsonLength]));
  const result = (F) => F.slice(F[desc + S.outAddress] / 8, F[desc + S.outAddress] / 8 + F[desc + S.outLength]);
  // the error the core wrote in place of a result: an Error with .message, .code and .params
  const coreError = () => {
    const F = m.HEAPF64;
    const { code, message, params } = compile(JSON.parse(json(F)))(result(F));
    return Object.assign(new Error(message), { code, params });
  };
  return (index, row, values) => {
    const r = request.reset();
    const args = row.args;
    r.push(args.length);
    for (let i = 0; i < args.length; i++) {
      const a = args[i], v = values[i];
      if (v === undefined && (a.default !== undefined || a.kind === 'options')) r.push(absent);
      else encoders[a.kind](r, a.name, v);
    }
    const header = r.n;
    if (m.reserve(index, header + r.dataLength, r.bytes) !== 0) throw coreError();
    let F = m.HEAPF64;   // read after reserve: memory may have grown
    const U = m.HEAPU8;
    let at = F[desc + S.inAddress] / 8;
    F.set(r.head.subarray(0, header), at);
    at += header;
    for (const d of r.data) { F.set(d, at); at += d.length; }
    let b = F[desc + S.bytesAddress];
    for (const c of r.chunks) { U.set(c, b); b += c.length; }
    if (m.call(index, header) !== 0) throw coreError();
    F = m.HEAPF64;
    const hash = F[desc + S.structure];
    let read = readers.get(hash);
    if (read === undefined) {
      read = compile(JSON.parse(json(F)));
      if (readers.size >= 256) readers.clear();   // results that carry text (samples) rarely repeat
      readers.set(hash, read);
    }
    return read(result(F));
  };
}

const deepFreeze = (o) => { Object.values(o).forEach((v) => typeof v === 'object' && v !== null && deepFreeze(v)); return Object.freeze(o); };

function makeApi(m) {
  // what the calls need (tags, slots, each row's name, arguments and role) is read now; the whole
  // table (options, docs, results, error codes) the first time describe(), errorCodes or
  // errorParams is asked for: building its text is most of what reading the table costs at load
  const table = JSON.parse(m.wire());
  const call = makeCall(m, table);
  let full = null;
  const whole = () => (full ??= deepFreeze(JSON.parse(m.describe())));
  const api = {
    /** {code: [parameter names]}: every code an Error from the core may carry (error.code, error.params). */
    get errorCodes() { return whole().errorCodes; },
    /** {parameter name: kind}: name, text, number, shape, index or list (docs/api.md, "Errors"). */
    get errorParams() { return whole().errorParams; },
    /**
     * The functions: [{name, args: [{name, kind, default?}], options: [{name, kind, values?, required?, doc}],
     * doc, returns: {kind, fields?, of?, value?}, role}], or the one named (docs/api.md, "describe").
     */
    describe: (name) => (name === undefined ? whole().functions : whole().functions.find((f) => f.name === name)),
  };

  /** A character GPT living in the WASM core (see wasm/include/attn/gpt.hpp); config holds its settings. */
  class GptModel {
    constructor(info) { this.config = Object.freeze({ ...info }); }
  }
  const ids = new WeakMap();   // GptModel -> its id in the core; gone once disposed
  let release = null;
  // a finalizer frees the models nobody disposed
  const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry((id) => release?.(id)) : null;

  table.functions.forEach((row, index) => {
    const run = (values) => call(index, row, values);
    const define = (name, value) => Object.defineProperty(GptModel.prototype, name, { value, writable: false });
    switch (row.role) {
      case 'function':
        api[row.name] = (...values) => run(values);
        break;
      case 'create':
        api[row.name] = (...values) => {
          const info = run(values);
          const model = new GptModel(info);
          ids.set(model, info.id);
          finalizer?.register(model, info.id, model);
          return model;
        };
        break;
      case 'method':
        define(row.name, function method(...values) { return run([ids.get(this) ?? -1, ...values]); });
        break;
      case 'release':
        release = (id) => run([id]);
        define(row.name, function dispose() {
          const id = ids.get(this);
          if (id === undefined) return;   // twice is harmless
          release(id);
          finalizer?.unregister(this);
          ids.delete(this);
        });
        break;
      default:
        throw new Error(`the core's table has a function ${row.name} of unknown role ${row.role}`);
    }
  });
  // Embind's own handle count is known only here (no handle crosses this boundary: it stays 0)
  const stats = api.memoryStats;
  api.memoryStats = () => ({ ...stats(), emvalHandles: m.count_emval_handles() });
  /** A PyTorch (float64) program reproducing one call: toPyTorch('softmax', [scores, opts]) (pytorch.js; JS only, no core call). */
  api.toPyTorch = toPyTorch;
  return Object.freeze(api);
}

// ---- Plain tensor helpers (no math) ---------------------------------------------------------

/** Nested arrays -> {shape, data: Float64Array}. */
export function tensor(nested) {
  const shape = [];
  for (let v = nested; Array.isArray(v); v = v[0]) shape.push(v.length);
  const data = Float64Array.from(shape.length ? nested.flat(shape.length - 1) : [nested]);
  return { shape, data };
}

/** {shape, data} -> nested arrays. */
export function toNested({ shape, data }) {
  if (!shape.length) return data[0];
  const strides = [];   // strides[a]: the elements one step along axis a spans
  for (let a = shape.length - 1, n = 1; a >= 0; n *= shape[a], a--) strides[a] = n;
  const last = shape.length - 1;
  const build = (axis, offset) => {
    const out = [];
    if (axis === last) for (let i = 0; i < shape[axis]; i++) out.push(data[offset + i]);
    else for (let i = 0; i < shape[axis]; i++) out.push(build(axis + 1, offset + i * strides[axis]));
    return out;
  };
  return build(0, 0);
}

/**
 * Instantiate the core from {wasmBinary} (bytes), {module} (a compiled WebAssembly.Module, e.g.
 * one posted to a worker) or {locateFile}.
 */
export async function instantiateCore({ wasmBinary, module, locateFile } = {}) {
  const args = {};
  if (module) {
    // locateFile keeps the generated loader from resolving its own URL, which fails in a Blob worker
    args.locateFile = (path) => path;
    args.instantiateWasm = (imports, receive) => {
      WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
      return {};
    };
  } else if (wasmBinary) args.wasmBinary = wasmBinary;
  else if (locateFile) args.locateFile = locateFile;
  return makeApi(await createAttnCore(args));
}
