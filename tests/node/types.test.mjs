// Every API function given the wrong JS types (strings, null, objects, arrays of the wrong
// length, a shape that disagrees with the data) throws an Error with a message; never an abort,
// never a silent answer. The module keeps working afterwards and its memory stays flat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore, tensor } from '../../wasm/js/index.js';

const core = await loadCore();
const m = tensor([[1, 2], [3, 4]]);
const x3 = core.randn([1, 3, 2], 1);
const w = { wq: core.randn([2, 2], 2), wk: core.randn([2, 2], 3), wv: core.randn([2, 2], 4) };

// Bad values to put in place of a tensor argument.
const badTensors = [
  undefined, null, 'abc', 42, true, [1, 2, 3], new Float64Array(4), {},
  { shape: [2, 2] }, { data: [1, 2, 3, 4] }, { shape: '2,2', data: [1, 2, 3, 4] }, { shape: [2, 2], data: 'abcd' },
  { shape: [2, 2], data: [1, 2, 3] }, { shape: [2, 2], data: [1, 2, 3, 4, 5] }, { shape: [2, '2'], data: [1, 2, 3, 4] },
  { shape: [2, -2], data: [1, 2, 3, 4] }, { shape: [2, 2.5], data: [1, 2, 3, 4, 5] }, { shape: [], data: [] },
  { shape: [2, 2], data: [1, null, 3, 4] }, { shape: [2, 2], data: [1, '2', 3, 4] }, { shape: [2, 2], data: [1, NaN, 3, 4] },
  { shape: [1e9, 1e9], data: [1] }, { shape: [2, 2], data: [1, 2, 3, Infinity] }, { shape: [2, 2], data: new BigInt64Array(4) },
];

// [name, call with the bad value in a tensor slot]
const calls = [
  ['causalAverage', (b) => core.causalAverage(b)],
  ['maxAbsDiff', (b) => core.maxAbsDiff(m, b), 'nan-ok'],
  ['sum', (b) => core.sum(b), 'nan-ok'],
  ['matmul', (b) => core.matmul(m, b)],
  ['softmax', (b) => core.softmax(b)],
  ['softmax mask', (b) => core.softmax(m, { mask: b }), 'optional'],
  ['sdpa', (b) => core.sdpa(m, b, m)],
  ['sdpaReference', (b) => core.sdpaReference(b, m, m)],
  ['sdpaBackward', (b) => core.sdpaBackward(m, m, m, b)],
  ['linearWeightToMath', (b) => core.linearWeightToMath(b)],
  ['mathWeightToLinear', (b) => core.mathWeightToLinear(b)],
  ['multiHeadAttention x', (b) => core.multiHeadAttention(b, w)],
  ['multiHeadAttention wq', (b) => core.multiHeadAttention(x3, { ...w, wq: b })],
  ['multiHeadAttention memory', (b) => core.multiHeadAttention(x3, { ...w, memory: b }), 'optional'],
  ['multiHeadAttentionBackward', (b) => core.multiHeadAttentionBackward(x3, b, w)],
  ['attentionStats', (b) => core.attentionStats(b), 'nan-ok'],
  ['softmaxSharpening', (b) => core.softmaxSharpening(b, 8)],
  ['permutationCheck', (b) => core.permutationCheck(b, w)],
  ['gradcheck', (b) => core.gradcheck('sdpa', { q: b, k: m, v: m })],
  ['futureProbe', (b) => core.futureProbe(b, { ...w, t: 0 })],
  ['dropout', (b) => core.dropout(b)],
  ['dropoutStats', (b) => core.dropoutStats(b)],
  // (diagnose's student tensor may hold NaN and infinities, a masked row's values: tests/node/diagnose.test.mjs)
  ['diagnose x', (b) => core.diagnose('causalAverage', m, { x: b })],
];

// Tensor-free arguments given the wrong type.
const scalarCalls = [
  () => core.randn('3', 1), () => core.randn([2], null), () => core.randn(null), () => core.randn([2], 1, 'wide'), () => core.randn([2], -1),
  () => core.randn([2], 1.5), () => core.randn([2], 1, 0), () => core.averagingMatrix('3'), () => core.averagingMatrix(3, 'opts'),
  () => core.averagingMatrix(3, { normalize: 'yes' }), () => core.averagingMatrix(-1), () => core.averagingMatrix(NaN),
  () => core.maskMatrix(2, '3'), () => core.positions(1, 2, 2), () => core.positions('learned', '2', 2), () => core.positions('learned', 2, 2, { tMax: '8' }),
  () => core.dotProductVariance('4'), () => core.dotProductVariance([4, 'x']), () => core.dotProductVariance([4], { samples: '10' }),
  () => core.softmaxSharpening(tensor([1, 2]), '8'), () => core.softmaxSharpening(tensor([1, 2]), Infinity), () => core.gradcheck(null, {}),
  () => core.gradcheck('sdpa', 'q'), () => core.softmax(m, { dim: '0' }), () => core.softmax(m, { dim: 0.5 }), () => core.softmax(m, { mask: 7 }),
  () => core.softmax(m, { mask: null }), () => core.softmax(m, [1, 2]), () => core.sdpa(m, m, m, { causal: 'true' }), () => core.sdpa(m, m, m, { scale: null }),
  () => core.multiHeadAttention(x3, { ...w, heads: '2' }), () => core.multiHeadAttention(x3, { ...w, heads: 1.5 }), () => core.futureProbe(x3, { ...w, t: -1 }),
  () => core.dropout(m, { p: '0.5' }), () => core.dropout(m, { p: NaN }), () => core.dropoutStats(m, { samples: 0 }),
];

// a coded error from the table, whose message names the function and the argument it blames
function assertCoded(e, what) {
  assert.ok(Object.hasOwn(core.errorCodes, e.code), `${what}: code ${e.code}`);
  assert.deepEqual(Object.keys(e.params), core.errorCodes[e.code], `${what}: parameters of ${e.code}`);
  assert.ok(e.message.startsWith(`${e.params.fn}: `), `${what}: ${e.message}`);
  if (e.params.arg !== undefined) assert.ok(e.message.includes(e.params.arg), `${what}: ${e.message} does not name ${e.params.arg}`);
}

const show = (v) => { try { return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x)); } catch { return String(v); } };

test('every tensor argument given a wrong type or inconsistent shape throws an Error with a message', () => {
  let n = 0;
  for (const [name, call, flag] of calls) {
    const nanOk = flag === 'nan-ok';
    for (const bad of badTensors) {
      if (flag === 'optional' && bad === undefined) continue;   // an option set to undefined is an option not given
      let threw, result;
      try { result = call(bad); } catch (e) { threw = e; }
      if (nanOk && Array.isArray(bad?.data) && bad.data.some(Number.isNaN) && !threw) {
        // documented: these inspect results that may hold NaN rows, and answer NaN
        const values = typeof result === 'number' ? [result] : Object.values(result).flatMap((t) => Array.from(t.data ?? t));
        assert.ok(values.some(Number.isNaN), `${name} with a NaN input must answer NaN`);
        continue;
      }
      assert.ok(threw instanceof Error, `${name}(${show(bad)}) did not throw an Error`);
      assert.ok(threw.message.length > 10 && !/abort|RuntimeError|undefined is not/i.test(threw.message), `${name}: ${threw.message}`);
      assertCoded(threw, `${name}(${show(bad)})`);
      n++;
    }
  }
  assert.ok(n > 500);
});

test('every scalar or option argument of the wrong type throws an Error with a message', () => {
  for (const call of scalarCalls) {
    let threw;
    try { call(); } catch (e) { threw = e; }
    assert.ok(threw instanceof Error, `${call} did not throw`);
    assertCoded(threw, String(call));
  }
});

test('every function of the table has its line in the tensor table above', () => {
  for (const row of core.describe()) {
    if (row.role === 'function' && row.args.some((a) => a.kind === 'tensor')) {
      assert.ok(calls.some(([name]) => name.split(' ')[0] === row.name), `${row.name} is missing from the calls above`);
    }
  }
});

test('each argument of each function, given the wrong JS type, is the one a wrong_type error names (generated from the table)', () => {
  const valid = { tensor: tensor([[1]]), number: 1, string: 'x', numbers: [1], options: {} };
  const wrong = { tensor: 'x', number: 'x', string: 5, numbers: 'x', options: 'x' };
  const model = core.createModel('abcdefghij'.repeat(40), { C: 8, heads: 2, layers: 1, tMax: 8 });
  let n = 0;
  for (const row of core.describe()) {
    if (row.role === 'release') continue;
    const args = row.args.filter((a) => a.kind !== 'model');   // a method's model is `this`
    args.forEach((a, i) => {
      const values = args.map((b, j) => (j === i ? wrong[b.kind] : valid[b.kind]));
      const run = row.role === 'method' ? () => model[row.name](...values) : () => core[row.name](...values);
      assert.throws(run, (e) => {
        assert.deepEqual([e.code, e.params.fn, e.params.arg, e.params.expectedType], ['wrong_type', row.name, a.name, a.kind], `${row.name}(${a.name})`);
        return true;
      });
      n++;
    });
  }
  model.dispose();
  assert.ok(n >= 50, `${n} arguments`);
});

test('after all of that the module still computes, and its memory did not grow', () => {
  const round = () => { for (const [, call] of calls) for (const bad of badTensors) { try { call(bad); } catch { /* expected */ } } };
  round();   // warm-up: the reused request and result buffers reach their size
  const before = core.memoryStats();
  for (let i = 0; i < 3; i++) round();
  const after = core.memoryStats();
  assert.equal(after.heapInUse, before.heapInUse);
  assert.equal(after.memoryBytes, before.memoryBytes);
  assert.equal(after.emvalHandles, before.emvalHandles);
  assert.deepEqual(Array.from(core.softmax(tensor([0, Math.log(2), 0])).data), [0.25, 0.5, 0.25]);
});

test('arguments too large for the WASM memory are an Error, and the module goes on', () => {
  const huge = { shape: [16000, 16000], data: new Float64Array(256e6) };   // 2 GB: more than WASM memory may grow to
  assert.throws(() => core.softmax(huge), { code: 'out_of_memory', params: { fn: 'softmax' } });
  const big = { shape: [3000, 3000], data: new Float64Array(9e6) };       // fits, but past the API's tensor limit
  assert.throws(() => core.softmax(big), { code: 'too_large', message: 'softmax: scores (3000, 3000) has 9000000 elements, more than the limit of 4194304' });
  assert.deepEqual(Array.from(core.softmax(tensor([0, Math.log(2), 0])).data), [0.25, 0.5, 0.25]);
});
