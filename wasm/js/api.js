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

function unwrap(result) {
  if (result && typeof result === 'object' && '__error' in result) throw new Error(result.__error);
  return result;
}

const finalizer = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(({ m, id }) => m.gptFree(id)) : null;

/** A character GPT living in the WASM core (see wasm/include/attn/gpt.hpp). */
class GptModel {
  #m;
  #id;
  constructor(m, text, opts) {
    const info = unwrap(m.gptCreate(text, opts));
    this.#m = m;
    this.#id = info.id;
    /** {vocab, C, heads, layers, tMax, seed, causal, batch, T, lr, params, unigramEntropy, trainChars, valChars, chars} */
    this.config = Object.freeze({ ...info });
    finalizer?.register(this, { m, id: info.id }, this);
  }
  #live(fn) {
    if (this.#id === null) throw new Error(`${fn}: this model was disposed`);
    return this.#id;
  }
  /** Train n steps (AdamW on seeded batches): {loss (mean of the n steps), step}. */
  trainSteps(n = 1) { return unwrap(this.#m.gptTrain(this.#live('trainSteps'), numberArg('trainSteps', 'n', n))); }
  /** Mean loss on fixed seeded batches of each split: {train, val}. */
  evaluate(batches = 4) { return unwrap(this.#m.gptEvaluate(this.#live('evaluate'), numberArg('evaluate', 'batches', batches))); }
  /** Text generated after `prompt` (or from the text's first character). */
  sample({ prompt = '', length = 80, temperature = 1, seed = 0 } = {}) {
    return unwrap(this.#m.gptSample(this.#live('sample'), stringArg('sample', 'prompt', prompt), numberArg('sample', 'length', length),
      numberArg('sample', 'temperature', temperature), numberArg('sample', 'seed', seed)));
  }
  /** Attention weights for `text`: one tensor (heads, T, T) per layer. */
  attention(text) { return unwrap(this.#m.gptAttention(this.#live('attention'), stringArg('attention', 'text', text))); }
  /** Replace the characters after t and compare logits: {maxPrefixChange, maxFutureChange, perPosition}. */
  futureCheck(text, { t = 0, seed = 0 } = {}) {
    return unwrap(this.#m.gptFutureCheck(this.#live('futureCheck'), stringArg('futureCheck', 'text', text),
      numberArg('futureCheck', 't', t), numberArg('futureCheck', 'seed', seed)));
  }
  /** A copy of every parameter, in the core's layout. */
  parameters() { return unwrap(this.#m.gptParams(this.#live('parameters'))); }
  dispose() {
    if (this.#id === null) return;
    this.#m.gptFree(this.#id);
    finalizer?.unregister(this);
    this.#id = null;
  }
}

function makeApi(m) {
  const api = {
    /** Seeded N(0, std^2) tensor; the same numbers natively and in WebAssembly. */
    randn: (shape, seed = 0, std = 1) =>
      unwrap(m.randn(numberArrayArg('randn', 'shape', shape), numberArg('randn', 'seed', seed), numberArg('randn', 'std', std))),
    causalAverage: (x, opts) =>
      unwrap(m.causalAverage(tensorArg('causalAverage', 'x', x), optionsArg('causalAverage', opts))),
    averagingMatrix: (T, opts) =>
      unwrap(m.averagingMatrix(numberArg('averagingMatrix', 'T', T), optionsArg('averagingMatrix', opts))),
    maxAbsDiff: (a, b) =>
      unwrap(m.maxAbsDiff(tensorArg('maxAbsDiff', 'a', a), tensorArg('maxAbsDiff', 'b', b))),
    sum: (x, opts) => unwrap(m.sum(tensorArg('sum', 'x', x), optionsArg('sum', opts))),
    matmul: (a, b) => unwrap(m.matmul(tensorArg('matmul', 'a', a), tensorArg('matmul', 'b', b))),
    maskMatrix: (Tq, Tk, opts) =>
      unwrap(m.maskMatrix(numberArg('maskMatrix', 'Tq', Tq), numberArg('maskMatrix', 'Tk', Tk), optionsArg('maskMatrix', opts))),
    sdpaReference: (q, k, v, opts) =>
      unwrap(m.sdpaReference(tensorArg('sdpaReference', 'q', q), tensorArg('sdpaReference', 'k', k),
        tensorArg('sdpaReference', 'v', v), optionsArg('sdpaReference', opts))),
    softmax: (scores, opts) =>
      unwrap(m.softmax(tensorArg('softmax', 'scores', scores), optionsArg('softmax', opts))),
    sdpa: (q, k, v, opts) =>
      unwrap(m.sdpa(tensorArg('sdpa', 'q', q), tensorArg('sdpa', 'k', k), tensorArg('sdpa', 'v', v), optionsArg('sdpa', opts))),
    sdpaBackward: (q, k, v, gradOut, opts) =>
      unwrap(m.sdpaBackward(tensorArg('sdpaBackward', 'q', q), tensorArg('sdpaBackward', 'k', k),
        tensorArg('sdpaBackward', 'v', v), tensorArg('sdpaBackward', 'gradOut', gradOut), optionsArg('sdpaBackward', opts))),
    linearWeightToMath: (w) => unwrap(m.linearWeightToMath(tensorArg('linearWeightToMath', 'w', w))),
    mathWeightToLinear: (w) => unwrap(m.mathWeightToLinear(tensorArg('mathWeightToLinear', 'w', w))),
    multiHeadAttention: (x, opts) =>
      unwrap(m.multiHeadAttention(tensorArg('multiHeadAttention', 'x', x), optionsArg('multiHeadAttention', opts))),
    multiHeadAttentionBackward: (x, gradOut, opts) =>
      unwrap(m.multiHeadAttentionBackward(tensorArg('multiHeadAttentionBackward', 'x', x),
        tensorArg('multiHeadAttentionBackward', 'gradOut', gradOut), optionsArg('multiHeadAttentionBackward', opts))),
    attentionStats: (weights) => unwrap(m.attentionStats(tensorArg('attentionStats', 'weights', weights))),
    dotProductVariance: (dims, { samples = 2000, seed = 0, ...rest } = {}) => {
      optionsArg('dotProductVariance', rest);
      const extra = Object.keys(rest);
      if (extra.length) throw new Error(`dotProductVariance: unknown option '${extra[0]}' (known: samples, seed)`);
      return unwrap(m.dotProductVariance(numberArrayArg('dotProductVariance', 'dims', dims),
        numberArg('dotProductVariance', 'samples', samples), numberArg('dotProductVariance', 'seed', seed)));
    },
    softmaxSharpening: (logits, factor = 8) =>
      unwrap(m.softmaxSharpening(tensorArg('softmaxSharpening', 'logits', logits), numberArg('softmaxSharpening', 'factor', factor))),
    positions: (kind, T, C, opts) =>
      unwrap(m.positions(stringArg('positions', 'kind', kind), numberArg('positions', 'T', T),
        numberArg('positions', 'C', C), optionsArg('positions', opts))),
    permutationCheck: (x, opts) =>
      unwrap(m.permutationCheck(tensorArg('permutationCheck', 'x', x), optionsArg('permutationCheck', opts))),
    gradcheck: (kind, opts) => unwrap(m.gradcheck(stringArg('gradcheck', 'kind', kind), optionsArg('gradcheck', opts))),
    futureProbe: (x, opts) => unwrap(m.futureProbe(tensorArg('futureProbe', 'x', x), optionsArg('futureProbe', opts))),
    dropout: (x, opts) => unwrap(m.dropout(tensorArg('dropout', 'x', x), optionsArg('dropout', opts))),
    dropoutStats: (weights, opts) =>
      unwrap(m.dropoutStats(tensorArg('dropoutStats', 'weights', weights), optionsArg('dropoutStats', opts))),
    /**
     * A character GPT trained on `text`: {C, heads, layers, tMax, seed, causal, batch, T, lr}.
     * Returns a GptModel; call model.dispose() when done (a finalizer frees forgotten ones).
     */
    createModel: (text, opts) => new GptModel(m, stringArg('createModel', 'text', text), optionsArg('createModel', opts)),
    /** Gradient check of the whole GPT on a tiny configuration: {passed, maxAbsError, params}. */
    gptGradcheck: (seed = 0) => unwrap(m.gptGradcheck(numberArg('gptGradcheck', 'seed', seed))),
    /** {heapInUse, memoryBytes, emvalHandles}: for leak tests and the curious. */
    memoryStats: () => ({ ...m.memoryStats(), emvalHandles: m.count_emval_handles() }),
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
