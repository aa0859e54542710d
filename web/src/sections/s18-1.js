// 18.1 Averaging the past as a matrix product: Y = A X with A (T, T) broadcast over the batch.
import { heatmap } from '../widgets/heatmap.js';
import { readout, button } from '../widgets/controls.js';
import { h, setText, setHidden } from '../widgets/dom.js';
import { provenance, tokenLabels, TOKENS } from '../widgets/provenance.js';
import { tensor, matrixAt, values } from '../tensors.js';
import { fmt, fmtErr, shapeText } from '../format.js';

const strings = {
  zh: {
    norm: '每行归一化（平均），关掉则为下三角全 1（累加）',
    batch: '批大小 B = 2（同一个 A 广播给两条序列）',
    x: '序列 0 的 X', x2: '序列 1 的 X',
    A: '权重矩阵 A', y0: '序列 0 的 Y = A X', y1: '序列 1 的 Y = A X', loop: '循环版：out[t] = X[0..t] 的均值',
    loopSum: '循环版：out[t] = X[0..t] 之和（不归一化时循环做的是累加）',
    maxDiff: '循环版与矩阵版的最大差异', chapter: '教材在 float64 下实测',
    nonInteger: '换成非整数的 X（重现教材的 2.22e−16）',
    diffZeroChapter: '严格为 0：对这个 X，两条路线舍入到同一批浮点数。只有 1/3 这样的权重在二进制里不精确；教材的 X 只含 0、2、4，舍入后的 1/3 乘以它们是精确的（乘 2 的幂），加起来又恰好舍回真实的平均值。换成非整数的例子，就能看到教材的 2.22e−16。',
    diffZero: '严格为 0：对这个 X，两条路线恰好舍入到同一批浮点数。',
    sumRounding: '差在最后几位：循环版和矩阵版把同样的数按不同的顺序相加，舍入不同。',
    diffRounding: '差在最后几位：循环版先把各行相加、最后除一次；矩阵版先把每行乘以舍入过的 1/(t+1)（1/3 在二进制里不精确）再相加，两者舍入不同。教材的 2.22e−16 也是这样的浮点舍入，不是错误。',
    xShape: 'X 的形状', yShape: 'Y 的形状',
    checkY: 'Y = A X，按位置求的逐行平均（归一化的 A），形状 (B, T, C)，一条序列时也可以是 (T, C)',
  },
  en: {
    norm: 'Normalize each row (an average); off: plain lower-triangular ones (running sums)',
    batch: 'Batch B = 2 (one A broadcast over both sequences)',
    x: 'X of sequence 0', x2: 'X of sequence 1',
    A: 'Weight matrix A', y0: 'Y = A X, sequence 0', y1: 'Y = A X, sequence 1', loop: 'Loop: out[t] = mean of X[0..t]',
    loopSum: 'Loop: out[t] = sum of X[0..t] (without normalizing, the loop adds)',
    maxDiff: 'Max difference, loop vs matrix', chapter: 'the chapter measured (float64)',
    nonInteger: 'Try a non-integer X (the chapter\'s 2.22e−16)',
    diffZeroChapter: 'Exactly 0: for this X both routes round to the same doubles. Only weights such as 1/3 are inexact in binary, and the chapter\'s X holds just 0, 2 and 4: the rounded 1/3 times these is exact (a power of two), and the products add up to a value that rounds back to the true mean. The non-integer example shows the chapter\'s 2.22e−16.',
    diffZero: 'Exactly 0: for this X both routes happen to round to the same doubles.',
    sumRounding: 'A difference in the last bits: the loop and the matrix add the same numbers in a different order, and round differently.',
    diffRounding: 'A difference in the last bits: the loop adds the rows and divides once, the matrix multiplies every row by a rounded 1/(t+1) (1/3 is not exact in binary) and then adds, so the two round differently. The chapter\'s 2.22e−16 is this kind of floating-point rounding, not a bug.',
    xShape: 'shape of X', yShape: 'shape of Y',
    checkY: 'Y = A X, the running mean over the positions (A normalized), shape (B, T, C), or (T, C) for one sequence',
  },
};

const CHAPTER_X = [[2, 0], [0, 4], [4, 2]];
// A non-integer X whose loop and matrix averages differ by exactly 2^-52 = 2.220446049250313e-16,
// the chapter's figure (tests/web/lesson-fidelity.test.mjs checks the core gives exactly that).
const NON_INTEGER_X = [[0.8, 0.2], [0.9, 0.4], [0.7, 0.1]];

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: CHAPTER_X, maxRows: 10, maxCols: 6 },
    // the second sequence follows x's shape (cropped or padded with zeros): the batch is rectangular
    { key: 'x2', type: 'matrix', default: [[1, 3], [5, -1], [0, 2]], maxRows: 10, maxCols: 6, within: (s) => ({ rows: s.x.length, cols: s.x[0].length }) },
    { key: 'norm', type: 'bool', default: true },
    { key: 'batch', type: 'bool', default: false },
  ],
  errors: { overflow: ['x', 'x2'] },
  build(ctx) {
    const { t } = ctx;
    const x0 = ctx.editor('x', { names: ['T', 'C'] });
    const x1 = ctx.editor('x2', { names: ['T', 'C'] });
    const norm = ctx.toggle('norm');
    const batch = ctx.toggle('batch');
    const A = heatmap({ t, name: 'A', label: t('A'), names: ['T', 'T'], weights: true, axes: 'past' });
    const y0 = heatmap({ t, name: 'y0', label: t('y0'), names: ['T', 'C'] });
    const y1 = heatmap({ t, name: 'y1', label: t('y1'), names: ['T', 'C'] });
    const loop = heatmap({ t, name: 'loop', label: t('loop'), names: ['T', 'C'] });
    const out = readout({ name: 'diff' });
    const batchOf = (s) => (s.batch ? [s.x, s.x2] : [s.x]);
    // every number explains itself: Y = A X by the core's matrix product, the loop by its average
    const prov = provenance({ lang: ctx.lang, core: ctx.core, fn: 'matmul', symbols: { a: 'A', b: 'X', out: 'Y' },
      inputs: (s) => ({ a: ctx.core.averagingMatrix(s.x.length, { normalize: s.norm }), b: tensor(batchOf(s)) }),
      sources: { a: A, b: (b) => (b ? x1 : x0), x: (b) => (b ? x1 : x0) },
      targets: [{ widget: y0, quantity: 'out', at: (i, j) => [0, i, j] }, { widget: y1, quantity: 'out', at: (i, j) => [1, i, j] },
        { widget: loop, quantity: 'out', at: (i, j) => [0, i, j], fn: 'causalAverage', when: (s) => s.norm,
          inputs: (s) => ({ x: tensor(batchOf(s)), method: 'loop' }) }] });
    const diffNote = h('p.note.diff-note');
    // the chapter's figure is about averaging: the example switches normalizing on too
    const example = button({ label: t('nonInteger'), onClick: () => ctx.set({ x: NON_INTEGER_X, norm: true }) });
    const xBadge = h('p.shape-line'), yBadge = h('p.shape-line');
    // each operator is grouped with its operand, so a narrow screen never leaves "×" or "=" alone on a line
    const op = (sign, ...operand) => h('div.term', {}, h('span.op', { 'aria-hidden': 'true' }, sign), h('div.stack', {}, ...operand));
    ctx.lab.append(
      h('div.controls', {}, norm.el, batch.el),
      h('div.product', {}, A.el, op('×', x0.el, x1.el, xBadge), op('=', y0.el, y1.el, yBadge)),
      h('div.compare', {}, loop.el, out.el, diffNote, h('div.controls', {}, example)), prov.el);
    return {
      sync(s) {
        setHidden(x1.el, !s.batch);
        setHidden(y1.el, !s.batch);
      },
      compute(s, core) {
        const X = tensor(batchOf(s));                               // (B, T, C)
        const A = core.averagingMatrix(s.x.length, { normalize: s.norm });
        const Y = core.matmul(A, X);                                 // (T, T) x (B, T, C) -> (B, T, C)
        // the loop: out[t] = mean of X[0..t], or without normalizing the sum of X[0..t] (the core sums
        // the rows up to t, one call per t; the page only picks the rows)
        const rows = batchOf(s);
        const loop = s.norm ? core.causalAverage(X, { method: 'loop' })
          : tensor(rows.map((_, b) => rows[b].map((__, t) => Array.from(core.sum(tensor(rows[b].slice(0, t + 1)), { dim: 0 }).data))));
        return { X, A, Y, loop, rowSums: core.sum(A, { dim: -1 }), diff: core.maxAbsDiff(loop, Y) };
      },
      paint(r, s) {
        const sums = values(r.rowSums);
        const tokens = tokenLabels(TOKENS, s.x.length);
        A.set(matrixAt(r.A), { rowMarks: Object.fromEntries(sums.map((v, i) => [i, fmt(v, 3)])), rowMarkValues: sums, rowMarksLabel: t('rowSum'), rowLabels: tokens, colLabels: tokens });
        y0.set(matrixAt(r.Y, 0), { rowLabels: tokens });
        if (s.batch) y1.set(matrixAt(r.Y, 1), { rowLabels: tokens });
        else y1.clear();   // hidden: nothing stale kept for when the batch is shown again
        loop.set(matrixAt(r.loop, 0), { label: t(s.norm ? 'loop' : 'loopSum'), rowLabels: tokens });
        setText(xBadge, `${t('xShape')} ${shapeText(['B', 'T', 'C'], r.X.shape)}`);
        setText(yBadge, `${t('yShape')} ${shapeText(['B', 'T', 'C'], r.Y.shape)}`);
        // the chapter's figure is for the average (normalized rows)
        out.set([[t('maxDiff'), fmtErr(r.diff), 'diff', r.diff], ...(s.norm ? [[t('chapter'), fmtErr(2.22e-16), 'chapter']] : [])]);
        const chapterX = JSON.stringify(s.x) === JSON.stringify(CHAPTER_X);
        setText(diffNote, t(r.diff !== 0 ? (s.norm ? 'diffRounding' : 'sumRounding') : chapterX && s.norm ? 'diffZeroChapter' : 'diffZero'));
        setHidden(example, JSON.stringify(s.x) === JSON.stringify(NON_INTEGER_X));
        prov.update(s);
      },
      pytorch: (s, r, PROGRAMS) => PROGRAMS['18.1'](s, { X: r.X }, ctx.lang),
      // the running mean of X (what the lesson computes, whether or not the page normalizes now)
      check: (s, r) => ({ check: 'causalAverage', inputs: { x: r.X }, given: { X: r.X },
        compare: [{ key: 'y', label: t('checkY'), reveal: (i) => (s.norm ? (i[0] ? y1 : y0).reveal(i[1], i[2]) : null) }] }),
    };
  },
};
