// The JS API over the Embind module, without knowing where the .wasm file lives (index.js does):
// a Web Worker imports this and instantiates a WebAssembly.Module it was sent.
//
// A thin layer over the Embind module (wasm/bindings/bindings.cpp). It checks the *JS types*
// of arguments (a tensor is {shape: number[], data: Float64Array | number[]}), copies them into
// the canonical form, calls the core, and throws an Error when the core reports one. Shapes,
// ranks, option names and values are checked in one place: the C++ core.
import createAttnCore from './gen/attn_core.js';

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name} of length ${v.length}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

/** Canonical tensor {shape, data: Float64Array} from a tensor-like value; throws naming `name`. */
function tensorArg(fn, name, t, { bool = false } = {}) {
  const what = `${fn}: ${name} must be a tensor {shape: number[], data: ${bool ? 'Uint8Array' : 'Float64Array'}}`;
  if (t === null || typeof t !== 'object' || Array.isArray(t) || ArrayBuffer.isView(t)) {
    throw new Error(`${what}, got ${describe(t)}`);
  }
  const { shape, data } = t;
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number')) {
    throw new Error(`${what}; its shape is ${describe(shape)}, not an array of numbers`);
  }
  if (bool) {
    if (data instanceof Uint8Array) return { shape, data };
    if (Array.isArray(data) && data.every((v) => v === 0 || v === 1 || typeof v === 'boolean')) {
      return { shape, data: Uint8Array.from(data, (v) => (v ? 1 : 0)) };
    }
    throw new Error(`${what}; its data is ${describe(data)}, not 0/1 or true/false values`);
  }
  if (data instanceof Float64Array) return { shape, data };
  if (Array.isArray(data)) {
    const bad = data.findIndex((v) => typeof v !== 'number');
    if (bad >= 0) throw new Error(`${fn}: ${name}.data[${bad}] must be a number, got ${describe(data[bad])}`);
    return { shape, data: Float64Array.from(data) };
  }
  if (ArrayBuffer.isView(data) && !(data instanceof DataView) && typeof data[0] !== 'bigint') {
    return { shape, data: Float64Array.from(data) };
  }
  throw new Error(`${what}; its data is ${describe(data)}`);
}

function numberArg(fn, name, v) {
  if (typeof v !== 'number') throw new Error(`${fn}: ${name} must be a number, got ${describe(v)}`);
  return v;
}

function stringArg(fn, name, v) {
  if (typeof v !== 'string') throw new Error(`${fn}: ${name} must be a string, got ${describe(v)}`);
  return v;
}

function numberArrayArg(fn, name, v) {
  if (!Array.isArray(v) && !ArrayBuffer.isView(v)) throw new Error(`${fn}: ${name} must be an array of numbers, got ${describe(v)}`);
  const bad = Array.prototype.findIndex.call(v, (d) => typeof d !== 'number');
  if (bad >= 0) throw new Error(`${fn}: ${name}[${bad}] must be a number, got ${describe(v[bad])}`);
  return Array.from(v);
}

/** Options: a plain object of booleans, numbers, strings and tensors (the `mask` tensor is boolean). */
function optionsArg(fn, opts) {
  if (opts === undefined || opts === null) return {};
  if (typeof opts !== 'object' || Array.isArray(opts) || ArrayBuffer.isView(opts)) {
    throw new Error(`${fn}: options must be a plain object, got ${describe(opts)}`);
  }
  const out = {};
  for (const [key, v] of Object.entries(opts)) {
    if (v === undefined) continue;
    if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') out[key] = v;
    else if (v !== null && typeof v === 'object') {
      out[key] = tensorArg(fn, `option '${key}'`, v, { bool: key === 'mask' });
    } else throw new Error(`${fn}: option '${key}' has an unsupported value: ${describe(v)}`);
  }
  return out;
}

// ---- The wire (see wasm/bindings/bindings.cpp) ----------------------------------------------
// A request is a list of numbers (argument descriptions, then tensor data) and a list of bytes
// (strings, boolean masks), written into reused regions of the WASM heap; one call runs it.
const TAG = { number: 0, string: 1, tensor: 2, boolTensor: 3, options: 4, bool: 5, numbers: 6 };
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
      else if (v.data instanceof Uint8Array) this.boolTensor(`option '${key}'`, v);
      else this.tensor(`option '${key}'`, v);
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
  return (name, ...args) => {
    const r = request.reset();
    r.push(args.length);
    for (const a of args) a(r);
    const header = r.n;
    if (m.reserve(header + r.dataLength, r.bytes) !== 0) {
      throw new Error(`${name}: the arguments hold ${header + r.dataLength} numbers and ${r.bytes} bytes, more than this tab's WebAssembly memory can take`);
    }
    let F = m.HEAPF64;   // read after reserve: memory may have grown
    const U = m.HEAPU8;
    let at = F[desc] / 8;
    F.set(headBuf.subarray(0, header), at);
    at += header;
    for (const d of r.data) { F.set(d, at); at += d.length; }
    let b = F[desc + 1];
    for (const c of r.chunks) { U.set(c, b); b += c.length; }
    const status = m.call(index.get(name), header);
    F = m.HEAPF64;
    // the same structure as the previous call (same function, same shapes): reuse its builder
    if (status !== 0 || F[desc + 7] !== 1) {
      const json = decoder.decode(m.HEAPU8.subarray(F[desc + 5], F[desc + 5] + F[desc + 6]));
      if (status !== 0) throw new Error(json);
      lastBuilder = builder(json);
    }
    const outAt = F[desc + 3] / 8;
    return lastBuilder(F.slice(outAt, outAt + F[desc + 4]));
  };
}

// argument builders: each returns a function that adds itself to a Request
const A = {
  tensor: (fn, name, t) => { const c = tensorArg(fn, name, t); return (r) => r.tensor(`${fn}: ${name}`, c); },
  options: (fn, o) => { const c = optionsArg(fn, o); return (r) => r.options(c); },
  number: (fn, name, v) => { const c = numberArg(fn, name, v); return (r) => r.number(c); },
  string: (fn, name, v) => { const c = stringArg(fn, name, v); return (r) => r.string(c); },
  numbers: (fn, name, v) => { const c = numberArrayArg(fn, name, v); return (r) => r.numbers(c); },
};

const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(({ call, id }) => call('gptFree', (r) => r.number(id))) : null;

/** A character GPT living in the WASM core (see wasm/include/attn/gpt.hpp). */
class GptModel {
  #call;
  #id;
  constructor(call, text, opts) {
    const info = call('gptCreate', (r) => r.string(text), (r) => r.options(opts));
    this.#call = call;
    this.#id = info.id;
    /** {vocab, C, heads, layers, tMax, seed, causal, batch, T, lr, params, unigramEntropy, trainChars, valChars, chars} */
    this.config = Object.freeze({ ...info });
    finalizer?.register(this, { call, id: info.id }, this);
  }
  #live(fn) {
    if (this.#id === null) throw new Error(`${fn}: this model was disposed`);
    const id = this.#id;
    return (r) => r.number(id);
  }
  /** Train n steps (AdamW on seeded batches): {loss (mean of the n steps), step}. */
  trainSteps(n = 1) { return this.#call('gptTrain', this.#live('trainSteps'), A.number('trainSteps', 'n', n)); }
  /** Mean loss on fixed seeded batches of each split: {train, val}. */
  evaluate(batches = 4) { return this.#call('gptEvaluate', this.#live('evaluate'), A.number('evaluate', 'batches', batches)); }
  /** Text generated after `prompt` (or from the text's first character). */
  sample({ prompt = '', length = 80, temperature = 1, seed = 0 } = {}) {
    return this.#call('gptSample', this.#live('sample'), A.string('sample', 'prompt', prompt), A.number('sample', 'length', length),
      A.number('sample', 'temperature', temperature), A.number('sample', 'seed', seed));
  }
  /** Attention weights for `text`: one tensor (heads, T, T) per layer. */
  attention(text) { return this.#call('gptAttention', this.#live('attention'), A.string('attention', 'text', text)); }
  /** Replace the characters after t and compare logits: {maxPrefixChange, maxFutureChange, perPosition}. */
  futureCheck(text, { t = 0, seed = 0 } = {}) {
    return this.#call('gptFutureCheck', this.#live('futureCheck'), A.string('futureCheck', 'text', text),
      A.number('futureCheck', 't', t), A.number('futureCheck', 'seed', seed));
  }
  /** A copy of every parameter, in the core's layout. */
  parameters() { return this.#call('gptParams', this.#live('parameters')); }
  dispose() {
    if (this.#id === null) return;
    const id = this.#id;
    this.#call('gptFree', (r) => r.number(id));
    finalizer?.unregister(this);
    this.#id = null;
  }
}

function makeApi(m) {
  const call = makeCall(m);
  const api = {
    /** Seeded N(0, std^2) tensor; the same numbers natively and in WebAssembly. */
    randn: (shape, seed = 0, std = 1) =>
      call('randn', A.numbers('randn', 'shape', shape), A.number('randn', 'seed', seed), A.number('randn', 'std', std)),
    causalAverage: (x, opts) => call('causalAverage', A.tensor('causalAverage', 'x', x), A.options('causalAverage', opts)),
    averagingMatrix: (T, opts) => call('averagingMatrix', A.number('averagingMatrix', 'T', T), A.options('averagingMatrix', opts)),
    maxAbsDiff: (a, b) => call('maxAbsDiff', A.tensor('maxAbsDiff', 'a', a), A.tensor('maxAbsDiff', 'b', b)),
    sum: (x, opts) => call('sum', A.tensor('sum', 'x', x), A.options('sum', opts)),
    matmul: (a, b) => call('matmul', A.tensor('matmul', 'a', a), A.tensor('matmul', 'b', b)),
    maskMatrix: (Tq, Tk, opts) => call('maskMatrix', A.number('maskMatrix', 'Tq', Tq), A.number('maskMatrix', 'Tk', Tk), A.options('maskMatrix', opts)),
    sdpaReference: (q, k, v, opts) => call('sdpaReference', A.tensor('sdpaReference', 'q', q), A.tensor('sdpaReference', 'k', k),
      A.tensor('sdpaReference', 'v', v), A.options('sdpaReference', opts)),
    softmax: (scores, opts) => call('softmax', A.tensor('softmax', 'scores', scores), A.options('softmax', opts)),
    sdpa: (q, k, v, opts) => call('sdpa', A.tensor('sdpa', 'q', q), A.tensor('sdpa', 'k', k), A.tensor('sdpa', 'v', v), A.options('sdpa', opts)),
    sdpaBackward: (q, k, v, gradOut, opts) => call('sdpaBackward', A.tensor('sdpaBackward', 'q', q), A.tensor('sdpaBackward', 'k', k),
      A.tensor('sdpaBackward', 'v', v), A.tensor('sdpaBackward', 'gradOut', gradOut), A.options('sdpaBackward', opts)),
    linearWeightToMath: (w) => call('linearWeightToMath', A.tensor('linearWeightToMath', 'w', w)),
    mathWeightToLinear: (w) => call('mathWeightToLinear', A.tensor('mathWeightToLinear', 'w', w)),
    multiHeadAttention: (x, opts) => call('multiHeadAttention', A.tensor('multiHeadAttention', 'x', x), A.options('multiHeadAttention', opts)),
    multiHeadAttentionBackward: (x, gradOut, opts) => call('multiHeadAttentionBackward', A.tensor('multiHeadAttentionBackward', 'x', x),
      A.tensor('multiHeadAttentionBackward', 'gradOut', gradOut), A.options('multiHeadAttentionBackward', opts)),
    attentionStats: (weights) => call('attentionStats', A.tensor('attentionStats', 'weights', weights)),
    dotProductVariance: (dims, { samples = 2000, seed = 0, ...rest } = {}) => {
      const extra = Object.keys(rest);
      if (extra.length) throw new Error(`dotProductVariance: unknown option '${extra[0]}' (known: samples, seed)`);
      return call('dotProductVariance', A.numbers('dotProductVariance', 'dims', dims),
        A.number('dotProductVariance', 'samples', samples), A.number('dotProductVariance', 'seed', seed));
    },
    softmaxSharpening: (logits, factor = 8) =>
      call('softmaxSharpening', A.tensor('softmaxSharpening', 'logits', logits), A.number('softmaxSharpening', 'factor', factor)),
    positions: (kind, T, C, opts) => call('positions', A.string('positions', 'kind', kind), A.number('positions', 'T', T),
      A.number('positions', 'C', C), A.options('positions', opts)),
    permutationCheck: (x, opts) => call('permutationCheck', A.tensor('permutationCheck', 'x', x), A.options('permutationCheck', opts)),
    gradcheck: (kind, opts) => call('gradcheck', A.string('gradcheck', 'kind', kind), A.options('gradcheck', opts)),
    futureProbe: (x, opts) => call('futureProbe', A.tensor('futureProbe', 'x', x), A.options('futureProbe', opts)),
    dropout: (x, opts) => call('dropout', A.tensor('dropout', 'x', x), A.options('dropout', opts)),
    dropoutStats: (weights, opts) => call('dropoutStats', A.tensor('dropoutStats', 'weights', weights), A.options('dropoutStats', opts)),
    /**
     * A character GPT trained on `text`: {C, heads, layers, tMax, seed, causal, batch, T, lr}.
     * Returns a GptModel; call model.dispose() when done (a finalizer frees forgotten ones).
     */
    createModel: (text, opts) => new GptModel(call, stringArg('createModel', 'text', text), optionsArg('createModel', opts)),
    /** Gradient check of the whole GPT on a tiny configuration: {passed, maxAbsError, params}. */
    gptGradcheck: (seed = 0) => call('gptGradcheck', A.number('gptGradcheck', 'seed', seed)),
    /** {heapInUse, memoryBytes, wireBytes, emvalHandles}: for leak tests and the curious. */
    memoryStats: () => ({ ...call('memoryStats'), emvalHandles: m.count_emval_handles() }),
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
