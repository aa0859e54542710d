// 18.2 Masked softmax: the mask before vs after the softmax, NaN for a row with nothing allowed,
// and which axis a softmax normalizes on (B, T, T) and (B, H, T, T) tensors.
import { heatmap } from '../widgets/heatmap.js';
import { button, readout } from '../widgets/controls.js';
import { dimSelector } from '../widgets/dim-selector.js';
import { h, setText, setHidden } from '../widgets/dom.js';
import { provenance, tokenLabels, TOKENS } from '../widgets/provenance.js';
import { tensor, matrixAt, values } from '../tensors.js';
import { fmt, fmtErr } from '../format.js';

const strings = {
  zh: {
    s: '分数 S', mask: '遮罩（1 = 允许，0 = 遮住）', none: '不遮', before: '先遮罩再 softmax（正确做法）',
    after: '先 softmax 再把遮住的位置清零',
    nanRows: '第 {rows} 行没有任何允许的位置：先填 −∞ 再做 softmax 时，分母是 0 个 e^s 之和，得到 NaN；先 softmax 再清零时，这一行全为 0。',
    afterNote: '先 softmax 再清零：被清零的权重原本也占了分母，所以有格子被遮住的行，剩下的和小于 1。',
    afterNoteNone: '现在什么都没遮：两种顺序算出的权重相同，每行和都是 1。',
    showAfter: '看看“先 softmax 再清零”的结果',
    predictAfter: '如果先对整行做 softmax，再把遮住的格子清零，各行的和会怎样？',
    predictOne: '每行仍然和为 1', predictLess: '有格子被遮住的行，和小于 1', predictMore: '有的行和大于 1',
    sumsLast: '沿最后一维（来源 j）求和：注意力要求每个接收位置都是 1',
    lastOff: '沿最后一维的和与 1 的最大偏差',
    dimTitle: 'softmax 沿哪一维？', kind: '张量', btt: '(B, T, T)', bhtt: '(B, H, T, T)',
    sumsAlong: '沿 dim {dim} 求和（每个都是 1）',
    slice: '{axis} = {i} 的切片',
    dimLabel: 'dim {d}：{name}',
    axB: '批 b', axH: '头 h', axTq: '接收位置 t', axTk: '来源位置 j',
    explain_btt_0: '沿批维归一化：同一格在两条序列之间分配权重，两条序列被混在一起。',
    explain_btt_1: '沿接收位置归一化：每一列和为 1，表示“谁在看来源 j”，不是注意力需要的分配。',
    explain_btt_2: '沿来源位置归一化：每一行和为 1，接收位置 t 把权重分给各个来源，这正是注意力要的。',
    explain_bhtt_0: '沿批维归一化，而这里的批只有一条序列：对单独一个数做 softmax 得 1，所以每个权重都恰好是 1，每行的和是 T 而不是 1。（像 (B, T, T) 那样有两条序列时，序列会被混在一起。）',
    explain_bhtt_1: '写死 dim=1 在四维张量里落在头轴上：同一格在各个头之间分配权重，头与头被混在一起。',
    explain_bhtt_2: '沿接收位置归一化：每一列和为 1，不是注意力需要的分配。',
    explain_bhtt_3: '沿来源位置（最后一维）归一化：每一行和为 1，正确。',
    checkWeights: '分数 S 加因果遮罩（j ≤ t）后做 softmax 得到的权重，形状与 S 相同',
  },
  en: {
    s: 'Scores S', mask: 'Mask (1 = allowed, 0 = masked)', none: 'No mask', before: 'Mask, then softmax (the right way)',
    after: 'Softmax, then zero the masked entries',
    nanRows: 'Row {rows} has no allowed position: with −∞ filled in before the softmax the denominator is a sum of no terms, so the row is NaN; zeroing after the softmax leaves the row all 0.',
    afterNote: 'Softmax first, then zeroing: the zeroed weights also took part in the denominator, so a row with masked entries keeps less than 1.',
    afterNoteNone: 'Nothing is masked now: both orders give the same weights, and every row sums to 1.',
    showAfter: 'Show what softmax-then-zero gives',
    predictAfter: 'If the softmax runs over the whole row first and the masked entries are zeroed afterwards, what happens to the row sums?',
    predictOne: 'every row still sums to 1', predictLess: 'rows with masked entries sum to less than 1', predictMore: 'some rows sum to more than 1',
    sumsLast: 'Sums along the last dim (the sources j): attention needs 1 for every receiver',
    lastOff: 'largest |sum − 1| along the last dim',
    dimTitle: 'Along which dim does the softmax normalize?', kind: 'Tensor', btt: '(B, T, T)', bhtt: '(B, H, T, T)',
    sumsAlong: 'Sums along dim {dim} (each is 1)',
    slice: 'slice {axis} = {i}',
    dimLabel: 'dim {d}: {name}',
    axB: 'batch b', axH: 'head h', axTq: 'receiving t', axTk: 'source j',
    explain_btt_0: 'Normalizing over the batch: one cell shares its weight across the two sequences, which mixes them.',
    explain_btt_1: 'Normalizing over receiving positions: every column sums to 1 ("who looks at source j"), which is not the distribution attention needs.',
    explain_btt_2: 'Normalizing over source positions: every row sums to 1, so receiver t splits its weight over the sources. This is attention.',
    explain_bhtt_0: 'Normalizing over the batch, which holds one sequence here: a softmax over a single number is 1, so every weight is exactly 1 and each row sums to T, not 1. (With two sequences, as in (B, T, T), the sequences would mix.)',
    explain_bhtt_1: 'A hard-coded dim=1 lands on the head axis of a 4-D tensor: one cell splits its weight across heads, mixing them.',
    explain_bhtt_2: 'Normalizing over receiving positions: every column sums to 1, not what attention needs.',
    explain_bhtt_3: 'Normalizing over source positions (the last dim): every row sums to 1. Correct.',
    checkWeights: 'the weights: the softmax of the scores S with the causal mask (j ≤ t), shaped like S',
  },
};

const causal = (T, Tk) => Array.from({ length: T }, (_, i) => Array.from({ length: Tk }, (_, j) => (j <= i ? 1 : 0)));
const AXES = { btt: ['axB', 'axTq', 'axTk'], bhtt: ['axB', 'axH', 'axTq', 'axTk'] };
const NAMES = { btt: ['B', 'T', 'T'], bhtt: ['B', 'H', 'T', 'T'] };   // the demo's shape, by axis
// the mask as the core takes it, and the demo tensor whose softmax dim is chosen, drawn by the core
const maskOf = (s) => ({ shape: [s.mask.length, s.mask[0].length], data: Uint8Array.from(s.mask.flat()) });
const demoOf = (s, core) => core.randn(s.kind === 'btt' ? [2, 3, 3] : [1, 2, 3, 3], s.seed);

/** Every weight explains itself: the score row, the mask, every exp, the max and the denominator. */
function explainer(ctx, { scores, mask, before, after, sliceMaps }) {
  return provenance({ lang: ctx.lang, core: ctx.core, fn: 'softmax', sources: { scores, mask },
    targets: [
      ...[['before', before], ['after', after]].map(([order, widget]) => ({ widget, quantity: 'weights', at: (i, j) => [i, j],
        inputs: (s) => ({ scores: tensor(s.s), mask: maskOf(s), maskOrder: order }) })),
      // the demo slices: the softmax along the chosen dim (its scores are not shown, only explained)
      ...sliceMaps.map((widget, n) => ({ widget, quantity: 'weights', at: (i, j) => (ctx.state.kind === 'btt' ? [n, i, j] : [0, n, i, j]),
        inputs: (s) => ({ scores: demoOf(s, ctx.core), dim: s.dim }), sources: {} })),
    ],
    softmaxDim: (s, at) => (s.dim < 0 ? s.dim + at.length : s.dim) });
}

/** Which axis a softmax normalizes: the kind of tensor, its seed, the dim, the demo's slices along it and what they sum to. */
function dimPart(ctx) {
  const { t } = ctx;
  const kind = ctx.choice('kind', { onChange: (v) => ctx.set({ kind: v, dim: -1 }) });
  const seed = ctx.integer('seed');
  const dims = dimSelector({ label: t('dimTitle'), onChange: (v) => ctx.set({ dim: v }) });
  const explain = h('p.note.dim-explain', { role: 'status' });
  const slices = h('div.slices');
  const sliceMaps = [0, 1].map((i) => heatmap({ t, name: `slice${i}`, label: '', names: ['T', 'T'], weights: true, axes: 'past' }));
  slices.append(...sliceMaps.map((m) => m.el));
  const sums = heatmap({ t, name: 'sums', label: '', names: null, digits: 6 });
  const sumsLast = heatmap({ t, name: 'sums-last', label: t('sumsLast'), names: null, digits: 6 });
  const lastOff = readout({ name: 'last-off' });
  return {
    sliceMaps,
    els: [h('h3', {}, t('dimTitle')), h('div.controls', {}, kind.el, seed.el), dims.el, explain, slices, h('div.row', {}, sumsLast.el, sums.el), lastOff.el],
    sync(s) {
      const axes = AXES[s.kind];
      dims.set([...axes.map((a, d) => ({ value: d, label: t('dimLabel', { d, name: t(a) }) })), { value: -1, label: t('dimLabel', { d: -1, name: t('axTk') }) }], s.dim);
    },
    // the demo's softmax along the chosen dim: its slices, and what it summed to
    paint(r, s) {
      const d = s.dim < 0 ? s.dim + r.w.shape.length : s.dim;
      const axis = s.kind === 'btt' ? 'b' : 'h';
      const norm = d === r.w.shape.length - 1 ? 'norm-rows' : d === r.w.shape.length - 2 ? 'norm-cols' : 'norm-across';
      slices.className = `slices ${norm}`;
      sliceMaps.forEach((m, i) => m.set(s.kind === 'btt' ? matrixAt(r.w, i) : matrixAt(r.w, 0, i),
        { names: ['T', 'T'], shape: [3, 3], label: t('slice', { axis, i }) }));
      setText(explain, t(`explain_${s.kind}_${d}`));
      explain.className = `note dim-explain ${d === r.w.shape.length - 1 ? 'good' : 'bad'}`;
      const rowsOf = (tt) => (tt.shape.length === 1 ? [values(tt)] : matrixAt(tt, ...Array(tt.shape.length - 2).fill(0)));
      // what attention needs (sums over the sources) beside what this softmax normalized (the chosen dim)
      sumsLast.set(rowsOf(r.lastSums), { shape: r.lastSums.shape, names: s.kind === 'btt' ? ['B', 'T'] : ['B', 'H', 'T'] });
      const last = d === r.w.shape.length - 1;
      setHidden(sums.el, last);
      // what is left of the axes once the chosen one is summed away
      sums.set(rowsOf(r.wSums), { shape: r.wSums.shape, names: NAMES[s.kind].filter((_, k) => k !== d), label: t('sumsAlong', { dim: s.dim }) });
      lastOff.set([[t('lastOff'), fmtErr(r.lastOff), last ? 'good' : 'bad', r.lastOff]]);
    },
  };
}

function compute(s, core) {
  const S = tensor(s.s);
  const maskT = maskOf(s);
  const before = core.softmax(S, { mask: maskT, maskOrder: 'before' });
  const after = core.softmax(S, { mask: maskT, maskOrder: 'after' });
  const demo = demoOf(s, core);
  const w = core.softmax(demo, { dim: s.dim });
  const ones = (tt) => ({ shape: tt.shape, data: new Float64Array(tt.data.length).fill(1) });
  const afterSums = core.sum(after, { dim: -1 }), lastSums = core.sum(w, { dim: -1 });
  return { before, after, beforeSums: core.sum(before, { dim: -1 }), afterSums, afterOff: core.maxAbsDiff(afterSums, ones(afterSums)),
    demo, w, wSums: core.sum(w, { dim: s.dim }), lastSums, lastOff: core.maxAbsDiff(lastSums, ones(lastSums)) };
}

export default {
  strings,
  state: [
    { key: 's', type: 'matrix', default: [[1, 2, 0], [0.5, 1, 3], [2, 0, 1]], maxRows: 8, maxCols: 8 },
    // the mask follows the scores' shape (new cells causal)
    { key: 'mask', type: 'mask', default: causal(3, 3), maxRows: 8, within: (st) => ({ rows: st.s.length, cols: st.s[0].length }) },
    { key: 'kind', type: 'enum', options: ['btt', 'bhtt'], default: 'btt' },
    { key: 'dim', type: 'enum', options: [-1, 0, 1, 2, 3], default: -1, within: (st) => ({ options: AXES[st.kind].map((_, d) => d).concat(-1) }) },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
  ],
  errors: { x: 's', overflow: 's' },
  build(ctx) {
    const { t } = ctx;
    const scores = ctx.editor('s', { names: ['T', 'T'], axes: 'past' });
    const mask = ctx.editor('mask');
    const presets = h('div.controls', {},
      button({ label: t('causal'), onClick: () => ctx.set({ mask: causal(ctx.state.s.length, ctx.state.s[0].length) }) }),
      button({ label: t('none'), onClick: () => ctx.set({ mask: ctx.state.s.map((r) => r.map(() => 1)) }) }));
    const before = heatmap({ t, name: 'before', label: t('before'), names: ['T', 'T'], weights: true, axes: 'past' });
    const after = heatmap({ t, name: 'after', label: t('after'), names: ['T', 'T'], weights: true, axes: 'past' });
    // the other order is shown once the student has predicted what it does (or skipped)
    let revealed = false;
    const predictAfter = ctx.prediction({ name: 'predict-after', question: t('predictAfter'),
      options: [{ value: 'one', label: t('predictOne') }, { value: 'less', label: t('predictLess') }, { value: 'more', label: t('predictMore') }] });
    const showAfter = button({ label: t('showAfter'), className: 'show-after',
      onClick: () => { showAfter.hidden = true; predictAfter.ask(() => { revealed = true; ctx.refresh(); }); } });
    const nanNote = h('p.note.nan-note', { role: 'note' });
    const dim = dimPart(ctx);
    const prov = explainer(ctx, { scores, mask, before, after, sliceMaps: dim.sliceMaps });
    ctx.lab.append(
      h('div.row', {}, h('div.stack', {}, scores.el), h('div.stack', {}, mask.el, presets, nanNote)),
      h('div.row', {}, before.el, h('div.stack', {}, after.el, showAfter, predictAfter.el)), prov.el, ...dim.els);

    // the mask before and after the softmax, and the rows with nothing allowed
    function paintOrders(r, s) {
      const marks = (sumT) => Object.fromEntries(values(sumT).map((v, i) => [i, fmt(v, 3)]));
      const tokens = tokenLabels(TOKENS, s.s.length), sources = tokenLabels(TOKENS, s.s[0].length);
      before.set(matrixAt(r.before), { rowMarks: marks(r.beforeSums), rowMarkValues: values(r.beforeSums), rowMarksLabel: t('rowSum'), rowLabels: tokens, colLabels: sources });
      const masked = s.mask.some((row) => row.includes(0));
      after.set(matrixAt(r.after), { rowMarks: marks(r.afterSums), rowMarkValues: values(r.afterSums), rowMarksLabel: t('rowSum'), rowLabels: tokens, colLabels: sources, note: t(masked ? 'afterNote' : 'afterNoteNone') });
      setHidden(after.el, !revealed);
      setHidden(showAfter, revealed || predictAfter.open);
      if (predictAfter.waiting) predictAfter.settle(r.afterOff > 1e-12 ? 'less' : 'one');
      setHidden(nanNote, r.before.maskedRows.length === 0);
      nanNote.textContent = t('nanRows', { rows: r.before.maskedRows.map((idx) => idx.join(', ')).join('; ') });
    }

    return {
      sync: dim.sync,
      compute,
      paint(r, s) {
        paintOrders(r, s);
        dim.paint(r, s);
        prov.update(s);
      },
      pytorch: (s, r, PROGRAMS) => PROGRAMS['18.2'](s, { demo: r.demo }, ctx.lang),
      // the causal mask, as the lesson's code writes it; the page's map shows the same numbers
      // (and explains them) when its mask is the causal one
      check(s) {
        const causalNow = JSON.stringify(s.mask) === JSON.stringify(causal(s.s.length, s.s[0].length));
        return { check: 'softmax', inputs: { scores: tensor(s.s) }, given: { S: tensor(s.s) },
          compare: [{ key: 'weights', label: t('checkWeights'), reveal: (i) => (causalNow ? before.reveal(i[0], i[1]) : null) }] };
      },
    };
  },
};
