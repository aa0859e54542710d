// The exercises (web/src/exercises.js and the controllers') against the WASM core: the right answer is accepted in the
// forms a student writes it (parsed by web/src/answer.js), every misconception is a different
// number than the right answer and gets its own diagnosis, and every diagnosis has its text in
// both languages. Expected values are written out here by hand.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../wasm/js/index.js';
import { check } from '../../web/src/exercises.js';
import { exercises } from '../web/page-modules.mjs';
import { parseAnswer } from '../../web/src/answer.js';
import { renderLesson } from '../../web/lessons-plugin.js';

let core, trained;
const res = { trainText: readFileSync(new URL('../../lessons/data/train.txt', import.meta.url), 'utf8') };
// 18.8's live exercise reads the model on the page: here a model trained in Node until one of its
// heads reads the previous character (seeded: the same model every run), as the page's controller
// hands it to its exercises (res.model: the core's measurement of its heads)
before(async () => {
  core = await loadCore();
  const model = core.createModel(res.trainText, { C: 16, heads: 2, layers: 1, tMax: 32, batch: 8, lr: 1e-2, seed: 1 });
  model.trainSteps(600);
  trained = model.headPatterns();
  model.dispose();
  res.model = { patterns: () => trained };
});
const byId = (id) => exercises.find((e) => e.id === id);
const answer = (id, texts) => check(byId(id), core, texts.map((t) => {
  const r = parseAnswer(t);
  assert.ok(!r.error, `${t}: ${r.error}`);
  return r.value;
}), res);

// [exercise, answers as typed, expected verdict: true (right), a misconception id, or null (plain wrong)]
const CASES = [
  ['ex-18.1-cumsum', ['6', '6'], true], ['ex-18.1-cumsum', ['12/2', '3*2'], true],
  ['ex-18.1-cumsum', ['2', '2'], 'average'], ['ex-18.1-cumsum', ['4', '2'], 'own-row'], ['ex-18.1-cumsum', ['6', '5'], null],
  ['ex-18.2-after', ['1/2'], true], ['ex-18.2-after', ['2/4'], true], ['ex-18.2-after', ['0.5'], true],
  ['ex-18.2-after', ['1'], 'mask-before'], ['ex-18.2-after', ['1/4'], 'row-0'], ['ex-18.2-after', ['3/4'], null],
  ['ex-18.3-score', ['√2/2'], true], ['ex-18.3-score', ['1/√2'], true], ['ex-18.3-score', ['sqrt(2)/2'], true], ['ex-18.3-score', ['0.707'], true],
  ['ex-18.3-score', ['1'], 'unscaled'], ['ex-18.3-score', ['1/2'], 'by-d'], ['ex-18.3-score', ['0.7'], null],
  ['ex-18.4-head', ['√8'], true], ['ex-18.4-head', ['2√2'], true], ['ex-18.4-head', ['8/sqrt(8)'], true], ['ex-18.4-head', ['2.828'], true],
  ['ex-18.4-head', ['1'], 'sqrt-c'], ['ex-18.4-head', ['8'], 'unscaled'], ['ex-18.4-head', ['4'], null],
  ['ex-18.5-sin', ['0.841', '0.540'], true], ['ex-18.5-sin', ['0.8415', '0.5403'], true],
  ['ex-18.5-sin', ['0.540', '0.841'], 'swapped'], ['ex-18.5-sin', ['0', '1'], 'position-0'], ['ex-18.5-sin', ['0.841', '0.841'], null],
  ['ex-18.6-shape', ['2', '4', '3', '7'], true], ['ex-18.6-shape', ['2', '4', '7', '3'], 'swapped'],
  ['ex-18.6-shape', ['2', '1', '3', '7'], 'no-heads'], ['ex-18.6-shape', ['2', '4', '3', '7.001'], null],
  ['ex-18.7-eval', ['0'], true], ['ex-18.7-eval', ['0.001'], null],
  ['ex-chapter-1', ['1/4', '1/2', '1/4', '5'], true], ['ex-chapter-1', ['0.25', '0.5', '0.25', '5'], true],
  ['ex-chapter-1', ['1/3', '1/3', '1/3', '16/3'], 'uniform'], ['ex-chapter-1', ['0.25', '0.5', '0.25', '4'], null],
];

test('typed answers: right in the forms a student writes, misconceptions diagnosed, other wrong answers plain wrong', () => {
  for (const [id, texts, want] of CASES) {
    const r = answer(id, texts);
    const got = r.correct ? true : r.misconception;
    assert.equal(got, want, `${id} ${texts.join(', ')}`);
  }
  assert.equal(answer('ex-18.4-head', ['√8']).expected, '2.8284');
});

test('chapter exercise 3: the original output is the misconception, plus c the answer (values by hand)', () => {
  // weights of row 2 with Q = K = [[1,0],[0,1],[1,1]], causal, scale 1/√2: scores (1, 1, 2)/√2
  const e = [1, 1, Math.exp(Math.SQRT2 - Math.SQRT1_2)];
  const z = e[0] + e[1] + e[2];
  const y = [(e[0] * 1 + e[1] * 0 + e[2] * 3) / z, (e[0] * 0 + e[1] * 1 + e[2] * -3) / z];
  assert.equal(answer('ex-chapter-3', [String(y[0] + 1), String(y[1] - 2)]).correct, true);
  assert.equal(answer('ex-chapter-3', [String(y[0]), String(y[1])]).misconception, 'unchanged');
  assert.equal(answer('ex-chapter-3', [String(y[0] + 1), String(y[1])]).misconception, null);
});

test('chapter exercise 2: the dim choice is checked and the wrong axes are named', () => {
  const ex = byId('ex-chapter-2');
  assert.deepEqual(ex.check(core, -1), { correct: true, expected: 'dim=-1', misconception: null });
  assert.equal(ex.check(core, 1).misconception, 'receivers');
  assert.equal(ex.check(core, 0).misconception, 'batch');
});

test('the 18.8 exercise: about ln V is right, within 0.05 of the core\'s measured loss', () => {
  const V = Number(byId('ex-18.8-init').given(core, res).match(/V = (\d+)/)[1]);
  assert.equal(answer('ex-18.8-init', [`ln ${V}`]).correct, true);
  assert.equal(answer('ex-18.8-init', [`ln ${V} / 2`]).correct, false);
});

test('the 18.8 live exercise: read off the model the core measured, its ratio diagnosed; an untrained model has no answer yet', () => {
  const s = trained.strongest.previous;
  assert.deepEqual(trained.found.previous, [{ layer: 0, head: s.head }], 'a previous-character head emerged');
  assert.ok(s.ratio >= 3 && s.mean > 0.25, `${s.mean}, ${s.ratio}x`);
  assert.equal(answer('ex-18.8-previous', ['0', String(s.head), s.mean.toFixed(3)]).correct, true);
  assert.equal(answer('ex-18.8-previous', ['0', String(s.head), s.ratio.toFixed(3)]).misconception, 'ratio');
  assert.equal(answer('ex-18.8-previous', ['0', String(1 - s.head), s.mean.toFixed(3)]).correct, false);
  const untrained = core.createModel(res.trainText, { C: 16, heads: 2, layers: 1, tMax: 32, seed: 1 });
  const fresh = { ...res, model: { patterns: () => untrained.headPatterns() } };
  const r = check(byId('ex-18.8-previous'), core, [0, 0, 0.099], fresh);
  assert.deepEqual([r.correct, r.misconception], [false, 'untrained']);
  untrained.dispose();
  const none = check(byId('ex-18.8-previous'), core, [0, 0, 0.3], { ...res, model: { patterns: () => null } });
  assert.equal(none.misconception, 'untrained', 'nothing measured yet');
});

test('every misconception is a different answer from the right one, and from the other misconceptions', () => {
  for (const ex of exercises.filter((e) => e.misconceptions)) {
    const tol = ex.tolerance ?? 5e-3;
    const values = [ex.expected(core, res), ...ex.misconceptions.map((m) => m.value(core, res))];
    for (let a = 0; a < values.length; a++) for (let b = a + 1; b < values.length; b++) {
      const d = Math.max(...values[a].map((v, i) => Math.abs(v - values[b][i])));
      assert.ok(d > 10 * Math.max(tol, 5e-3), `${ex.id}: answers ${a} and ${b} differ by only ${d}`);
    }
  }
});

test('every diagnosis has its text in both languages, and no text lacks a misconception', () => {
  const declared = (ex) => (ex.choices ? { 'ex-chapter-2': ['batch', 'receivers'] }[ex.id] ?? []
    : [...(ex.misconceptions ?? []), ...(ex.unmet ?? [])].map((m) => m.id)).sort();
  for (const lang of ['zh', 'en']) {
    for (const section of [...new Set(exercises.map((e) => e.section))]) {
      const lesson = renderLesson(readFileSync(new URL(`../../lessons/${lang}/${section}.md`, import.meta.url), 'utf8'), `${lang}/${section}`);
      for (const ex of exercises.filter((e) => e.section === section)) {
        assert.deepEqual(Object.keys(lesson.exercises[ex.id].wrong).sort(), declared(ex), `${lang} ${ex.id}`);
        for (const html of Object.values(lesson.exercises[ex.id].wrong)) assert.ok(html.length > 40, `${lang} ${ex.id}`);
      }
    }
  }
});
