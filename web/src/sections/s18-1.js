// 18.1 Averaging the past as a matrix product: Y = A X with A (T, T) broadcast over the batch.
import { heatmap } from '../widgets/heatmap.js';
import { readout } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { tensor, matrixAt, values } from '../tensors.js';
import { fmt, fmtErr, shapeText } from '../format.js';
import { assign, header, program, say, show } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    norm: '每行归一化（平均），关掉则为下三角全 1（累加）',
    batch: '批大小 B = 2（同一个 A 广播给两条序列）',
    x: '序列 0 的 X', x2: '序列 1 的 X',
    A: '权重矩阵 A', y0: '序列 0 的 Y = A X', y1: '序列 1 的 Y = A X', loop: '循环版：out[t] = X[0..t] 的均值',
    maxDiff: '循环版与矩阵版的最大差异', notAverage: '未归一化时 Y 是累加，不是平均，不与循环版比较',
    xShape: 'X 的形状', yShape: 'Y 的形状',
  },
  en: {
    norm: 'Normalize each row (an average); off: plain lower-triangular ones (running sums)',
    batch: 'Batch B = 2 (one A broadcast over both sequences)',
    x: 'X of sequence 0', x2: 'X of sequence 1',
    A: 'Weight matrix A', y0: 'Y = A X, sequence 0', y1: 'Y = A X, sequence 1', loop: 'Loop: out[t] = mean of X[0..t]',
    maxDiff: 'Max difference, loop vs matrix', notAverage: 'Without normalizing, Y is a running sum, not an average: no loop comparison',
    xShape: 'shape of X', yShape: 'shape of Y',
  },
};

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: [[2, 0], [0, 4], [4, 2]], maxRows: 10, maxCols: 6 },
    // the second sequence follows x's shape (cropped or padded with zeros): the batch is rectangular
    { key: 'x2', type: 'matrix', default: [[1, 3], [5, -1], [0, 2]], maxRows: 10, maxCols: 6, within: (s) => ({ rows: s.x.length, cols: s.x[0].length }) },
    { key: 'norm', type: 'bool', default: true },
    { key: 'batch', type: 'bool', default: false },
  ],
  build(ctx) {
    const { t } = ctx;
    const x0 = ctx.editor('x', { names: ['T', 'C'] });
    const x1 = ctx.editor('x2', { names: ['T', 'C'] });
    const norm = ctx.toggle('norm');
    const batch = ctx.toggle('batch');
    const A = heatmap({ t, name: 'A', label: t('A'), names: ['T', 'T'], weights: true, axes: 'self' });
    const y0 = heatmap({ t, name: 'y0', label: t('y0'), names: ['T', 'C'] });
    const y1 = heatmap({ t, name: 'y1', label: t('y1'), names: ['T', 'C'] });
    const loop = heatmap({ t, name: 'loop', label: t('loop'), names: ['T', 'C'] });
    const out = readout({ name: 'diff' });
    const xBadge = h('p.shape-line'), yBadge = h('p.shape-line');
    ctx.lab.append(
      h('div.controls', {}, norm.el, batch.el),
      h('div.product', {}, A.el, h('span.op', { 'aria-hidden': 'true' }, '×'), h('div.stack', {}, x0.el, x1.el, xBadge),
        h('span.op', { 'aria-hidden': 'true' }, '='), h('div.stack', {}, y0.el, y1.el, yBadge)),
      h('div.compare', {}, loop.el, out.el));
    return {
      sync(s) {
        x1.el.hidden = y1.el.hidden = !s.batch;
      },
      compute(s, core) {
        const X = tensor(s.batch ? [s.x, s.x2] : [s.x]);             // (B, T, C)
        const A = core.averagingMatrix(s.x.length, { normalize: s.norm });
        const Y = core.matmul(A, X);                                 // (T, T) x (B, T, C) -> (B, T, C)
        const loop = core.causalAverage(X, { method: 'loop' });
        return { X, A, Y, loop, rowSums: core.sum(A, { dim: -1 }), diff: s.norm ? core.maxAbsDiff(loop, Y) : null };
      },
      paint(r, s) {
        const sums = values(r.rowSums);
        A.set(matrixAt(r.A), { rowMarks: Object.fromEntries(sums.map((v, i) => [i, fmt(v, 3)])), rowMarkValues: sums, rowMarksLabel: t('rowSum') });
        y0.set(matrixAt(r.Y, 0));
        if (s.batch) y1.set(matrixAt(r.Y, 1));
        loop.set(matrixAt(r.loop, 0));
        xBadge.textContent = `${t('xShape')} ${shapeText(['B', 'T', 'C'], r.X.shape)}`;
        yBadge.textContent = `${t('yShape')} ${shapeText(['B', 'T', 'C'], r.Y.shape)}`;
        out.set(s.norm ? [[t('maxDiff'), fmtErr(r.diff), 'diff', r.diff]] : [[t('maxDiff'), t('notAverage'), 'diff']]);
      },
      pytorch(s, r) {
        const c = say(ctx.lang);
        return program(
          header(c('Attention Lab 18.1: averaging the past as a matrix product, Y = A X.', '注意力实验室 18.1：把“平均过去”写成矩阵乘法 Y = A X。'),
            [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')], { lang: ctx.lang }),
          assign('X', r.X, `(B, T, C) = (${r.X.shape.join(', ')})`),
          ['T = X.shape[1]',
            `A = torch.ones(T, T).tril()                 # ${c('row t: ones at j <= t', '第 t 行：j <= t 处为 1')}`,
            s.norm ? `A = A / A.sum(dim=-1, keepdim=True)         # ${c('each row averages the past', '每行对过去求平均')}`
              : `# ${c('not normalized: Y holds running sums', '不归一化：Y 是累加和')}`,
            `Y = A @ X                                   # ${c('(T, T) @ (B, T, C) -> (B, T, C): A broadcasts over the batch', '(T, T) @ (B, T, C) -> (B, T, C)：A 广播到每条序列')}`].join('\n'),
          [`# ${c('the loop: out[t] = the mean of X[0..t]', '循环版：out[t] = X[0..t] 的均值')}`,
            'loop = torch.stack([X[:, :t + 1].mean(dim=1) for t in range(T)], dim=1)'].join('\n'),
          [show('A', 'A.tolist()'), show('row sums of A', 'A.sum(dim=-1).tolist()'), show('Y', 'Y.tolist()'),
            show('loop, sequence 0', 'loop[0].tolist()'),
            s.norm ? show('max |loop - Y|', '(loop - Y).abs().max().item()') : null].filter(Boolean).join('\n'));
      },
    };
  },
};
