// The provenance panel's rules (widgets/provenance.js), one per explained quantity, 'fn:quantity':
// strings and indices only, every number is core.explain()'s. A rule: cell(at, symbols), the cell as
// the lesson writes it; formula(at, e, symbols); refs(at, e, k, dim, head, state, inputs), the cells
// term k came from as [name, row, col, head?, shared?] (shared: an input of every term, outlined
// without a number); head(at), the head whose figures show it; for a weight softmax and
// score(at, k, dim); copy, then, note and grad where they are declared below.

const SUB = '₀₁₂₃₄₅₆₇₈₉';
const sub = (n) => String(n).replace(/\d/g, (d) => SUB[d]);

// The terms of each explained quantity: which displayed cells they came from ([name, row, col,
// head]) and how the lesson writes the cell and its formula. at is the core's index of the cell.
export const RULES = {
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
