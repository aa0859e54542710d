// The chapter's numbers and the behaviour of every API function, through loadCore() on the
// WASM build. Expected values are hand-computed or come from the chapter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, tensor, toNested } from '../../wasm/js/index.js';

const core = await loadCore();
const X = tensor([[2, 0], [0, 4], [4, 2]]);
const close = (a, b, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('18.1: the chapter example averages to (2,0), (1,2), (2,2); loop vs matrix differ by <= 2.22e-16', () => {
  const loop = core.causalAverage(X, { method: 'loop' });
  assert.deepEqual(toNested(loop), [[2, 0], [1, 2], [2, 2]]);
  for (const method of ['matrix', 'softmax']) {
    assert.ok(core.maxAbsDiff(loop, core.causalAverage(X, { method })) <= 2.22e-16, method);
  }
  assert.deepEqual(toNested(core.averagingMatrix(3)), [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]]);
  assert.deepEqual(toNested(core.averagingMatrix(3, { normalize: false })), [[1, 0, 0], [1, 1, 0], [1, 1, 1]]);
  const batch = core.causalAverage(tensor([[[2, 0], [0, 4], [4, 2]], [[20, 0], [0, 40], [40, 20]]]));
  assert.deepEqual(batch.shape, [2, 3, 2]);
  close(batch.data[6 + 3], 20);   // batch 1, t = 1, c = 1: the same A, ten times the input
});

test('18.2: mask before vs after softmax, NaN for a fully masked row, any dim', () => {
  const zeros = tensor([[0, 0, 0], [0, 0, 0], [0, 0, 0]]);
  const before = core.softmax(zeros, { mask: 'causal' });
  assert.deepEqual(toNested(before), [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]]);
  const after = toNested(core.softmax(zeros, { mask: 'causal', maskOrder: 'after' }));
  assert.deepEqual(after.map((r) => r.reduce((a, b) => a + b)), [1 / 3, 2 / 3, 1]);
  const masked = core.softmax(tensor([[1, 2], [3, 4]]), { mask: { shape: [2, 2], data: [1, 1, 0, 0] } });
  assert.ok(Number.isNaN(masked.data[2]) && Number.isNaN(masked.data[3]));
  assert.deepEqual(masked.maskedRows, [[1]]);
  const huge = core.softmax(tensor([1e300, 0, -1e300]));
  assert.deepEqual(Array.from(huge.data), [1, 0, 0]);
  const s = core.randn([2, 3, 3], 4);
  const d1 = core.softmax(s, { dim: 1 });
  const dl = core.softmax(s, { dim: -1 });
  assert.ok(core.maxAbsDiff(d1, dl) > 0.05, 'dim 1 and dim -1 must differ (exercise 2)');
  close(d1.data[0] + d1.data[3] + d1.data[6], 1);   // dim 1: a column sums to 1
  close(dl.data[0] + dl.data[1] + dl.data[2], 1);   // dim -1: a row sums to 1
});

test('exercise 1: scores [0, log 2, 0] give [1/4, 1/2, 1/4] and with values 2, 4, 10 the output 5, exactly', () => {
  assert.deepEqual(Array.from(core.softmax(tensor([0, Math.log(2), 0])).data), [0.25, 0.5, 0.25]);
  const r = core.sdpa(tensor([[1]]), tensor([[0], [Math.log(2)], [0]]), tensor([[2], [4], [10]]), { scale: 'none' });
  assert.equal(r.out.data[0], 5);
});

test('exercise 3: adding c to V adds c to every output row', () => {
  const q = core.randn([4, 3], 1), k = core.randn([4, 3], 2), v = core.randn([4, 2], 3);
  const v2 = { shape: v.shape, data: v.data.map((x, i) => x + (i % 2 ? -1.5 : 2)) };
  const y = core.sdpa(q, k, v, { causal: true }).out, y2 = core.sdpa(q, k, v2, { causal: true }).out;
  for (let i = 0; i < y.data.length; i++) close(y2.data[i] - y.data[i], i % 2 ? -1.5 : 2, 1e-14);
});

test('18.3: sdpa returns out, weights, scores; causal weights are zero above the diagonal', () => {
  const q = core.randn([1, 4, 4], 5), k = core.randn([1, 4, 4], 6), v = core.randn([1, 4, 2], 7);
  const r = core.sdpa(q, k, v, { causal: true });
  assert.deepEqual(r.weights.shape, [1, 4, 4]);
  assert.deepEqual(r.out.shape, [1, 4, 2]);
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += q.data[c] * k.data[4 + c];
  close(r.scores.data[1], dot / 2, 1e-14);   // row 0, column 1: q0.k1 / sqrt(4), before the mask
  assert.equal(r.weights.data[1], 0);
  const w = core.linearWeightToMath(tensor([[1, 2, 3], [4, 5, 6]]));
  assert.deepEqual(toNested(w), [[1, 4], [2, 5], [3, 6]]);
});

test('18.4: sqrt(hs) vs sqrt(C) differ with several heads; variance of q.k grows like d', () => {
  const x = core.randn([1, 5, 8], 8);
  const opts = { wq: core.randn([8, 8], 9), wk: core.randn([8, 8], 10), wv: core.randn([8, 8], 11), heads: 4 };
  const head = core.multiHeadAttention(x, opts), model = core.multiHeadAttention(x, { ...opts, scale: 'model' });
  assert.deepEqual(head.weights.shape, [1, 4, 5, 5]);
  assert.ok(core.maxAbsDiff(head.weights, model.weights) > 1e-3);
  // scores of head 0 are q.k / sqrt(hs) with hs = 2
  let dot = 0;
  for (let e = 0; e < 2; e++) dot += head.q.data[e] * head.k.data[8 + e];
  close(head.scores.data[1], dot / Math.SQRT2, 1e-13);
  const v = core.dotProductVariance([4, 64], { samples: 20000, seed: 1 });
  close(v.unscaled[1] / 64, 1, 0.06);
  close(v.scaled[0], 1, 0.06);
  const sh = core.softmaxSharpening(tensor([0.1, -0.2, 0.3, -0.2, 0.5]), 8);
  close(sh.maxWeight, 0.7999651538980476, 1e-12);
  close(sh.jacobianNorm, 0.28246296393309056, 1e-12);
  const stats = core.attentionStats(tensor([[0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0]]));
  close(stats.entropy.data[0], Math.log(4));
  assert.equal(stats.maxWeight.data[1], 1);
});

test('18.5: positions and the permutation check', () => {
  const pe = core.positions('sinusoidal', 4, 4);
  close(pe.data[3 * 4 + 0], Math.sin(3));
  close(pe.data[3 * 4 + 2], Math.sin(3 / 100));
  assert.throws(() => core.positions('learned', 9, 4, { tMax: 8 }), { message: /T = 9 is past the learned table's tMax = 8/ });
  const x = core.randn([1, 6, 4], 12);
  const w = { wq: core.randn([4, 4], 13), wk: core.randn([4, 4], 14), wv: core.randn([4, 4], 15), heads: 2, seed: 3 };
  assert.ok(core.permutationCheck(x, w).maxDiff < 1e-14);
  assert.ok(core.permutationCheck(x, { ...w, positions: 'learned' }).maxDiff > 1e-2);
  assert.ok(core.permutationCheck(x, { ...w, positions: 'sinusoidal' }).maxDiff > 1e-2);
  assert.ok(core.permutationCheck(x, { ...w, causal: true }).maxDiff > 1e-2);
});

test('18.6: cross-attention weights are (B, heads, T_out, T_in)', () => {
  const x = core.randn([2, 3, 4], 16), memory = core.randn([2, 5, 4], 17);
  const r = core.multiHeadAttention(x, { wq: core.randn([4, 4], 18), wk: core.randn([4, 4], 19), wv: core.randn([4, 4], 20), heads: 2, memory });
  assert.deepEqual(r.weights.shape, [2, 2, 3, 5]);
  assert.deepEqual(r.k.shape, [2, 5, 4]);
});

test('18.7: future probe exactly 0 with the mask, > 0 without; gradcheck; dropout', () => {
  const x = core.randn([1, 6, 4], 21);
  const w = { wq: core.randn([4, 4], 22), wk: core.randn([4, 4], 23), wv: core.randn([4, 4], 24), heads: 2 };
  for (let t = 0; t < 5; t++) {
    assert.equal(core.futureProbe(x, { ...w, causal: true, t }).maxPrefixChange, 0);
    assert.ok(core.futureProbe(x, { ...w, causal: false, t }).maxPrefixChange > 1e-3);
  }
  const g = core.gradcheck('sdpa', { q: core.randn([3, 2], 1), k: core.randn([3, 2], 2), v: core.randn([3, 2], 3), causal: true });
  assert.equal(g.passed, true);
  assert.deepEqual(Object.keys(g.inputs), ['q', 'k', 'v']);
  assert.deepEqual([g.eps, g.atol, g.rtol], [1e-6, 1e-5, 1e-3]);
  const m = core.gradcheck('mha', { x: core.randn([1, 3, 4], 4), ...w, causal: true });
  assert.equal(m.passed, true);
  assert.deepEqual(Object.keys(m.inputs), ['x', 'wq', 'wk', 'wv']);
  const weights = core.softmax(core.randn([4, 4], 25), { mask: 'causal' });
  assert.equal(core.maxAbsDiff(core.dropout(weights, { p: 0.5, training: false }), weights), 0);
  const st = core.dropoutStats(weights, { p: 0.5, samples: 20000, seed: 2 });
  assert.ok(Array.from(st.sampleRowSums.data).some((s) => Math.abs(s - 1) > 1e-6));
  for (const s of st.meanRowSums.data) close(s, 1, 0.03);
});

test('bad input throws an Error naming the argument and shapes; the module stays usable', () => {
  const cases = [
    [() => core.softmax(tensor([[1, 2]]), { dim: 2 }), /^softmax: opts\.dim must be in \[-2, 1\] for scores of shape \(1, 2\), got 2$/],
    [() => core.softmax({ shape: [2, 2], data: [1, 2, 3] }), /^softmax: scores: shape \(2, 2\) needs 4 values, data has 3$/],
    [() => core.softmax({ shape: [2], data: [1, 'abc'] }), /^softmax: scores\.data\[1\] must be a number, got a string$/],
    [() => core.softmax(tensor([1, NaN])), /^softmax: scores: every value must be a finite number or -Infinity, got NaN at \[1\]$/],
    [() => core.softmax(null), /^softmax: scores must be a tensor \{shape: number\[\], data: Float64Array\}, got null$/],
    [() => core.softmax('1,2,3'), /^softmax: scores must be a tensor .*, got a string$/],
    [() => core.softmax(tensor([1, 2]), { maskOrder: 'during' }), /opts\.maskOrder must be 'before' or 'after', got 'during'/],
    [() => core.softmax(tensor([1, 2]), { dimension: 0 }), /^softmax: unknown option opts\.dimension \(known: dim, mask, maskOrder\)$/],
    [() => core.sdpa(core.randn([2, 3], 1), core.randn([2, 4], 1), core.randn([2, 4], 1)), /^sdpa: k must have shape \(\.\.\., Tk, d\) with d = 3 \(the last axis of q \(2, 3\)\), got \(2, 4\)$/],
    [() => core.multiHeadAttention(core.randn([1, 3, 4], 1), { wq: core.randn([4, 6], 1), wk: core.randn([4, 6], 1), wv: core.randn([4, 6], 1), heads: 4 }),
      /^multiHeadAttention: heads = 4 does not divide the projected width D = 6$/],
    [() => core.causalAverage(tensor([1, 2, 3])), /causalAverage: x: expected \(T, C\) or \(B, T, C\), got shape \(3,\) \(rank 1\)/],
    [() => core.positions('learned', 100, 4, { tMax: 64 }), /T = 100 is past the learned table's tMax = 64/],
    [() => core.randn([2, -1], 0), /randn: shape: shape\[1\] must be a whole number >= 1, got -1/],
    [() => core.randn([2, 2], 'seed'), /^randn: seed must be a number, got a string$/],
    [() => core.futureProbe(core.randn([1, 3, 2], 1), { wq: core.randn([2, 2], 1), wk: core.randn([2, 2], 1), wv: core.randn([2, 2], 1) }),
      /^futureProbe: opts\.t is required: a number$/],
    [() => core.sdpa(core.randn([1, 2100, 1], 1), core.randn([1, 2100, 1], 1), core.randn([1, 2100, 1], 1)), /more than the limit of 4194304/],
    [() => core.dotProductVariance([4], { samples: 10, sed: 1 }), /^dotProductVariance: unknown option opts\.sed \(known: samples, seed\)$/],
  ];
  for (const [fn, message] of cases) {
    assert.throws(fn, (e) => e instanceof Error && message.test(e.message), String(message));
  }
  // still usable
  assert.deepEqual(toNested(core.causalAverage(X, { method: 'loop' })), [[2, 0], [1, 2], [2, 2]]);
});

test('a compiled module can be shared: loadCore({module}) and instantiateCore({module}) give working cores', async () => {
  const { compileCore, instantiateCore } = await import('../../wasm/js/index.js');
  const module = await compileCore();
  assert.ok(module instanceof WebAssembly.Module);
  for (const c of [await loadCore({ module }), await instantiateCore({ module })]) {
    assert.deepEqual(toNested(c.causalAverage(X, { method: 'loop' })), [[2, 0], [1, 2], [2, 2]]);
  }
});
