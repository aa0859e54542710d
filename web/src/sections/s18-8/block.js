// 18.8's step-through of one block on the sentence (state keys stage, layer, head;
// widgets/stepper.js) with the activations the model's own forward pass computed (model.blockTrace
// in the worker, asked by the training controller), and the provenance panel that explains a cell
// of S or A here, or of a small attention map of the training view, with the core's arithmetic.
import { heatmap } from '../../widgets/heatmap.js';
import { stepper } from '../../widgets/stepper.js';
import { provenance } from '../../widgets/provenance.js';
import { h } from '../../widgets/dom.js';
import { matrixAt, tensor } from '../../tensors.js';
import { shapeText } from '../../format.js';
import { MODEL, shown } from './training.js';

// The stages: the figures (data-name) each reads and makes, and its formula in the lesson (TeX
// source). Every tensor is from the model's forward pass (model.blockTrace).
const LESSON_IN = (tex) => tex.includes('W_{qkv}'), LESSON_ATTN = (tex) => tex.includes('softmax'), LESSON_MLP = (tex) => tex.includes('GELU');
export const STAGES = [
  { id: 'x', reads: [], makes: ['b-x'], tex: LESSON_IN },
  { id: 'ln1', reads: ['b-x'], makes: ['b-ln1'], tex: LESSON_IN },
  { id: 'qkv', reads: ['b-ln1'], makes: ['b-q', 'b-k', 'b-v'], tex: LESSON_IN },
  { id: 'qk', reads: ['b-q', 'b-k'], makes: ['b-qk'], tex: LESSON_ATTN },
  { id: 'scaled', reads: ['b-qk'], makes: ['b-s'], tex: LESSON_ATTN },
  { id: 'mask', reads: ['b-s'], makes: ['b-mask'], tex: LESSON_ATTN },
  { id: 'a', reads: ['b-s', 'b-mask'], makes: ['b-a'], tex: LESSON_ATTN },
  { id: 'y', reads: ['b-a', 'b-v'], makes: ['b-y'], tex: LESSON_ATTN },
  { id: 'proj', reads: ['b-y'], makes: ['b-proj'], tex: LESSON_ATTN },
  { id: 'res1', reads: ['b-x', 'b-proj'], makes: ['b-res'], tex: LESSON_ATTN },
  { id: 'ln2', reads: ['b-res'], makes: ['b-ln2'], tex: LESSON_MLP },
  { id: 'fc', reads: ['b-ln2'], makes: ['b-fc'], tex: LESSON_MLP },
  { id: 'gelu', reads: ['b-fc'], makes: ['b-gelu'], tex: LESSON_MLP },
  { id: 'fcproj', reads: ['b-gelu'], makes: ['b-fcproj'], tex: LESSON_MLP },
  { id: 'out', reads: ['b-res', 'b-fcproj'], makes: ['b-out'], tex: LESSON_MLP },
];
// the figures of the (T, C) and (T, 4C) activations, and the trace's name for each
const ROWS = ['x', 'ln1', 'y', 'proj', 'res', 'ln2', 'fc', 'gelu', 'fcproj', 'out'];
const TRACE_NAME = { x: 'input', y: 'heads', res: 'residual' };

/** One head's (T, hs) slice of a traced (NH, T, hs) tensor. */
const headOf = (tr, name, hd) => tensor(matrixAt(tr[name], hd));
/** sdpa's inputs for head `hd` of a trace: the lab's kernel, which is the one the model's attention runs (the same bits). */
const sdpaInputs = (tr, hd, causal) => ({ q: headOf(tr, 'q', hd), k: headOf(tr, 'k', hd), v: headOf(tr, 'v', hd), causal });

/** Every figure a stage reads or makes, by key (data-name b-<key>). */
function blockFigures(t) {
  const T2 = MODEL.tMax * MODEL.tMax;   // T x T figures stay tables (cells to point at) up to T = tMax
  const fig = (key, names, o = {}) => heatmap({ t, name: `b-${key}`, label: t(`b_${key}`, { h: 0 }), names, ...o });
  return {
    x: fig('x', ['T', 'C']), ln1: fig('ln1', ['T', 'C']), q: fig('q', ['T', 'hs']), k: fig('k', ['T', 'hs']), v: fig('v', ['T', 'hs']),
    qk: fig('qk', ['T', 'T'], { axes: 'self', tableUpTo: T2, rowsUpTo: MODEL.tMax }), s: fig('s', ['T', 'T'], { axes: 'self', tableUpTo: T2, rowsUpTo: MODEL.tMax }),
    mask: fig('mask', ['T', 'T'], { axes: 'self', weights: true, digits: 0, tableUpTo: T2, rowsUpTo: MODEL.tMax }),
    a: fig('a', ['T', 'T'], { axes: 'self', weights: true, tableUpTo: T2, rowsUpTo: MODEL.tMax }),
    y: fig('y', ['T', 'C']), proj: fig('proj', ['T', 'C']), res: fig('res', ['T', 'C']), ln2: fig('ln2', ['T', 'C']),
    fc: fig('fc', ['T', '4C']), gelu: fig('gelu', ['T', '4C']), fcproj: fig('fcproj', ['T', 'C']), out: fig('out', ['T', 'C']),
  };
}

/**
 * Pointing at a cell of A (or S) explains it with the core's arithmetic: the lab's sdpa on the
 * traced head's q and k; a cell of a small map, with its own layer's trace (train.mapTrace).
 */
function explainer(ctx, train, block, mapWidgets) {
  const causal = () => train.state.config.causal;
  return provenance({ lang: ctx.lang, core: ctx.core, fn: 'sdpa',
    inputs: (st) => sdpaInputs(train.state.trace.trace, st.head, causal()),
    sources: { q: block.q, k: block.k, v: block.v, scores: block.s, mask: block.mask, weights: block.a },
    targets: [{ quantity: 'weights', widget: block.a, at: (i, j) => [i, j] }, { quantity: 'scores', widget: block.s, at: (i, j) => [i, j] },
      // A[t, j] of a small map: its layer's trace, its head (only the map itself is drawn of its inputs)
      ...[...mapWidgets.values()].map(({ w, l, hd }) => ({ quantity: 'weights', widget: w, at: (i, j) => [i, j], sources: { weights: w },
        inputs: () => sdpaInputs(train.mapTrace(l), hd, causal()) })),
      // the mask's map shows 1 where M is 0 (allowed) and 0 where M is −∞
      { quantity: 'mask', widget: block.mask, note: (i, j, st, value) => [`M[${i},${j}] = ${value === 0 ? '−∞' : '0'}`, 'provMaskCell'] }],
    plain: Object.entries(block).filter(([key]) => !['a', 's', 'mask'].includes(key)).map(([, w]) => w),
    scale: (e) => ({ sym: '· 1/√hs', num: `· 1/√${e.terms.length}` }) });
}

/** The block's figures: the traced activations of sentence `text`, head `hd`'s Q, K, V, S and A, and the computed Q Kᵀ and M. */
function paintBlock(block, t, { text, trace: tr }, b, hd) {
  const chars = [...text].map(shown);
  const T = chars.length;
  const rows = (w, m, o = {}) => w.set(m, { rowLabels: chars, ...o });
  const tt = { shape: [T, T], colLabels: chars };
  for (const key of ROWS) {
    const name = TRACE_NAME[key] ?? key;
    rows(block[key], matrixAt(tr[name]), { shape: tr[name].shape });
  }
  for (const key of ['q', 'k', 'v']) rows(block[key], matrixAt(tr[key], hd), { shape: tr[key].shape.slice(1), label: t(`b_${key}`, { h: hd }) });
  rows(block.qk, matrixAt(b.unscaled), { ...tt, label: t('b_qk', { h: hd }) });
  rows(block.s, matrixAt(tr.scores, hd), { ...tt, label: t('b_s', { h: hd }) });
  rows(block.mask, matrixAt(b.mask), tt);
  rows(block.a, matrixAt(tr.weights, hd), { ...tt, label: t('b_a', { h: hd }) });
}

/** On each stage's arrow, the shape of the tensor it hands on, read from the arrays the core returned. */
function stageShapes(tr, { unscaled, mask }) {
  const sh = shapeText, cT = ['T', 'C'];
  return { x: sh(cT, tr.input.shape), ln1: sh(cT, tr.ln1.shape), qkv: sh(['NH', 'T', 'hs'], tr.q.shape),
    qk: sh(['T', 'T'], unscaled.shape), scaled: sh(['T', 'T'], tr.scores.shape.slice(1)), mask: sh(['T', 'T'], mask.shape),
    a: sh(['T', 'T'], tr.weights.shape.slice(1)), y: sh(cT, tr.heads.shape), proj: sh(cT, tr.proj.shape), res1: sh(cT, tr.residual.shape),
    ln2: sh(cT, tr.ln2.shape), fc: sh(['T', '4C'], tr.fc.shape), gelu: sh(['T', '4C'], tr.gelu.shape), fcproj: sh(cT, tr.fcproj.shape),
    out: sh(cT, tr.out.shape) };
}

/**
 * The step-through of one mounted 18.8 over its training controller `train`; the training view's
 * `maps` (their container) and `mapWidgets` share its provenance panel.
 *   -> {els, sync(state), compute(state, core, r) -> block, paint(r, block, state) -> drawn, explain(state), showStage(state), destroy()}
 */
export function blockStepThrough(ctx, train, { maps, mapWidgets }) {
  const { t } = ctx;
  const block = blockFigures(t);
  const layerField = ctx.integer('layer', { onChange: (v) => { ctx.set({ layer: v }); train.requestTrace(); } });
  const headField = ctx.integer('head');
  const steps = stepper({ t, stages: STAGES.map((st) => ({ ...st, label: t(`st_${st.id}`), formula: t(`fb_${st.id}`) })),
    onChange: (stage) => ctx.set({ stage }), name: t('blockTitle') });   // 18.3 has the other stepper
  const traceWaiting = h('p.note.waiting', { 'data-name': 'trace-waiting' }, t('traceWaiting'));
  steps.extra.append(traceWaiting, ...Object.values(block).map((w) => w.el));
  const prov = explainer(ctx, train, block, mapWidgets);
  const provNote = h('p.note.block-prov', {}, t('blockProv'));
  steps.extra.append(provNote, prov.el);
  // the panel goes under the map pointed at; show it there whatever the step-through's stage
  for (const ev of ['mousemove', 'click', 'focusin']) maps.addEventListener(ev, () => showStage(ctx.state));
  let computed = null, painted = null;   // the head's Q Kᵀ and M, and the ones on screen

  /** The figures the current stage reads and makes, and nothing else of the block. */
  function showStage(s) {
    const stage = STAGES.find((st) => st.id === s.stage), names = stage ? [...stage.reads, ...stage.makes] : [];
    const traced = !!train.state.trace;
    for (const [key, w] of Object.entries(block)) w.el.hidden = !traced || !names.includes(`b-${key}`);
    traceWaiting.hidden = !stage || traced;
    // the explanation only where a cell of S or A can be pointed at, or below a small map
    provNote.hidden = !traced || !names.some((n) => n === 'b-s' || n === 'b-a');
    prov.el.hidden = provNote.hidden;   // its home (the title and hint) beside S and A
    prov.panel.hidden = provNote.hidden && !maps.contains(prov.panel);   // the panel also under a small map
  }

  return {
    els: [h('h3', {}, t('blockTitle')), h('div.controls', {}, layerField.el, headField.el), steps.el],
    sync(s) { steps.set(s.stage); showStage(s); train.requestTrace(); },
    // the step-through also shows the chosen head's Q Kᵀ before the scale (the lab's sdpa with
    // scale 'none', as in 18.3) and the mask M, both from the core; once per trace and head
    compute(s, c, r) {
      const tr = r.trace?.trace;
      if (s.stage !== 'off' && tr && (computed?.trace !== r.trace || computed.head !== s.head)) {
        const T = tr.scores.shape[1];
        const { q, k, v } = sdpaInputs(tr, s.head);
        computed = { trace: r.trace, head: s.head, unscaled: c.sdpa(q, k, v, { scale: 'none' }).scores, mask: c.maskMatrix(T, T, { causal: r.config.causal }) };
      }
      return computed;
    },
    /** Draws the block when its trace or head changed; true when it did. */
    paint(r, b, s) {
      if (s.stage === 'off' || !r.trace || !b || painted === b) return false;
      painted = b;
      paintBlock(block, t, r.trace, b, s.head);
      steps.shapes(stageShapes(r.trace.trace, b));
      return true;
    },
    /** The panel follows the numbers on screen (and may move to them). */
    explain(s) { prov.update(s); },
    showStage,
    destroy() { steps.stop(); },
    /**
     * "Check my numbers" of the block's stage A = softmax(S + M) (widgets/check-panel.js): every
     * head of the traced layer, from its S as the model's forward pass computed it. The check is
     * of the causal mask; until the step-through has traced the layer there is nothing to check.
     */
    check(s, r) {
      const tr = r.trace?.trace;
      if (r.config && !r.config.causal) return { waiting: t('checkNoMask') };
      if (s.stage === 'off' || !tr || r.trace.layer !== s.layer) return { waiting: t('checkWaiting') };
      const shown = ['a', 'y'].includes(s.stage);   // the stages that show A (its cells explain themselves)
      return { check: 'softmax', inputs: { scores: tr.scores }, given: { S: tr.scores }, note: t('checkNote', { layer: r.trace.layer, text: r.trace.text }),
        compare: [{ key: 'a', label: t('checkA', { layer: r.trace.layer }), reveal: (i) => (shown && i[0] === s.head ? block.a.reveal(i[1], i[2]) : null) }] };
    },
  };
}
