// 18.8 A two-layer character GPT: the future-character check on a real model, training it live,
// and a step-through of one block on the sentence with the activations the model's own forward
// pass computed. This module is the section's controller (web/src/section.js), made of three
// parts in s18-8/: the training controller (training.js: the Web Worker that holds the model, and
// what the page knows of it as data), the training view (view.js: the controls, the chart, the
// stats, the sample, the future check and the attention maps) and the block's step-through
// (block.js, widgets/stepper.js; state keys stage, layer, head), and the reading of the trained
// model: the tour of its heads (tour.js, which head does what, measured by the core) and the
// sentence view (sentence.js, what each character reads from, untrained beside trained).
import { strings as baseStrings } from './s18-8/strings.js';
import { tourStrings } from './s18-8/tour-strings.js';
import { TrainingController, MODEL, FUTURE_SEED } from './s18-8/training.js';
import { trainingView } from './s18-8/view.js';
import { blockStepThrough, STAGES } from './s18-8/block.js';
import { headTour } from './s18-8/tour.js';
import { sentenceView } from './s18-8/sentence.js';

const strings = { zh: { ...baseStrings.zh, ...tourStrings.zh }, en: { ...baseStrings.en, ...tourStrings.en } };

export { MODEL, readable } from './s18-8/training.js';

export default {
  strings,
  state: [
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'source', type: 'enum', options: ['corpus', 'shipped', 'custom'], default: 'corpus' },
    { key: 'causal', type: 'bool', default: true },
    { key: 'temp', type: 'number', min: 0.1, max: 2, default: 0.8 },
    { key: 'prompt', type: 'text', maxLength: 32, default: '' },   // '' : the text's example
    { key: 'probe', type: 'text', maxLength: 32, default: '' },    // '' : the text's example
    { key: 't', type: 'int', min: 0, max: 30, default: 6 },
    { key: 'stage', type: 'enum', options: ['off', ...STAGES.map((st) => st.id)], default: 'off', worksheet: false },   // a view, not an input
    { key: 'layer', type: 'int', min: 0, max: MODEL.layers - 1, default: 0, worksheet: false },   // the step-through's view
    { key: 'head', type: 'int', min: 0, max: MODEL.heads - 1, default: 0, worksheet: false },
  ],
  // the core's errors about the student's own text are told beside its box
  errors: { text: 'customText' },
  build(ctx) {
    const train = new TrainingController(ctx);
    const view = trainingView(ctx, train);
    const block = blockStepThrough(ctx, train, view);
    const tour = headTour(ctx), sentence = sentenceView(ctx);
    ctx.lab.append(...view.els, ...sentence.els, ...tour.els, ...block.els);
    // what the section's exercises check against: the core's measurement of the model on the page
    // (web/src/exercises.js, ex-18.8-previous)
    ctx.resources.model = { patterns: () => train.state.patterns?.result ?? null };
    // Build the model (not train it) once the student scrolls near 18.8: the chart, the check and the
    // maps then show the untrained model instead of empty boxes. The corpus loads only then.
    if (typeof IntersectionObserver === 'function') {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); train.ensureModel(); }
      }, { rootMargin: '200px' });
      io.observe(ctx.lab);
    }
    return {
      destroy() { block.destroy(); train.destroy(); },
      sync(s) {
        block.sync(s);
        train.sync(s);
        view.sync(s);
        view.paintStatus(train.state, s);   // before compute, which throws when the model could not be built
      },
      // Everything shown here was computed by the core, in the worker or (the block's Q Kᵀ and M, the
      // sentence view's mean of a layer's heads) here.
      compute(s, c) {
        const r = train.state;
        if (r.error) throw r.error;
        return { train: r, block: block.compute(s, c, r), sentence: sentence.compute(s, c, r) };
      },
      paint({ train: r, block: b, sentence: sv }, s) {
        if (!r.config) return;
        const changed = train.takeChanges();
        const has = (name) => changed.has('config') || changed.has(name);
        let explain = view.paint(r, s, has);
        sentence.paint(r, sv);
        if (has('patterns')) tour.paint(r);
        if (block.paint(r, b, s)) explain = true;
        if (explain) block.explain(s);
        block.showStage(s);
      },
      pytorch: (s, r, programs) => pytorch(ctx, train, programs),
      check: (s, r) => block.check(s, r.train),
    };
  },
};

// The model on screen as PyTorch: its parameters (about 100,000 numbers) as a file, asked of the
// worker when the program is wanted; the sentence and t as literals.
function pytorch(ctx, train, PROGRAMS) {
  const { t } = ctx;
  const { attention: att, future: fut, config: cfg, pending, running } = train.state;
  if (!cfg || !att || !fut || pending) return { note: t('pyNoModel') };
  if (running) return { note: t('pyRunning') };
  const step = fut.step;
  const params = train.parameters(cfg, step, att.step === step);
  if (!params) return { note: t('pyFetching') };
  const file = `attention-lab-gpt-seed${cfg.seed}-step${step}.json`;
  return { code: PROGRAMS['18.8'](ctx.state, { config: cfg, step, attention: att, future: fut, futureSeed: FUTURE_SEED, file }, ctx.lang),
    files: [{ name: file, bytes: () => JSON.stringify({ format: 'attention-lab-gpt', step, chars: cfg.chars, params: Array.from(params),
      config: { vocab: cfg.vocab, C: cfg.C, heads: cfg.heads, layers: cfg.layers, tMax: cfg.tMax, seed: cfg.seed, causal: cfg.causal } }) }] };
}
