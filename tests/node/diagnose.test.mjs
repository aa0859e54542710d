// "Check my numbers" through the JS API, against PyTorch: for every check, a program written here
// the way a student writes it (Debian's python3-torch, all programs in one Python process) prints
// its tensor with PyTorch's own print(); that text, parsed by wasm/js/parse-tensor.js and given
// to core.diagnose, must be named as exactly the mistake the program makes, "correct" for the
// right program, and "correct" at float32 (or at the printed precision) for the right program in
// float32. The mistakes' formulas are PyTorch's here and the core's in wasm/src/diagnose.cpp: a
// formula wrong on one side cannot agree with the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, diagnoseText } from '../../wasm/js/index.js';
import { MHA, runPrograms } from './pytorch.mjs';

const core = await loadCore();
const lit = (t) => `torch.tensor(${JSON.stringify(Array.from(t.data))}, dtype=torch.float64).reshape(${t.shape.join(', ')})`;

// Inputs where symmetric mistakes cannot cancel: C != T, three heads, Tq != Tk for cross-attention.
const x = core.randn([4, 3], 1);                     // causalAverage: (T, C)
const scores = core.randn([2, 4, 4], 2);             // softmax: (B, T, T)
const X = core.randn([1, 5, 6], 3);                  // attention: (B, T, C), C = 6, 3 heads of 2
const W = (seed) => core.randn([6, 6], seed, 0.5);
const wq = W(4), wk = W(5), wv = W(6);
const mem = core.randn([1, 7, 6], 7);                // cross-attention: Tin = 7 keys for T = 5 queries
const pos = core.positions('sinusoidal', 5, 6, {});  // positions: (T, C)
const q = core.randn([1, 4, 3], 8), k = core.randn([1, 4, 3], 9), v = core.randn([1, 4, 3], 10), g = core.randn([1, 4, 3], 11);
// dropout: causal weights (B, T, T), a keep mask of 0 and 1 drawn here, p = 0.3 (1/p and 1/(1-p) part)
const weights = core.softmax(core.randn([2, 4, 4], 12), { mask: 'causal' });
const keep = { shape: weights.shape, data: Float64Array.from(core.randn([2, 4, 4], 13).data, (r) => (r > -0.5 ? 1 : 0)) };


const CHECKS = [
  {
    check: 'causalAverage', inputs: { x },
    setup: `x = ${lit(x)}\nT, C = x.shape`,
    programs: {
      correct: 'w = torch.tril(torch.ones(T, T, dtype=torch.float64)); w = w / w.sum(1, keepdim=True); y = w @ x',
      sums_not_means: 'y = torch.tril(torch.ones(T, T, dtype=torch.float64)) @ x',
      sees_future: 'y = x.mean(0, keepdim=True).expand(T, C)',
      misses_itself: 'w = torch.tril(torch.ones(T, T, dtype=torch.float64), diagonal=-1); w = w / w.sum(1, keepdim=True); y = w @ x',
      over_channels: 'w = torch.tril(torch.ones(C, C, dtype=torch.float64)); w = w / w.sum(1, keepdim=True); y = x @ w.T',
    },
  },
  {
    check: 'softmax', inputs: { scores },
    setup: `s = ${lit(scores)}\nT = s.shape[-1]\nm = torch.tril(torch.ones(T, T, dtype=torch.bool))`,
    programs: {
      correct: "y = s.masked_fill(~m, float('-inf')).softmax(-1)",
      mask_after: 'y = s.softmax(-1).masked_fill(~m, 0.0)',
      no_mask: 'y = torch.softmax(s, dim=-1)',
      softmax_over_queries: "y = s.masked_fill(~m, float('-inf')).softmax(dim=1)",
      sees_one_future: "y = s.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=1), float('-inf')).softmax(-1)",
      misses_itself: "y = s.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1), float('-inf')).softmax(-1)",
    },
  },
  {
    check: 'attention', inputs: { x: X, wq, wk, wv, heads: 3, causal: true },
    setup: `${MHA}\nx, wq, wk, wv = ${lit(X)}, ${lit(wq)}, ${lit(wk)}, ${lit(wv)}`,
    programs: {
      correct: 'y = mha(x, wq, wk, wv, 3, root)[0]',
      scale_model: 'y = mha(x, wq, wk, wv, 3, lambda hs, C: 1 / math.sqrt(C))[0]',
      scale_head_size: 'y = mha(x, wq, wk, wv, 3, lambda hs, C: 1 / hs)[0]',
      no_scale: 'y = mha(x, wq, wk, wv, 3, lambda hs, C: 1.0)[0]',
      mask_after: "y = mha(x, wq, wk, wv, 3, root, mask_way='after')[0]",
      no_mask: 'y = mha(x, wq, wk, wv, 3, root, causal=False)[0]',
      sees_one_future: 'y = mha(x, wq, wk, wv, 3, root, shift=1)[0]',
      misses_itself: 'y = mha(x, wq, wk, wv, 3, root, shift=-1)[0]',
      softmax_over_queries: 'y = mha(x, wq, wk, wv, 3, root, dim=-2)[0]',
      heads_not_split: 'y = mha(x, wq, wk, wv, 3, root, split=False)[0]',
      weights_transposed: 'y = mha(x, wq, wk, wv, 3, root, transpose=True)[0]',
    },
  },
  {
    check: 'attention', name: 'cross-attention', inputs: { x: X, wq, wk, wv, heads: 3, causal: false, memory: mem },
    setup: `${MHA}\nx, wq, wk, wv, mem = ${lit(X)}, ${lit(wq)}, ${lit(wk)}, ${lit(wv)}, ${lit(mem)}`,
    programs: {
      correct: 'y = mha(x, wq, wk, wv, 3, root, causal=False, src=mem)[0]',
      mask_in_cross_attention: 'y = mha(x, wq, wk, wv, 3, root, causal=True, src=mem)[0]',
      keys_from_decoder: 'y = mha(x, wq, wk, wv, 3, root, causal=False)[0]',
      scale_model: 'y = mha(x, wq, wk, wv, 3, lambda hs, C: 1 / math.sqrt(C), causal=False, src=mem)[0]',
    },
  },
  {
    check: 'positions', inputs: { x: X, wq, wk, wv, heads: 3, causal: true, pos },
    setup: `${MHA}\nx, wq, wk, wv, pos = ${lit(X)}, ${lit(wq)}, ${lit(wk)}, ${lit(wv)}, ${lit(pos)}`,
    programs: {
      correct: 'y = mha(x + pos, wq, wk, wv, 3, root)[0]',
      positions_after: 'y = mha(x, wq, wk, wv, 3, root)[0] + pos',
      no_positions: 'y = mha(x, wq, wk, wv, 3, root)[0]',
    },
  },
  ...['dq', 'dk'].map((quantity) => ({
    check: 'sdpaBackward', name: `sdpaBackward ${quantity}`, inputs: { q, k, v, gradOut: g, causal: true, gradient: quantity },
    setup: String.raw`
q, k, v, g = ${lit(q)}, ${lit(k)}, ${lit(v)}, ${lit(g)}
T, d = q.shape[-2], q.shape[-1]; sc = 1 / math.sqrt(d)
m = torch.tril(torch.ones(T, T, dtype=torch.bool))
def by_hand(softmax_backward=True, scale_in_backward=True):
    A = (q @ k.transpose(-2, -1) * sc).masked_fill(~m, float('-inf')).softmax(-1)
    dA = g @ v.transpose(-2, -1)
    dS = A * (dA - (dA * A).sum(-1, keepdim=True)) if softmax_backward else dA * (A > 0)
    s = sc if scale_in_backward else 1.0
    return {'dq': dS @ k * s, 'dk': dS.transpose(-2, -1) @ q * s}['${quantity}']
def autograd(masked=True):
    qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
    S = qq @ kk.transpose(-2, -1) * sc
    A = (S.masked_fill(~m, float('-inf')) if masked else S).softmax(-1)
    (A @ vv).backward(g)
    return {'dq': qq.grad, 'dk': kk.grad}['${quantity}']`,
    programs: {
      correct: 'y = autograd()',
      no_softmax_backward: 'y = by_hand(softmax_backward=False)',
      no_scale_in_backward: 'y = by_hand(scale_in_backward=False)',
      mask_forgotten_in_backward: 'y = autograd(masked=False)',
    },
  })),
  ...[true, false].map((training) => ({
    check: 'dropout', name: `dropout ${training ? 'training' : 'evaluation'}`, inputs: { weights, keep, p: 0.3, training },
    setup: `A, keep, p = ${lit(weights)}, ${lit(keep)}, 0.3`,
    programs: training ? {
      correct: 'y = A * keep / (1 - p)',
      no_rescale: 'y = A * keep',
      divides_by_p: 'y = A * keep / p',
      multiplies_by_1_minus_p: 'y = A * keep * (1 - p)',
    } : {
      correct: 'y = A',
      drops_in_eval: 'y = A * keep / (1 - p)',
    },
  })),
];

test('every mistake of every check, made by a PyTorch program, is named from its printed output; the right one is correct', async () => {
  const jobs = [];
  for (const c of CHECKS) {
    for (const [id, code] of Object.entries(c.programs)) {
      jobs.push({ id: `${c.name ?? c.check}/${id}`, code: `import math\nimport torch\n${c.setup}\n${code}\nprint(y)` });
    }
    // the right program in float32, as students run it, and printed in full
    jobs.push({ id: `${c.name ?? c.check}/float32`,
      code: `import math\nimport torch\n${c.setup}\n${c.programs.correct}\ntorch.set_printoptions(precision=8)\nprint(y.float())` });
  }
  const runs = await runPrograms(jobs);
  for (const c of CHECKS) {
    const listed = new Set(core.diagnoseMistakes(c.check));
    for (const id of Object.keys(c.programs)) {
      const { error, stdout } = runs[`${c.name ?? c.check}/${id}`];
      assert.equal(error, null, `${id}: ${error}`);
      const d = diagnoseText(core, c.check, c.inputs, stdout);
      const where = `${c.name ?? c.check}, ${id}: verdict ${d.verdict}, mistakes [${d.mistakes}], max diff ${d.maxDiff}`;
      if (id === 'correct') {
        assert.equal(d.verdict, 'correct', where);
        // four decimals (or PyTorch's scientific form, five significant digits)
        assert.ok(['printed', 'float32'].includes(d.level), `${where}, level ${d.level}`);
      } else {
        assert.ok(listed.has(id), `${id} is one of the check's mistakes`);
        assert.equal(d.verdict, 'mistake', where);
        assert.deepEqual(d.mistakes, [id], where);
      }
    }
    const f32 = diagnoseText(core, c.check, c.inputs, runs[`${c.name ?? c.check}/float32`].stdout);
    assert.equal(f32.verdict, 'correct', `${c.check} in float32`);
    assert.equal(f32.level, 'float32', `${c.check} in float32: level ${f32.level}, max diff ${f32.maxDiff}`);
  }
  // every mistake the core knows is made by one of the programs above
  for (const check of new Set(CHECKS.map((c) => c.check))) {
    const made = new Set(CHECKS.filter((c) => c.check === check).flatMap((c) => Object.keys(c.programs)));
    for (const id of core.diagnoseMistakes(check)) assert.ok(made.has(id), `${check}: no program makes ${id}`);
  }
});

test('a wrong shape is named with both shapes; a transposed answer is recognised; bad text is a ParseError', () => {
  const d = diagnoseText(core, 'causalAverage', { x }, '[[1, 2], [3, 4]]');
  assert.equal(d.verdict, 'shape');
  assert.deepEqual(d.shape, [2, 2]);
  assert.deepEqual(d.expected.shape, [4, 3]);
  const y = core.causalAverage(x, {});
  const t = Array.from({ length: 3 }, (_, c) => Array.from({ length: 4 }, (_, r) => y.data[r * 3 + c]));
  const tr = diagnoseText(core, 'causalAverage', { x }, JSON.stringify(t));
  assert.equal(tr.verdict, 'correct');
  assert.equal(tr.shapeNote, 'transposed');
  assert.throws(() => diagnoseText(core, 'causalAverage', { x }, 'tensor([[1., ..., 2.]])'), (e) => e.code === 'paste_elided');
  assert.throws(() => core.diagnose('nope', y, {}), (e) => e.code === 'not_one_of' && /diagnose/.test(e.message));
  assert.throws(() => core.diagnose('attention', y, { x: X, wq, wk, wv, heads: 4 }), (e) => e.code === 'heads_not_dividing');
  // dropout: the keep mask's shape and values, p's range, p left out
  const drop = (opts) => () => core.diagnose('dropout', weights, { weights, keep, p: 0.3, ...opts });
  assert.throws(drop({ keep: core.randn([4, 4], 1) }), (e) => e.code === 'shape_mismatch' && e.params.arg === 'opts.keep'
    && e.message === 'diagnose: opts.keep must have shape (..., T, T) = (2, 4, 4), got (4, 4)');
  assert.throws(drop({ keep: weights }), (e) => e.code === 'element_range' && e.params.arg === 'opts.keep' && e.params.range === '{0, 1}');
  assert.throws(drop({ p: 1 }), (e) => e.code === 'number_range' && e.message === 'diagnose: opts.p must be in [0, 1), got 1');
  assert.throws(() => core.diagnose('dropout', weights, { weights, keep }), (e) => e.code === 'missing' && e.params.arg === 'opts.p');
});
