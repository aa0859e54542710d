// What 18.8 measures on the model, through the JS API: model.headPatterns against an independent
// computation in this file from model.attention(text) (the patterns' rows, means, uniform
// baselines, entropies, verdicts and strongest heads), on the validation windows, and
// model.evaluate's standard errors (its windows against per-window losses: tests/native/test_measure.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../wasm/js/index.js';

const core = await loadCore();
const text = readFileSync(new URL('../../lessons/data/train.txt', import.meta.url), 'utf8');
const PATTERNS = ['previous', 'self', 'sameChar', 'start', 'wordStart', 'separator'];
const close = (a, b, what, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

/** Row t's target positions for each pattern, written from the definitions in docs/api.md. */
function targets(chars, t) {
  const space = (c) => /\s/u.test(c), sep = (c) => /[\s\p{P}\p{S}]/u.test(c);
  let lastSpace = -1, lastSep = -1;
  for (let j = t - 1; j >= 0; j--) {
    if (lastSpace < 0 && space(chars[j])) lastSpace = j;
    if (lastSep < 0 && sep(chars[j])) lastSep = j;
  }
  return {
    previous: [t - 1], self: [t],
    sameChar: chars.slice(0, Math.max(0, t - 1)).map((c, j) => (c === chars[t] ? j : -1)).filter((j) => j >= 0),
    start: t >= 2 ? [0] : [],
    wordStart: lastSpace >= 0 && lastSpace + 1 < t - 1 ? [lastSpace + 1] : [],
    separator: lastSep >= 0 && lastSep < t - 1 ? [lastSep] : [],
  };
}

/** The statistics of one layer's maps (heads, T, T) on `chars`, causal: {rows, baseline, mean[h], entropy[h]}. */
function stats(map, chars) {
  const [H, T] = map.shape, w = (h, t, j) => map.data[(h * T + t) * T + j];
  const rows = Object.fromEntries(PATTERNS.map((p) => [p, 0])), base = { ...rows };
  const sum = Array.from({ length: H }, () => ({ ...rows })), ent = Array(H).fill(0);
  let entBase = 0;
  for (let t = 1; t < T; t++) {
    const tg = targets(chars, t);
    for (const p of PATTERNS) if (tg[p].length) { rows[p] += 1; base[p] += tg[p].length / (t + 1); }
    entBase += Math.log(t + 1);
    for (let h = 0; h < H; h++) {
      for (const p of PATTERNS) for (const j of tg[p]) sum[h][p] += w(h, t, j);
      for (let j = 0; j < T; j++) if (w(h, t, j) > 0) ent[h] -= w(h, t, j) * Math.log(w(h, t, j));
    }
  }
  return { rows, baseline: Object.fromEntries(PATTERNS.map((p) => [p, base[p] / rows[p]])), entropyBaseline: entBase / (T - 1),
    mean: sum.map((s) => Object.fromEntries(PATTERNS.map((p) => [p, s[p] / rows[p]]))), entropy: ent.map((e) => e / (T - 1)) };
}

test('headPatterns of a text: every number and verdict equals the statistics of model.attention(text) computed here', () => {
  const model = core.createModel(text, { C: 24, heads: 3, layers: 2, tMax: 24, seed: 4 });
  model.trainSteps(40);
  const s = 'the cat sat. on the mat';   // spaces, a full stop, repeated letters
  const chars = [...s];
  const hp = model.headPatterns({ text: s });
  assert.equal(hp.text, s);
  assert.deepEqual([hp.windows, hp.T, hp.step, hp.causal, hp.factor], [1, chars.length, 40, true, 3]);
  assert.deepEqual(hp.patterns, PATTERNS);
  const maps = model.attention(s);
  const mine = maps.map((m) => stats(m, chars));
  for (const p of PATTERNS) {
    assert.equal(hp.rows[p], mine[0].rows[p], `rows of ${p}`);
    close(hp.baseline[p], mine[0].baseline[p], `baseline of ${p}`);
  }
  assert.equal(hp.rows.entropy, chars.length - 1);
  close(hp.baseline.entropy, mine[0].entropyBaseline, 'entropy baseline');
  assert.equal(hp.heads.length, 6);
  let best = Object.fromEntries(PATTERNS.map((p) => [p, { mean: -1 }]));
  for (const e of hp.heads) {
    const m = mine[e.layer];
    close(e.entropy, m.entropy[e.head], `entropy of ${e.layer}.${e.head}`);
    for (const p of PATTERNS) {
      close(e.mean[p], m.mean[e.head][p], `${p} of ${e.layer}.${e.head}`);
      close(e.ratio[p], m.mean[e.head][p] / m.baseline[p], `ratio of ${p}`, 1e-9);
      if (m.mean[e.head][p] > best[p].mean) best[p] = { layer: e.layer, head: e.head, mean: m.mean[e.head][p] };
    }
  }
  for (const p of PATTERNS) {
    const want = hp.heads.filter((e) => mine[e.layer].mean[e.head][p] >= 3 * mine[0].baseline[p]).map((e) => ({ layer: e.layer, head: e.head }));
    assert.deepEqual(hp.found[p], want, `which heads show ${p}`);
    assert.deepEqual([hp.strongest[p].layer, hp.strongest[p].head], [best[p].layer, best[p].head], `strongest on ${p}`);
    close(hp.strongest[p].mean, best[p].mean, `strongest mean of ${p}`);
  }
  assert.throws(() => model.headPatterns({ text: 'the Zoo' }), { code: 'char_not_in_vocab', params: { fn: 'headPatterns', arg: 'opts.text', character: 'Z' } });
  assert.throws(() => model.headPatterns({ windows: 0 }), { code: 'integer_range', params: { fn: 'headPatterns', arg: 'opts.windows', value: 0, min: 1, max: 256 } });
  assert.throws(() => model.headPatterns({ layer: 0 }), { code: 'unknown_option' });
  model.dispose();
});

test('headPatterns on the validation text: windows of tMax characters; untrained, no head shows a pattern', () => {
  const model = core.createModel(text, { C: 24, heads: 3, layers: 2, tMax: 24, seed: 4 });
  const hp = model.headPatterns();
  assert.deepEqual([hp.windows, hp.T, hp.step, hp.text], [16, 24, 0, '']);
  assert.equal(hp.rows.previous, 16 * 23);
  for (const p of PATTERNS) {
    assert.deepEqual(hp.found[p], [], `untrained: no head shows ${p}`);
    for (const e of hp.heads) assert.ok(Math.abs(e.ratio[p] - 1) < 0.05, `untrained ${e.layer}.${e.head} ${p}: ${e.ratio[p]}× uniform`);
  }
  assert.equal(model.headPatterns({ windows: 5 }).rows.previous, 5 * 23);
  model.dispose();
});

test('evaluate: the same number of evenly spaced windows of each split, their mean loss and its standard error', () => {
  const model = core.createModel(text, { C: 16, heads: 2, tMax: 16, seed: 3, batch: 3 });
  model.trainSteps(5);
  const e = model.evaluate(2);
  for (const v of [e.train, e.val, e.trainSe, e.valSe]) assert.ok(Number.isFinite(v) && v > 0);
  assert.ok(e.trainSe < 0.5 && e.valSe < 0.5, `standard errors of 6 windows: ${e.trainSe}, ${e.valSe}`);
  assert.deepEqual(model.evaluate(2), e, 'the same windows every time');
  assert.notEqual(model.evaluate(3).train, e.train, 'more batches read more windows');
  model.dispose();
});
