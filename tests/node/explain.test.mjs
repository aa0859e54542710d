// core.explain in WebAssembly: the value is the cell bit for bit (as natively, tests/native/
// test_explain.cpp), the terms are the inputs' numbers, and bad requests are coded errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../wasm/js/index.js';

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
  assert.deepEqual(code(() => core.explain('dropout', 'out', [0], opts)), ['not_one_of', 'fn']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'logits', [0, 0, 0], opts)), ['not_one_of', 'quantity']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 3, 0], opts)), ['integer_range', 'at[1]']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 0], opts)), ['length_range', 'at']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', [0, 0, 0], { wq: opts.wq })), ['missing', 'opts.x']);
  assert.deepEqual(code(() => core.explain('multiHeadAttention', 'q', 'a', opts)), ['wrong_type', 'at']);
});
