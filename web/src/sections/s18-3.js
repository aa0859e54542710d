// 18.3 Q, K, V: three projections of the same X, scores S = Q K^T / sqrt(d), weights, output.
// Weights are stored in math layout (C, d); the editors can show them as nn.Linear stores them (d, C).
// A step-through (state key `stage`, so a stage is a link) walks X -> Q, K, V -> Q K^T -> scaled
// -> + mask -> softmax -> Y one stage at a time (widgets/stepper.js).
import { heatmap } from '../widgets/heatmap.js';
import { stepper } from '../widgets/stepper.js';
import { shapeText } from '../format.js';
import { h } from '../widgets/dom.js';
import { provenance, tokenLabels, TOKENS } from '../widgets/provenance.js';
import { tensor, toNested, matrixAt } from '../tensors.js';

const strings = {
  zh: {
    x: '输入 X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', layout: '权重的显示方式', math: '数学布局 (C, d)：Q = X W', linear: 'nn.Linear 存储布局 (d, C)：Q = X Wᵀ',
    S: '分数 S = Q Kᵀ / √d（遮罩前）', A: '权重 A = softmax(S + M)', Y: '输出 Y = A V',
    predictCausal: '切换之后，位置 0 留给自己的权重 A[0, 0] 是多少？',
    selfAll: '全部：A[0, 0] = 1', selfPart: '只是一部分：A[0, 0] < 1',
    qk: '未缩放的分数 Q Kᵀ', mask: '哪些位置可以看：1 = 允许（M 里是 0），0 = 屏蔽（M 里是 −∞）',
    st_x: '输入 X', st_qkv: 'Q, K, V = X W_Q, X W_K, X W_V', st_qk: 'Q Kᵀ', st_scaled: 'S = Q Kᵀ / √d',
    st_mask: '+ 遮罩 M', st_a: 'A = softmax(S + M)', st_y: 'Y = A V',
    fx_x: 'X：每一行是一个位置的向量，形状 (B, T, C)', fx_qkv: 'Q = X W_Q，K = X W_K，V = X W_V：同一个 X 的三个线性投影',
    fx_qk: '(Q Kᵀ)[t, j] = q_t · k_j：查询 t 和键 j 的点积', fx_scaled: 'S = Q Kᵀ / √d：除以 √d，让分数的尺度不随宽度 d 增长',
    fx_mask: 'S + M：允许的位置 M[t, j] = 0，屏蔽的位置 M[t, j] = −∞（因果遮罩屏蔽 j > t；关掉遮罩则什么都不屏蔽），被屏蔽的分数变成 −∞',
    fx_a: 'A = softmax(S + M)：沿最后一维归一化，每行之和为 1，−∞ 变成 0', fx_y: 'Y = A V：每个位置得到值向量的加权平均',
    checkOut: '输出 Y = A V，(B, T, d)', checkWeights: '权重 A = softmax(S + M)，(B, T, T)', checkScores: '分数 S = Q Kᵀ / √d（遮罩前），(B, T, T)',
    checkMath: 'W_Q、W_K、W_V 是数学布局 (C, d)：Q = X @ W_Q。', checkLinear: 'W_Q、W_K、W_V 是 nn.Linear 的存储布局 (d, C)：Q = X @ W_Q.T。',
  },
  en: {
    x: 'Input X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', layout: 'Show the weights in', math: 'math layout (C, d): Q = X W', linear: 'nn.Linear storage (d, C): Q = X Wᵀ',
    S: 'Scores S = Q Kᵀ / √d (before the mask)', A: 'Weights A = softmax(S + M)', Y: 'Output Y = A V',
    predictCausal: 'After this switch, how much of its weight does position 0 keep on itself (A[0, 0])?',
    selfAll: 'all of it: A[0, 0] = 1', selfPart: 'only part: A[0, 0] < 1',
    qk: 'Unscaled scores Q Kᵀ', mask: 'Which positions may be seen: 1 = allowed (M is 0 there), 0 = blocked (M is −∞ there)',
    st_x: 'input X', st_qkv: 'Q, K, V = X W_Q, X W_K, X W_V', st_qk: 'Q Kᵀ', st_scaled: 'S = Q Kᵀ / √d',
    st_mask: '+ mask M', st_a: 'A = softmax(S + M)', st_y: 'Y = A V',
    fx_x: 'X: one row per position, shape (B, T, C)', fx_qkv: 'Q = X W_Q, K = X W_K, V = X W_V: three linear projections of the same X',
    fx_qk: '(Q Kᵀ)[t, j] = q_t · k_j: the dot product of query t with key j', fx_scaled: 'S = Q Kᵀ / √d: dividing by √d keeps the scores’ scale from growing with the width d',
    fx_mask: 'S + M: M[t, j] = 0 where allowed and −∞ where blocked (the causal mask blocks j > t; with the mask off nothing is blocked), so a blocked score becomes −∞',
    fx_a: 'A = softmax(S + M): normalised along the last axis, each row sums to 1, −∞ becomes 0', fx_y: 'Y = A V: each position gets a weighted average of the value vectors',
    checkOut: 'the output Y = A V, (B, T, d)', checkWeights: 'the weights A = softmax(S + M), (B, T, T)', checkScores: 'the scores S = Q Kᵀ / √d (before the mask), (B, T, T)',
    checkMath: 'W_Q, W_K, W_V in math layout (C, d): Q = X @ W_Q.', checkLinear: 'W_Q, W_K, W_V in nn.Linear\'s storage layout (d, C): Q = X @ W_Q.T.',
  },
};

// The stages: the figures each reads and makes (data-name), and its formula in the lesson (TeX source).
const LESSON_QKV = (tex) => tex.includes('XW_Q'), LESSON_SAY = (tex) => tex.includes('softmax');
const STAGES = [
  { id: 'x', reads: [], makes: ['x'], tex: LESSON_QKV },
  { id: 'qkv', reads: ['x', 'wq', 'wk', 'wv'], makes: ['q', 'k', 'v'], tex: LESSON_QKV },
  { id: 'qk', reads: ['q', 'k'], makes: ['qk'], tex: LESSON_SAY },
  { id: 'scaled', reads: ['qk'], makes: ['s'], tex: LESSON_SAY },
  { id: 'mask', reads: ['s'], makes: ['mask'], tex: LESSON_SAY },
  { id: 'a', reads: ['s', 'mask'], makes: ['a'], tex: LESSON_SAY },
  { id: 'y', reads: ['a', 'v'], makes: ['y'], tex: LESSON_SAY },
];

const opts = (s) => ({ wq: tensor(s.wq), wk: tensor(s.wk), wv: tensor(s.wv), heads: 1, causal: s.causal });

/** The figures of Q, K, V, S, A, Y, and the step-through's unscaled Q Kᵀ and mask M. */
function figures(t) {
  return {
    q: heatmap({ t, name: 'q', label: 'Q = X W_Q', names: ['B', 'T', 'd'] }),
    k: heatmap({ t, name: 'k', label: 'K = X W_K', names: ['B', 'T', 'd'] }),
    v: heatmap({ t, name: 'v', label: 'V = X W_V', names: ['B', 'T', 'd'] }),
    s: heatmap({ t, name: 's', label: t('S'), names: ['B', 'T', 'T'], axes: 'self' }),
    a: heatmap({ t, name: 'a', label: t('A'), names: ['B', 'T', 'T'], weights: true, axes: 'self' }),
    y: heatmap({ t, name: 'y', label: t('Y'), names: ['B', 'T', 'd'] }),
    qk: heatmap({ t, name: 'qk', label: t('qk'), names: ['B', 'T', 'T'], axes: 'self' }),
    mask: heatmap({ t, name: 'mask', label: t('mask'), names: ['T', 'T'], weights: true, axes: 'self', digits: 0 }),
  };
}

/** Every number explains itself: the cells it came from, and the core's arithmetic. */
function explainer(ctx, x, w, maps) {
  const linear = () => ctx.state.layout === 'linear';
  return provenance({ lang: ctx.lang, core: ctx.core, fn: 'multiHeadAttention', inputs: (s) => ({ x: tensor([s.x]), ...opts(s) }),
    sources: { x, wq: { widget: w.wq, swap: linear }, wk: { widget: w.wk, swap: linear }, wv: { widget: w.wv, swap: linear },
      q: maps.q, k: maps.k, v: maps.v, scores: maps.s, weights: maps.a },
    targets: [['q', maps.q], ['k', maps.k], ['v', maps.v], ['scores', maps.s], ['weights', maps.a], ['out', maps.y]]
      .map(([quantity, widget]) => ({ quantity, widget, at: quantity === 'scores' || quantity === 'weights' ? (i, j) => [0, 0, i, j] : (i, j) => [0, i, j] })),
    // the scale 1/√d (the core multiplies by it), d = one head's width = the number of terms of the score
    scale: (e) => ({ sym: '· 1/√d', num: `· 1/√${e.terms.length}` }), outHead: () => 0 });
}

function compute(s, c) {
  const x = tensor([s.x]);
  let r;
  try {
    r = c.multiHeadAttention(x, opts(s));
  } catch (e) {
    throw onScreen(e, s.layout);
  }
  if (s.stage === 'off') return r;
  // the step-through also shows Q K^T before the scale and the mask M
  const T = r.scores.shape[2];
  return { ...r, x, unscaled: c.multiHeadAttention(x, { ...opts(s), scale: 'none' }).scores, mask: c.maskMatrix(T, T, { causal: s.causal }) };
}

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: [[2, 0], [0, 4], [4, 2]], maxRows: 64, maxCols: 6 },
    { key: 'wq', type: 'matrix', default: [[0.3, 0.1], [0, 0.3]], maxRows: 6, maxCols: 6 },
    { key: 'wk', type: 'matrix', default: [[0.2, -0.3], [0.3, 0.2]], maxRows: 6, maxCols: 6 },
    { key: 'wv', type: 'matrix', default: [[1, 0], [0.5, 1]], maxRows: 6, maxCols: 6 },
    { key: 'layout', type: 'enum', options: ['math', 'linear'], default: 'math' },
    { key: 'causal', type: 'bool', default: true },
    { key: 'stage', type: 'enum', options: ['off', ...STAGES.map((s) => s.id)], default: 'off', worksheet: false },   // a view, not an input
  ],
  errors: { x: 'x', 'opts.wq': 'wq', 'opts.wk': 'wk', 'opts.wv': 'wv', overflow: ['x', 'wq', 'wk', 'wv'] },
  build(ctx) {
    const { t, core } = ctx;
    const x = ctx.editor('x', { names: ['T', 'C'] });
    // In linear layout the editors hold (d, C); the state always holds the math layout (C, d).
    // Showing (d, C) is a transpose, done by the core like every other number on the page.
    const weight = (key) => ctx.editor(key, { names: ['C', 'd'],
      view: (s) => (s.layout === 'linear' ? { value: toNested(core.mathWeightToLinear(tensor(s[key]))), names: ['d', 'C'] } : null),
      onChange: (v) => ctx.set({ [key]: ctx.state.layout === 'linear' ? toNested(core.linearWeightToMath(tensor(v))) : v }) });
    const w = { wq: weight('wq'), wk: weight('wk'), wv: weight('wv') };
    const layout = ctx.choice('layout');
    const predictCausal = ctx.prediction({ name: 'predict-causal', question: t('predictCausal'),
      options: [{ value: 'all', label: t('selfAll') }, { value: 'part', label: t('selfPart') }] });
    const causal = ctx.toggle('causal', { onChange: (v) => predictCausal.ask(() => ctx.set({ causal: v }), () => ctx.refresh()) });
    const maps = figures(t);
    const prov = explainer(ctx, x, w, maps);
    const steps = stepper({ t, stages: STAGES.map((st) => ({ ...st, label: t(`st_${st.id}`), formula: t(`fx_${st.id}`) })),
      onChange: (stage) => ctx.set({ stage }) });
    steps.extra.append(maps.qk.el, maps.mask.el);
    ctx.lab.append(
      h('div.controls', {}, layout.el, causal.el), predictCausal.el, steps.el,
      h('div.row', {}, x.el, w.wq.el, w.wk.el, w.wv.el),
      h('div.row', {}, maps.q.el, maps.k.el, maps.v.el),
      h('div.row', {}, maps.s.el, maps.a.el, maps.y.el), prov.el);

    // the step-through's figures, and on each stage's arrow the shape of the tensor it passes on
    // (one head: (B, T, T) for the score-shaped ones)
    function paintSteps(r, tt) {
      maps.qk.set(matrixAt(r.unscaled, 0, 0), { shape: tt });
      maps.mask.set(matrixAt(r.mask), { shape: r.mask.shape });
      const sh = shapeText;
      steps.shapes({ x: sh(['B', 'T', 'C'], r.x.shape), qkv: sh(['B', 'T', 'd'], r.q.shape), qk: sh(['B', 'T', 'T'], tt),
        scaled: sh(['B', 'T', 'T'], tt), mask: sh(['T', 'T'], r.mask.shape), a: sh(['B', 'T', 'T'], [r.weights.shape[0], r.weights.shape[2], r.weights.shape[3]]),
        y: sh(['B', 'T', 'd'], r.out.shape) });
    }

    // the weights as the editors show them: in nn.Linear's layout the core transposes them
    const shownWeights = (s) => Object.fromEntries(['wq', 'wk', 'wv'].map((key) =>
      [key, s.layout === 'linear' ? core.mathWeightToLinear(tensor(s[key])) : tensor(s[key])]));

    return {
      sync(s) { steps.set(s.stage); },
      destroy() { steps.stop(); },
      compute,
      paint(r, s) {
        const rows = tokenLabels(TOKENS, r.q.shape[1]);
        const shape3 = (tt) => ({ shape: tt.shape, rowLabels: rows });
        maps.q.set(matrixAt(r.q, 0), shape3(r.q));
        maps.k.set(matrixAt(r.k, 0), shape3(r.k));
        maps.v.set(matrixAt(r.v, 0), shape3(r.v));
        const tt = [r.scores.shape[0], r.scores.shape[2], r.scores.shape[3]];   // one head: (B, T, T)
        maps.s.set(matrixAt(r.scores, 0, 0), { shape: tt, rowLabels: rows, colLabels: rows });
        maps.a.set(matrixAt(r.weights, 0, 0), { shape: tt, rowLabels: rows, colLabels: rows });
        if (predictCausal.waiting) predictCausal.settle(r.weights.data[0] === 1 ? 'all' : 'part');
        maps.y.set(matrixAt(r.out, 0), shape3(r.out));
        prov.update(s);
        if (r.unscaled) paintSteps(r, tt);
      },
      pytorch(s, r, PROGRAMS) {
        return PROGRAMS['18.3'](s, { weights: shownWeights(s) }, ctx.lang);
      },
      // Y, A or S of the student's code, given the weights as the editors show them
      check(s) {
        const w = shownWeights(s);
        return { check: 'attention', inputs: { x: tensor([s.x]), ...opts(s) },
          given: { X: tensor([s.x]), W_Q: w.wq, W_K: w.wk, W_V: w.wv, causal: s.causal }, note: t(s.layout === 'linear' ? 'checkLinear' : 'checkMath'),
          compare: [
            { key: 'out', label: t('checkOut'), opts: { quantity: 'out' }, reveal: (i) => maps.y.reveal(i[1], i[2]) },
            { key: 'weights', label: t('checkWeights'), opts: { quantity: 'weights' }, reveal: (i) => maps.a.reveal(i[2], i[3]) },
            { key: 'scores', label: t('checkScores'), opts: { quantity: 'scores' }, reveal: (i) => maps.s.reveal(i[2], i[3]) },
          ] };
      },
    };
  },
};

// The core checks the weights in math layout, (C, D), and calls their width D; the editors show
// them as (C, d), or in nn.Linear's layout as (d, C), with the lesson's d. A weight's error is told
// as on screen: its shape and the other weight's as the editors show them, the width named d, and
// in (d, C) the axis d of a weight is its first. (The core's English `message` stays as it is.)
const WEIGHT = /^opts\.w[qkv]$/;
export function onScreen(e, layout) {
  const p = e.params;
  if (!WEIGHT.test(p?.arg ?? '') || !Array.isArray(p.shape) || p.shape.length !== 2) return e;
  const linear = layout === 'linear';
  const shown = (shape) => (linear ? [...shape].reverse() : shape);
  const params = { ...p, shape: shown(p.shape) };
  if (p.layout === '(C, D)') params.layout = linear ? '(d, C)' : '(C, d)';
  if (p.axis === 'D') params.axis = 'd';
  if (WEIGHT.test(p.other ?? '') && Array.isArray(p.otherShape)) {
    params.otherShape = shown(p.otherShape);
    if (linear && p.otherAxis === -1) params.otherAxis = 0;   // d: last in (C, d), first in (d, C)
  }
  return Object.assign(new Error(e.message), { code: e.code, params });
}
