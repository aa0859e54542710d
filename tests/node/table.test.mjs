// The table of entry points (wasm/bindings/table.cpp) says which options each function takes; the
// C++ API is what reads them. They must agree: an unknown option's error lists what the function
// read (params.known), which must be the row's options exactly (for gradcheck, over its two kinds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, tensor } from '../../wasm/js/index.js';

const core = await loadCore();
const m = tensor([[1, 2], [3, 4]]);
const x = core.randn([1, 3, 2], 1);
const w = { wq: core.randn([2, 2], 2), wk: core.randn([2, 2], 3), wv: core.randn([2, 2], 4) };
const text = 'abcdefghij'.repeat(40);
const model = core.createModel(text, { C: 8, heads: 2, layers: 1, tMax: 8 });

// per function with options: calls that reach the options (required ones given) plus `o`
const calls = {
  causalAverage: [(o) => core.causalAverage(m, o)],
  averagingMatrix: [(o) => core.averagingMatrix(2, o)],
  sum: [(o) => core.sum(m, o)],
  maskMatrix: [(o) => core.maskMatrix(2, 2, o)],
  softmax: [(o) => core.softmax(m, o)],
  sdpa: [(o) => core.sdpa(m, m, m, o)],
  sdpaBackward: [(o) => core.sdpaBackward(m, m, m, m, o)],
  sdpaReference: [(o) => core.sdpaReference(m, m, m, o)],
  multiHeadAttention: [(o) => core.multiHeadAttention(x, { ...w, ...o })],
  multiHeadAttentionBackward: [(o) => core.multiHeadAttentionBackward(x, x, { ...w, ...o })],
  dotProductVariance: [(o) => core.dotProductVariance([2], o)],
  positions: [(o) => core.positions('learned', 2, 2, o)],
  permutationCheck: [(o) => core.permutationCheck(x, { ...w, ...o })],
  gradcheck: [(o) => core.gradcheck('sdpa', { q: m, k: m, v: m, ...o }), (o) => core.gradcheck('mha', { x, ...w, ...o })],
  futureProbe: [(o) => core.futureProbe(x, { ...w, t: 0, ...o })],
  dropout: [(o) => core.dropout(m, o)],
  dropoutStats: [(o) => core.dropoutStats(m, o)],
  createModel: [(o) => core.createModel(text, o)],
  sample: [(o) => model.sample(o)],
  futureCheck: [(o) => model.futureCheck('abcd', o)],
};

for (const row of core.describe().filter((r) => r.options.length > 0)) {
  test(`${row.name}: the options the table declares are the ones the core reads`, () => {
    assert.ok(calls[row.name], `no call for ${row.name} in this test`);
    const known = new Set();
    for (const call of calls[row.name]) {
      assert.throws(() => call({ bogus: 1 }), (e) => {
        assert.equal(e.code, 'unknown_option');
        assert.deepEqual([e.params.fn, e.params.arg], [row.name, 'opts.bogus']);
        e.params.known.forEach((k) => known.add(k));
        return true;
      });
    }
    assert.deepEqual([...known].sort(), [...row.options].sort());
  });
}

test('functions without options in the table have no call here, and every row is documented', () => {
  for (const row of core.describe()) {
    if (row.options.length === 0) assert.equal(calls[row.name], undefined, row.name);
    assert.ok(row.doc.length > 10 && row.returns.length > 2, `${row.name} is documented`);
    assert.equal(row.args.filter((a) => a.kind === 'options').length, row.options.length ? 1 : 0, `${row.name}: options argument`);
  }
});
