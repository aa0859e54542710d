// wasm/js/api.js builds the JS API from the core's table of entry points (wasm/bindings/table.cpp;
// its options and results are checked natively in tests/native/test_table.cpp): one function per
// row, the model's methods from the rows that take a model, defaults and empty options as the
// core fills them, and core.describe() and the API reference (docs/api.md) from the same rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore, tensor } from '../../wasm/js/index.js';

const core = await loadCore();
const rows = core.describe();
const text = 'abcdefghij'.repeat(40);
const small = { C: 8, heads: 2, layers: 1, tMax: 8 };

test('one function per plain row, one method per model row, and nothing else', () => {
  const plain = rows.filter((r) => r.role === 'function' || r.role === 'create').map((r) => r.name);
  assert.deepEqual(Object.keys(core).sort(), [...plain, 'describe', 'errorCodes', 'errorParams', 'toPyTorch'].sort());
  const model = core.createModel(text, small);
  const methods = rows.filter((r) => r.role === 'method' || r.role === 'release').map((r) => r.name);
  assert.deepEqual(Object.getOwnPropertyNames(Object.getPrototypeOf(model)).filter((k) => k !== 'constructor').sort(), methods.sort());
  assert.ok(Object.isFrozen(core) && Object.isFrozen(rows) && Object.isFrozen(rows[0].args));
  model.dispose();
});

test('describe(name) is the row; an unknown name is undefined', () => {
  const row = core.describe('softmax');
  assert.deepEqual(row.args, [{ name: 'scores', kind: 'tensor' }, { name: 'opts', kind: 'options' }]);
  assert.deepEqual([...row.options].sort(), ['dim', 'mask', 'maskOrder']);
  assert.equal(row.role, 'function');
  assert.equal(core.describe('nope'), undefined);
  assert.deepEqual(core.describe('randn').args, [{ name: 'shape', kind: 'numbers' }, { name: 'seed', kind: 'number', default: 0 },
    { name: 'std', kind: 'number', default: 1 }]);
});

test('an argument left undefined takes the default the row declares', () => {
  assert.deepEqual(core.randn([2, 3]), core.randn([2, 3], 0, 1));
  assert.notDeepEqual(core.randn([2, 3]), core.randn([2, 3], 0, 2));
  const logits = tensor([0.1, -0.2, 0.3]);
  assert.deepEqual(core.softmaxSharpening(logits), core.softmaxSharpening(logits, 8));
  assert.notDeepEqual(core.softmaxSharpening(logits), core.softmaxSharpening(logits, 2));
  const model = core.createModel(text, small);
  assert.equal(model.trainSteps().step, 1);
  assert.equal(model.trainSteps(undefined).step, 2);
  model.dispose();
});

test('options left out, null or with undefined values are the core\'s defaults', () => {
  const m = tensor([[1, 2], [3, 4]]);
  const want = core.causalAverage(m, { method: 'matrix' });
  for (const opts of [undefined, null, {}, { method: undefined }]) assert.deepEqual(core.causalAverage(m, opts), want, JSON.stringify(opts));
});

test('a model method on a disposed model and dispose twice: the core\'s disposed error, then nothing', () => {
  const model = core.createModel(text, small);
  model.dispose();
  model.dispose();
  for (const r of rows.filter((row) => row.role === 'method')) {
    assert.throws(() => model[r.name](...r.args.slice(1).map((a) => ({ number: 1, string: 'ab', options: {} })[a.kind])),
      (e) => e.code === 'disposed' && e.params.fn === r.name, r.name);
  }
});

test('the API reference (docs/api.md) names every function of the table', () => {
  const reference = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  for (const r of rows) assert.ok(reference.includes(`${r.name}(`), `docs/api.md has no ${r.name}(...)`);
});
