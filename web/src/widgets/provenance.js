// Provenance: point at a computed cell (hover, tap or keyboard focus) and see where it came from.
// The cells it was computed from are outlined in their own editors and heatmaps, each term in its
// own colour and numbered (not colour alone), and a panel (aria-live) shows the formula in the
// lesson's notation with the core's own numbers: the terms of the dot product, the max, every exp
// (masked ones as −∞ → 0), the denominator, and the value, which is the cell bit for bit. Every
// number comes from core.explain(); this module only formats and places them. The same holds for
// numbers made otherwise: a sinusoid, a copy (with its source's own sum below), a difference, a
// dropout entry, and 18.7's gradients (each dS term, then gradcheck's central difference). Maps
// drawn on a canvas (large T) report the cell pointed at and draw the outlines (heatmap.js hooks).
//
// A section declares, once:
//   provenance({ lang, core, fn, inputs(state) -> explain's opts, sources: {name: widget | (head) => widget},
//                targets: [{widget, quantity, at(i, j) -> index, fn?, inputs?, sources?, when?(state)}
//                          | {widget, quantity, note(i, j, state, value) -> [formula, string key, params, withValue]}],
//                plain?: [widget] (figures with nothing to explain: pointing there clears the panel), symbols?, scale?(e) -> {sym, num} })
// A note target is a number that is not computed (a seeded draw, the mask): the panel says so in one line.
// names: x, memory, wq, wk, wv, q, k, v, scores, weights, out, mask (the function's inputs and results);
// 18.5 adds pe (the position table P), px (Π X + P) and attnX (attn(X + P)), 18.7 G (∂L/∂Y).
import { h, setAttr } from './dom.js';
import { fmt } from '../format.js';
import { makeT } from '../i18n.js';

export const strings = {
  zh: {
    provTitle: '这个数是怎么来的',
    provHint: '把鼠标移到（或点按、用 Tab 聚焦）任何一个计算出的数字上：参与计算的格子会被描边标出，这里列出公式和内核用到的每一个数。',
    provMasked: '被遮罩：−∞ → 0',
    provMax: 'm = 未遮罩分数中的最大值',
    provMaxAll: 'm = 所有有限分数中的最大值（先 softmax 再遮罩）',
    provDenominator: '分母',
    provMaskedAfter: '这个位置被遮罩：softmax 之后置 0',
    provNoRow: '这一行没有任何未遮罩的位置：没有分母，结果是 NaN。',
    provShowAll: '显示全部 {n} 项',
    provShowLess: '只显示首尾几项',
    provTerm: '第 {n} 项',
    provPairwise: '内核的相加顺序：偶数项和奇数项各自累加，最后两路相加，再乘以缩放因子；按这个顺序，结果与格子里的数逐位相同（从左到右逐项相加，末位可能不同）。',
    provSinusoidCols: '正弦表是位置表 P 的一种选法：偶数列 2i 取 sin，奇数列 2i+1 取 cos；这里 2i = {pair}，C = {width}。',
    provLearned: '学习式位置表 P 第 {t} 行（P_{t}）第 {c} 列：建表时从 N(0, 1) 抽出的一个数（没有训练过的表；训练会改变它），不经过任何运算。',
    provCopy: '只是搬运，没有运算：Π · attn 的第 {t} 行取 attn(X + P) 的第 π({t}) = {row} 行。那个格子本身是这样算出来的：',
    provHiddenAV: 'A 和 V 是这次注意力（输入 {input}）的权重和值，本节没有画出来。',
    provRowsOutlined: '被描边、编号的是每一项来自的输入行 j。',
    provAbsDiff: 'out′ 是把位置 t 之后的输入改掉（每个数加上 1 + 一个随机数）后重新算出的输出。',
    provAbsDiffMasked: '有遮罩：前缀行（≤ t）看不到改动的部分，差严格为 0。',
    provAbsDiffUnmasked: '遮罩关着：每一行（包括前缀 ≤ t）都看得到改动的部分，前缀的差一般不为 0。',
    provDropKept: '保留（u ≥ p）',
    provDropDropped: '丢弃（u < p）',
    provDropDraw: 'u = {u}：这个位置的均匀随机数；p = {p}',
    provDropEval: '评估模式（或 p = 0）：dropout 是恒等映射，原样不变。',
    provGradDs: 'dS[t,j] = A[t,j]·(dA[t,j] − Σₗ A[t,l]·dA[t,l])·scale，其中 dA[t,j] = G[t]·V[j]，G = ∂L/∂Y（L = Σ Y·G，G 是随机张量），scale = 1/√d = 1/√{d} = {scale}。每一项自己的格子（A[t,j]、另一个因子，以及只属于这一项的 G 或 V 的一行）带项号描边；各项共用的格子（Σₗ 用到的 A 第 t 行和 V 的各行，以及所有项共用的 G 或 V 的一行）也被描边，不带项号：',
    provGradOrder: '内核的相加顺序：按 {src} 从小到大逐项累加。',
    provGradSkip: 'dS 恰好为 0 的项跳过，不影响结果。',
    provNumeric: '数值梯度（gradcheck 的中心差分，h = {h}）：',
    provDraw: '这是输入，不是算出来的：内核的 randn 用种子 {seed} 从 N(0, 1) 抽出的一个数，不经过任何运算。',
    provMaskCell: 'j ≤ t 时 M[t,j] = 0，否则为 −∞（关掉因果遮罩则全为 0）：只由位置决定，不依赖数据。这张图里 1 表示 M 为 0（可以看），0 表示 M 为 −∞（被屏蔽）。',
    provNumericNote: '解析值与数值差分只差截断和舍入误差；gradcheck 要求 |解析 − 数值| ≤ 1e-5 + 1e-3·|数值|。',
  },
  en: {
    provTitle: 'Where this number comes from',
    provHint: 'Hover over (or tap, or Tab to) any computed number: the cells it was computed from are outlined, and this panel shows the formula with every number the core used.',
    provMasked: 'masked: −∞ → 0',
    provMax: 'm = the largest unmasked score',
    provMaxAll: 'm = the largest finite score (softmax first, mask after)',
    provDenominator: 'denominator',
    provMaskedAfter: 'this position is masked: set to 0 after the softmax',
    provNoRow: 'nothing in this row is unmasked: there is no denominator, and the result is NaN.',
    provShowAll: 'Show all {n} terms',
    provShowLess: 'Show the first and last terms only',
    provTerm: 'term {n}',
    provPairwise: 'The core\'s order: the even-numbered and the odd-numbered terms are added in two running sums, which are then added and multiplied by the scale; in that order the result is the cell\'s number bit for bit (adding left to right may differ in the last digit).',
    provSinusoidCols: 'The sinusoid is one choice of the position table P: an even column 2i takes the sine, an odd column 2i+1 the cosine; here 2i = {pair} and C = {width}.',
    provLearned: 'Row {t} (P_{t}), column {c} of the learned position table P: a number drawn from N(0, 1) when the table was made (an untrained table; training would change it). No arithmetic.',
    provCopy: 'A copy, no arithmetic: row {t} of Π · attn takes row π({t}) = {row} of attn(X + P). That cell itself was computed like this:',
    provHiddenAV: 'A and V are this attention\'s weights and values (input {input}), not drawn in this section.',
    provRowsOutlined: 'Each term\'s input row j is outlined and numbered.',
    provAbsDiff: 'out′ is the output computed again after the input past position t was changed (each entry moved by 1 + a random draw).',
    provAbsDiffMasked: 'With the mask, the prefix rows (≤ t) cannot see the change, and their difference is exactly 0.',
    provAbsDiffUnmasked: 'The mask is off: every row, the prefix (≤ t) too, sees the changed input, so the prefix\'s difference is in general not 0.',
    provDropKept: 'kept (u ≥ p)',
    provDropDropped: 'dropped (u < p)',
    provDropDraw: 'u = {u}: this entry\'s uniform random draw; p = {p}',
    provDropEval: 'Evaluation (or p = 0): dropout is the identity and changes nothing.',
    provGradDs: 'dS[t,j] = A[t,j]·(dA[t,j] − Σₗ A[t,l]·dA[t,l])·scale, where dA[t,j] = G[t]·V[j], G = ∂L/∂Y (L = Σ Y·G, G a random tensor) and scale = 1/√d = 1/√{d} = {scale}. Each term\'s own cells (A[t,j], the other factor, and the row of G or V that only this term reads) are outlined with its number; the cells the terms share (row t of A and the rows of V in the sum over l, and a row of G or V read by every term) are outlined without one:',
    provGradOrder: 'The core\'s order: the terms are added one by one, {src} from the smallest.',
    provGradSkip: 'A term whose dS is exactly 0 is skipped, which changes nothing.',
    provNumeric: 'Numerical gradient (gradcheck\'s central difference, h = {h}):',
    provDraw: 'An input, not computed: a draw from N(0, 1) by the core\'s randn with seed {seed}. No arithmetic.',
    provMaskCell: 'M[t,j] = 0 if j ≤ t, −∞ otherwise (with the causal mask off, all 0): fixed by the positions, not computed from the data. This map shows 1 where M is 0 (may be seen) and 0 where M is −∞ (blocked).',
    provNumericNote: 'The analytic and the numerical value differ only by truncation and rounding; gradcheck asks |analytic − numerical| ≤ 1e-5 + 1e-3·|numerical|.',
  },
};

// Okabe–Ito, distinguishable with the common colour-vision deficiencies; cycled over the terms
const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8c510a', '#444444'];
const LONG = 8;        // past this many terms a sum shows its first and last ones and an ellipsis
const HEAD = 3, TAIL = 2;

const SUB = '₀₁₂₃₄₅₆₇₈₉';
const sub = (n) => String(n).replace(/\d/g, (d) => SUB[d]);
const paren = (s) => (s.startsWith('−') ? `(${s})` : s);

// The terms of each explained quantity: which displayed cells they came from ([name, row, col,
// head]) and how the lesson writes the cell and its formula. at is the core's index of the cell.
const RULES = {
  'multiHeadAttention:q': proj('Q', 'W_Q', 'x', 'wq'),
  'multiHeadAttention:k': proj('K', 'W_K', 'src', 'wk'),
  'multiHeadAttention:v': proj('V', 'W_V', 'src', 'wv'),
  'multiHeadAttention:scores': score((at) => ({ h: at[1], t: at[2], j: at[3] })),
  'multiHeadAttention:weights': weight((at) => ({ h: at[1], t: at[2], j: at[3] })),
  'multiHeadAttention:out': output((at, e) => ({ t: at[1], i: at[2], h: null, col: at[2] })),
  'sdpa:scores': score((at) => ({ h: null, t: at.at(-2), j: at.at(-1) })),
  'sdpa:weights': weight((at) => ({ h: null, t: at.at(-2), j: at.at(-1) })),
  'sdpa:out': output((at) => ({ t: at.at(-2), i: at.at(-1), h: null, col: at.at(-1) })),
  // a (..., n, k) b (..., k, m); sym names the three matrices as the section writes them ({a: 'A', b: 'X', out: 'Y'})
  'matmul:out': {
    cell: (at, sym) => `${sym.out ?? 'out'}[${at.at(-2)},${at.at(-1)}]`,
    formula: (at, e, sym) => `Σⱼ ${sym.a ?? 'a'}[${at.at(-2)},j]·${sym.b ?? 'b'}[j,${at.at(-1)}]`,
    refs: (at, e, k) => [['a', at.at(-2), e.source[k]], ['b', e.source[k], at.at(-1)]],
    head: (at) => (at.length > 2 ? at[0] : null),   // the batch: which editor and result show it
  },
  'causalAverage:out': {
    cell: (at) => `y[${at.at(-2)},${at.at(-1)}]`,
    formula: (at, e) => (e.right.length
      ? `Σⱼ A[${at.at(-2)},j]·x[j,${at.at(-1)}]`
      : `(x[0,${at.at(-1)}] + … + x[${at.at(-2)},${at.at(-1)}]) / ${e.divisor}`),
    refs: (at, e, k) => (e.right.length ? [['A', at.at(-2), e.source[k]], ['x', e.source[k], at.at(-1)]] : [['x', e.source[k], at.at(-1)]]),
    head: (at) => (at.length > 2 ? at[0] : null),
  },
  'softmax:weights': {
    cell: (at) => `A[${at.join(',')}]`,
    softmax: true,
    // the scores along the softmax's axis, through the cell
    refs: (at, e, k, dim) => { const ix = at.slice(); ix[dim] = k; return [['scores', ...ix.slice(-2)]]; },
    score: (at, k, dim) => { const ix = at.slice(); ix[dim] = k; return `S[${ix.join(',')}]`; },
  },
};

// 18.5: the position table P (row t is P_t), Π X + P (Π the permutation, row t of Π X is row π(t)
// of X), and the attention outputs before and after the shuffle
Object.assign(RULES, {
  'positions:out': { cell: (at) => `P[${at[0]},${at[1]}]`, refs: () => [] },
  'permutationCheck:permutedInput': {
    cell: (at) => `(Π X + P)[${at[1]},${at[2]}]`,
    formula: (at, e) => `X[π(${at[1]}),${at[2]}] + P[${at[1]},${at[2]}] = X[${e.source[0]},${at[2]}] + P[${at[1]},${at[2]}]`,
    refs: (at, e, k) => [k === 0 ? ['x', e.source[0], at[2]] : ['pe', at[1], at[2]]],
  },
  // an output sum over the rows of its input: each term's whole input row is outlined
  'permutationCheck:out': attnOut('attn(X + P)', 'X + P', (j, c) => [['x', j, c], ['pe', j, c]]),
  'permutationCheck:outOfPermuted': attnOut('attn(Π X + P)', 'Π X + P', (j, c) => [['px', j, c]]),
  'permutationCheck:permutedOut': {
    cell: (at) => `(Π·attn(X + P))[${at[1]},${at[2]}]`,
    copy: (at, e) => `attn(X + P)[π(${at[1]}),${at[2]}] = attn(X + P)[${e.from[1]},${e.from[2]}]`,
    refs: (at, e) => [['attnX', e.from[1], e.from[2]]],
    then: (at, e) => ({ quantity: 'out', at: e.from }),   // that cell's own sum
  },
  // 18.7: gradcheck's analytic gradients (L = Σ Y·G), the future probe, dropout
  'gradcheck:dq': grad('∂L/∂Q', (at) => `Σⱼ dS[${at[1]},j]·K[j,${at[2]}]`, 'j', (at, k) => [at[1], k], (at, k) => ['k', k, at[2]], true),
  'gradcheck:dk': grad('∂L/∂K', (at) => `Σₜ dS[t,${at[1]}]·Q[t,${at[2]}]`, 't', (at, k) => [k, at[1]], (at, k) => ['q', k, at[2]], true),
  'gradcheck:dv': grad('∂L/∂V', (at) => `Σₜ A[t,${at[1]}]·G[t,${at[2]}]`, 't', (at, k) => [k, at[1]], (at, k) => ['G', k, at[2]], false),
  'futureProbe:change': {
    cell: (at) => `|Δout|[${at[1]},${at[2]}]`,
    formula: (at) => `|out′[${at[1]},${at[2]}] − out[${at[1]},${at[2]}]|`,
    refs: () => [],
  },
  'dropout:out': {
    cell: (at) => `Ã[${at.at(-2)},${at.at(-1)}]`,
    formula: (at) => `A[${at.at(-2)},${at.at(-1)}]`,
    refs: (at) => [['weights', at.at(-2), at.at(-1)]],
  },
});

function attnOut(name, input, rowRefs) {
  return {
    cell: (at) => `${name}[${at[1]},${at[2]}]`,
    formula: (at) => `Σⱼ A[${at[1]},j]·V[j,${at[2]}]`,
    refs: (at, e, k, dim, hd, state) => state.x[0].flatMap((_, c) => rowRefs(e.source[k], c)),
    note: ['provHiddenAV', { input }],
  };
}
// the gradient of one entry: its name, formula, the summed index, the (t, j) of each term's dS
// (its weight A[t, j] is outlined), the other factor's cell, and whether the terms go through dS.
// dS[t, j] reads G's row t and V's row j (dA[t, j] = G[t]·V[j]), and through Σₗ A[t,l]·dA[t,l]
// every visible l of A's row t and V's rows: those are outlined too, the ones every term shares
// (and the sum's) without a term's number
function grad(sym, formula, src, tj, other, ds) {
  return {
    cell: (at) => `${sym}[${at[1]},${at[2]}]`,
    formula,
    refs: (at, e, k, dim, hd, state, ins) => {
      const [t, j] = tj(at, e.source[k]);
      if (!ds) return [['weights', t, j], other(at, e.source[k])];
      const cols = [...Array(ins.v.shape.at(-1)).keys()];
      const visible = ins.causal ? t + 1 : ins.k.shape.at(-2);
      const sum = [...Array(visible).keys()].flatMap((l) => [['weights', t, l, null, true], ...cols.map((c) => ['v', l, c, null, true])]);
      return [...sum, ['weights', t, j], other(at, e.source[k]),
        ...cols.flatMap((c) => [['G', t, c, null, src === 'j'], ['v', j, c, null, src === 't']])];
    },
    grad: { sym, src, tj, ds },
  };
}

function proj(Y, W, src, w) {
  return {
    cell: (at) => `${Y}[${at[1]},${at[2]}]`,
    formula: (at) => `Σ_c X[${at[1]},c]·${W}[c,${at[2]}]`,
    refs: (at, e, k) => [[src, at[1], e.source[k]], [w, e.source[k], at[2]]],
  };
}
function score(where) {
  return {
    cell: (at) => { const { t, j } = where(at); return `S[${t},${j}]`; },
    formula: (at) => { const { t, j } = where(at); return `q${sub(t)}·k${sub(j)}`; },
    // head h of q and k is its column block: the term's column is h * hs + c, hs = the number of terms
    refs: (at, e, k) => { const { h: hd, t, j } = where(at); const c = (hd ?? 0) * e.terms.length + e.source[k]; return [['q', t, c], ['k', j, c]]; },
    head: (at) => where(at).h,
  };
}
function weight(where) {
  return {
    cell: (at) => { const { t, j } = where(at); return `A[${t},${j}]`; },
    softmax: true,
    refs: (at, e, k) => { const { h: hd, t } = where(at); return [['scores', t, k, hd]]; },
    score: (at, k) => `S[${where(at).t},${k}]`,
    head: (at) => where(at).h,
  };
}
function output(where) {
  return {
    cell: (at) => { const { t, i } = where(at); return `Y[${t},${i}]`; },
    formula: (at) => { const { t, i } = where(at); return `Σⱼ A[${t},j]·V[j,${i}]`; },
    // the weights of the head that owns column i: hs = V's columns per head is not known here, so the
    // declaration's head(at) (or head 0) says which weights map it is
    refs: (at, e, k, dim, hd) => { const { t, col } = where(at); return [['weights', t, e.source[k], hd], ['v', e.source[k], col]]; },
  };
}

export function provenance({ lang, core, fn, inputs, sources, targets, plain = [], symbols = {}, scale = null, outHead = null, softmaxDim = null }) {
  const t = makeT(lang, strings, {});
  const title = h('p.prov-title', {}, h('strong', {}, t('provTitle')));
  const body = h('div.prov-body', {}, h('p.prov-hint', {}, t('provHint')));
  const el = h('div.provenance', { 'aria-live': 'polite', 'data-fn': fn }, title, body);   // not a landmark: one per section, all with the same title
  let state = null;      // the section's state for explain's inputs
  let marked = [];       // elements carrying highlight attributes
  let current = null;    // {target, quantity, at, i, j}
  let expanded = false;
  let inputsNow = null;  // explain's inputs for the cell shown

  // a source: a widget, {widget, swap() -> true when it shows the matrix transposed}, or (head) => either
  const sourceOf = (name, head) => {
    const all = current?.target.sources ?? sources;   // a target may show other inputs than the section's
    let s = all[name === 'src' ? (all.memory ? 'memory' : 'x') : name];
    if (typeof s === 'function') s = s(head ?? 0);
    return s?.widget ? s : s ? { widget: s } : null;
  };
  const cellOf = (name, row, col, head) => {
    const s = sourceOf(name, head);
    return s ? cellIn(s.widget, ...(s.swap?.() ? [col, row] : [row, col])) : null;
  };
  // a table cell, or on a map drawn on a canvas (large T) the cell's place on it (and its table
  // cell too when the map's data table is open)
  const cellIn = (widget, i, j) => (widget.canvasMode?.() ? { widget, i, j, td: widget.cell?.(i, j) } : widget.cell?.(i, j));

  let outlined = new Map();   // canvas widget -> its outlines
  function clear() {
    for (const c of marked) {
      c.removeAttribute('data-prov');
      c.removeAttribute('data-prov-term');
      c.style.removeProperty('--prov-c');
    }
    marked = [];
    for (const w of outlined.keys()) w.outline([]);
    outlined = new Map();
  }
  function mark(cell, kind, term) {
    if (!cell) return;
    if (cell.widget) {   // on a canvas
      if (!outlined.has(cell.widget)) outlined.set(cell.widget, []);
      outlined.get(cell.widget).push({ i: cell.i, j: cell.j, kind, ...(term !== undefined ? { term: term + 1, colour: PALETTE[term % PALETTE.length] } : {}) });
      mark(cell.td, kind, term);
      return;
    }
    cell.setAttribute('data-prov', kind);
    if (term !== undefined) {
      cell.setAttribute('data-prov-term', String(term + 1));
      cell.style.setProperty('--prov-c', PALETTE[term % PALETTE.length]);
    }
    marked.push(cell);
  }

  // A number as the panel shows it: formatted, with its exact value for whoever reads the DOM.
  const num = (v, cls = 'prov-num', digits = 3) => h(`span.${cls}`, { 'data-value': String(v) }, fmt(v, digits));
  const coloured = (k, ...children) => h('span.prov-term', { 'data-term': String(k + 1), style: `--prov-c:${PALETTE[k % PALETTE.length]}`, title: t('provTerm', { n: k + 1 }) }, ...children);
  // the indices of the terms to show: all, or the first HEAD and last TAIL with an ellipsis between
  const shown = (n) => (expanded || n <= LONG ? [...Array(n).keys()] : [...Array(HEAD).keys(), null, ...Array.from({ length: TAIL }, (_, i) => n - TAIL + i)]);
  const joined = (n, part, sep = ' + ') => shown(n).flatMap((k, idx) => [idx ? sep : '', k === null ? '…' : part(k)]);
  const toggle = (n) => (n > LONG ? h('button.prov-more', { type: 'button', 'aria-expanded': String(expanded), onclick: () => { expanded = !expanded; render(); } },
    expanded ? t('provShowLess') : t('provShowAll', { n })) : null);

  // 18.7's gradients: each term's dS with its own numbers, the order, and gradcheck's numerical value
  function gradLines(r, at, e) {
    const { src, tj } = r.grad, n = e.terms.length;
    const ds = (k) => { const [tt, jj] = tj(at, e.source[k]); return h('li', {}, coloured(k, `dS[${tt},${jj}] = `, paren(fmt(e.gradWeight[k])), '·(',
      paren(fmt(e.gradDweight[k])), ' − ', paren(fmt(e.gradRowdot[k])), ')·', fmt(e.gradScale), ' = ', num(e.left[k], 'prov-ds'))); };
    if (!r.grad.ds) return [];
    return [
      h('p.prov-note.prov-grad-ds', {}, t('provGradDs', { d: inputsNow.q.shape.at(-1), scale: fmt(e.gradScale, 4) })),
      h('ul.prov-terms', {}, shown(n).map((k) => (k === null ? h('li', {}, '…') : ds(k)))),
    ];
  }
  function numericLines(r, at, e) {
    if (!e.numeric) return [];
    const { plus, minus, eps, value } = e.numeric, x = r.cell(at, symbols).replace('∂L/∂', '');
    return [
      h('p.prov-note', {}, t('provNumeric', { h: String(eps) })),
      h('p.prov-numeric', {}, `(L(${x} + h) − L(${x} − h)) / 2h = (`, num(plus, 'prov-lplus', 15), ' − ', num(minus, 'prov-lminus', 15),
        `) / (2·${eps}) = `, num(value, 'prov-numeric-value', 12)),
      h('p.prov-note', {}, t('provNumericNote')),
    ];
  }

  function sumPanel(r, at, e, nested = false) {
    const n = e.terms.length;
    const lhs = r.cell(at, symbols);
    const scaleText = e.scale !== 1 ? (scale?.(e) ?? { sym: `· ${fmt(e.scale)}`, num: `· ${fmt(e.scale)}` }) : null;
    const sym = [lhs, ' = ', r.formula(at, e, symbols), scaleText ? ` ${scaleText.sym}` : ''];
    const product = (k) => coloured(k, e.right.length ? [paren(fmt(e.left[k])), '·', paren(fmt(e.right[k]))] : k ? paren(fmt(e.left[k])) : fmt(e.left[k]));
    const sumText = n ? joined(n, product) : ['0'];
    // one bare term that already reads as the value: no "= v = v"
    const bare = n === 1 && !e.right.length && !scaleText && e.divisor === 1 && fmt(e.left[0]) === fmt(e.value);
    const wrapped = scaleText || e.divisor !== 1 ? ['(', ...sumText, ')'] : sumText;
    const tail = scaleText ? ` ${scaleText.num}` : e.divisor !== 1 ? ` / ${e.divisor}` : '';
    return [
      h('p.prov-formula', {}, sym),
      ...(r.grad ? gradLines(r, at, e) : []),
      h('p.prov-numbers', {}, '= ', ...(bare ? [coloured(0, num(e.value, 'prov-value'))] : [wrapped, tail, ' = ', num(e.value, 'prov-value')])),
      toggle(n),
      e.pairwise ? h('p.prov-order', {}, t('provPairwise')) : null,
      r.grad ? h('p.prov-order', {}, t('provGradOrder', { src: r.grad.src }), r.grad.ds ? `${lang === 'zh' ? '' : ' '}${t('provGradSkip')}` : '') : null,
      ...numericLines(r, at, e),
      r.note ? h('p.prov-note', {}, t(r.note[0], r.note[1]), nested ? '' : ` ${t('provRowsOutlined')}`) : null,
    ];
  }

  // one number made without a sum: a sinusoid, a copy, a difference, a dropout
  function singlePanel(r, at, e) {
    const lhs = r.cell(at, symbols);
    const value = num(e.value, 'prov-value');
    const term = (k, v) => coloured(k, paren(fmt(v)));
    // a step that already reads as the value ends the line with it: no "(−2.772) = −2.772"
    const last = (v) => (fmt(v) === fmt(e.value) ? [coloured(0, value)] : [term(0, v), ' = ', value]);
    if (e.kind === 'sinusoid') {
      const f = e.cosine ? 'cos' : 'sin';
      return [
        h('p.prov-formula', {}, `${lhs} = ${f}(t / 10000^(2i/C))`),
        h('p.prov-numbers', {}, `= ${f}(${e.position} / 10000^(${e.pair}/${e.width})) = ${f}(${e.position} / `, num(e.power, 'prov-power'),
          `) = ${f}(`, num(e.angle, 'prov-angle'), ') = ', value),
        h('p.prov-note', {}, t('provSinusoidCols', { pair: e.pair, width: e.width })),
      ];
    }
    if (e.kind === 'copy' && !r.copy)   // the learned position table
      return [h('p.prov-formula', {}, `${lhs} = `, value), h('p.prov-note', {}, t('provLearned', { t: at[0], c: at[1] }))];
    if (e.kind === 'copy')
      return [h('p.prov-formula', {}, `${lhs} = ${r.copy(at, e)} = `, ...last(e.left[0])),
        h('p.prov-note', {}, t('provCopy', { t: at.at(-2), row: e.from.at(-2) }))];
    if (e.kind === 'absdiff')
      return [h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)}`),
        h('p.prov-numbers', {}, '= |', paren(fmt(e.left[0])), ' − ', paren(fmt(e.left[1])), '| = ', value),
        h('p.prov-note', {}, t('provAbsDiff'), lang === 'zh' ? '' : ' ', t(inputsNow.causal ? 'provAbsDiffMasked' : 'provAbsDiffUnmasked'))];
    // dropout
    if (!e.training)
      return [h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)} = `, ...last(e.left[0])), h('p.prov-note', {}, t('provDropEval'))];
    return [
      h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)} / (1 − p)  (u ≥ p),  0  (u < p)`),
      h('p.prov-note', {}, t('provDropDraw', { u: fmt(e.draw, 4), p: fmt(e.p, 2) }), h('span.prov-draw', { 'data-value': String(e.draw) })),
      h('p.prov-numbers', {}, e.kept ? [t('provDropKept'), `: ${lhs} = ${r.formula(at, e)} · 1/(1 − p) = `, term(0, e.left[0]), ' · ', fmt(e.scale, 4), ' = ']
        : [t('provDropDropped'), `: ${lhs} = `], value),
    ];
  }

  function softmaxPanel(r, at, e, dim) {
    const n = e.scores.length, lhs = r.cell(at, symbols), S = (k) => r.score(at, k, dim);
    const out = [h('p.prov-formula', {}, `${lhs} = exp(${S(e.target)} − m) / Σⱼ exp(${S('j')} − m)`)];
    if (Number.isNaN(e.denominator)) return [...out, h('p.prov-numbers', {}, t('provNoRow'), ' ', num(e.value, 'prov-value'))];
    out.push(h('p.prov-max', {}, e.maskAfter ? t('provMaxAll') : t('provMax'), ' = ', num(e.max, 'prov-max-value')));
    const term = (k) => {
      const maskedExp = e.maskAfter ? e.scores[k] === -Infinity : e.masked[k];
      return h('li', { class: maskedExp ? 'masked' : null },
        coloured(k, maskedExp ? [`exp(${S(k)} − m) : `, t('provMasked')] : [`exp(${S(k)} − m) = exp(`, paren(fmt(e.scores[k])), ' − ', paren(fmt(e.max)), ') = ', num(e.exps[k], 'prov-exp')]));
    };
    out.push(h('ul.prov-terms', {}, shown(n).map((k) => (k === null ? h('li', {}, '…') : term(k)))));
    out.push(h('p.prov-denominator', {}, `${t('provDenominator')} Σ = `, joined(n, (k) => coloured(k, fmt(e.exps[k]))), ' = ', num(e.denominator, 'prov-den')));
    out.push(h('p.prov-numbers', {}, `${lhs} = `,
      e.maskAfter && e.masked[e.target] ? [t('provMaskedAfter'), ' = '] : [coloured(e.target, fmt(e.exps[e.target])), ' / ', fmt(e.denominator), ' = '],
      num(e.value, 'prov-value')));
    out.push(toggle(n));
    return out;
  }

  // beside the figure pointed at, so that it never covers the cell: after its row, or on a phone
  // (figures stacked) right after the figure
  function place(target, panel, quantity, at) {
    body.replaceChildren(...panel.filter(Boolean));
    el.dataset.quantity = quantity;
    el.dataset.at = at.join(',');
    const narrow = window.matchMedia?.('(max-width: 700px)').matches;
    const host = (!narrow && target.widget.el.closest('.row')) || target.widget.el;
    if (el.previousElementSibling !== host) host.after(el);
  }
  // back to the hint, nothing outlined: a cell with nothing to explain never keeps another's
  function reset() {
    clear();
    body.replaceChildren(h('p.prov-hint', {}, t('provHint')));
    delete el.dataset.quantity;
    delete el.dataset.at;
  }

  function render() {
    clear();
    if (!current || !state) return;
    const { target, quantity, at, i, j } = current;
    if (target.note) {   // a number that is not computed (a seeded draw, the mask): one line on where it comes from
      const td = target.widget.cell?.(i, j);
      mark(cellIn(target.widget, i, j), 'target');
      const [lhs, key, params, withValue] = target.note(i, j, state, td ? Number(td.dataset.value) : NaN);
      const formula = withValue && td ? [`${lhs} = `, num(Number(td.dataset.value), 'prov-value')] : [lhs];
      place(target, [h('p.prov-formula', {}, ...formula), h('p.prov-note', {}, t(key, params))], quantity, at);
      return;
    }
    const tfn = target.fn ?? fn;
    const r = RULES[`${tfn}:${quantity}`];
    let e, ins;
    try {
      ins = inputsNow = (target.inputs ?? inputs)(state);
    e = core.explain(tfn, quantity, at, ins);
    } catch {
      reset();   // the section's own status line already explains a core error
      return;
    }
    const dim = softmaxDim?.(state, at) ?? at.length - 1;
    const hd = r.head?.(at) ?? outHead?.(at, e) ?? target.head ?? null;
    mark(cellIn(target.widget, i, j), 'target');
    const nTerms = e.kind === 'sum' ? e.terms.length : e.kind === 'softmax' ? e.scores.length : 1;
    for (let k = 0; k < nTerms; k++)
      for (const [name, row, col, head, shared] of r.refs(at, e, k, dim, hd, state, ins)) {   // shared: an input of every term
        const masked = e.kind === 'softmax' && e.masked[k];
        mark(cellOf(name, row, col, head ?? hd), masked ? 'masked' : 'in', shared ? undefined : k);
        if (e.kind === 'softmax') mark(cellOf('mask', row, col, head ?? hd), masked ? 'masked' : 'in', k);
      }
    for (const [w, list] of outlined) w.outline(list);
    const panel = e.kind === 'sum' ? sumPanel(r, at, e) : e.kind === 'softmax' ? softmaxPanel(r, at, e, dim) : singlePanel(r, at, e);
    // a copy's source cell explained in turn (its own sum), below
    const next = r.then?.(at, e);
    if (next) {
      const e2 = core.explain(tfn, next.quantity, next.at, (target.inputs ?? inputs)(state));
      panel.push(h('div.prov-then', { 'data-quantity': next.quantity, 'data-at': next.at.join(',') }, sumPanel(RULES[`${tfn}:${next.quantity}`], next.at, e2, true).filter(Boolean)));
    }
    place(target, panel, quantity, at);
  }

  function point(target, i, j) {
    if (target.when && !target.when(state)) { current = null; reset(); return; }
    const at = target.at?.(i, j) ?? [i, j];
    if (current && current.target === target && current.i === i && current.j === j) return;
    current = { target, quantity: target.quantity, at, i, j };
    expanded = false;
    render();
  }

  // pointer, tap and keyboard on each explained widget's table cells; one tab stop per table
  for (const target of targets) {
    target.widget.onPoint?.((i, j) => point(target, i, j));   // a map drawn on a canvas: pointer, tap, arrow keys
    const table = target.widget.el.querySelector('table');
    if (!table) continue;
    table.classList.add('prov-source');
    const cellPos = (td) => {
      const tr = td?.closest('tbody tr');
      if (!tr || td.tagName !== 'TD' || td.classList.contains('rowmark')) return null;
      return [tr.sectionRowIndex, td.cellIndex - 1];
    };
    const onPoint = (ev) => {
      const p = cellPos(ev.target.closest('td'));
      if (p) point(target, p[0], p[1]);
    };
    table.addEventListener('mouseover', onPoint);
    table.addEventListener('click', onPoint);
    table.addEventListener('focusin', onPoint);
    table.addEventListener('keydown', (ev) => {
      const p = cellPos(ev.target.closest('td'));
      if (!p) return;
      const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[ev.key];
      if (ev.key === 'Escape') { current = null; reset(); return; }
      const next = d && target.widget.cell?.(p[0] + d[0], p[1] + d[1]);
      if (next) { ev.preventDefault(); next.focus(); }
    });
  }

  // figures of the section with nothing to explain: pointing at one of their cells clears the panel
  for (const w of plain) {
    const clearOn = (ev) => { if (current && ev.target.closest?.('tbody td')) { current = null; reset(); } };
    for (const type of ['mouseover', 'click', 'focusin']) w.el.addEventListener(type, clearOn);
  }

  /** After each paint: cells are focusable (one tab stop per table, arrows move), the panel follows the new numbers. */
  function update(s) {
    state = s;
    for (const target of targets) {
      const cells = target.widget.el.querySelectorAll('tbody td:not(.rowmark)');
      cells.forEach((td, n) => setAttr(td, 'tabindex', n === 0 ? '0' : '-1'));
    }
    if (current) render();
  }

  return { el, update, point: (index, i, j) => point(targets[index], i, j) };
}

/** The lessons' phrase (18.1–18.3, 18.6): position t of a text is its token t. */
export const TOKENS = ['the', 'cat', 'sat'];

/** Row and column labels for positions that are tokens: "0 the", "1 cat", ... when there are as
 * many positions as tokens; a sequence of another length is not that text: its positions are numbers. */
export function tokenLabels(tokens, n) {
  return Array.from({ length: n }, (_, i) => (n === tokens.length ? `${i} ${tokens[i]}` : String(i)));
}
