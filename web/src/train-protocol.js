// The messages between 18.8 (sections/s18-8/training.js) and the training worker
// (train-worker.js), declared once: each type with its fields. Both sides build messages with
// `message()` and read them with `dispatcher()`, which check every message against this table, so
// a renamed or forgotten field is an error at the first message, not a blank chart.

/** The worker evaluates the model (training and validation loss, EVAL_BATCHES batches of fixed windows each) every EVAL_EVERY steps; the page says so. */
export const EVAL_EVERY = 50, EVAL_BATCHES = 8;

/** Page -> worker. */
export const REQUESTS = {
  init: ['module', 'bytes'],                              // the compiled core (same origin) or its bytes (file://); one is null
  reset: ['text', 'options'],                             // a new model: createModel(text, options)
  start: ['until'],                                       // train until step `until` (then `paused`), or on (null)
  pause: [],
  sample: ['prompt', 'length', 'temperature', 'seed'],
  attention: ['text'],                                    // the maps of the text, by the model and by its untrained twin
  patterns: [],                                           // what each head attends to, measured (model.headPatterns), now and untrained
  future: ['text', 't', 'seed'],
  trace: ['text', 'layer'],                               // the step-through: one block's activations (model.blockTrace)
  parameters: [],                                         // for "Show as PyTorch": the model's parameters
};

/** Worker -> page. */
export const REPLIES = {
  ready: [],
  // a new model: its config (vocab, chars, unigramEntropy, params, ...) and its first evaluation
  model: ['config', 'point'],
  // about 8 a second while training: the step, the mean training loss of the slice, speeds, the
  // seconds spent training so far; `point` is a new evaluation {step, seconds, train, val, trainSe,
  // valSe} (model.evaluate: the same fixed windows of each split, their standard errors) or null;
  // `due` is true when a new sample and new maps are worth asking for
  progress: ['step', 'loss', 'stepsPerSec', 'tokensPerSec', 'seconds', 'point', 'due'],
  paused: ['step'],                                       // after `pause`, or at the step `start` asked for
  sample: ['text', 'step'],
  attention: ['text', 'maps', 'untrained', 'step'],      // maps, untrained: one (heads, T, T) tensor per layer
  patterns: ['result', 'untrained', 'step'],              // model.headPatterns() of the model and of its untrained twin
  future: ['text', 't', 'result', 'step'],
  trace: ['text', 'layer', 'trace', 'step'],
  parameters: ['params', 'step'],                         // Float64Array in the core's flat layout (transferred)
  // a failed request; code and params are the core's (messages.js renders them), null for other errors
  error: ['request', 'message', 'code', 'params'],
};

function checked(table, m) {
  const fields = table[m?.type];
  if (!fields) throw new Error(`training worker protocol: unknown message type ${String(m?.type).slice(0, 40)}`);
  const keys = Object.keys(m).filter((k) => k !== 'type');
  const extra = keys.filter((k) => !fields.includes(k)), missing = fields.filter((k) => !(k in m));
  if (extra.length || missing.length) {
    throw new Error(`training worker protocol: '${m.type}' ${missing.length ? `lacks ${missing.join(', ')}` : ''}${extra.length ? ` has unknown ${extra.join(', ')}` : ''}`);
  }
  return m;
}

/** A message of `table` (REQUESTS or REPLIES): message(REPLIES, 'paused', {step}). */
export function message(table, type, fields = {}) {
  return checked(table, { type, ...fields });
}

/** Call handlers[m.type](m, ...rest) after checking m against `table`, and return what it returns; every type needs a handler. */
export function dispatcher(table, handlers) {
  const missing = Object.keys(table).filter((k) => typeof handlers[k] !== 'function');
  if (missing.length) throw new Error(`training worker protocol: no handler for ${missing.join(', ')}`);
  return (m, ...rest) => handlers[checked(table, m).type](m, ...rest);
}
