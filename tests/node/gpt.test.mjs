// The character GPT through loadCore() on the WASM build: the same initial weights as the native
// build bit for bit, the same losses after 20 steps to 1e-9, the whole-model gradcheck, the
// future-character check, training, sampling, attention maps, errors, and memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../wasm/js/index.js';

const core = await loadCore();
const text = readFileSync(new URL('../../lessons/data/train.txt', import.meta.url), 'utf8');
const golden = JSON.parse(readFileSync(new URL('../../build/golden.json', import.meta.url), 'utf8')).cases.find((c) => c.name === 'gpt');

test('initial parameters are bit-identical to the native build; 20 steps agree to 1e-9', () => {
  const model = core.createModel(text, golden.args[0]);
  const p = model.parameters();
  assert.equal(p.length, golden.result.initialParams.length);
  for (let i = 0; i < p.length; i++) assert.ok(Object.is(p[i], golden.result.initialParams[i]), `parameter ${i}: ${p[i]} vs ${golden.result.initialParams[i]}`);
  golden.result.losses.forEach((want, i) => {
    const got = model.trainSteps(1).loss;
    assert.ok(Math.abs(got - want) <= 1e-9, `step ${i + 1}: ${got} vs native ${want}`);
  });
  assert.ok(Math.abs(model.evaluate(2).val - golden.result.val) <= 1e-9);
  model.dispose();
});

test('the whole-model gradcheck passes in WASM', () => {
  const g = core.gptGradcheck(3);
  assert.equal(g.passed, true);
  assert.ok(g.maxAbsError < 1e-7 && g.params > 1000);
});

test('the future-character check is exactly 0 with the mask and > 0 without', () => {
  const model = core.createModel(text, { C: 32, heads: 4, tMax: 16, seed: 1 });
  model.trainSteps(5);
  for (let t = 0; t < 12; t++) {
    const r = model.futureCheck('the cat sat on', { t, seed: 3 });
    assert.equal(r.maxPrefixChange, 0, `t = ${t}`);
    assert.ok(r.maxFutureChange > 1e-6);
    assert.equal(r.perPosition.length, 14);
  }
  const leaky = core.createModel(text, { C: 32, heads: 4, tMax: 16, seed: 1, causal: false });
  assert.ok(leaky.futureCheck('the cat sat on', { t: 3 }).maxPrefixChange > 1e-6);
  model.dispose();
  leaky.dispose();
});

test('training lowers the loss below the unigram entropy; sampling and attention maps work', () => {
  const model = core.createModel(text, { C: 32, heads: 4, tMax: 16, seed: 1, batch: 8 });
  const { vocab, unigramEntropy } = model.config;
  const start = model.evaluate(4).train;
  assert.ok(Math.abs(start - Math.log(vocab)) < 0.1, `initial loss ${start} vs ln V ${Math.log(vocab)}`);
  for (let i = 0; i < 30; i++) model.trainSteps(10);
  const { train, val } = model.evaluate(4);
  assert.ok(train < unigramEntropy - 0.4 && val < unigramEntropy, `train ${train} val ${val} unigram ${unigramEntropy}`);
  const s = model.sample({ prompt: 'the ', length: 40, temperature: 0.8, seed: 2 });
  assert.equal([...s].length, 44);
  assert.ok(s.startsWith('the '));
  assert.equal(model.sample({ prompt: 'the ', length: 40, temperature: 0.8, seed: 2 }), s, 'seeded');
  const maps = model.attention('the cat');
  assert.equal(maps.length, 2);
  assert.deepEqual(maps[0].shape, [4, 7, 7]);
  assert.equal(maps[1].data[1], 0, 'causal: row 0 sees only itself');
  model.dispose();
});

test('the same seed gives the same curve', () => {
  const a = core.createModel(text, { C: 16, heads: 2, tMax: 16, seed: 5 });
  const b = core.createModel(text, { C: 16, heads: 2, tMax: 16, seed: 5 });
  for (let i = 0; i < 5; i++) assert.equal(a.trainSteps(2).loss, b.trainSteps(2).loss);
  a.dispose();
  b.dispose();
});

test('bad text, bad options and a disposed model are errors', () => {
  assert.throws(() => core.createModel(''), { code: 'text_too_short', params: { fn: 'createModel', arg: 'text', length: 0, min: 330, tMax: 32 } });
  assert.throws(() => core.createModel('the cat sat', { tMax: 16 }), { message: 'createModel: text has 11 characters, too short for the context length tMax = 16 (it needs at least 170)' });
  assert.throws(() => core.createModel(text, { heads: 5 }), { code: 'heads_not_dividing', message: 'createModel: heads = 5 does not divide the width C = 48' });
  assert.throws(() => core.createModel(text, { width: 5 }), { code: 'unknown_option', message: /^createModel: unknown option opts\.width/ });
  assert.throws(() => core.createModel(42), { code: 'wrong_type', message: 'createModel: text must be a string, got a number' });
  const model = core.createModel(text, { C: 16, heads: 2, tMax: 16 });
  assert.throws(() => model.sample({ prompt: 'ZQ' }), { message: /the character 'Z' is not in the training text's vocabulary/ });
  assert.throws(() => model.futureCheck('the cat', { t: 9 }), { message: /t must be from 0 to T - 2 = 5/ });
  assert.throws(() => model.sample({ temperature: 0 }), { message: /temperature must be in \(0, 10\]/ });
  model.dispose();
  assert.throws(() => model.trainSteps(1), { code: 'disposed', message: 'trainSteps: this model was disposed' });
  model.dispose();   // twice is harmless
});

test('creating, training and disposing models does not leak', () => {
  const once = () => { const m = core.createModel(text, { C: 16, heads: 2, tMax: 8 }); m.trainSteps(2); m.sample({ length: 5 }); m.attention('the'); m.dispose(); };
  once();
  const before = core.memoryStats();
  for (let i = 0; i < 50; i++) once();
  const after = core.memoryStats();
  assert.equal(after.heapInUse, before.heapInUse);
  assert.equal(after.emvalHandles, before.emvalHandles);
});
