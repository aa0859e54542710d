// 18.3 Q, K, V: three projections of the same X, scores S = Q K^T / sqrt(d), weights, output.
// Weights are stored in math layout (C, d); the editors can show them as nn.Linear stores them (d, C).
import { heatmap } from '../widgets/heatmap.js';
import { h } from '../widgets/dom.js';
import { tensor, toNested, matrixAt } from '../tensors.js';
import { assign, header, program, say, show } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    x: '输入 X', layout: '权重的显示方式', math: '数学布局 (C, d)：Q = X W', linear: 'nn.Linear 存储布局 (d, C)：Q = X Wᵀ',
    S: '分数 S = Q Kᵀ / √d（遮罩前）', A: '权重 A = softmax(S + M)', Y: '输出 Y = A V',
  },
  en: {
    x: 'Input X', layout: 'Show the weights in', math: 'math layout (C, d): Q = X W', linear: 'nn.Linear storage (d, C): Q = X Wᵀ',
    S: 'Scores S = Q Kᵀ / √d (before the mask)', A: 'Weights A = softmax(S + M)', Y: 'Output Y = A V',
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
  build(ctx) {
    const { t, core } = ctx;
    const x = ctx.editor('x', { names: ['T', 'C'] });
    // In linear layout the editors hold (d, C); the state always holds the math layout (C, d).
    // Showing (d, C) is a transpose, done by the core like every other number on the page.
    const weight = (key, label) => ctx.editor(key, { label, names: ['C', 'd'],
      view: (s) => (s.layout === 'linear' ? { value: toNested(core.mathWeightToLinear(tensor(s[key]))), names: ['d', 'C'] } : null),
      onChange: (v) => ctx.set({ [key]: ctx.state.layout === 'linear' ? toNested(core.linearWeightToMath(tensor(v))) : v }) });
    const w = { wq: weight('wq', 'W_Q'), wk: weight('wk', 'W_K'), wv: weight('wv', 'W_V') };
    const layout = ctx.choice('layout');
    const causal = ctx.toggle('causal');
    const maps = {
      q: heatmap({ t, name: 'q', label: 'Q = X W_Q', names: ['B', 'T', 'd'] }),
      k: heatmap({ t, name: 'k', label: 'K = X W_K', names: ['B', 'T', 'd'] }),
      v: heatmap({ t, name: 'v', label: 'V = X W_V', names: ['B', 'T', 'd'] }),
      s: heatmap({ t, name: 's', label: t('S'), names: ['B', 'T', 'T'], axes: 'self' }),
      a: heatmap({ t, name: 'a', label: t('A'), names: ['B', 'T', 'T'], weights: true, axes: 'self' }),
      y: heatmap({ t, name: 'y', label: t('Y'), names: ['B', 'T', 'd'] }),
    };
    ctx.lab.append(
      h('div.controls', {}, layout.el, causal.el),
      h('div.row', {}, x.el, w.wq.el, w.wk.el, w.wv.el),
      h('div.row', {}, maps.q.el, maps.k.el, maps.v.el),
      h('div.row', {}, maps.s.el, maps.a.el, maps.y.el));
    return {
      compute(s, c) {
        return c.multiHeadAttention(tensor([s.x]), { wq: tensor(s.wq), wk: tensor(s.wk), wv: tensor(s.wv), heads: 1, causal: s.causal });
      },
      paint(r) {
        const shape3 = (tt) => ({ shape: tt.shape });
        maps.q.set(matrixAt(r.q, 0), shape3(r.q));
        maps.k.set(matrixAt(r.k, 0), shape3(r.k));
        maps.v.set(matrixAt(r.v, 0), shape3(r.v));
        const tt = [r.scores.shape[0], r.scores.shape[2], r.scores.shape[3]];   // one head: (B, T, T)
        maps.s.set(matrixAt(r.scores, 0, 0), { shape: tt });
        maps.a.set(matrixAt(r.weights, 0, 0), { shape: tt });
        maps.y.set(matrixAt(r.out, 0), shape3(r.out));
      },
      pytorch(s) {
        const c = say(ctx.lang);
        const linear = s.layout === 'linear';
        // in nn.Linear's layout the weights are shown (d, C): the core transposes them, as for the editors
        const weights = ['wq', 'wk', 'wv'].map((key, i) => assign(['W_Q', 'W_K', 'W_V'][i],
          linear ? core.mathWeightToLinear(tensor(s[key])) : tensor(s[key]))).join('\n');
        return program(
          header(c('Attention Lab 18.3: Q, K and V, three projections of one X.', '注意力实验室 18.3：Q、K、V，同一个 X 的三个投影。'),
            [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')], { lang: ctx.lang }),
          [assign('X', tensor([s.x]), `(B, T, C) = (1, ${s.x.length}, ${s.x[0].length})`),
            linear ? `# ${c('the weights as nn.Linear(C, d, bias=False) stores them: (d, C)', '权重按 nn.Linear(C, d, bias=False) 的存储方式：(d, C)')}`
              : `# ${c('the weights in math layout (C, d): Q = X W_Q', '权重为数学布局 (C, d)：Q = X W_Q')}`,
            weights].join('\n'),
          [linear ? `Q, K, V = (torch.nn.functional.linear(X, W) for W in (W_Q, W_K, W_V))   # ${c("nn.Linear's forward: X @ W.T", 'nn.Linear 的前向：X @ W.T')}`
            : 'Q, K, V = X @ W_Q, X @ W_K, X @ W_V          # (B, T, d)',
          'd = Q.shape[-1]',
          `S = Q @ K.transpose(-2, -1) / math.sqrt(d)   # ${c('(B, T, T), before the mask', '(B, T, T)，遮罩之前')}`,
          ...(s.causal ? ['T = X.shape[1]',
            `allowed = torch.ones(T, T, dtype=torch.bool).tril()   # ${c('causal: receiver t sees sources j <= t', '因果：接收位置 t 只看来源 j <= t')}`,
            "A = S.masked_fill(~allowed, float('-inf')).softmax(dim=-1)"]
            : [`A = S.softmax(dim=-1)                         # ${c('no mask: every position sees all the others', '不遮罩：每个位置看到所有位置')}`]),
          'Y = A @ V                                     # (B, T, d)'].join('\n'),
          ['Q', 'K', 'V', 'S', 'A', 'Y'].map((n) => show(n, `${n}.tolist()`)).join('\n'));
      },
    };
  },
};
