// The provenance panel's lines (widgets/provenance.js): the formula in the lesson's notation and
// then the same formula with the core's own numbers, one writer per kind of explanation that
// core.explain() returns (LINES). Formatting only: every number shown is one of the explanation's.
import { h } from './dom.js';
import { fmt } from '../format.js';
import { termColour } from './provenance-marks.js';

const LONG = 8;        // past this many terms a sum shows its first and last ones and an ellipsis
const HEAD = 3, TAIL = 2;

const paren = (s) => (s.startsWith('−') ? `(${s})` : s);

/** A number as the panel shows it: formatted, with its exact value for whoever reads the DOM. */
export const num = (v, cls = 'prov-num', digits = 3) => h(`span.${cls}`, { 'data-value': String(v) }, fmt(v, digits));

/**
 * What one explanation's lines are written with: the panel's t and lang, the section's symbols and
 * scale(e) -> {sym, num}, explain's inputs, and whether long sums are shown whole (expanded; the
 * button calls more()).
 */
export function pen({ t, lang, symbols, scale, inputs, expanded, more }) {
  // the indices of the terms to show: all, or the first HEAD and last TAIL with an ellipsis between
  const shown = (n) => (expanded || n <= LONG ? [...Array(n).keys()] : [...Array(HEAD).keys(), null, ...Array.from({ length: TAIL }, (_, i) => n - TAIL + i)]);
  return {
    t, lang, symbols, scale, inputs, shown,
    coloured: (k, ...children) => h('span.prov-term', { 'data-term': String(k + 1), style: `--prov-c:${termColour(k)}`, title: t('provTerm', { n: k + 1 }) }, ...children),
    joined: (n, part, sep = ' + ') => shown(n).flatMap((k, idx) => [idx ? sep : '', k === null ? '…' : part(k)]),
    toggle: (n) => (n > LONG ? h('button.prov-more', { type: 'button', 'aria-expanded': String(expanded), onclick: more },
      expanded ? t('provShowLess') : t('provShowAll', { n })) : null),
  };
}

// 18.7's gradients: each term's dS with its own numbers, the order, and gradcheck's numerical value
function gradLines(p, r, at, e) {
  const { tj } = r.grad, n = e.terms.length;
  const ds = (k) => { const [tt, jj] = tj(at, e.source[k]); return h('li', {}, p.coloured(k, `dS[${tt},${jj}] = `, paren(fmt(e.gradWeight[k])), '·(',
    paren(fmt(e.gradDweight[k])), ' − ', paren(fmt(e.gradRowdot[k])), ')·', fmt(e.gradScale), ' = ', num(e.left[k], 'prov-ds'))); };
  if (!r.grad.ds) return [];
  return [
    h('p.prov-note.prov-grad-ds', {}, p.t('provGradDs', { d: p.inputs.q.shape.at(-1), scale: fmt(e.gradScale, 4) })),
    h('ul.prov-terms', {}, p.shown(n).map((k) => (k === null ? h('li', {}, '…') : ds(k)))),
  ];
}
function numericLines(p, r, at, e) {
  if (!e.numeric) return [];
  const { plus, minus, eps, value } = e.numeric, x = r.cell(at, p.symbols).replace('∂L/∂', '');
  return [
    h('p.prov-note', {}, p.t('provNumeric', { h: String(eps) })),
    h('p.prov-numeric', {}, `(L(${x} + h) − L(${x} − h)) / 2h = (`, num(plus, 'prov-lplus', 15), ' − ', num(minus, 'prov-lminus', 15),
      `) / (2·${eps}) = `, num(value, 'prov-numeric-value', 12)),
    h('p.prov-note', {}, p.t('provNumericNote')),
  ];
}

/** A sum's lines (nested: a copy's source explained below the copy). */
export function sumLines(p, r, at, e, nested = false) {
  const { t } = p, n = e.terms.length;
  const lhs = r.cell(at, p.symbols);
  const scaleText = e.scale !== 1 ? (p.scale?.(e) ?? { sym: `· ${fmt(e.scale)}`, num: `· ${fmt(e.scale)}` }) : null;
  const sym = [lhs, ' = ', r.formula(at, e, p.symbols), scaleText ? ` ${scaleText.sym}` : ''];
  const product = (k) => p.coloured(k, e.right.length ? [paren(fmt(e.left[k])), '·', paren(fmt(e.right[k]))] : k ? paren(fmt(e.left[k])) : fmt(e.left[k]));
  const sumText = n ? p.joined(n, product) : ['0'];
  // one bare term that already reads as the value: no "= v = v"
  const bare = n === 1 && !e.right.length && !scaleText && e.divisor === 1 && fmt(e.left[0]) === fmt(e.value);
  const wrapped = scaleText || e.divisor !== 1 ? ['(', ...sumText, ')'] : sumText;
  const tail = scaleText ? ` ${scaleText.num}` : e.divisor !== 1 ? ` / ${e.divisor}` : '';
  return [
    h('p.prov-formula', {}, sym),
    ...(r.grad ? gradLines(p, r, at, e) : []),
    h('p.prov-numbers', {}, '= ', ...(bare ? [p.coloured(0, num(e.value, 'prov-value'))] : [wrapped, tail, ' = ', num(e.value, 'prov-value')])),
    p.toggle(n),
    e.pairwise ? h('p.prov-order', {}, t('provPairwise')) : null,
    r.grad ? h('p.prov-order', {}, t('provGradOrder', { src: r.grad.src }), r.grad.ds ? `${p.lang === 'zh' ? '' : ' '}${t('provGradSkip')}` : '') : null,
    ...numericLines(p, r, at, e),
    r.note ? h('p.prov-note', {}, t(r.note[0], r.note[1]), nested ? '' : ` ${t('provRowsOutlined')}`) : null,
  ];
}

function softmaxLines(p, r, at, e, dim) {
  const { t } = p, n = e.scores.length, lhs = r.cell(at, p.symbols), S = (k) => r.score(at, k, dim);
  const out = [h('p.prov-formula', {}, `${lhs} = exp(${S(e.target)} − m) / Σⱼ exp(${S('j')} − m)`)];
  if (Number.isNaN(e.denominator)) return [...out, h('p.prov-numbers', {}, t('provNoRow'), ' ', num(e.value, 'prov-value'))];
  out.push(h('p.prov-max', {}, e.maskAfter ? t('provMaxAll') : t('provMax'), ' = ', num(e.max, 'prov-max-value')));
  const term = (k) => {
    const maskedExp = e.maskAfter ? e.scores[k] === -Infinity : e.masked[k];
    return h('li', { class: maskedExp ? 'masked' : null },
      p.coloured(k, maskedExp ? [`exp(${S(k)} − m) : `, t('provMasked')] : [`exp(${S(k)} − m) = exp(`, paren(fmt(e.scores[k])), ' − ', paren(fmt(e.max)), ') = ', num(e.exps[k], 'prov-exp')]));
  };
  out.push(h('ul.prov-terms', {}, p.shown(n).map((k) => (k === null ? h('li', {}, '…') : term(k)))));
  out.push(h('p.prov-denominator', {}, `${t('provDenominator')} Σ = `, p.joined(n, (k) => p.coloured(k, fmt(e.exps[k]))), ' = ', num(e.denominator, 'prov-den')));
  out.push(h('p.prov-numbers', {}, `${lhs} = `,
    e.maskAfter && e.masked[e.target] ? [t('provMaskedAfter'), ' = '] : [p.coloured(e.target, fmt(e.exps[e.target])), ' / ', fmt(e.denominator), ' = '],
    num(e.value, 'prov-value')));
  out.push(p.toggle(n));
  return out;
}

// one number made without a sum: the cell as the lesson writes it, its value, a step as term 0, and
// the line's end (a step that already reads as the value ends the line with it: no "(−2.772) = −2.772")
function single(p, r, at, e) {
  const value = num(e.value, 'prov-value');
  const term = (k, v) => p.coloured(k, paren(fmt(v)));
  return { lhs: r.cell(at, p.symbols), value, term, last: (v) => (fmt(v) === fmt(e.value) ? [p.coloured(0, value)] : [term(0, v), ' = ', value]) };
}

/** The lines of each kind of explanation: (pen, rule, at, explanation, the softmax's dim) -> nodes (null: none). */
const LINES = {
  sum: (p, r, at, e) => sumLines(p, r, at, e),
  softmax: softmaxLines,
  sinusoid(p, r, at, e) {
    const { lhs, value } = single(p, r, at, e), f = e.cosine ? 'cos' : 'sin';
    return [
      h('p.prov-formula', {}, `${lhs} = ${f}(t / 10000^(2i/C))`),
      h('p.prov-numbers', {}, `= ${f}(${e.position} / 10000^(${e.pair}/${e.width})) = ${f}(${e.position} / `, num(e.power, 'prov-power'),
        `) = ${f}(`, num(e.angle, 'prov-angle'), ') = ', value),
      h('p.prov-note', {}, p.t('provSinusoidCols', { pair: e.pair, width: e.width })),
    ];
  },
  // the learned position table (a seeded draw), or a row of Π · attn taken from attn(X + P)
  copy(p, r, at, e) {
    const { lhs, value, last } = single(p, r, at, e);
    if (!r.copy) return [h('p.prov-formula', {}, `${lhs} = `, value), h('p.prov-note', {}, p.t('provLearned', { t: at[0], c: at[1] }))];
    return [h('p.prov-formula', {}, `${lhs} = ${r.copy(at, e)} = `, ...last(e.left[0])),
      h('p.prov-note', {}, p.t('provCopy', { t: at.at(-2), row: e.from.at(-2) }))];
  },
  absdiff(p, r, at, e) {
    const { lhs, value } = single(p, r, at, e);
    return [h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)}`),
      h('p.prov-numbers', {}, '= |', paren(fmt(e.left[0])), ' − ', paren(fmt(e.left[1])), '| = ', value),
      h('p.prov-note', {}, p.t('provAbsDiff'), p.lang === 'zh' ? '' : ' ', p.t(p.inputs.causal ? 'provAbsDiffMasked' : 'provAbsDiffUnmasked'))];
  },
  dropout(p, r, at, e) {
    const { lhs, value, term, last } = single(p, r, at, e), { t } = p;
    if (!e.training)
      return [h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)} = `, ...last(e.left[0])), h('p.prov-note', {}, t('provDropEval'))];
    return [
      h('p.prov-formula', {}, `${lhs} = ${r.formula(at, e)} / (1 − p)  (u ≥ p),  0  (u < p)`),
      h('p.prov-note', {}, t('provDropDraw', { u: fmt(e.draw, 4), p: fmt(e.p, 2) }), h('span.prov-draw', { 'data-value': String(e.draw) })),
      h('p.prov-numbers', {}, e.kept ? [t('provDropKept'), `: ${lhs} = ${r.formula(at, e)} · 1/(1 − p) = `, term(0, e.left[0]), ' · ', fmt(e.scale, 4), ' = ']
        : [t('provDropDropped'), `: ${lhs} = `], value),
    ];
  },
};

/** The panel's lines for explanation e of the cell at, under its rule r. */
export const explanationLines = (p, r, at, e, dim) => LINES[e.kind](p, r, at, e, dim);

/** A number that is not computed (a seeded draw, the mask): the cell, with its value when withValue
 * (undefined: the cell is not in a table), and one line on where it comes from. */
export function noteLines(t, [lhs, key, params, withValue], value) {
  const formula = withValue && value !== undefined ? [`${lhs} = `, num(value, 'prov-value')] : [lhs];
  return [h('p.prov-formula', {}, ...formula), h('p.prov-note', {}, t(key, params))];
}
