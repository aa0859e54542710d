// Trains the character GPT off the main thread, so the page stays responsive. It receives the
// compiled WebAssembly.Module from the page, and answers requests with messages:
//   in:  init {module} or {bytes} | reset {text, options} | start | pause | sample {prompt, length, temperature, seed}
//        | attention {text} | future {text, t, seed}
//   out: ready | model {config, train, val} | progress {...} | sample | attention | future | error {message, request}
import { instantiateCore } from '../../wasm/js/api.js';

let core = null, model = null, running = false, history = [], step = 0;
const EVAL_EVERY = 25, SAMPLE_EVERY = 100, SLICE_MS = 120;
const post = (m) => postMessage(m);

function evaluate() {
  const e = model.evaluate(4);
  history.push({ step, train: e.train, val: e.val });
  return e;
}

function loop() {
  if (!running || !model) return;
  const t0 = performance.now();
  let steps = 0, loss = 0;
  const startStep = step;
  while (performance.now() - t0 < SLICE_MS) {
    const r = model.trainSteps(1);
    step = r.step;
    loss += r.loss;
    steps += 1;
    if (step % EVAL_EVERY === 0) break;
  }
  const seconds = (performance.now() - t0) / 1000;
  const msg = { type: 'progress', step, loss: loss / steps, stepsPerSec: steps / seconds,
    tokensPerSec: (steps * model.config.batch * model.config.T) / seconds };
  if (Math.floor(step / EVAL_EVERY) > Math.floor(startStep / EVAL_EVERY)) { evaluate(); msg.history = history; }
  if (Math.floor(step / SAMPLE_EVERY) > Math.floor(startStep / SAMPLE_EVERY)) msg.sampleDue = true;
  post(msg);
  setTimeout(loop, 0);   // let queued requests (pause, sample, attention) in between slices
}

// A message that could not be deserialized (e.g. a WebAssembly.Module sent across origins).
onmessageerror = () => post({ type: 'error', request: 'init', message: 'the training worker could not receive the WebAssembly core' });

onmessage = async ({ data: msg }) => {
  try {
    switch (msg.type) {
      case 'init':
        core = await instantiateCore(msg.module ? { module: msg.module } : { wasmBinary: msg.bytes });
        post({ type: 'ready' });
        break;
      case 'reset':
        running = false;
        model?.dispose();
        model = null;
        history = [];
        model = core.createModel(msg.text, msg.options);
        step = 0;
        evaluate();
        post({ type: 'model', config: model.config, history });
        break;
      case 'start':
        if (!model) throw new Error('no model yet');
        if (!running) { running = true; loop(); }
        break;
      case 'pause':
        running = false;
        post({ type: 'paused', step });
        break;
      case 'sample':
        if (!model) throw new Error('no model yet');
        post({ type: 'sample', text: model.sample({ prompt: msg.prompt, length: msg.length, temperature: msg.temperature, seed: msg.seed }), step });
        break;
      case 'attention':
        post({ type: 'attention', text: msg.text, maps: model.attention(msg.text), step });
        break;
      case 'future':
        post({ type: 'future', text: msg.text, t: msg.t, result: model.futureCheck(msg.text, { t: msg.t, seed: msg.seed }), step });
        break;
      default:
        throw new Error(`unknown request ${String(msg.type).slice(0, 40)}`);
    }
  } catch (e) {
    if (msg.type === 'reset') running = false;
    post({ type: 'error', request: msg.type, message: e.message });
  }
};
