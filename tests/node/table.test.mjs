// wasm/js/api.js builds the JS API from the core's table of entry points (wasm/bindings/table.cpp;
// its options and results are checked natively in tests/native/test_table.cpp and
// test_options.cpp): one function per row, the model's methods from the rows that take a model,
// defaults and empty options as the core fills them, and core.describe() and the API reference
// (docs/api.md) from the same rows. What describe() declares a row returns is what JS receives:
// every plain function on its golden case's arguments (build/golden.json), the model's rows here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore, tensor } from '../../wasm/js/index.js';

const core = await loadCore();
const rows = core.describe();
const golden = JSON.parse(readFileSync(new URL('../../build/golden.json', import.meta.url), 'utf8'));
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

test('the calls\' table read at load (wire()) is describe()\'s rows cut to name, arguments and role, with the same tags and slots', async () => {
  // api.js reads wire() when the core loads and describe() only when asked (docs/performance.md)
  const { default: createAttnCore } = await import('../../wasm/js/gen/attn_core.js');
  const m = await createAttnCore({ wasmBinary: readFileSync(new URL('../../wasm/js/gen/attn_core.wasm', import.meta.url)) });
  const wire = JSON.parse(m.wire()), full = JSON.parse(m.describe());
  assert.deepEqual(wire, { tags: full.tags, slots: full.slots, functions: full.functions.map(({ name, args, role }) => ({ name, args, role })) });
  assert.ok(m.wire().length * 4 < m.describe().length, `wire ${m.wire().length} characters, describe ${m.describe().length}`);
  assert.deepEqual(core.describe().map((r) => r.name), wire.functions.map((r) => r.name));
});

test('describe(name) is the row; an unknown name is undefined', () => {
  const row = core.describe('softmax');
  assert.deepEqual(row.args, [{ name: 'scores', kind: 'tensor' }, { name: 'opts', kind: 'options' }]);
  assert.deepEqual(row.options.map(({ name, kind, values }) => ({ name, kind, values })), [
    { name: 'dim', kind: 'integer', values: undefined },
    { name: 'mask', kind: 'enumOrMask', values: ['none', 'causal'] },
    { name: 'maskOrder', kind: 'enum', values: ['before', 'after'] }]);
  assert.deepEqual(core.describe('multiHeadAttention').options.filter((o) => o.required).map((o) => o.name), ['wq', 'wk', 'wv']);
  assert.deepEqual(core.describe('sdpa').options.find((o) => o.name === 'scale').values, ['head', 'none']);
  assert.deepEqual(core.describe('gradcheck').options.find((o) => o.name === 'scale').values, ['head', 'none', 'model']);
  assert.deepEqual(core.describe('sdpa').returns, { kind: 'object', fields: ['out', 'weights', 'scores'].map((name) => ({ name, kind: 'tensor' })) });
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

const OPTION_KINDS = ['number', 'integer', 'boolean', 'string', 'enum', 'tensor', 'numberOrEnum', 'enumOrMask'];
const RESULT_KINDS = ['tensor', 'float64Array', 'number', 'boolean', 'string', 'literal', 'array', 'record', 'object', 'oneOf', 'model', 'nothing'];

test('every option of every row is {name, kind, values?, required?, doc}, each name once', () => {
  let n = 0;
  for (const r of rows) {
    assert.equal(new Set(r.options.map((o) => o.name)).size, r.options.length, r.name);
    assert.equal(r.options.length > 0, r.args.some((a) => a.kind === 'options'), r.name);
    for (const o of r.options) {
      const where = `${r.name}: opts.${o.name}`;
      assert.ok(Object.keys(o).every((k) => ['name', 'kind', 'values', 'required', 'doc'].includes(k)), where);
      assert.ok(OPTION_KINDS.includes(o.kind), where);
      assert.equal('values' in o, ['enum', 'numberOrEnum', 'enumOrMask'].includes(o.kind), where);
      if ('values' in o) assert.ok(o.values.length >= 2 && o.values.every((v) => typeof v === 'string'), where);
      if ('required' in o) assert.equal(o.required, true, where);
      assert.ok(typeof o.doc === 'string' && o.doc.length > 10, where);
      n++;
    }
  }
  assert.ok(n >= 100, `${n} options`);
});

// value against a result declaration (describe()'s `returns`), exactly: a message where it differs
function conforms(v, t, path) {
  const plain = (x) => x !== null && typeof x === 'object' && Object.getPrototypeOf(x) === Object.prototype;
  const fields = (x, fs) => {
    assert.ok(plain(x), `${path}: an object`);
    for (const k of Object.keys(x)) assert.ok(fs.some((f) => f.name === k), `${path}.${k} is not declared`);
    for (const f of fs) {
      if (f.optional && !(f.name in x)) continue;
      assert.ok(f.name in x, `${path}.${f.name} is missing`);
      conforms(x[f.name], f, `${path}.${f.name}`);
    }
  };
  assert.ok(RESULT_KINDS.includes(t.kind), `${path}: kind ${t.kind}`);
  switch (t.kind) {
    case 'tensor':
      assert.ok(plain(v) && Object.keys(v).sort().join() === 'data,shape', `${path}: {shape, data}`);
      assert.ok(Array.isArray(v.shape) && v.shape.every((d) => Number.isInteger(d)), `${path}.shape`);
      assert.ok(v.data instanceof Float64Array && v.data.length === v.shape.reduce((a, b) => a * b, 1), `${path}.data`);
      break;
    case 'float64Array': assert.ok(v instanceof Float64Array, `${path}: a Float64Array`); break;
    case 'number': case 'boolean': case 'string': assert.equal(typeof v, t.kind, path); break;
    case 'literal': assert.equal(v, t.value, path); break;
    case 'array': assert.ok(Array.isArray(v), `${path}: an array`); v.forEach((x, i) => conforms(x, t.of, `${path}[${i}]`)); break;
    case 'record': assert.ok(plain(v), `${path}: an object`); for (const k of Object.keys(v)) conforms(v[k], t.of, `${path}.${k}`); break;
    case 'object': fields(v, t.fields); break;
    case 'oneOf': {
      const ok = t.of.filter((alt) => { try { conforms(v, alt, path); return true; } catch { return false; } });
      assert.equal(ok.length, 1, `${path}: ${ok.length} alternatives fit`);
      break;
    }
    case 'model': assert.equal(v?.constructor?.name, 'GptModel', path); assert.ok(Object.isFrozen(v.config)); fields({ ...v.config }, t.fields); break;
    case 'nothing': assert.equal(v, undefined, path); break;
    default: assert.fail(`${path}: unknown kind ${t.kind}`);
  }
}

test('every plain function returns exactly what describe() declares, as JS receives it (each golden case)', () => {
  const fns = new Set();
  for (const c of golden.cases.filter((g) => g.fn !== 'gpt')) {
    conforms(core[c.fn](...c.args), core.describe(c.fn).returns, `${c.name}: ${c.fn}(...)`);
    fns.add(c.fn);
  }
  conforms(core.memoryStats(), core.describe('memoryStats').returns, 'memoryStats()');
  for (const r of rows.filter((row) => row.role === 'function' && row.name !== 'memoryStats')) assert.ok(fns.has(r.name), `no case returned ${r.name}`);
});

test('the model and its methods return exactly what describe() declares', () => {
  const model = core.createModel(text, small);
  conforms(model, core.describe('createModel').returns, 'createModel(...)');
  const calls = {
    trainSteps: () => model.trainSteps(2), evaluate: () => model.evaluate(1), sample: () => model.sample({ length: 5 }),
    attention: () => model.attention('abcd'), blockTrace: () => model.blockTrace('abcd'), futureCheck: () => model.futureCheck('abcd', { t: 1 }),
    headPatterns: () => model.headPatterns({ windows: 2 }), parameters: () => model.parameters(), dispose: () => model.dispose(),
  };
  const modelRows = rows.filter((r) => r.role === 'method' || r.role === 'release');
  assert.deepEqual(modelRows.map((r) => r.name).sort(), Object.keys(calls).sort());
  for (const r of modelRows) conforms(calls[r.name](), r.returns, `${r.name}(...)`);
});
