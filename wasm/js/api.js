// The JS API over the Embind module, without knowing where the .wasm file lives (index.js does):
// a Web Worker imports this and instantiates a WebAssembly.Module it was sent.
//
// A thin layer over the Embind module (wasm/bindings/bindings.cpp). It checks the *JS types*
// of arguments (a tensor is {shape: number[], data: Float64Array | number[]}), copies them into
// the canonical form, calls the core, and throws an Error when the core reports one. Shapes,
// ranks, option names and values are checked in one place: the C++ core.
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

/** Canonical tensor {shape, data: Float64Array | Uint8Array} from a tensor-like value, or a Bad. */
function tensorArg(name, t) {
  if (t === null || typeof t !== 'object' || Array.isArray(t) || ArrayBuffer.isView(t)) return new Bad(name, 'tensor', t);
  const { shape, data } = t;
  if (!Array.isArray(shape)) return new Bad(`${name}.shape`, 'numbers', shape);
  const badDim = shape.findIndex((d) => typeof d !== 'number');
  if (badDim >= 0) return new Bad(`${name}.shape[${badDim}]`, 'number', shape[badDim]);
  if (data instanceof Float64Array || data instanceof Uint8Array) return { shape, data };
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

const numberArg = (name, v) => (typeof v === 'number' ? v : new Bad(name, 'number', v));
const stringArg = (name, v) => (typeof v === 'string' ? v : new Bad(name, 'string', v));

function numberArrayArg(name, v) {
  if (!Array.isArray(v) && !(ArrayBuffer.isView(v) && !(v instanceof DataView))) return new Bad(name, 'numbers', v);
  const bad = Array.prototype.findIndex.call(v, (d) => typeof d !== 'number');
  return bad >= 0 ? new Bad(`${name}[${bad}]`, 'number', v[bad]) : Array.from(v);
}

/** Options: a plain object of booleans, numbers, strings and tensors; or a Bad. */
function optionsArg(opts) {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts) || ArrayBuffer.isView(opts)) return new Bad('opts', 'options', opts);
  const out = {};
  for (const [key, v] of Object.entries(opts)) {
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

// ---- The wire (see wasm/bindings/bindings.cpp) ----------------------------------------------
// A request is a list of numbers (argument descriptions, then tensor data) and a list of bytes
// (strings, boolean masks), written into reused regions of the WASM heap; one call runs it.
const TAG = { number: 0, string: 1, tensor: 2, boolTensor: 3, options: 4, bool: 5, numbers: 6, bad: 7 };
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

// One request at a time (calls are synchronous), so its header lives in a reused Float64Array.
let headBuf = new Float64Array(1024);

class Request {
  constructor() { this.reset(); }
  reset() { this.n = 0; this.data = []; this.chunks = []; this.bytes = 0; this.dataLength = 0; return this; }
  push(...xs) {
    if (this.n + xs.length > headBuf.length) {
      const bigger = new Float64Array(Math.max(headBuf.length * 2, this.n + xs.length));
      bigger.set(headBuf.subarray(0, this.n));
      headBuf = bigger;
    }
    for (const x of xs) headBuf[this.n++] = x;
  }
  text(s) {
    const b = encode(s);
    this.push(this.bytes, b.length);
    this.chunks.push(b);
    this.bytes += b.length;
  }
  number(v) { this.push(TAG.number, v); return this; }
  string(s) { this.push(TAG.string); this.text(s); return this; }
  bool(b) { this.push(TAG.bool, b ? 1 : 0); return this; }
  numbers(xs) { this.push(TAG.numbers, xs.length, ...xs); return this; }
  bad(b) { this.push(TAG.bad); this.text(b.arg); this.text(b.expected); this.text(b.got); return this; }
  tensor(name, t) {
    this.push(TAG.tensor);
    this.text(name);
    this.push(t.shape.length, ...t.shape, t.data.length);
    this.data.push(t.data);
    this.dataLength += t.data.length;
    return this;
  }
  boolTensor(name, t) {
    this.push(TAG.boolTensor);
    this.text(name);
    this.push(t.shape.length, ...t.shape, t.data.length, this.bytes);
    this.chunks.push(t.data);
    this.bytes += t.data.length;
    return this;
  }
  /** options after optionsArg(): booleans, numbers, strings, tensors and boolean tensors */
  options(o) {
    const keys = Object.keys(o);
    this.push(TAG.options, keys.length);
    for (const key of keys) {
      const v = o[key];
      this.text(key);
      if (typeof v === 'boolean') this.bool(v);
      else if (typeof v === 'number') this.number(v);
      else if (typeof v === 'string') this.string(v);
      else if (v.data instanceof Uint8Array) this.boolTensor(`opts.${key}`, v);
      else this.tensor(`opts.${key}`, v);
    }
    return this;
  }
}

function makeCall(m) {
  // The result's JSON gives its structure: {"$":[offset, length], "s": shape} is a tensor, {"$": ...}
  // without a shape a Float64Array, {"#": i} a number, all read from `out`, one copy of the result
  // region (a view of WASM memory would die when memory grows; each tensor is a disjoint part of
  // the copy). The JSON is the same from call to call for the same shapes, so it is compiled once
  // into a function that builds the result, and kept.
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
  const builders = new Map();
  const builder = (json) => {
    let b = builders.get(json);
    if (b === undefined) {
      b = compile(JSON.parse(json));
      if (builders.size >= 256) builders.clear();   // results that carry text (samples) never repeat
      builders.set(json, b);
    }
    return b;
  };
  const index = new Map(m.functionNames().split(',').map((name, i) => [name, i]));
  const desc = m.descriptor() / 8;   // a fixed block: addresses and lengths after reserve() and call()
  /** call(name, ...builders): each builder adds one argument to the request */
  const request = new Request();   // calls are synchronous and never nested: one request object serves all
  let lastBuilder = null;
  // The error the core wrote in place of a result: {code, message, params} -> an Error with
  // .message, .code and .params.
  const coreError = () => {
    const F = m.HEAPF64;
    const json = decoder.decode(m.HEAPU8.subarray(F[desc + 5], F[desc + 5] + F[desc + 6]));
    const outAt = F[desc + 3] / 8;
    const { code, message, params } = compile(JSON.parse(json))(F.slice(outAt, outAt + F[desc + 4]));
    return Object.assign(new Error(message), { code, params });
  };
  return (name, ...args) => {
    const r = request.reset();
    r.push(args.length);
    for (const a of args) a(r);
    const header = r.n;
    const fn = index.get(name);
    if (m.reserve(fn, header + r.dataLength, r.bytes) !== 0) throw coreError();
    let F = m.HEAPF64;   // read after reserve: memory may have grown
    const U = m.HEAPU8;
    let at = F[desc] / 8;
    F.set(headBuf.subarray(0, header), at);
    at += header;
    for (const d of r.data) { F.set(d, at); at += d.length; }
    let b = F[desc + 1];
    for (const c of r.chunks) { U.set(c, b); b += c.length; }
    const status = m.call(fn, header);
    F = m.HEAPF64;
    if (status !== 0) throw coreError();
    // the same structure as the previous call (same function, same shapes): reuse its builder
    if (F[desc + 7] !== 1) lastBuilder = builder(decoder.decode(m.HEAPU8.subarray(F[desc + 5], F[desc + 5] + F[desc + 6])));
    const outAt = F[desc + 3] / 8;
    return lastBuilder(F.slice(outAt, outAt + F[desc + 4]));
  };
}

const deepFreeze = (o) => { Object.values(o).forEach((v) => typeof v === 'object' && deepFreeze(v)); return Object.freeze(o); };

// argument builders: each returns a function that adds itself to a Request (or the value's Bad)
const wrap = (c, add) => (c instanceof Bad ? (r) => r.bad(c) : (r) => add(r, c));
const A = {
  // a positional tensor is float64 whatever its data (boolean tensors only occur among options)
  tensor: (name, t) => wrap(tensorArg(name, t), (r, c) => r.tensor(name, c.data instanceof Uint8Array ? { shape: c.shape, data: Float64Array.from(c.data) } : c)),
  options: (o) => wrap(optionsArg(o), (r, c) => r.options(c)),
  number: (name, v) => wrap(numberArg(name, v), (r, c) => r.number(c)),
  string: (name, v) => wrap(stringArg(name, v), (r, c) => r.string(c)),
  numbers: (name, v) => wrap(numberArrayArg(name, v), (r, c) => r.numbers(c)),
};

const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(({ call, id }) => call('dispose', (r) => r.number(id))) : null;

/** A character GPT living in the WASM core (see wasm/include/attn/gpt.hpp). */
class GptModel {
  #call;
  #id;
  constructor(call, text, opts) {
    const info = call('createModel', text, opts);
    this.#call = call;
    this.#id = info.id;
    /** {vocab, C, heads, layers, tMax, seed, causal, batch, T, lr, params, unigramEntropy, trainChars, valChars, chars} */
    this.config = Object.freeze({ ...info });
    finalizer?.register(this, { call, id: info.id }, this);
  }
  #live() {
    const id = this.#id ?? -1;   // no model has id -1: the core reports a disposed model
    return (r) => r.number(id);
  }
  /** Train n steps (AdamW on seeded batches): {loss (mean of the n steps), step}. */
  trainSteps(n = 1) { return this.#call('trainSteps', this.#live(), A.number('n', n)); }
  /** Mean loss on fixed seeded batches of each split: {train, val}. */
  evaluate(batches = 4) { return this.#call('evaluate', this.#live(), A.number('batches', batches)); }
  /** Text generated after `prompt` (or from the text's first character). */
  sample({ prompt = '', length = 80, temperature = 1, seed = 0 } = {}) {
    return this.#call('sample', this.#live(), A.string('opts.prompt', prompt), A.number('opts.length', length),
      A.number('opts.temperature', temperature), A.number('opts.seed', seed));
  }
  /** Attention weights for `text`: one tensor (heads, T, T) per layer. */
  attention(text) { return this.#call('attention', this.#live(), A.string('text', text)); }
  /** Replace the characters after t and compare logits: {maxPrefixChange, maxFutureChange, perPosition}. */
  futureCheck(text, { t = 0, seed = 0 } = {}) {
    return this.#call('futureCheck', this.#live(), A.string('text', text),
      A.number('opts.t', t), A.number('opts.seed', seed));
  }
  /** A copy of every parameter, in the core's layout. */
  parameters() { return this.#call('parameters', this.#live()); }
  dispose() {
    if (this.#id === null) return;
    const id = this.#id;
    this.#call('dispose', (r) => r.number(id));
    finalizer?.unregister(this);
    this.#id = null;
  }
}

function makeApi(m) {
  const call = makeCall(m);
  const errors = JSON.parse(m.errorTable());
  const api = {
    /** {code: [parameter names]}: every code an Error from the core may carry (error.code, error.params). */
    errorCodes: deepFreeze(errors.codes),
    /** {parameter name: kind}: name, text, number, shape, index or list (README, "Errors"). */
    errorParams: deepFreeze(errors.params),
    /** Seeded N(0, std^2) tensor; the same numbers natively and in WebAssembly. */
    randn: (shape, seed = 0, std = 1) =>
      call('randn', A.numbers('shape', shape), A.number('seed', seed), A.number('std', std)),
    causalAverage: (x, opts) => call('causalAverage', A.tensor('x', x), A.options(opts)),
    averagingMatrix: (T, opts) => call('averagingMatrix', A.number('T', T), A.options(opts)),
    maxAbsDiff: (a, b) => call('maxAbsDiff', A.tensor('a', a), A.tensor('b', b)),
    sum: (x, opts) => call('sum', A.tensor('x', x), A.options(opts)),
    matmul: (a, b) => call('matmul', A.tensor('a', a), A.tensor('b', b)),
    maskMatrix: (Tq, Tk, opts) => call('maskMatrix', A.number('Tq', Tq), A.number('Tk', Tk), A.options(opts)),
    sdpaReference: (q, k, v, opts) => call('sdpaReference', A.tensor('q', q), A.tensor('k', k),
      A.tensor('v', v), A.options(opts)),
    softmax: (scores, opts) => call('softmax', A.tensor('scores', scores), A.options(opts)),
    sdpa: (q, k, v, opts) => call('sdpa', A.tensor('q', q), A.tensor('k', k), A.tensor('v', v), A.options(opts)),
    sdpaBackward: (q, k, v, gradOut, opts) => call('sdpaBackward', A.tensor('q', q), A.tensor('k', k),
      A.tensor('v', v), A.tensor('gradOut', gradOut), A.options(opts)),
    linearWeightToMath: (w) => call('linearWeightToMath', A.tensor('w', w)),
    mathWeightToLinear: (w) => call('mathWeightToLinear', A.tensor('w', w)),
    multiHeadAttention: (x, opts) => call('multiHeadAttention', A.tensor('x', x), A.options(opts)),
    multiHeadAttentionBackward: (x, gradOut, opts) => call('multiHeadAttentionBackward', A.tensor('x', x),
      A.tensor('gradOut', gradOut), A.options(opts)),
    attentionStats: (weights) => call('attentionStats', A.tensor('weights', weights)),
    dotProductVariance: (dims, opts) => call('dotProductVariance', A.numbers('dims', dims), A.options(opts)),
    softmaxSharpening: (logits, factor = 8) =>
      call('softmaxSharpening', A.tensor('logits', logits), A.number('factor', factor)),
    positions: (kind, T, C, opts) => call('positions', A.string('kind', kind), A.number('T', T),
      A.number('C', C), A.options(opts)),
    permutationCheck: (x, opts) => call('permutationCheck', A.tensor('x', x), A.options(opts)),
    gradcheck: (kind, opts) => call('gradcheck', A.string('kind', kind), A.options(opts)),
    futureProbe: (x, opts) => call('futureProbe', A.tensor('x', x), A.options(opts)),
    dropout: (x, opts) => call('dropout', A.tensor('x', x), A.options(opts)),
    dropoutStats: (weights, opts) => call('dropoutStats', A.tensor('weights', weights), A.options(opts)),
    /**
     * A character GPT trained on `text`: {C, heads, layers, tMax, seed, causal, batch, T, lr}.
     * Returns a GptModel; call model.dispose() when done (a finalizer frees forgotten ones).
     */
    createModel: (text, opts) => new GptModel(call, A.string('text', text), A.options(opts)),
    /** Gradient check of the whole GPT on a tiny configuration: {passed, maxAbsError, params}. */
    gptGradcheck: (seed = 0) => call('gptGradcheck', A.number('seed', seed)),
    /** {heapInUse, memoryBytes, wireBytes, emvalHandles}: for leak tests and the curious. */
    memoryStats: () => ({ ...call('memoryStats'), emvalHandles: m.count_emval_handles() }),
    /** A PyTorch (float64) program reproducing one call: toPyTorch('softmax', [scores, opts]) (pytorch.js; JS only). */
    toPyTorch,
  };
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
  const build = (axis, offset) => {
    if (axis === shape.length) return data[offset];
    const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    return Array.from({ length: shape[axis] }, (_, i) => build(axis + 1, offset + i * stride));
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
