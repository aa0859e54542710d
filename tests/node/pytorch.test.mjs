// core.toPyTorch: for a table of calls (C != D, Tq != Tk, 3 heads, p != 0.5, masked rows, -inf
// scores, cross-attention, every covered function), each program is run by PyTorch (Debian's
// python3-torch) and every field it prints must equal the core's result to 1e-12; every field of
// the core's result must be printed. The gradient check is the one exception (see below).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, tensor } from '../../wasm/js/index.js';
import { PYTORCH_FUNCTIONS } from '../../wasm/js/pytorch.js';
import { runPrograms, assertClose } from './pytorch.mjs';

const core = await loadCore();
const TOL = 1e-12;

// small seeded inputs from the core
const r = (shape, seed, std = 1) => core.randn(shape, seed, std);
const x3 = r([2, 4, 6], 1);                         // (B, T, C) = (2, 4, 6)
const w = { wq: r([6, 9], 2, 0.4), wk: r([6, 9], 3, 0.4), wv: r([6, 9], 4, 0.4) };   // C 6 != D 9, 3 heads of 3
const memory = r([2, 5, 6], 5);                     // T_in 5 != T 4
const mask = { shape: [3, 4], data: Uint8Array.from([1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0]) };   // row 2: nothing allowed
const withInf = tensor([[[0.5, -Infinity, 1], [-Infinity, -Infinity, -Infinity], [2, 0, -1]]]);
const q = r([2, 3, 4], 6), k = r([2, 5, 4], 7), v = r([2, 5, 3], 8);   // Tq 3 != Tk 5, d 4 != dv 3

const CALLS = [
  ['randn', [[3, 5], 11, 0.5]],
  ['causalAverage', [tensor([[2, 0], [0, 4], [4, 2]]), { method: 'loop' }]],
  ['causalAverage', [x3, { method: 'matrix' }]],
  ['causalAverage', [x3, { method: 'softmax' }]],
  ['averagingMatrix', [5]],
  ['averagingMatrix', [4, { normalize: false }]],
  ['maxAbsDiff', [x3, r([2, 4, 6], 9)]],
  ['sum', [x3, { dim: 1 }]],
  ['sum', [tensor([1, NaN, 2])]],
  ['matmul', [r([4, 4], 10), x3]],
  ['matmul', [r([2, 3, 4], 12), r([4, 5], 13)]],
  ['maskMatrix', [3, 5]],
  ['maskMatrix', [2, 3, { causal: false }]],
  ['softmax', [r([2, 3, 3], 14, 2), { mask: 'causal' }]],
  ['softmax', [r([2, 3, 4], 15), { mask, maskOrder: 'before' }]],
  ['softmax', [r([2, 3, 4], 15), { mask, maskOrder: 'after' }]],
  ['softmax', [r([1, 2, 3, 3], 16), { dim: 1 }]],
  ['softmax', [withInf, {}]],
  ['softmax', [withInf, { maskOrder: 'after' }]],
  ['softmax', [tensor([0.3, -1, 2])]],
  ['sdpa', [q, k, v, { scale: 'head' }]],
  ['sdpa', [r([2, 4, 4], 17), r([2, 4, 4], 18), r([2, 4, 3], 19), { causal: true, scale: 0.7 }]],
  ['sdpa', [q, k, v, { causal: true, scale: 'none' }]],
  ['sdpaReference', [q, k, v, { causal: true }]],
  ['sdpaBackward', [q, k, v, r([2, 3, 3], 20), { causal: true }]],
  ['linearWeightToMath', [r([3, 5], 21)]],
  ['mathWeightToLinear', [r([5, 3], 22)]],
  ['multiHeadAttention', [x3, { ...w, heads: 3, causal: true }]],
  ['multiHeadAttention', [x3, { ...w, heads: 3, scale: 'model' }]],
  ['multiHeadAttention', [x3, { ...w, heads: 3, memory, scale: 'none' }]],
  ['multiHeadAttention', [x3, { ...w, heads: 3, causal: true, results: 'out' }]],
  ['multiHeadAttentionBackward', [x3, r([2, 4, 9], 23), { ...w, heads: 3, causal: true }]],
  ['multiHeadAttentionBackward', [x3, r([2, 4, 9], 24), { ...w, heads: 3, memory }]],
  ['attentionStats', [core.softmax(r([2, 3, 4], 25), { mask, maskOrder: 'before' })]],
  ['dotProductVariance', [[1, 3, 8], { samples: 300, seed: 4 }]],
  ['softmaxSharpening', [tensor([0.1, -0.2, 0.3, -0.2, 0.5]), 8]],
  ['softmaxSharpening', [tensor([1, 2, 0.5]), 0.75]],
  ['positions', ['learned', 5, 6, { tMax: 7, seed: 3 }]],
  ['positions', ['sinusoidal', 6, 8]],
  ['permutationCheck', [x3, { ...w, heads: 3 }]],
  ['permutationCheck', [x3, { ...w, heads: 3, causal: true, positions: 'learned', tMax: 6, seed: 5, positionSeed: 2 }]],
  ['permutationCheck', [r([1, 2, 6], 36), { ...w, heads: 3, seed: 0 }]],   // T = 2: half the draws are the identity
  ['permutationCheck', [x3, { ...w, heads: 3, positions: 'sinusoidal', seed: 6 }]],
  ['gradcheck', ['sdpa', { q: r([1, 3, 2], 26), k: r([1, 4, 2], 27), v: r([1, 4, 3], 28), causal: true, seed: 2 }]],
  ['gradcheck', ['mha', { x: r([1, 3, 4], 29), wq: r([4, 6], 30, 0.5), wk: r([4, 6], 31, 0.5), wv: r([4, 6], 32, 0.5), heads: 3, causal: true, seed: 3 }]],
  ['futureProbe', [x3, { ...w, heads: 3, causal: true, t: 1, seed: 7 }]],
  ['futureProbe', [x3, { ...w, heads: 3, causal: false, t: 2, seed: 8 }]],
  ['dropout', [r([2, 3, 4], 33), { p: 0.3, seed: 9 }]],
  ['dropout', [r([2, 3], 34), { p: 0.3, training: false }]],
  ['dropoutStats', [core.softmax(r([1, 4, 4], 35), { mask: 'causal' }), { p: 0.3, samples: 200, seed: 10 }]],
  ['dropoutStats', [core.softmax(r([1, 4, 4], 35), { mask: 'causal' }), { p: 0.3, samples: 20, seed: 10, training: false }]],
];

// The API's result as {path: value}: a tensor (or number) result is `result`, with any extra
// fields beside it (softmax's maskedRows); nested objects are flattened with dots.
const isTensor = (v) => v && typeof v === 'object' && 'shape' in v && 'data' in v;
function fields(res) {
  if (typeof res === 'number') return { result: res };
  const out = isTensor(res) ? { result: res } : {};
  const walk = (o, prefix) => {
    for (const [key, val] of Object.entries(o)) {
      if (isTensor(o) && (key === 'shape' || key === 'data')) continue;
      const path = prefix ? `${prefix}.${key}` : key;
      if (val && typeof val === 'object' && !ArrayBuffer.isView(val) && !Array.isArray(val) && !isTensor(val)) walk(val, path);
      else out[path] = val;
    }
  };
  walk(res, '');
  return out;
}
const expectedOf = (fn, args) => fields(core[fn](...args));

test('toPyTorch covers every public function of the core where PyTorch has a meaning', () => {
  // diagnose() compares a student's tensor with the core's (PyTorch programs test it: tests/node/diagnose.test.mjs);
  // explain() describes how the core computed a cell (its terms, in its order) and describe() the table itself: no PyTorch call to reproduce
  const notCovered = ['createModel', 'gptGradcheck', 'memoryStats', 'explain', 'diagnose', 'diagnoseMistakes', 'describe', 'errorCodes', 'errorParams', 'toPyTorch'];
  const api = Object.keys(core).filter((name) => !notCovered.includes(name));
  assert.deepEqual([...PYTORCH_FUNCTIONS].sort(), api.sort());
  assert.deepEqual([...new Set(CALLS.map(([fn]) => fn))].sort(), [...PYTORCH_FUNCTIONS].sort(), 'every covered function has a call in the table');
});

test('toPyTorch: bad calls are errors that name the problem', () => {
  assert.throws(() => core.toPyTorch('createModel', []), /no PyTorch program for 'createModel'/);
  assert.throws(() => core.toPyTorch('softmax', [{ shape: [2, 2], data: [1, 2, 3] }]), /scores has shape \(2, 2\), which needs 4 values, but its data has 3/);
  assert.throws(() => core.toPyTorch('softmax', [tensor([[1, 2]]), { dims: 1 }]), /unknown option 'dims'/);
  assert.throws(() => core.toPyTorch('multiHeadAttention', [x3, { heads: 3 }]), /opts\.wq is required/);
  assert.throws(() => core.toPyTorch('sdpa', [q, k, v, { scale: 'model' }]), /scale 'model' needs a model width/);
  assert.throws(() => core.toPyTorch('sum', 'x'), /args must be the array/);
});

test('every toPyTorch program, run by PyTorch, prints the core\'s result (1e-12)', async () => {
  const jobs = CALLS.map(([fn, args], i) => ({ id: `${i}:${fn}`, code: core.toPyTorch(fn, args) }));
  const ran = await runPrograms(jobs);
  CALLS.forEach(([fn, args], i) => {
    const id = `${i}:${fn}`, out = ran[id];
    assert.equal(out.error, null, `${id}: the program failed:\n${out.error}\n${jobs[i].code}`);
    const want = expectedOf(fn, args);
    for (const [path, value] of Object.entries(want)) {
      assert.ok(path in out.values, `${id}: the program does not print ${path}; it printed ${Object.keys(out.values).join(', ')}`);
      if (fn === 'gradcheck' && /maxAbsError|maxRatio/.test(path)) {
        // finite differences at eps 1e-6 are rounding noise (errors ~1e-10, ratios ~1e-5) that
        // PyTorch and the core round differently: the same size, both far inside the tolerance
        // (a ratio of 1), not the same digits
        const far = path.endsWith('maxRatio') ? 1e-2 : 1e-7, got = out.values[path];
        assert.ok(got < far && value < far && got / value < 1e3 && value / got < 1e3, `${id}: ${path} PyTorch ${got}, core ${value}`);
      } else assertClose(out.values[path], value, TOL, `${id} ${path}`);
    }
    if (fn === 'gradcheck') assert.equal(out.values['torch.autograd.gradcheck'], true, `${id}: torch.autograd.gradcheck`);
  });
});
