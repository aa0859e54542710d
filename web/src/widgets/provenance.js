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
//
// This file is the panel and its words; provenance-rules.js says, per quantity, where each term's
// cells are and how the lesson writes them; provenance-lines.js writes the lines of each kind of
// explanation; provenance-marks.js outlines the cells; provenance-pointing.js follows the reader.
import { h } from './dom.js';
import { makeT } from '../i18n.js';
import { RULES } from './provenance-rules.js';
import { pen, explanationLines, sumLines, noteLines } from './provenance-lines.js';
import { cellMarks, cellIn, sourceCell } from './provenance-marks.js';
import { pointAt, tabStops } from './provenance-pointing.js';

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

// A computed cell explained: the core's explanation, the cells of its terms outlined (each term
// numbered, in its own colour) and the panel's lines; null when the core refuses the inputs (the
// section's own status line already explains a core error). writing: pen()'s words but the inputs.
function explainCell({ core, fn, inputs, sources, outHead, softmaxDim }, { target, quantity, at, i, j }, state, marks, writing) {
  const tfn = target.fn ?? fn;
  const r = RULES[`${tfn}:${quantity}`];
  let e, ins;
  try {
    ins = (target.inputs ?? inputs)(state);
    e = core.explain(tfn, quantity, at, ins);
  } catch {
    return null;
  }
  const dim = softmaxDim?.(state, at) ?? at.length - 1;
  const hd = r.head?.(at) ?? outHead?.(at, e) ?? target.head ?? null;
  // a target may show other inputs than the section's
  const cellOf = (name, row, col, head) => sourceCell(target.sources ?? sources, name, row, col, head);
  marks.mark(cellIn(target.widget, i, j), 'target');
  const nTerms = e.kind === 'sum' ? e.terms.length : e.kind === 'softmax' ? e.scores.length : 1;
  for (let k = 0; k < nTerms; k++)
    for (const [name, row, col, head, shared] of r.refs(at, e, k, dim, hd, state, ins)) {   // shared: an input of every term
      const masked = e.kind === 'softmax' && e.masked[k];
      marks.mark(cellOf(name, row, col, head ?? hd), masked ? 'masked' : 'in', shared ? undefined : k);
      if (e.kind === 'softmax') marks.mark(cellOf('mask', row, col, head ?? hd), masked ? 'masked' : 'in', k);
    }
  marks.draw();
  const p = pen({ ...writing, inputs: ins });
  const lines = explanationLines(p, r, at, e, dim);
  // a copy's source cell explained in turn (its own sum), below
  const next = r.then?.(at, e);
  if (next) {
    const e2 = core.explain(tfn, next.quantity, next.at, (target.inputs ?? inputs)(state));
    lines.push(h('div.prov-then', { 'data-quantity': next.quantity, 'data-at': next.at.join(',') },
      sumLines(p, RULES[`${tfn}:${next.quantity}`], next.at, e2, true).filter(Boolean)));
  }
  return lines;
}

// The panel while it explains a cell: under the figures pointed at, over what follows them
// (style.css: out of the flow, so the page does not move): under the line of its row the pointed
// figure is on (a row wraps; on a phone each figure is a line), and under the figures of that row
// whose cells are outlined; so it never covers the cell or the cells it came from.
//   floatingPanel(el, home) -> {under(figure), home()}   home(): back where the section put it
function floatingPanel(el, home) {
  let anchor = null, lab = null;   // the figure pointed at, and the box the panel is placed in
  function position() {
    lab = el.offsetParent;
    if (!anchor || !lab) return;
    const row = anchor.closest('.row, .product, .slices');
    const own = (row && [...row.children].find((c) => c.contains(anchor))) || anchor, a = own.getBoundingClientRect();
    let bottom = a.bottom;
    for (const c of row?.children ?? []) {
      const r = c.getBoundingClientRect();
      if (c !== el && r.height && ((r.top < a.bottom && r.bottom > a.top) || c.querySelector('[data-prov]'))) bottom = Math.max(bottom, r.bottom);
    }
    el.style.top = `${Math.round(bottom - lab.getBoundingClientRect().top - lab.clientTop + 6)}px`;
    // a panel longer than what follows its row makes the lab that much longer, below everything
    // pointed at, so that it stays inside its section
    const section = lab.closest('.lab-section') ?? lab;
    lab.style.paddingBottom = '';
    const over = Math.ceil(el.getBoundingClientRect().bottom + 8 - section.getBoundingClientRect().bottom);
    if (over > 0) lab.style.paddingBottom = `${over}px`;
  }
  const follow = typeof ResizeObserver === 'function' ? new ResizeObserver(() => { if (el.dataset.quantity) position(); }) : null;
  return {
    under(figure) {
      const narrow = window.matchMedia?.('(max-width: 700px)').matches;
      const host = (!narrow && figure.closest('.row, .product, .slices')) || figure;
      if (el.previousElementSibling !== host) host.after(el);   // next in the reading and tab order
      if (anchor !== figure) { follow?.disconnect(); anchor = figure; follow?.observe(el.offsetParent ?? document.body); }
      position();
    },
    home() {
      el.style.top = '';
      if (lab) lab.style.paddingBottom = '';
      if (el.parentNode !== home) home.append(el);
      follow?.disconnect();
      anchor = null;
    },
  };
}

export function provenance({ lang, core, fn, inputs, sources, targets, plain = [], symbols = {}, scale = null, outHead = null, softmaxDim = null }) {
  const t = makeT(lang, strings, {});
  const hint = () => h('p.prov-hint', {}, t('provHint'));
  const body = h('div.prov-body', {}, hint());
  const title = () => h('p.prov-title', {}, h('strong', {}, t('provTitle')));
  const el = h('div.provenance', { 'aria-live': 'polite', 'data-fn': fn }, title(), body);   // not a landmark: one per section, all with the same title
  // where the section put it: the title and the hint, always there (in the flow; the explanation
  // floats over the page, so pointing at a cell moves nothing), and the panel while nothing is explained
  const home = h('div.prov-home', {}, title(), hint(), el);
  const section = { core, fn, inputs, sources, outHead, softmaxDim };
  const marks = cellMarks();
  let state = null;      // the section's state for explain's inputs
  let current = null;    // {target, quantity, at, i, j}
  let expanded = false;  // long sums shown whole

  const floating = floatingPanel(el, home);
  function place(target, lines, quantity, at) {
    body.replaceChildren(...lines.filter(Boolean));
    el.dataset.quantity = quantity;
    el.dataset.at = at.join(',');
    floating.under(target.widget.el);
  }
  // back to the hint, nothing outlined, the panel home: a cell with nothing to explain never keeps another's
  function reset() {
    marks.clear();
    body.replaceChildren(hint());
    delete el.dataset.quantity;
    delete el.dataset.at;
    floating.home();
  }
  const more = () => { expanded = !expanded; render(); };

  function render() {
    marks.clear();
    if (!current || !state) return;
    const { target, quantity, at, i, j } = current;
    let lines;
    if (target.note) {   // a number that is not computed (a seeded draw, the mask): one line on where it comes from
      const td = target.widget.cell?.(i, j);
      marks.mark(cellIn(target.widget, i, j), 'target');
      const value = td ? Number(td.dataset.value) : undefined;
      lines = noteLines(t, target.note(i, j, state, value ?? NaN), value);
    } else lines = explainCell(section, current, state, marks, { t, lang, symbols, scale, expanded, more });
    if (lines) place(target, lines, quantity, at);
    else reset();
  }

  const leave = () => { current = null; reset(); };
  function point(target, i, j) {
    if (target.when && !target.when(state)) { leave(); return; }
    const at = target.at?.(i, j) ?? [i, j];
    if (current && current.target === target && current.i === i && current.j === j) return;
    current = { target, quantity: target.quantity, at, i, j };
    expanded = false;
    render();
  }
  pointAt(targets, plain, { point, leave, pointing: () => !!current });

  /** After each paint: cells are focusable (one tab stop per table, arrows move), the panel follows the new numbers. */
  function update(s) {
    state = s;
    tabStops(targets);
    if (current) render();
  }

  return { el: home, panel: el, update, point: (index, i, j) => point(targets[index], i, j) };
}

/** The lessons' phrase (18.1–18.3, 18.6): position t of a text is its token t. */
export const TOKENS = ['the', 'cat', 'sat'];

/** Row and column labels for positions that are tokens: "0 the", "1 cat", ... when there are as
 * many positions as tokens; a sequence of another length is not that text: its positions are numbers. */
export function tokenLabels(tokens, n) {
  return Array.from({ length: n }, (_, i) => (n === tokens.length ? `${i} ${tokens[i]}` : String(i)));
}
