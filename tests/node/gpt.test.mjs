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
  // what each head attends to after the 20 steps, as the native build measured it
  const hp = model.headPatterns({ windows: 3 }), want = golden.result.headPatterns;
  assert.deepEqual(hp.found, want.found);
  for (const [i, e] of hp.heads.entries()) {
    for (const p of hp.patterns) assert.ok(Math.abs(e.mean[p] - want.heads[i].mean[p]) <= 1e-9, `head ${i}, ${p}`);
    assert.ok(Math.abs(e.entropy - want.heads[i].entropy) <= 1e-9);
  }
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

test('blockTrace: one block stage by stage, from the forward the model trains with; its errors', () => {
  // 3 heads of hs 4 in C 12, 3 layers
  const model = core.createModel(text, { C: 12, heads: 3, layers: 3, tMax: 16, seed: 2 });
  model.trainSteps(3);
  const s = 'the cat sat';
  const T = [...s].length;
  const traces = [0, 1, 2].map((layer) => model.blockTrace(s, { layer }));
  const maps = model.attention(s);
  const shapes = { input: [T, 12], ln1: [T, 12], q: [3, T, 4], k: [3, T, 4], v: [3, T, 4], scores: [3, T, T], weights: [3, T, T], heads: [T, 12],
    proj: [T, 12], residual: [T, 12], ln2: [T, 12], fc: [T, 48], gelu: [T, 48], fcproj: [T, 12], out: [T, 12] };
  traces.forEach((b, l) => {
    assert.equal(b.layer, l);
    assert.equal(b.text, s);
    for (const [k, shape] of Object.entries(shapes)) assert.deepEqual(b[k].shape, shape, `${k} of layer ${l}`);
    // the attention weights of a plain forward, bit for bit
    assert.deepEqual(Array.from(b.weights.data), Array.from(maps[l].data));
    if (l < 2) assert.deepEqual(Array.from(b.out.data), Array.from(traces[l + 1].input.data), `layer ${l}'s output is layer ${l + 1}'s input`);
    // residual = input + proj and out = residual + fcproj, element by element (one addition each)
    for (let i = 0; i < T * 12; i++) {
      assert.ok(Object.is(b.residual.data[i], b.input.data[i] + b.proj.data[i]));
      assert.ok(Object.is(b.out.data[i], b.residual.data[i] + b.fcproj.data[i]));
    }
  });
  // the lab's sdpa on the traced heads explains a map cell: the same number, bit for bit
  const b = traces[1];
  for (const [h, t, j] of [[0, 0, 0], [1, 5, 2], [2, T - 1, T - 1], [2, T - 1, 0]]) {
    const e = core.explain('sdpa', 'weights', [h, t, j], { q: b.q, k: b.k, v: b.v, causal: true });
    assert.ok(Object.is(e.value, b.weights.data[(h * T + t) * T + j]), `A[${h}, ${t}, ${j}]`);
    assert.ok(Object.is(e.scores[j], b.scores.data[(h * T + t) * T + j]));
  }
  // scores are q.k / sqrt(hs) before the mask: an entry above the diagonal is kept, its weight is 0
  assert.notEqual(b.scores.data[1], 0);
  assert.equal(b.weights.data[1], 0);
  assert.throws(() => model.blockTrace(s, { layer: 3 }), { code: 'integer_range', params: { fn: 'blockTrace', arg: 'opts.layer', value: 3, min: 0, max: 2 } });
  assert.throws(() => model.blockTrace(s, { layer: 0.5 }), { code: 'integer_range', message: 'blockTrace: opts.layer must be a whole number from 0 to 2, got 0.5' });
  assert.throws(() => model.blockTrace('the Zat'), { code: 'char_not_in_vocab', params: { fn: 'blockTrace', arg: 'text', character: 'Z' } });
  assert.throws(() => model.blockTrace('x'.repeat(17)), { code: 'text_length', params: { fn: 'blockTrace', arg: 'text', length: 17, min: 1, max: 16 } });
  assert.throws(() => model.blockTrace(''), { code: 'text_length', message: 'blockTrace: text must have 1 to 16 characters, got 0' });
  assert.throws(() => model.blockTrace(s, { head: 1 }), { code: 'unknown_option', message: /^blockTrace: unknown option opts\.head \(known: layer\)/ });
  assert.throws(() => model.blockTrace(7), { code: 'wrong_type', message: 'blockTrace: text must be a string, got a number' });
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
