// core.explain in WebAssembly: the value is the cell bit for bit (as natively, tests/native/
// test_explain.cpp), the terms are the inputs' numbers, and bad requests are coded errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../wasm/js/index.js';
import { runPrograms, assertClose } from './pytorch.mjs';

const core = await loadCore();

test('multiHeadAttention, 3 heads, C != D, causal: every cell of Q, S, A and Y is explained to the bit', () => {
  const x = core.randn([1, 4, 5], 1);
  const opts = { wq: core.randn([5, 6], 2), wk: core.randn([5, 6], 3), wv: core.randn([5, 6], 4), heads: 3, causal: true };
  const r = core.multiHeadAttention(x, opts);
  const index = (shape, f) => shape.map((_, a) => Math.floor(f / shape.slice(a + 1).reduce((p, d) => p * d, 1)) % shape[a]);
  for (const [quantity, t] of [['q', r.q], ['scores', r.scores], ['weights', r.weights], ['out', r.out]])
    for (let f = 0; f < t.data.length; f++) {
      const e = core.explain('multiHeadAttention', quantity, index(t.shape, f), { x, ...opts });
      assert.ok(Object.is(e.value, t.data[f]), `${quantity} ${f}`);
    }
  // S[h=2, t=3, j=1]: q row 3 and k row 1, columns 4 and 5, pairwise, scale 1/√2
  const s = core.explain('multiHeadAttention', 'scores', [0, 2, 3, 1], { x, ...opts });
  assert.equal(s.kind, 'sum');
  assert.deepEqual(s.left, [r.q.data[3 * 6 + 4], r.q.data[3 * 6 + 5]]);
  assert.deepEqual(s.right, [r.k.data[1 * 6 + 4], r.k.data[1 * 6 + 5]]);
  assert.equal(s.pairwise, true);
  assert.equal(s.scale, 1 / Math.sqrt(2));
  // A[h=0, t=1, j=0]: j = 2, 3 masked with exp 0
  const a = core.explain('multiHeadAttention', 'weights', [0, 0, 1, 0], { x, ...opts });
  assert.equal(a.kind, 'softmax');
  assert.deepEqual(a.masked, [false, false, true, true]);
  assert.deepEqual(a.exps.slice(2), [0, 0]);
  assert.equal(a.max, Math.max(a.scores[0], a.scores[1]));
});

test('explain: unknown functions and quantities, bad indices and missing inputs are coded errors', () => {
  const x = core.randn([1, 3, 2], 1);
  const opts = { x, wq: core.randn([2, 2], 2), wk: core.randn([2, 2], 3), wv: core.randn([2, 2], 4) };
  const code = (f) => { try { f(); } catch (e) { return [e.code, e.params.arg]; } return null; };
  assert.deepEqual(code(() => core.explain('gpt', 'out', [0], opts)), ['not_one_of', 'fn']);
  assert.deepEqual(code(() => core.explain('gradcheck', 'dx', [0, 0, 0], { q: x, k: x, v: x })), ['not_one_of', 'quantity']);
  assert.deepEqual(code(() => core.explain('futureProbe', 'change', [0, 0, 0], opts)), ['missing', 'opts.t']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'logits', [0, 0, 0], opts)), ['not_one_of', 'quantity']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 3, 0], opts)), ['integer_range', 'at[1]']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 0], opts)), ['length_range', 'at']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 0, 0], { wq: opts.wq })), ['missing', 'opts.x']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', 'a', opts)), ['wrong_type', 'at']);
});

const index = (shape, f) => shape.map((_, a) => Math.floor(f / shape.slice(a + 1).reduce((p, d) => p * d, 1)) % shape[a]);

test('18.5: the sinusoid table, P X + PE, and the outputs before and after the shuffle, to the bit', () => {
  const T = 5, C = 3;   // C odd: the last column has no cosine partner
  const pe = core.positions('sinusoidal', T, C, {});
  for (let f = 0; f < T * C; f++) {
    const [t, c] = index([T, C], f);
    const e = core.explain('positions', 'out', [t, c], { kind: 'sinusoidal', T, C });
    assert.equal(e.kind, 'sinusoid');
    assert.ok(Object.is(e.value, pe.data[f]), `PE[${t},${c}]`);
    // independently: 2i = c rounded down to even, angle = t / 10000^(2i/C)
    const pair = c - (c % 2), angle = t / 10000 ** (pair / C);
    assert.equal(e.pair, pair);
    assert.equal(e.cosine, c % 2 === 1);
    assert.ok(Math.abs(e.angle - angle) <= 1e-15 * Math.max(1, angle));
    assert.ok(Math.abs(e.value - (c % 2 ? Math.cos(angle) : Math.sin(angle))) <= 1e-15);
  }
  const x = core.randn([1, 4, 3], 5);
  const opts = { wq: core.randn([3, 6], 6), wk: core.randn([3, 6], 7), wv: core.randn([3, 6], 8), heads: 3, causal: true,
    positions: 'learned', tMax: 6, seed: 2, positionSeed: 9 };
  const pc = core.permutationCheck(x, opts), table = core.positions('learned', 4, 3, { tMax: 6, seed: 9 });
  for (let f = 0; f < pc.permutedInput.data.length; f++) {
    const [, t, c] = index(pc.permutedInput.shape, f);
    const e = core.explain('permutationCheck', 'permutedInput', [0, t, c], { x, ...opts });
    assert.deepEqual(e.left, [x.data[pc.perm[t] * 3 + c], table.data[t * 3 + c]]);
    assert.ok(Object.is(e.value, pc.permutedInput.data[f]));
  }
  for (let f = 0; f < pc.permutedOut.data.length; f++) {
    const at = index(pc.permutedOut.shape, f);
    const moved = core.explain('permutationCheck', 'permutedOut', at, { x, ...opts });
    assert.deepEqual(moved.from, [0, pc.perm[at[1]], at[2]]);
    assert.ok(Object.is(moved.value, pc.permutedOut.data[f]));
    // the cell it was moved from has its own sum, and the output of the shuffled input too
    const src = core.explain('permutationCheck', 'out', moved.from, { x, ...opts });
    assert.ok(Object.is(src.value, moved.value));
    const b = core.explain('permutationCheck', 'outOfPermuted', at, { x, ...opts });
    assert.ok(Object.is(b.value, pc.outOfPermuted.data[f]));
    assert.equal(b.terms.length, at[1] + 1);   // causal: rows 0..t
  }
});

// q (2, 4, 3), k (2, 5, 3), v (2, 5, 2): Tq != Tk, d != dv, two groups
const Q = core.randn([2, 4, 3], 21), K = core.randn([2, 5, 3], 22), V = core.randn([2, 5, 2], 23);

test('18.7: every gradient gradcheck checks is explained to the bit, with its central difference', () => {
  for (const causal of [true, false]) {
    const fwd = core.sdpa(Q, K, V, { causal });
    const G = core.randn(fwd.out.shape, 4);   // gradcheck's G: randn(out's shape, seed)
    const g = core.sdpaBackward(Q, K, V, G, { causal });
    for (const [quantity, t] of [['dq', g.dq], ['dk', g.dk], ['dv', g.dv]])
      for (let f = 0; f < t.data.length; f++) {
        const e = core.explain('gradcheck', quantity, index(t.shape, f), { q: Q, k: K, v: V, causal, seed: 4 });
        assert.ok(Object.is(e.value, t.data[f]), `${quantity} ${f}`);
        assert.ok(Object.is(e.numeric.value, (e.numeric.plus - e.numeric.minus) / (2 * e.numeric.eps)));
        assert.ok(Math.abs(e.numeric.value - e.value) <= 1e-5 + 1e-3 * Math.abs(e.numeric.value), `${quantity} ${f}: gradcheck's tolerance`);
      }
  }
});

test('18.7: the gradient formulas against PyTorch autograd (dQ, dK, dV, and each term\'s dS and dA)', async () => {
  const causal = true, seed = 4, fwd = core.sdpa(Q, K, V, { causal }), G = core.randn(fwd.out.shape, seed);
  const lit = (t) => `torch.tensor(${JSON.stringify(Array.from(t.data))}, dtype=torch.float64).reshape(${t.shape.join(', ')})`;
  const code = `import torch
q = ${lit(Q)}.requires_grad_()
k = ${lit(K)}.requires_grad_()
v = ${lit(V)}.requires_grad_()
G = ${lit(G)}
S_raw = q @ k.transpose(-2, -1)
S_raw.retain_grad()
S = (S_raw / 3 ** 0.5).masked_fill(~torch.ones(4, 5, dtype=torch.bool).tril(), float('-inf'))
A = torch.softmax(S, dim=-1)
A.retain_grad()
Y = A @ v
(Y * G).sum().backward()
print('dq =', q.grad.flatten().tolist())
print('dk =', k.grad.flatten().tolist())
print('dv =', v.grad.flatten().tolist())
print('dS =', S_raw.grad.flatten().tolist())
print('dA =', A.grad.flatten().tolist())
`;
  const { torch: out } = await runPrograms([{ id: 'torch', code }]);
  assert.equal(out.error, null, out.error);
  for (const quantity of ['dq', 'dk', 'dv']) {
    const shape = { dq: Q.shape, dk: K.shape, dv: V.shape }[quantity];
    const n = shape.reduce((a, b) => a * b, 1), got = [];
    for (let f = 0; f < n; f++) {
      const at = index(shape, f);
      const e = core.explain('gradcheck', quantity, at, { q: Q, k: K, v: V, causal, seed });
      got.push(e.value);
      if (quantity === 'dv') continue;
      // each term's dS[t, j] and dA[t, j] (t the query, j the key of the term)
      e.source.forEach((src, m) => {
        const [tq, jk] = quantity === 'dq' ? [at[1], src] : [src, at[1]];
        const flatTj = (at[0] * 4 + tq) * 5 + jk;
        assert.ok(Math.abs(e.left[m] - out.values.dS[flatTj]) <= 1e-12, `${quantity} ${at} term ${m}: dS`);
        assert.ok(Math.abs(e.gradDweight[m] - out.values.dA[flatTj]) <= 1e-12, `${quantity} ${at} term ${m}: dA`);
      });
    }
    assertClose(out.values[quantity], got, 1e-12, quantity);
  }
});

test('18.7: the future probe\'s change and a dropout entry', () => {
  const x = core.randn([1, 5, 4], 31);
  const w = { wq: core.randn([4, 6], 32), wk: core.randn([4, 6], 33), wv: core.randn([4, 6], 34), heads: 3, causal: true };
  const pr = core.futureProbe(x, { ...w, t: 1, seed: 3 }), base = core.multiHeadAttention(x, w).out;
  for (let f = 0; f < pr.change.data.length; f++) {
    const e = core.explain('futureProbe', 'change', index(pr.change.shape, f), { x, ...w, t: 1, seed: 3 });
    assert.equal(e.kind, 'absdiff');
    assert.ok(Object.is(e.left[1], base.data[f]));
    assert.ok(Object.is(e.value, pr.change.data[f]));
    if (index(pr.change.shape, f)[1] <= 1) assert.equal(e.left[0], e.left[1]);   // the prefix cannot see the change
  }
  const A = core.sdpa(Q, K, V, { causal: true }).weights;
  const y = core.dropout(A, { p: 0.3, training: true, seed: 6 });
  let kept = 0;
  for (let f = 0; f < y.data.length; f++) {
    const e = core.explain('dropout', 'out', index(y.shape, f), { x: A, p: 0.3, training: true, seed: 6 });
    assert.ok(Object.is(e.value, y.data[f]));
    assert.equal(e.kept, e.draw >= 0.3);
    assert.ok(Object.is(e.value, e.kept ? A.data[f] * e.scale : 0));
    kept += e.kept;
  }
  assert.ok(kept > 0 && kept < y.data.length);
  const ev = core.explain('dropout', 'out', [0, 1, 0], { x: A, p: 0.3, training: false, seed: 6 });
  assert.equal(ev.training, false);
  assert.ok(Object.is(ev.value, A.data[5]));
});
