// 18.3 Q, K, V: three projections of the same X, scores S = Q K^T / sqrt(d), weights, output.
// Weights are stored in math layout (C, d); the editors can show them as nn.Linear stores them (d, C).
import { heatmap } from '../widgets/heatmap.js';
import { h } from '../widgets/dom.js';
import { prediction } from '../widgets/predict.js';
import { provenance, tokenLabels, TOKENS } from '../widgets/provenance.js';
import { tensor, toNested, matrixAt } from '../tensors.js';
import { PROGRAMS } from '../pytorch-programs.js';

const strings = {
  zh: {
    x: '输入 X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', layout: '权重的显示方式', math: '数学布局 (C, d)：Q = X W', linear: 'nn.Linear 存储布局 (d, C)：Q = X Wᵀ',
    S: '分数 S = Q Kᵀ / √d（遮罩前）', A: '权重 A = softmax(S + M)', Y: '输出 Y = A V',
    predictCausal: '切换之后，位置 0 留给自己的权重 A[0, 0] 是多少？',
    selfAll: '全部：A[0, 0] = 1', selfPart: '只是一部分：A[0, 0] < 1',
  },
  en: {
    x: 'Input X', wq: 'W_Q', wk: 'W_K', wv: 'W_V', layout: 'Show the weights in', math: 'math layout (C, d): Q = X W', linear: 'nn.Linear storage (d, C): Q = X Wᵀ',
    S: 'Scores S = Q Kᵀ / √d (before the mask)', A: 'Weights A = softmax(S + M)', Y: 'Output Y = A V',
    predictCausal: 'After this switch, how much of its weight does position 0 keep on itself (A[0, 0])?',
    selfAll: 'all of it: A[0, 0] = 1', selfPart: 'only part: A[0, 0] < 1',
  },
};

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: [[2, 0], [0, 4], [4, 2]], maxRows: 64, maxCols: 6 },
    { key: 'wq', type: 'matrix', default: [[0.3, 0.1], [0, 0.3]], maxRows: 6, maxCols: 6 },
    { key: 'wk', type: 'matrix', default: [[0.2, -0.3], [0.3, 0.2]], maxRows: 6, maxCols: 6 },
    { key: 'wv', type: 'matrix', default: [[1, 0], [0.5, 1]], maxRows: 6, maxCols: 6 },
    { key: 'layout', type: 'enum', options: ['math', 'linear'], default: 'math' },
    { key: 'causal', type: 'bool', default: true },
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
    const predictCausal = prediction({ lang: ctx.lang, name: 'predict-causal', question: t('predictCausal'),
      options: [{ value: 'all', label: t('selfAll') }, { value: 'part', label: t('selfPart') }] });
    const causal = ctx.toggle('causal', { onChange: (v) => predictCausal.ask(() => ctx.set({ causal: v }), () => ctx.refresh()) });
    const maps = {
      q: heatmap({ t, name: 'q', label: 'Q = X W_Q', names: ['B', 'T', 'd'] }),
      k: heatmap({ t, name: 'k', label: 'K = X W_K', names: ['B', 'T', 'd'] }),
      v: heatmap({ t, name: 'v', label: 'V = X W_V', names: ['B', 'T', 'd'] }),
      s: heatmap({ t, name: 's', label: t('S'), names: ['B', 'T', 'T'], axes: 'self' }),
      a: heatmap({ t, name: 'a', label: t('A'), names: ['B', 'T', 'T'], weights: true, axes: 'self' }),
      y: heatmap({ t, name: 'y', label: t('Y'), names: ['B', 'T', 'd'] }),
    };
    const opts = (s) => ({ wq: tensor(s.wq), wk: tensor(s.wk), wv: tensor(s.wv), heads: 1, causal: s.causal });
    // every number explains itself: the cells it came from, and the core's arithmetic
    const linear = () => ctx.state.layout === 'linear';
    const prov = provenance({ lang: ctx.lang, core, fn: 'multiHeadAttention', inputs: (s) => ({ x: tensor([s.x]), ...opts(s) }),
      sources: { x, wq: { widget: w.wq, swap: linear }, wk: { widget: w.wk, swap: linear }, wv: { widget: w.wv, swap: linear },
        q: maps.q, k: maps.k, v: maps.v, scores: maps.s, weights: maps.a },
      targets: [['q', maps.q], ['k', maps.k], ['v', maps.v], ['scores', maps.s], ['weights', maps.a], ['out', maps.y]]
        .map(([quantity, widget]) => ({ quantity, widget, at: quantity === 'scores' || quantity === 'weights' ? (i, j) => [0, 0, i, j] : (i, j) => [0, i, j] })),
      // the scale 1/√d, d = one head's width = the number of terms of the score
      scale: (e) => ({ sym: '/ √d', num: `/ √${e.terms.length}` }), outHead: () => 0 });
    ctx.lab.append(
      h('div.controls', {}, layout.el, causal.el), predictCausal.el,
      h('div.row', {}, x.el, w.wq.el, w.wk.el, w.wv.el),
      h('div.row', {}, maps.q.el, maps.k.el, maps.v.el),
      h('div.row', {}, maps.s.el, maps.a.el, maps.y.el), prov.el);
    return {
      compute(s, c) {
        return c.multiHeadAttention(tensor([s.x]), opts(s));
      },
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
      },
      pytorch(s) {
        // the weights as the editors show them: in nn.Linear's layout the core transposes them
        const shown = (key) => (s.layout === 'linear' ? core.mathWeightToLinear(tensor(s[key])) : tensor(s[key]));
        return PROGRAMS['18.3'](s, { weights: { wq: shown('wq'), wk: shown('wk'), wv: shown('wv') } }, ctx.lang);
      },
    };
  },
};
