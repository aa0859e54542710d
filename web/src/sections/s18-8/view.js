// 18.8's training view: the controls of the text, seed, mask and training; the stats, the loss
// chart, the model's sample, the sentence with its future check, and the attention maps of every
// layer and head. DOM only: it draws the training controller's state (training.js), what changed
// since it last drew, and hands the controls' requests to the controller.
import { heatmap } from '../../widgets/heatmap.js';
import { lineChart } from '../../widgets/chart.js';
import { button } from '../../widgets/controls.js';
import { h, messageLine } from '../../widgets/dom.js';
import { matrixAt } from '../../tensors.js';
import { fmt, fmtErr } from '../../format.js';
import { EVAL_EVERY, EVAL_BATCHES } from '../../train-protocol.js';
import { MODEL, example, probeText, shown } from './training.js';
import { keepModel } from './keep.js';

const STAT_KEYS = ['step', 'time', 'trainLoss', 'valLoss', 'best', 'unigram', 'speed', 'tokens', 'params', 'vocab'];
const STAT_CLASS = { trainLoss: 'train-loss', valLoss: 'val-loss', best: 'best-loss' };
/** A text field's value as the state keeps it (no control characters). */
const typed = (input) => input.value.replace(/[\u0000-\u001f]/g, '');

/** The training text, seed and mask, Start, Pause and Reset, and what the page is waiting for. */
function trainingControls(ctx, train) {
  const { t } = ctx;
  const source = ctx.choice('source');
  const area = h('textarea.custom-text', { rows: 5, 'aria-label': t('customLabel'), 'data-name': 'customText',
    oninput: () => { train.setCustomText(area.value); } });
  // the core's errors about the text (too short, too many characters) are told right under it
  const areaMessage = messageLine(() => [area], 'p');
  const areaWrap = h('label.control.textarea', {}, t('customLabel'), area, areaMessage.el);
  ctx.own('customText', { el: areaWrap, invalid: areaMessage.show });
  const seed = ctx.integer('seed');
  // a new mask is a new model: asked first once the model has trained (keep.js)
  const causal = ctx.toggle('causal', { onChange: (v) => keep.ask(v) });
  const keep = keepModel(ctx, train, () => causal.el.querySelector('input') ?? causal.el);
  const action = (label, name, act) => {
    const b = button({ label: t(label), onClick: () => { act(); ctx.refresh(); } });
    b.dataset.name = name;
    return b;
  };
  const startBtn = action('start', 'start', () => train.start());
  const pauseBtn = action('pause', 'pause', () => train.pause());
  const resetBtn = action('resetModel', 'reset-model', () => train.resetModel());
  return {
    source, seed, causal, keep, areaWrap, buttons: [startBtn, pauseBtn, resetBtn],
    paint(r, s, status) {
      // a model that could not be built (its error is shown) is waited for no longer
      const preparing = r.pending || (!r.config && !r.error && s.source !== 'custom');
      const text = r.loadingText ? t('loadingText') : !r.started ? t('notStarted') : preparing ? t('loading')
        : s.source === 'custom' && r.customText !== r.builtCustom ? t('customWaiting') : '';
      if (status.textContent !== text) status.textContent = text;
      startBtn.disabled = r.running;
      pauseBtn.disabled = !r.running;
    },
  };
}

/** The training's numbers (a readout of STAT_KEYS) and the loss chart. */
function readouts(t) {
  const statValues = Object.fromEntries(STAT_KEYS.map((k) => [k, h('dd', { class: STAT_CLASS[k] ?? k })]));
  const stats = h('dl.readout.train-stats', { 'data-name': 'stats' }, STAT_KEYS.flatMap((k) => [h('dt', {}, t(k)), statValues[k]]));
  const chart = lineChart({ t, name: 'loss', label: t('chart') });
  const evalNote = h('p.note.eval-note', { 'data-name': 'eval-note', hidden: true });
  return {
    stats, chart, evalNote,
    paintStats(r) {
      const p = r.progress, last = r.history.last, best = r.history.best;
      const values = {
        step: String(p?.step ?? 0), time: `${Math.round(p?.seconds ?? 0)} s`, trainLoss: fmt(last.train, 4), valLoss: fmt(last.val, 4),
        best: r.history.count > 1 ? `${fmt(best.val, 4)} (${t('atStep', { step: best.step })})` : '', unigram: fmt(r.config.unigramEntropy, 4),
        speed: p ? p.stepsPerSec.toFixed(1) : '', tokens: p ? Math.round(p.tokensPerSec).toLocaleString() : '',
        params: r.config.params.toLocaleString(), vocab: String(r.config.vocab),
      };
      for (const k of STAT_KEYS) if (statValues[k].textContent !== values[k]) statValues[k].textContent = values[k];
    },
    paintChart({ history, config }) {
      const pts = history.points();
      const series = (k) => pts.map((p) => [p.step, p[k]]);
      const best = history.best;
      chart.set({ xLabel: t('steps'), yLabel: t('loss'), tableLabel: t('table'), yZero: false, series: [
        { name: t('trainSeries'), points: series('train'), dash: 'solid' },
        { name: t('valSeries'), points: series('val'), dash: 'dashed' },
      ], hlines: [{ name: t('baselineSeries'), y: config.unigramEntropy, dash: 'dotted' }],
      marks: history.count > 1 ? [{ x: best.step, y: best.val, series: 1, label: t('bestMark', { v: fmt(best.val, 3), step: best.step }) }] : [] });
      chart.note(history.count > 1 ? null : t('chartWaiting'));
      // what the two lines are, and how far the sample alone may move each: the core's standard errors
      const last = history.last;
      evalNote.hidden = history.count < 2;
      evalNote.textContent = t('evalNote', { batches: EVAL_BATCHES, B: config.batch, T: config.T, step: last.step, trainSe: fmt(last.trainSe, 3), valSe: fmt(last.valSe, 3) });
    },
  };
}

/** The sample's prompt, temperature and "Sample again", and the model's text. */
function sampleControls(ctx, train) {
  const { t } = ctx;
  const temp = ctx.slider('temp', { step: 0.1, format: (v) => v.toFixed(1), onChange: (v) => { ctx.set({ temp: v }); train.requestSample(); } });
  const prompt = h('input', { type: 'text', maxlength: 32, 'data-name': 'prompt', 'aria-label': t('samplePrompt'),
    oninput: () => { ctx.set({ prompt: typed(prompt) }); } });
  const resample = button({ label: t('resample'), onClick: () => train.requestSample() });
  const sampleOut = h('pre.sample', { 'aria-live': 'polite', 'data-name': 'sample' });
  return { temp, prompt, resample, sampleOut, paint: (r) => { sampleOut.textContent = r.sample || t('sampleWaiting'); } };
}

/** The sentence to inspect, its t, and the future check: the logits' change per position, the prefix's, the verdict. */
function futureCheck(ctx, train) {
  const { t, lang } = ctx;
  const probe = h('input', { type: 'text', maxlength: 32, 'data-name': 'probe', 'aria-label': t('probe'),
    oninput: () => { ctx.set({ probe: typed(probe) }); train.inspect(); } });
  const probeNote = h('p.note.probe-note', { 'data-name': 'probe-note', 'aria-live': 'polite' });
  const tField = ctx.integer('t', { label: t('futureT'), onChange: (v) => { ctx.set({ t: v }); train.inspect(); } });
  const future = heatmap({ t, name: 'future', label: t('future'), names: ['T'], digits: 3 });
  const futureOut = h('dl.readout', { 'data-name': 'future' });
  const verdict = h('p.verdict', { 'data-name': 'verdict' });
  const futureWaiting = h('p.note.waiting', { 'data-name': 'future-waiting' }, t('futureWaiting'));
  return {
    probe, tField, els: [probeNote, futureWaiting, future.el, futureOut, verdict],
    /** What the model made of the sentence: characters left out or read as others, too short, t moved. */
    paintProbe(r, s) {
      const p = probeText(s, r.vocab, lang);
      const lines = [];
      if (p.missing.size) lines.push(t('unreadable', { chars: [...p.missing].map((ch) => `“${shown(ch)}”`).join(' '), V: r.config.vocab }));
      if (p.mapped.size) lines.push(t('mapped', { pairs: [...p.mapped].map(([a, b]) => `${shown(a)} → ${shown(b)}`).join(', ') }));
      if (p.n < 2) lines.push(t('tooShort'));
      else if (p.t !== s.t) lines.push(t('tClamped', { n: p.n, max: p.t }));
      probeNote.textContent = t.sentences(...lines);
      probeNote.classList.toggle('bad', p.missing.size > 0 || p.n < 2);
    },
    paintFuture({ result, text, t: at }) {
      futureWaiting.hidden = true;
      future.set([result.perPosition], { shape: [result.perPosition.length], colLabels: [...text].map(shown),
        rowLabels: ['max |Δ|'], highlightCols: new Set(Array.from({ length: at + 1 }, (_, i) => i)) });
      const exact = result.maxPrefixChange === 0;
      futureOut.replaceChildren(h('dt', {}, t('prefix')), h('dd.prefix', { 'data-value': String(result.maxPrefixChange) }, fmtErr(result.maxPrefixChange)));
      verdict.textContent = t(exact ? 'exact' : 'leak');
      verdict.className = `verdict ${exact ? 'good' : 'bad'}`;
    },
  };
}

/** The maps of every layer and head, a row per layer (the explanation opens below the row pointed at). */
function attentionMaps(t) {
  const mapWidgets = new Map();
  const maps = h('div.attn-maps', {}, Array.from({ length: MODEL.layers }, (_, l) => h('div.row.attn-layer', {},
    Array.from({ length: MODEL.heads }, (_, hd) => {
      const w = heatmap({ t, name: `attn-${l}-${hd}`, label: t('attnTitle', { l, h: hd }), names: ['T', 'T'], weights: true, digits: 3, compact: true,
        axes: 'self', tableUpTo: MODEL.tMax * MODEL.tMax, rowsUpTo: MODEL.tMax });
      w.el.hidden = true;   // until the model has drawn it
      mapWidgets.set(`${l}-${hd}`, { w, l, hd });
      return w.el;
    }))));
  return {
    maps, mapWidgets,
    paint(a) {
      const chars = [...a.text].map(shown);
      for (const { w, l, hd } of mapWidgets.values()) {
        w.el.hidden = false;
        w.set(matrixAt(a.maps[l], hd), { rowLabels: chars, colLabels: chars,
          cellLabel: (i, j, v) => t('attends', { a: chars[i], b: chars[j], v }) });
      }
    },
  };
}

/**
 * The view of one mounted 18.8 over its training controller `train`:
 *   -> {els: the lab's elements, maps, mapWidgets, sync(state), paintStatus(r, state), paint(r, state, has) -> explain}
 * r is the controller's state; has(name) says whether `name` changed since the last paint.
 */
export function trainingView(ctx, train) {
  const { t, lang } = ctx;
  const c = trainingControls(ctx, train);
  const stats = readouts(t);
  const notes = h('p.note.train-note', { 'data-name': 'train-note' });
  const sample = sampleControls(ctx, train);
  const f = futureCheck(ctx, train);
  const attn = attentionMaps(t);
  const status = h('p.note.train-status', { role: 'status' });
  let probePainted = null;   // the sentence and t the probe note was written for
  stats.chart.note(t('chartWaiting'));
  /** A text field shows the state's value (or the text's example), unless the student is typing in it. */
  const showField = (input, key, s) => {
    const value = s[key] || example(s.source, lang, key);
    if (input.value !== value && document.activeElement !== input) input.value = value;
  };
  return {
    els: [
      h('div.controls', {}, c.source.el, c.seed.el, c.causal.el), c.keep.el, c.areaWrap,
      h('div.controls', {}, ...c.buttons), status, notes, stats.stats, h('p.note.eval-every', {}, t('evalEvery', { every: EVAL_EVERY, batches: EVAL_BATCHES })), stats.chart.el,
      stats.evalNote,
      h('div.controls', {}, h('label.control', {}, t('samplePrompt'), ' ', sample.prompt), sample.temp.el, sample.resample), h('h3', {}, t('sample')), sample.sampleOut,
      h('div.controls', {}, h('label.control', {}, t('probe'), ' ', f.probe), f.tField.el), ...f.els, h('p.note.attn-axes', {}, t('attnAxes')), attn.maps,
    ],
    maps: attn.maps, mapWidgets: attn.mapWidgets,
    sync(s) {
      c.areaWrap.hidden = s.source !== 'custom';
      showField(sample.prompt, 'prompt', s);
      showField(f.probe, 'probe', s);
    },
    /** What the page is waiting for, the buttons, the note on the text and mask: drawn on every run,
     * also when the model could not be built (then nothing is waited for). */
    paintStatus(r, s) {
      c.paint(r, s, status);
      if (!r.progress?.step) c.keep.close();   // nothing trained (a new model, a reset): nothing to keep
      notes.textContent = t.sentences(s.source === 'shipped' ? t('shortNote') : '', s.causal ? '' : t('noMaskNote'));
      notes.hidden = !notes.textContent;
    },
    /** The rest, once there is a model: only what changed. True when the maps were drawn again or their traces arrived. */
    paint(r, s, has) {
      stats.paintStats(r);
      if (has('history')) stats.paintChart(r);
      if (has('sample')) sample.paint(r);
      const probeKey = JSON.stringify([s.probe, s.t]);
      if (probePainted !== probeKey || has('future')) { probePainted = probeKey; f.paintProbe(r, s); }
      if (has('future') && r.future) f.paintFuture(r.future);
      if (has('attention') && r.attention) { attn.paint(r.attention); return true; }
      return has('mapTrace');
    },
  };
}
