// Trains the character GPT off the main thread, so the page stays responsive. It receives the
// compiled WebAssembly.Module (or its bytes) from the page and answers the requests declared in
// train-protocol.js. While training it posts a `progress` message after each slice of about
// 120 ms, carrying a new evaluation point every EVAL_EVERY steps (only the new point: the page
// keeps the history, thinned, so a message costs the same after an hour as after a minute) and
// saying when a new sample is due (at the first evaluation, then every SAMPLE_EVERY steps).
import { instantiateCore } from '../../wasm/js/api.js';
import { REQUESTS, REPLIES, EVAL_EVERY, EVAL_BATCHES, message, dispatcher } from './train-protocol.js';

const SAMPLE_EVERY = 200, SLICE_MS = 120;
let core = null, model = null, running = false, step = 0, seconds = 0, until = Infinity;
// The model as it was built, never trained (the same text and options, so the same seeded
// weights): the sentence view's "before" and the tour's step 0. Built when first asked for, and
// kept while resets build the same model again.
let twin = null, twinOf = null, twinPatterns = null, built = null;
const post = (type, fields) => postMessage(message(REPLIES, type, fields));

/** The model's loss on the same fixed windows of each split, now: {step, seconds, train, val, trainSe, valSe}. */
function evaluate() {
  return { step, seconds, ...model.evaluate(EVAL_BATCHES) };
}

/** The untrained twin of the model now on the worker. */
function untrained() {
  if (twinOf !== built) {
    twin?.dispose();
    twin = core.createModel(built.text, built.options);
    twinOf = built;
    twinPatterns = null;
  }
  return twin;
}

function loop() {
  if (!running || !model) return;
  const t0 = performance.now();
  let steps = 0, loss = 0;
  const startStep = step;
  while (performance.now() - t0 < SLICE_MS && step < until) {
    const r = model.trainSteps(1);
    step = r.step;
    loss += r.loss;
    steps += 1;
    if (step % EVAL_EVERY === 0) break;
  }
  const trained = (performance.now() - t0) / 1000;
  seconds += trained;
  let point = null;
  if (Math.floor(step / EVAL_EVERY) > Math.floor(startStep / EVAL_EVERY)) {
    const t1 = performance.now();
    point = evaluate();
    seconds += (performance.now() - t1) / 1000;   // evaluating is part of the time the student waits
  }
  post('progress', { step, loss: loss / steps, stepsPerSec: steps / trained, tokensPerSec: (steps * model.config.batch * model.config.T) / trained,
    seconds, point, due: (startStep < EVAL_EVERY && step >= EVAL_EVERY) || Math.floor(step / SAMPLE_EVERY) > Math.floor(startStep / SAMPLE_EVERY) });
  if (step >= until) {
    running = false;
    post('paused', { step });
    return;
  }
  setTimeout(loop, 0);   // let queued requests (pause, sample, attention) in between slices
}

function needModel() {
  if (!model) throw new Error('no model yet');
  return model;
}

const handle = dispatcher(REQUESTS, {
  async init(m) {
    core = await instantiateCore(m.module ? { module: m.module } : { wasmBinary: m.bytes });
    post('ready');
  },
  reset(m) {
    running = false;
    model?.dispose();
    model = null;
    model = core.createModel(m.text, m.options);
    // the same text and options as the twin's: the same untrained model, the twin stays
    const key = JSON.stringify(m.options);
    built = built?.text === m.text && built.key === key ? built : { text: m.text, options: m.options, key };
    step = 0;
    seconds = 0;
    post('model', { config: model.config, point: evaluate() });
  },
  start(m) {
    needModel();
    until = m.until ?? Infinity;
    if (!running && step < until) { running = true; loop(); }
  },
  pause() {
    running = false;
    post('paused', { step });
  },
  sample(m) {
    // only the options: the core rejects an option it does not know (the message's `type`)
    post('sample', { text: needModel().sample({ prompt: m.prompt, length: m.length, temperature: m.temperature, seed: m.seed }), step });
  },
  attention(m) {
    const maps = needModel().attention(m.text);
    post('attention', { text: m.text, maps, untrained: untrained().attention(m.text), step });
  },
  patterns() {
    const result = needModel().headPatterns();
    twinPatterns ??= untrained().headPatterns();
    post('patterns', { result, untrained: twinPatterns, step });
  },
  future(m) {
    post('future', { text: m.text, t: m.t, result: needModel().futureCheck(m.text, { t: m.t, seed: m.seed }), step });
  },
  trace(m) {
    post('trace', { text: m.text, layer: m.layer, trace: needModel().blockTrace(m.text, { layer: m.layer }), step });
  },
  parameters() {
    const params = needModel().parameters();
    postMessage(message(REPLIES, 'parameters', { params, step }), [params.buffer]);
  },
});

// A message that could not be deserialized (e.g. a WebAssembly.Module sent across origins).
onmessageerror = () => post('error', { request: 'init', message: 'the training worker could not receive the WebAssembly core', code: null, params: null });

onmessage = async ({ data }) => {
  try {
    await handle(data);
  } catch (e) {
    if (data?.type === 'reset') running = false;
    post('error', { request: String(data?.type).slice(0, 40), message: e.message, code: e.code ?? null, params: e.params ?? null });
  }
};
