// 18.4 Why sqrt(d): multi-head attention scaled by sqrt(hs), by sqrt(C) (the classic mistake)
// and not at all, side by side; Var(q.k) against d; softmax sharpening under a logit multiplier.
import { heatmap } from '../widgets/heatmap.js';
import { readout, button } from '../widgets/controls.js';
import { lineChart, barChart } from '../widgets/chart.js';
import { h, setText, setHidden } from '../widgets/dom.js';
import { provenance } from '../widgets/provenance.js';
import { tensor, matrixAt, values } from '../tensors.js';
import { fmt } from '../format.js';
import { memo } from '../memo.js';
import { whenIdle, cancelIdle } from '../idle.js';

const strings = {
  zh: {
    C: '模型宽度 C', head: '显示第几个头',
    head_scale: '除以 √hs（正确）', model_scale: '除以 √C（常见错误）', none_scale: '不缩放',
    showScales: '看看除以 √C 和不缩放的结果',
    predictScale: '同一个头改为除以 √C（而不是 √hs）时，它的权重会怎样？',
    sharper: '更尖锐（更集中在少数位置）', flatter: '更平坦（更接近平均）', same: '完全一样',
    stats: '熵 / 最大权重', hs: '每个头的宽度 hs = C / 头数 = {C} / {heads} = {hs}；正确的缩放是 1/√hs，错误的是 1/√C。',
    chart: 'q·k 的方差随 d 增长（q、k 各分量独立，方差 1）', d: '维度 d', variance: '方差', unscaled: 'Var(q·k)', scaled: 'Var(q·k / √d)',
    logits: 'logits', factor: 'logits 乘以', sharp: 'softmax(logits × 倍数)', times1: '× 1', timesK: '× {k}',
    maxW: '最大权重', entropy: '熵', jac: 'Jacobian 的 Frobenius 范数', table: '数据表',
    checkWeights: '所有头的权重（除以 √hs），(B, H, T, T)', checkOut: '多头注意力的输出，(B, T, C)',
    checkNote: '内核抽取的输入（种子 {seed}）；权重是数学布局 (C, C)：q = x @ w_q；{heads} 个头，每个宽 hs = {hs}。',
  },
  en: {
    C: 'Model width C', head: 'Show head',
    head_scale: 'Divide by √hs (right)', model_scale: 'Divide by √C (the classic mistake)', none_scale: 'No scaling',
    showScales: 'Show dividing by √C and no scaling',
    predictScale: 'If the same head divides by √C instead of √hs, what happens to its weights?',
    sharper: 'sharper (more weight on a few positions)', flatter: 'flatter (closer to an even average)', same: 'exactly the same',
    stats: 'entropy / max weight', hs: 'Head size hs = C / heads = {C} / {heads} = {hs}; the right scale is 1/√hs, the mistake 1/√C.',
    chart: 'Var(q·k) grows with d (independent unit-variance components)', d: 'width d', variance: 'variance', unscaled: 'Var(q·k)', scaled: 'Var(q·k / √d)',
    logits: 'logits', factor: 'Multiply the logits by', sharp: 'softmax(logits × factor)', times1: '× 1', timesK: '× {k}',
    maxW: 'max weight', entropy: 'entropy', jac: 'Frobenius norm of the Jacobian', table: 'Data table',
    checkWeights: 'the weights of every head (divided by √hs), (B, H, T, T)', checkOut: 'the output of multi-head attention, (B, T, C)',
    checkNote: 'Inputs drawn by the core (seed {seed}); weights in math layout (C, C): q = x @ w_q; {heads} heads of width hs = {hs}.',
  },
};

const SCALES = ['head', 'model', 'none'];
const DIMS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const SAMPLES = 2000;   // per d, in the variance Monte Carlo
// Weight init std 1/sqrt(C) (an input, like the seed), so q and k components have variance about 1.
const WSTD = { 4: 0.5, 8: 0.35355339059327373, 16: 0.25, 32: 0.1767766952966369 };

// x and the weights, drawn by the core from the seed
const inputsOf = (s, core) => {
  const std = WSTD[s.C];
  return { x: core.randn([1, s.T, s.C], s.seed), wq: core.randn([s.C, s.C], s.seed + 1, std), wk: core.randn([s.C, s.C], s.seed + 2, std),
    wv: core.randn([s.C, s.C], s.seed + 3, std), heads: s.heads, causal: s.causal };
};

/** compute(state, core, {withVariance}) of 18.4: each part recomputed only when what it depends on changes. */
function computer() {
  // the seeded inputs and hs do not depend on the mask: a toggle recomputes only the runs
  const seeded = memo((s, core) => inputsOf(s, core));
  // hs: the number of products in one head's score, as the core sums them
  const headSize = memo((s, core, { x, ...w }) => core.explain('multiHeadAttention', 'scores', [0, 0, 0, 0], { x, ...w, causal: true, scale: 'head' }).terms.length);
  const attentionRuns = memo((s, core) => {
    const { x, ...w } = { ...seeded([s.T, s.C, s.heads, s.seed], s, core), causal: s.causal };
    const hs = headSize([s.T, s.C, s.heads, s.seed], s, core, { x, ...w });
    return { inputs: { x, wq: w.wq, wk: w.wk, wv: w.wv }, hs, runs: SCALES.map((scale) => {
      const r = core.multiHeadAttention(x, { ...w, scale });
      return { weights: r.weights, stats: core.attentionStats(r.weights) };
    }) };
  });
  const variance = memo((seed, core) => core.dotProductVariance(DIMS, { samples: SAMPLES, seed }));
  const sharpening = memo((s, core) => {
    const L = tensor(s.logits);
    return { one: core.softmaxSharpening(L, 1), k: core.softmaxSharpening(L, s.factor) };
  });
  // withVariance false: the Monte Carlo is left out (variance null) and done on a later call
  return (s, core, { withVariance = true } = {}) => {
    const { runs, inputs, hs } = attentionRuns([s.T, s.C, s.heads, s.causal, s.seed], s, core);
    // what dividing by √C did to the shown head, from the core: the same weights (one head), or
    // a larger total entropy over its rows (flatter) or a smaller one (sharper)
    const entropy = runs.map((run) => core.sum(run.stats.entropy, { dim: -1 }).data[s.head]);   // (B, H) -> this head
    const scaleEffect = core.maxAbsDiff(runs[0].weights, runs[1].weights) === 0 ? 'same' : entropy[1] > entropy[0] ? 'flatter' : 'sharper';
    return { runs, inputs, hs, scaleEffect, variance: withVariance ? variance(s.seed, s.seed, core) : null,
      ...sharpening([s.logits, s.factor], s, core) };
  };
}

/** 18.4's PyTorch program, with the variance Monte Carlo's draws as a file. */
function pytorch(ctx, s, r, PROGRAMS) {
  const file = `attention-lab-18.4-draws-seed${s.seed}.f64`;
  return { code: PROGRAMS['18.4'](s, { inputs: r.inputs, samples: SAMPLES, dims: DIMS, file }, ctx.lang),
    // the variance Monte Carlo's draws: the core's normal stream for the seed, in the order
    // dotProductVariance reads it (2 · SAMPLES · ΣDIMS numbers), asked of the core on download
    files: [{ name: file, bytes: () => {
      const d = ctx.core.randn([2 * SAMPLES * DIMS.reduce((a, b) => a + b, 0)], s.seed).data;
      return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
    } }] };
}

export default {
  strings,
  state: [
    { key: 'T', type: 'int', min: 2, max: 64, default: 6 },
    { key: 'C', type: 'enum', options: [4, 8, 16, 32], default: 16 },
    // heads divide C (hs = C / heads); only existing heads can be shown
    { key: 'heads', type: 'enum', options: [1, 2, 4, 8], default: 4, within: (s) => ({ options: [1, 2, 4, 8].filter((n) => s.C % n === 0) }) },
    { key: 'head', type: 'int', min: 0, max: 7, default: 0, within: (s) => ({ max: s.heads - 1 }) },
    { key: 'causal', type: 'bool', default: true },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'logits', type: 'vector', minCols: 2, maxCols: 10, default: [0.1, -0.2, 0.3, -0.2, 0.5] },
    { key: 'factor', type: 'number', min: 0.5, max: 16, default: 8 },
  ],
  errors: { logits: 'logits', overflow: ['logits', 'factor'] },
  build(ctx) {
    const { t } = ctx;
    const T = ctx.integer('T');
    const C = ctx.select('C');
    const heads = ctx.select('heads');
    const head = ctx.select('head');
    const causal = ctx.toggle('causal');
    const seed = ctx.integer('seed');
    const hsLine = h('p.shape-line');
    const maps = SCALES.map((sc) => heatmap({ t, name: `w-${sc}`, label: t(`${sc}_scale`), names: ['B', 'H', 'T', 'T'], weights: true, axes: 'self' }));
    // √C and no scaling are shown once the student has predicted what √C does (or skipped)
    let revealed = false;
    const predictScale = ctx.prediction({ name: 'predict-scale', question: t('predictScale'),
      options: ['sharper', 'flatter', 'same'].map((v) => ({ value: v, label: t(v) })) });
    const showScales = button({ label: t('showScales'), className: 'show-scales',
      onClick: () => { showScales.hidden = true; predictScale.ask(() => { revealed = true; ctx.refresh(); }); } });
    const chart = lineChart({ t, name: 'variance', label: t('chart') });
    const logits = ctx.editor('logits');
    const factor = ctx.slider('factor', { step: 0.5, format: (v) => `× ${v}` });
    const bars = barChart({ t, name: 'bars', label: t('sharp') });
    const sharp = readout({ name: 'sharp' });
    // every weight explains itself (its scores are not shown, the panel gives them)
    const prov = provenance({ lang: ctx.lang, core: ctx.core, fn: 'multiHeadAttention', sources: {},
      targets: SCALES.map((scale, i) => ({ widget: maps[i], quantity: 'weights', at: (r, c) => [0, ctx.state.head, r, c],
        inputs: (s) => ({ ...inputsOf(s, ctx.core), scale }) })) });
    ctx.lab.append(
      h('div.controls', {}, T.el, C.el, heads.el, head.el, causal.el, seed.el), hsLine,
      h('div.row.three', { 'data-compare': 'scales' }, maps.map((m) => m.el), h('div.stack', {}, showScales, predictScale.el)), prov.el,
      chart.el,
      h('div.row', {}, h('div.stack', {}, logits.el, factor.el, sharp.el), bars.el));
    // repaint only what changed: the memoized parts come back as the same objects
    const painted = {};
    const changed = (key, value) => { if (painted[key] === value) return false; painted[key] = value; return true; };

    // a map is painted when its run or the head changes, and √C's and no scaling's only while they
    // are shown (they are hidden until the student has predicted): a hidden map is painted when revealed
    const mapShows = SCALES.map(() => null);   // [runs, head] that each map shows
    function paintMaps(r, s) {
      r.runs.forEach((run, i) => {
        if (i > 0 && !revealed) return;
        if (mapShows[i]?.[0] === r.runs && mapShows[i][1] === s.head) return;
        mapShows[i] = [r.runs, s.head];
        const ent = matrixAt(run.stats.entropy, 0)[s.head], mx = matrixAt(run.stats.maxWeight, 0)[s.head];
        maps[i].set(matrixAt(run.weights, 0, s.head), {
          shape: [1, s.heads, s.T, s.T],
          rowMarks: Object.fromEntries(ent.map((e, j) => [j, `${fmt(e, 2)} / ${fmt(mx[j], 2)}`])), rowMarksLabel: t('stats'),
          rowMarkValues: ent.map((e, j) => [e, mx[j]]),
        });
      });
    }

    function paintVariance({ variance: v }) {
      chart.set({ xLabel: t('d'), yLabel: t('variance'), xLog: true, yLog: true, tableLabel: t('table'),
        series: [{ name: t('unscaled'), points: v.dims.map((d, i) => [d, v.unscaled[i]]) },
          { name: t('scaled'), points: v.dims.map((d, i) => [d, v.scaled[i]]) }] });
    }

    function paintSharpening(r, s) {
      bars.set({ labels: s.logits.map((_, i) => String(i)), yLabel: 'p', tableLabel: t('table'),
        series: [{ name: t('times1'), values: values(r.one.weights) }, { name: t('timesK', { k: s.factor }), values: values(r.k.weights) }] });
      sharp.set([
        [`${t('maxW')} ${t('times1')} → ${t('timesK', { k: s.factor })}`, `${fmt(r.one.maxWeight, 4)} → ${fmt(r.k.maxWeight, 4)}`, null, [r.one.maxWeight, r.k.maxWeight]],
        [`${t('entropy')}`, `${fmt(r.one.entropy, 4)} → ${fmt(r.k.entropy, 4)}`, null, [r.one.entropy, r.k.entropy]],
        [t('jac'), `${fmt(r.one.jacobianNorm, 4)} → ${fmt(r.k.jacobianNorm, 4)}`, 'jacobian', [r.one.jacobianNorm, r.k.jacobianNorm]],
      ]);
    }

    // The variance Monte Carlo (2 · 2000 · 511 draws, about 220 ms with the CPU slowed 4x) is not
    // done at mount: the section is shown and answers input first, and the chart is drawn in the
    // first idle moment after (a refresh, with the Monte Carlo); from then on it comes with the rest
    const computeAll = computer();
    let varianceLater = true, idleId = null;
    return {
      compute: (s, core) => computeAll(s, core, { withVariance: !varianceLater }),
      destroy() { if (idleId !== null) cancelIdle(idleId); },
      paint(r, s) {
        setText(hsLine, t('hs', { C: s.C, heads: s.heads, hs: r.hs }));
        paintMaps(r, s);
        setHidden(maps[1].el, !revealed);
        setHidden(maps[2].el, !revealed);
        prov.update(s);
        setHidden(showScales, revealed || predictScale.open);
        if (predictScale.waiting) predictScale.settle(r.scaleEffect);
        if (r.variance === null) {
          idleId ??= whenIdle(() => { idleId = null; varianceLater = false; ctx.refresh(); });
        } else if (changed('variance', r.variance)) paintVariance(r);
        if (changed('sharp', r.one)) paintSharpening(r, s);
      },
      pytorch: (s, r, programs) => pytorch(ctx, s, r, programs),
      // the right scale's run: the weights of every head (the first map shows one), or the output
      check: (s, r) => ({ check: 'attention', inputs: { ...r.inputs, heads: s.heads, causal: s.causal },
        given: { x: r.inputs.x, w_q: r.inputs.wq, w_k: r.inputs.wk, w_v: r.inputs.wv, heads: s.heads, causal: s.causal },
        note: t('checkNote', { seed: s.seed, heads: s.heads, hs: r.hs }),
        compare: [{ key: 'weights', label: t('checkWeights'), opts: { quantity: 'weights' }, reveal: (i) => (i[1] === s.head ? maps[0].reveal(i[2], i[3]) : null) },
          { key: 'out', label: t('checkOut'), opts: { quantity: 'out' } }] }),
    };
  },
};
