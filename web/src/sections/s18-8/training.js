// 18.8's training controller: the Web Worker that holds the model (train-worker.js, which shares
// the page's compiled core; its messages are declared in train-protocol.js) and what the page
// knows of it, one plain object. A worker reply goes through reduce(), which returns the next state
// and the names of what it changed; the controller collects those names until the view takes them
// (takeChanges), so the view redraws only what changed. The requests the page sends follow from the
// section's state and the replies. No DOM here.
// The default text is a real corpus (lessons/data/, loaded only when 18.8 needs it).
import TrainWorker from '../../train-worker.js?worker&inline';
import { REQUESTS, REPLIES, message, dispatcher } from '../../train-protocol.js';
import { LossHistory } from '../../loss-history.js';
import { coreUrl } from '../../../../wasm/js/index.js';

// The corpus of each page language (see lessons/data/README.txt), as separate chunks.
const CORPUS = {
  zh: () => import('../../../../lessons/data/poems.zh.txt?raw'),
  en: () => import('../../../../lessons/data/speeches.en.txt?raw'),
};
// The default model: chosen so that on a 2-core laptop the validation loss on the corpus is below
// the unigram baseline within the first minute and still falling after 3 minutes (docs/performance.md, bench/train.mjs).
export const MODEL = { C: 48, heads: 4, layers: 2, tMax: 32, batch: 4, lr: 3e-3 };
// What the sentence and prompt fields start with, per text (each readable by its model).
const EXAMPLES = {
  corpus: { zh: { probe: '床前明月光，疑是地上霜。', prompt: '春风' }, en: { probe: 'the state of the union', prompt: 'the ' } },
  shipped: { probe: 'the cat sat on the mat', prompt: 'the ' },
};
const SAMPLE_LENGTH = 120;
export const FUTURE_SEED = 1;   // the future-character check's replacement characters

/** The example `key` ('probe' or 'prompt') of the section's text `source` in page language `lang`. */
export const example = (source, lang, key) => (source === 'corpus' ? EXAMPLES.corpus[lang] : EXAMPLES.shipped)[key];

// Characters a student may type that the text spells differently (ASCII vs full-width punctuation).
const ALTERNATIVES = { ',': '，', '.': '。', '?': '？', '!': '！', ';': '；', ':': '：', '(': '（', ')': '）' };
for (const [a, b] of Object.entries({ ...ALTERNATIVES })) ALTERNATIVES[b] = a;
/** A character as the page shows it (the space and the line break visible). */
export const shown = (c) => (c === ' ' ? '␣' : c === '\n' ? '↵' : c);

/** The part of `text` the model can read: other case or width where that is known, the rest left out. */
export function readable(text, vocab) {
  const out = [], mapped = new Map(), missing = new Set();
  for (const c of text) {
    const alt = vocab.has(c) ? c : [c.toLowerCase(), c.toUpperCase(), ALTERNATIVES[c]].find((a) => a && vocab.has(a));
    if (alt) out.push(alt);
    else missing.add(c);
    if (alt && alt !== c) mapped.set(c, alt);
  }
  return { text: out.join(''), mapped, missing };
}

/** The section's sentence (state `s`) as the model reads it (characters of `vocab`, at most tMax), and the t it is checked at. */
export function probeText(s, vocab, lang) {
  const r = readable(s.probe || example(s.source, lang, 'probe'), vocab);
  r.text = [...r.text].slice(0, MODEL.tMax).join('');
  const n = [...r.text].length;
  return { ...r, n, t: Math.max(0, Math.min(s.t, n - 2)) };
}

/**
 * What the page knows before the worker has said anything. From the worker: `ready`, the model's
 * `config` and `vocab` (its characters; `built` is the last model's config, kept when a later reset
 * fails, which clears `config`), the loss `history`, the last `progress`, `sample`,
 * `attention` (the maps of the model and of its untrained twin), `patterns` (what each head attends
 * to, measured on validation text: {result, untrained, step}), `future` (the check), `trace` (the step-through's layer), `mapTraces`
 * ({layer: trace} of the maps on screen), `params` (for "Show as PyTorch"), `error`. The page's
 * own: `started` (the worker), `running`, `wantRun` (Start pressed), `pending` (resets asked and
 * not answered), `loadingText`, `customText` (the student's text) and `builtCustom` (the custom
 * text the model was built on).
 */
export function initialState() {
  return { ready: false, config: null, built: null, vocab: null, history: new LossHistory(), progress: null, sample: '', attention: null, patterns: null, future: null,
    trace: null, mapTraces: {}, params: null, error: null,
    started: false, running: false, wantRun: false, pending: 0, loadingText: false, customText: '', builtCustom: null };
}

const done = (state, ...changed) => ({ state, changed });
/** A trace of the maps on screen: their sentence, by the model that drew them, no reset on its way. */
const ofMaps = (s, m) => !!s.attention && m.text === s.attention.text && m.step === s.attention.step && !s.pending;

// One reducer per reply: (reply, state, {layer}) -> {state, changed}. The loss history is the one
// part appended in place (LossHistory keeps it bounded); a new model starts a new one.
const REDUCERS = dispatcher(REPLIES, {
  ready: (m, s) => done({ ...s, ready: true }),
  model(m, s) {
    const pending = s.pending - 1;
    if (pending > 0) return done({ ...s, pending });   // a newer reset is on its way
    const history = new LossHistory();
    history.add(m.point);
    return done({ ...s, pending, error: null, config: m.config, built: m.config, vocab: new Set(m.config.chars), history, progress: null, sample: '',
      trace: null, attention: null, patterns: null, mapTraces: {}, running: s.wantRun || s.running }, 'config', 'history', 'sample', 'trace', 'patterns');
  },
  progress(m, s) {
    if (s.pending) return done(s);   // from the model being replaced
    if (m.point) s.history.add(m.point);
    return done({ ...s, progress: m }, 'progress', ...(m.point ? ['history'] : []));
  },
  // The worker's acknowledgement of "pause", or of reaching a `start`'s `until`. The page's state
  // changed when it sent "pause", and its own `start` asks for no `until`, so nothing to do:
  // acting here would stop the page's Start pressed while a Pause was still on its way.
  paused: (m, s) => done(s),
  sample: (m, s) => done({ ...s, sample: m.text }, 'sample'),
  attention: (m, s) => done({ ...s, attention: m, mapTraces: {} }, 'attention'),
  patterns: (m, s) => (s.pending ? done(s) : done({ ...s, patterns: m }, 'patterns')),   // of a model being replaced: dropped
  future: (m, s) => done({ ...s, future: m }, 'future'),
  // the step-through's layer, and (the same reply can serve both) a layer of the maps on screen
  trace(m, s, { layer }) {
    const mine = m.layer === layer, maps = ofMaps(s, m);
    return done({ ...s, trace: mine ? m : s.trace, mapTraces: maps ? { ...s.mapTraces, [m.layer]: m } : s.mapTraces },
      ...(mine ? ['trace'] : []), ...(maps ? ['mapTrace'] : []));
  },
  parameters: (m, s) => done({ ...s, params: { ...m, config: s.config } }),
  error(m, s) {
    const error = Object.assign(new Error(m.message), m.code ? { code: m.code, params: m.params } : {});   // rendered by messages.js
    return done(m.request === 'reset' ? { ...s, error, pending: Math.max(0, s.pending - 1), config: null, running: false } : { ...s, error });
  },
});

/** The state after worker reply `m` while the step-through shows `layer`, and what changed: {state, changed: [names]}. */
export function reduce(state, m, { layer }) {
  const base = m?.type === 'error' || m?.type === 'progress' || m?.type === 'paused' ? state : { ...state, error: null };
  return REDUCERS(m, base, { layer });
}

const keyOf = (s) => JSON.stringify([s.source, s.seed, s.causal]);   // what the model is built from

/**
 * The training controller of one mounted 18.8 (ctx: the section's, web/src/section.js): its
 * state, the changes not yet drawn, and what the page asks of the worker.
 */
export class TrainingController {
  #ctx;
  #state = initialState();
  #changes = new Set();
  #worker = null;
  #modelKey = null;      // the text, seed and mask of the model last asked for
  #texts = {};           // corpus text once loaded
  #traceAsked = null;    // the step-through's last trace request
  #mapsAsked = new Set();   // the layers asked for the maps on screen
  #mapsAskedFor = null;     // the maps (attention reply) they were asked for
  #paramsAsked = null;      // the model and step whose parameters were asked for
  #patternsAsked = null;    // the model and step whose head patterns were asked for

  constructor(ctx) { this.#ctx = ctx; }

  get state() { return this.#state; }

  /** The names of what changed since the last call (config: everything). */
  takeChanges() {
    const c = this.#changes;
    this.#changes = new Set();
    return c;
  }

  #set(patch) { this.#state = { ...this.#state, ...patch }; }
  #fail(error) { this.#set({ error }); this.#ctx.refresh(); }
  #send(type, fields) { this.#worker.postMessage(message(REQUESTS, type, fields)); }

  #receive(m) {
    const ctx = this.#ctx, r = reduce(this.#state, m, { layer: ctx.state.layer });
    this.#state = r.state;
    for (const name of r.changed) this.#changes.add(name);
    // what a reply asks of the page next
    if (m.type === 'ready') this.ensureModel(ctx.state.source !== 'custom' || r.state.wantRun);
    if (m.type === 'model' && r.changed.includes('config')) {
      this.inspect();
      this.requestPatterns();
      if (this.#state.wantRun) this.#send('start', { until: null });
    }
    if (m.type === 'progress' && m.due && r.changed.includes('progress')) { this.requestSample(); this.inspect(); this.requestPatterns(); }
  }

  #startWorker() {
    if (this.#worker) return;
    const ctx = this.#ctx, worker = new TrainWorker();
    this.#worker = worker;
    this.#set({ started: true });
    worker.onerror = (e) => this.#fail(new Error(ctx.t('workerFailed', { message: e.message || '' })));
    worker.onmessage = ({ data }) => { this.#receive(data); ctx.refresh(); };
    // A compiled module can be shared with a worker of the same origin; a page opened from disk
    // (the single-file build) has an opaque origin, so its worker gets the bytes instead.
    if (self.origin !== 'null') this.#send('init', { module: ctx.coreModule, bytes: null });
    else {
      fetch(coreUrl()).then((r) => r.arrayBuffer()).then((bytes) => worker.postMessage(message(REQUESTS, 'init', { module: null, bytes }), [bytes]))
        .catch((e) => this.#fail(e));
    }
  }

  async #text(source) {
    const { lang } = this.#ctx;
    if (source === 'custom') return this.#state.customText;
    if (source === 'shipped') return this.#ctx.resources.trainText;
    if (!this.#texts[lang]) {
      this.#set({ loadingText: true });
      this.#ctx.refresh();
      try {
        this.#texts[lang] = (await CORPUS[lang]()).default;
      } finally {
        this.#set({ loadingText: false });
      }
    }
    return this.#texts[lang];
  }

  /**
   * Build the model for the current text, seed and mask: again if `force`, else only if one of
   * them changed (your own text is built only on request: Start or Reset).
   */
  async ensureModel(force = false) {
    this.#startWorker();
    const s = this.#ctx.state, key = keyOf(s);
    if (!this.#state.ready) { if (s.source === 'corpus') this.#text('corpus').catch(() => {}); return; }   // `ready` calls again
    if (!force && (key === this.#modelKey || s.source === 'custom')) return;
    this.#modelKey = key;
    this.#set({ running: false, pending: this.#state.pending + 1 });
    try {
      const body = await this.#text(s.source);
      if (key !== this.#modelKey) { this.#set({ pending: this.#state.pending - 1 }); return; }   // superseded while loading
      this.#set({ builtCustom: s.source === 'custom' ? body : null });
      this.#send('reset', { text: body, options: { ...MODEL, seed: s.seed, causal: s.causal } });
    } catch (e) {
      this.#set({ pending: this.#state.pending - 1 });
      this.#fail(e);
    }
  }

  /** The section's text, seed or mask changed (a control, or the section's reset): rebuild the model. */
  sync(s) {
    if (this.#state.ready && keyOf(s) !== this.#modelKey && s.source !== 'custom') queueMicrotask(() => this.ensureModel());
  }

  requestSample() {
    const { state: s, lang } = this.#ctx, { vocab, progress } = this.#state;
    if (!vocab) return;
    const p = readable(s.prompt || example(s.source, lang, 'prompt'), vocab).text;
    this.#send('sample', { prompt: p, length: SAMPLE_LENGTH, temperature: s.temp, seed: progress?.step ?? 0 });
  }

  /** The maps and the future check of the sentence (and the step-through's block). */
  inspect() {
    if (!this.#state.vocab) return;
    const p = probeText(this.#ctx.state, this.#state.vocab, this.#ctx.lang);
    if (p.n < 2) return;
    this.#send('attention', { text: p.text });
    this.#send('future', { text: p.text, t: p.t, seed: FUTURE_SEED });
    this.requestTrace();
  }

  /** What each head attends to, measured on the validation text (once per model and step). */
  requestPatterns() {
    const { built, progress } = this.#state, asked = { model: built, step: progress?.step ?? 0 }, last = this.#patternsAsked;
    if (!built || (last?.model === asked.model && last.step === asked.step)) return;
    this.#patternsAsked = asked;
    this.#send('patterns');
  }

  /** The step-through's block on the sentence, asked of the worker only while the step-through is on (once per sentence, layer, model and step). */
  requestTrace() {
    const { state: s, lang } = this.#ctx, { vocab, built, progress } = this.#state;
    if (!vocab || s.stage === 'off') return;
    const p = probeText(s, vocab, lang), asked = { text: p.text, layer: s.layer, model: built, step: progress?.step ?? 0 }, last = this.#traceAsked;
    if (p.n < 1 || (last && Object.keys(asked).every((k) => asked[k] === last[k]))) return;
    this.#traceAsked = asked;
    this.#send('trace', { text: p.text, layer: s.layer });
  }

  // The small maps explain themselves with the same kernel: a map's layer traced on the maps' own
  // sentence by the model that drew them (asked when a cell of that layer is pointed at, kept until
  // the maps are drawn again; a trace of a model that trained on since is not theirs and is dropped).
  /** Layer `l`'s trace for the maps on screen; until it arrives, asks for it (once) and throws. */
  mapTrace(l) {
    const { mapTraces, attention } = this.#state;
    if (mapTraces[l]) return mapTraces[l].trace;
    if (this.#mapsAskedFor !== attention) { this.#mapsAskedFor = attention; this.#mapsAsked = new Set(); }
    if (attention && !this.#mapsAsked.has(l)) { this.#mapsAsked.add(l); this.#send('trace', { text: attention.text, layer: l }); }
    throw new Error(`layer ${l}'s trace is on its way`);   // the panel follows when it arrives (paint)
  }

  /**
   * The parameters of model `config` at `step`, if they have arrived and `current` (the rest on
   * screen is of that step too); else null, asking the worker for them once per model and step.
   */
  parameters(config, step, current) {
    const { params } = this.#state, asked = this.#paramsAsked;
    if (current && params?.step === step && params.config === config) return params.params;
    if (asked?.config !== config || asked.step !== step) { this.#paramsAsked = { config, step }; this.#send('parameters'); }
    return null;
  }

  setCustomText(text) { this.#set({ customText: text }); }

  start() {
    this.#set({ wantRun: true });
    const s = this.#state, stale = !s.config || (this.#ctx.state.source === 'custom' && s.customText !== s.builtCustom);
    if (!stale && !s.pending) { this.#set({ running: true }); this.#send('start', { until: null }); }
    else if (!s.pending) this.ensureModel(true);   // the model arrives, then starts
  }

  pause() {
    this.#set({ wantRun: false, running: false });
    this.#send('pause');
    this.inspect();
    this.requestSample();
    this.requestPatterns();
  }

  resetModel() {
    this.#set({ wantRun: false });
    this.ensureModel(true);
  }

  destroy() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#set({ started: false, running: false });
  }
}
