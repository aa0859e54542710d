// Two of the lesson's checks through the WASM core. 18.5: the permutation check never draws the
// identity (T >= 2), so the page never compares attn(x) with itself; over many seeds at T = 2
// and T = 3 every other permutation appears; the learned table keeps its own seed (positionSeed).
// 18.7: dropout statistics in evaluation mode are evaluation statistics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, tensor } from '../../wasm/js/index.js';

const core = await loadCore();
const w = (C) => ({ wq: core.randn([C, C], 11), wk: core.randn([C, C], 12), wv: core.randn([C, C], 13), heads: 1 });
const identity = (p) => p.every((v, i) => v === i);

test('T = 2 and T = 3: over 2000 seeds no draw is the identity, and every other permutation appears', () => {
  for (const [x, others] of [[[[1, 0], [0, 1]], ['1,0']], [[[1, 0], [0, 1], [1, 1]], ['0,2,1', '1,0,2', '1,2,0', '2,0,1', '2,1,0']]]) {
    const counts = new Map();
    for (let seed = 0; seed < 2000; seed++) {
      const { perm } = core.permutationCheck(tensor([x]), { ...w(2), seed });
      assert.ok(!identity(perm), `seed ${seed}: identity ${perm}`);
      counts.set(perm.join(','), (counts.get(perm.join(',')) ?? 0) + 1);
    }
    assert.deepEqual([...counts.keys()].sort(), others);
    for (const [p, n] of counts) assert.ok(Math.abs(n - 2000 / others.length) < 0.2 * 2000 / others.length, `${p}: ${n}`);
  }
});

test('with positions or the mask every shuffle at T = 2 shows a real difference (never the equivariance verdict)', () => {
  const x = tensor([[[1, 0], [0, 1]]]);
  for (let seed = 0; seed < 200; seed++) {
    for (const opts of [{ causal: true }, { positions: 'sinusoidal' }, { positions: 'learned', tMax: 4 }]) {
      assert.ok(core.permutationCheck(x, { ...w(2), ...opts, seed }).maxDiff > 1e-3, `seed ${seed} ${JSON.stringify(opts)}`);
    }
  }
});

test('a new shuffle keeps the learned table; positionSeed alone chooses it', () => {
  const X = [[1, 0, 2], [0, 1, -1], [1, 1, 0], [2, -1, 1]];
  const table = core.positions('learned', 4, 3, { tMax: 6, seed: 5 });
  for (const seed of [1, 2, 3, 4]) {
    const r = core.permutationCheck(tensor([X]), { ...w(3), positions: 'learned', tMax: 6, seed, positionSeed: 5 });
    // row t of P x + pos is X[perm[t]] + table[t], added here in plain JS
    const want = r.perm.flatMap((p, t) => X[p].map((v, c) => v + table.data[t * 3 + c]));
    assert.deepEqual(Array.from(r.permutedInput.data), want, `seed ${seed}`);
  }
  const a = core.permutationCheck(tensor([X]), { ...w(3), positions: 'learned', tMax: 6, seed: 1, positionSeed: 5 });
  const b = core.permutationCheck(tensor([X]), { ...w(3), positions: 'learned', tMax: 6, seed: 1, positionSeed: 6 });
  assert.deepEqual(a.perm, b.perm);
  assert.notDeepEqual(Array.from(a.permutedInput.data), Array.from(b.permutedInput.data));
  assert.throws(() => core.permutationCheck(tensor([X]), { ...w(3), positionSeed: -1 }), /positionSeed/);
});

test('dropoutStats in evaluation: one sample and the mean over 2000 are the weights\' own row sums', () => {
  const w = core.softmax(core.randn([1, 6, 6], 3), { mask: 'causal' });
  const sums = core.sum(w, { dim: -1 });
  const ev = core.dropoutStats(w, { p: 0.5, samples: 2000, seed: 1, training: false });
  assert.equal(core.maxAbsDiff(ev.sampleRowSums, sums), 0);
  assert.ok(core.maxAbsDiff(ev.meanRowSums, sums) <= 1e-12);
  Array.from(ev.meanRowSums.data).forEach((v) => assert.ok(Math.abs(v - 1) <= 1e-12, `${v}`));
  const tr = core.dropoutStats(w, { p: 0.5, samples: 2000, seed: 1 });
  assert.ok(Array.from(tr.meanRowSums.data).some((v) => Math.abs(v - 1) > 5e-3), 'training: the mean over 2000 samples is only near 1');
});
