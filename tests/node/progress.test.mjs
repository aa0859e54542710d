// Progress that is kept (web/src/progress.js) and the page options (web/src/options.js), in Node:
// the text encoding round trip, what is refused when read back, the worst case against SCORM 1.2's
// 4,096 characters, the storage fallbacks, and the store's rules. The expected texts are written
// out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SECTIONS } from '../../web/src/sections/index.js';
import { exercises } from '../../web/src/exercises.js';
import {
  catalogueOf, encode, decode, emptyProgress, worstCase, summarize, localBackend, memoryBackend, openProgress,
  LIMITS, MAX_ANSWER, SOLVED, SOLVED_BEFORE, WRONG, NOT_CHECKED, STORAGE_KEY,
} from '../../web/src/progress.js';
import { readOptions } from '../../web/src/options.js';

const cat = catalogueOf(SECTIONS, exercises);

/** A Storage-like object over a Map; `failAfter` writes, setItem throws (a full quota). */
function fakeStorage({ failAfter = Infinity } = {}) {
  const m = new Map();
  let writes = 0;
  return {
    map: m,
    getItem: (k) => (m.has(k) ? m.get(k) : null),
    setItem(k, v) {
      if (++writes > failAfter) throw new Error('QuotaExceededError');
      m.set(k, String(v));
    },
    removeItem: (k) => m.delete(k),
  };
}

test('encoding: a hand-written example, both ways', () => {
  const p = emptyProgress();
  p.visited.add('18.3').add('18.1');
  p.exercises.set('ex-18.3-score', { status: SOLVED, answer: ['√2/2'] });
  p.exercises.set('ex-18.1-cumsum', { status: WRONG, answer: ['6', '1,5'] });
  p.exercises.set('ex-chapter-2', { status: SOLVED, answer: ['-1'] });
  p.exercises.set('ex-18.2-after', { status: NOT_CHECKED, answer: [''] });   // nothing to keep: left out
  // √ = U+221A = 8730 = "6qi" in base 36; "," = 44 = "18"; sections and exercises in list order
  const text = 'AL1|18.1,18.3|ex-18.1-cumsum:1:6,1~00185;ex-18.3-score:2:~06qi2/2;ex-chapter-2:2:-1';
  assert.equal(encode(cat, p), text);
  const back = decode(cat, text);
  assert.equal(back.problem, null);
  assert.deepEqual([...back.progress.visited].sort(), ['18.1', '18.3']);
  assert.deepEqual(back.progress.exercises.get('ex-18.3-score'), { status: SOLVED, answer: ['√2/2'] });
  assert.deepEqual(back.progress.exercises.get('ex-18.1-cumsum'), { status: WRONG, answer: ['6', '1,5'] });
  assert.deepEqual(back.progress.exercises.get('ex-chapter-2'), { status: SOLVED, answer: ['-1'] });
  assert.equal(back.progress.exercises.has('ex-18.2-after'), false);
  // an exercise checked with empty boxes keeps its status
  assert.deepEqual(decode(cat, 'AL1||ex-18.7-eval:1').progress.exercises.get('ex-18.7-eval'), { status: WRONG, answer: [''] });
  assert.deepEqual(decode(cat, 'AL1||').progress, emptyProgress());
});

test('encoding: any character survives, astral ones included', () => {
  const odd = ['π/4 − 1', '２^−3', '𝑥·e', '~06qi', 'a|b;c:d', '"<&>\'', '\\%', ' 1 / 4 '];
  for (const s of odd) {
    const p = emptyProgress();
    p.exercises.set('ex-18.4-head', { status: WRONG, answer: [s] });
    const text = encode(cat, p);
    assert.match(text, /^[\x20-\x7e]+$/, `${s}: ASCII only`);
    assert.deepEqual(decode(cat, text).progress.exercises.get('ex-18.4-head').answer, [s], s);
  }
});

test('reading back: foreign, newer and broken values are ignored whole; bad entries are dropped', () => {
  const whole = [
    ['{"answers":{"ex-18.3-score":"1"}}', 'foreign'], ['hello', 'foreign'], ['AL|x|y', 'foreign'], ['AL0|18.1|', 'foreign'],
    ['AL2|18.1|', 'newer'], ['AL1|18.1', 'corrupt'], ['AL1|18.1||', 'corrupt'], [`AL1||${'x'.repeat(70000)}`, 'foreign'],
  ];
  for (const [text, problem] of whole) {
    const r = decode(cat, text);
    assert.equal(r.problem, problem, text.slice(0, 40));
    assert.deepEqual(r.progress, emptyProgress(), text.slice(0, 40));
  }
  const partial = [
    'AL1|18.1,19.9|',                                   // a section this version does not have
    'AL1||ex-gone:2:1',                                 // an exercise it does not have
    'AL1||ex-18.3-score:2:1,2',                         // two answers for one box
    'AL1||ex-18.3-score:4:1',                           // no such status
    'AL1||ex-18.3-score:2:~zzzz',                       // past U+10FFFF
    'AL1||ex-18.3-score:2:~0zz',                        // a short escape
    'AL1||ex-18.3-score:2:a=b',                         // a character that is always escaped
    `AL1||ex-18.3-score:2:${'1'.repeat(MAX_ANSWER + 1)}`, // longer than a box holds
    'AL1||ex-chapter-2:2:7',                            // not one of the choices
    'AL1||ex-18.3-score:2:1;ex-18.3-score:1:2',         // twice
  ];
  for (const text of partial) {
    const r = decode(cat, text);
    assert.equal(r.problem, 'partial', text.slice(0, 50));
  }
  // what was good in a partial value is kept
  const r = decode(cat, 'AL1|18.1,19.9|ex-gone:2:1;ex-18.7-eval:2:0');
  assert.deepEqual([...r.progress.visited], ['18.1']);
  assert.deepEqual(r.progress.exercises.get('ex-18.7-eval'), { status: SOLVED, answer: ['0'] });
});

test('the worst case (every box full of escaped characters) fits SCORM 1.2 suspend_data', () => {
  const worst = worstCase(cat);
  const text = encode(cat, worst, LIMITS['1.2']);
  const boxes = cat.exercises.reduce((n, e) => n + e.boxes, 0);
  assert.ok(boxes >= 18, `${boxes} answer boxes`);
  assert.ok(text.length <= LIMITS['1.2'], `${text.length} characters`);
  // nothing had to be dropped to fit: every answer comes back in full
  const back = decode(cat, text);
  assert.equal(back.problem, null);
  for (const e of cat.exercises) assert.deepEqual(back.progress.exercises.get(e.id), worst.exercises.get(e.id), e.id);
  console.log(`progress: worst case ${text.length} of ${LIMITS['1.2']} characters (${boxes} boxes of ${MAX_ANSWER})`);
});

test('over a limit, the longest answers are dropped, drafts first, and the statuses stay', () => {
  const p = emptyProgress();
  p.exercises.set('ex-18.3-score', { status: SOLVED, answer: ['sqrt(2)/2'] });
  p.exercises.set('ex-18.4-head', { status: NOT_CHECKED, answer: ['2*sqrt(2)'] });
  p.exercises.set('ex-18.7-eval', { status: WRONG, answer: ['1'] });
  const full = encode(cat, p);
  const fit = encode(cat, p, full.length - 1);
  assert.equal(fit, 'AL1||ex-18.3-score:2:sqrt(2)/2;ex-18.7-eval:1:1', 'the draft goes first, and with it its entry');
  const tight = encode(cat, p, 'AL1||ex-18.3-score:2;ex-18.7-eval:1'.length);
  assert.equal(tight, 'AL1||ex-18.3-score:2;ex-18.7-eval:1');
  assert.throws(() => encode(cat, p, 10), /do not fit the limit of 10/);
});

test('storage: localStorage when it works; memory when it throws, at once or later', () => {
  const storage = fakeStorage();
  const local = localBackend(() => storage);
  assert.equal(local.kind, 'local');
  const store = openProgress(cat, local);
  store.checked('ex-18.3-score', ['√2/2'], true);
  assert.equal(storage.map.get(STORAGE_KEY), 'AL1||ex-18.3-score:2:~06qi2/2');
  assert.equal(storage.map.has(`${STORAGE_KEY}.probe`), false, 'the probe is removed');

  for (const getStorage of [() => { throw new DOMException('denied', 'SecurityError'); }, () => null, () => fakeStorage({ failAfter: 0 })]) {
    const b = localBackend(getStorage);
    assert.equal(b.kind, 'memory');
    const s = openProgress(cat, b);
    s.visit('18.2');
    assert.equal(s.summary(['18.2']).visited, 1);
    assert.equal(b.read(), 'AL1|18.2|');
  }
  // the quota runs out after the probe and one write: the second write goes to memory, nothing is lost
  const tight = fakeStorage({ failAfter: 2 });
  const b = localBackend(() => tight);
  const s = openProgress(cat, b);
  s.visit('18.1');
  assert.equal(b.kind, 'local');
  s.visit('18.2');
  assert.equal(b.kind, 'memory');
  assert.equal(b.read(), 'AL1|18.1,18.2|');
  s.visit('18.3');
  assert.deepEqual(s.summary(['18.1', '18.2', '18.3']).visited, 3);
});

test('two frames on one storage (the page and an embed) do not overwrite each other', () => {
  const storage = fakeStorage();
  const a = openProgress(cat, localBackend(() => storage));
  const b = openProgress(cat, localBackend(() => storage));
  a.checked('ex-18.1-cumsum', ['6', '6'], true);
  b.checked('ex-18.3-score', ['1'], false);   // b read its value before a wrote
  a.visit('18.1');
  const r = decode(cat, storage.map.get(STORAGE_KEY));
  assert.equal(r.progress.exercises.get('ex-18.1-cumsum').status, SOLVED);
  assert.equal(r.progress.exercises.get('ex-18.3-score').status, WRONG);
  assert.deepEqual([...r.progress.visited], ['18.1']);
});

test('the store: drafts, checks, visits, the summary and forgetting', () => {
  const backend = memoryBackend();
  const s = openProgress(cat, backend);
  let changes = 0, forgotten = 0;
  s.subscribe(() => changes++);
  s.onForget(() => forgotten++);
  s.answer('ex-18.6-shape', ['2', '4', '', '']);
  assert.equal(s.exercise('ex-18.6-shape').status, NOT_CHECKED, 'a draft is not a check');
  s.answer('ex-18.6-shape', ['2', '4', '', '']);
  assert.equal(changes, 1, 'the same draft again changes nothing');
  s.checked('ex-18.6-shape', ['2', '4', '3', '7'], true);
  s.answer('ex-18.6-shape', ['2', '4', '3', '8']);
  assert.equal(s.exercise('ex-18.6-shape').status, SOLVED, 'editing after a check keeps the last check');
  assert.equal(s.checked('ex-18.6-shape', ['2', '4', '3', '8'], false), SOLVED_BEFORE);
  assert.deepEqual(s.exercise('ex-18.6-shape'), { status: SOLVED_BEFORE, answer: ['2', '4', '3', '8'] }, 'a later wrong try keeps the exercise solved, and is kept as the last try');
  assert.deepEqual(decode(cat, backend.read()).progress.exercises.get('ex-18.6-shape'), { status: SOLVED_BEFORE, answer: ['2', '4', '3', '8'] }, 'and read back so');
  assert.equal(s.checked('ex-18.6-shape', ['2', '4', '3', '7'], true), SOLVED, 'right again: solved, the last check right');
  s.checked('ex-18.6-shape', ['2', '4', '3', '8'], false);
  assert.equal(s.checked('ex-18.4-head', ['1'], false), WRONG, 'never solved: the wrong check counts');
  assert.equal(s.checked('ex-18.4-head', ['2'], false), WRONG);
  s.answer('ex-18.5-sin', ['x'.repeat(50), '\u0007ok']);
  assert.deepEqual(s.exercise('ex-18.5-sin').answer, ['x'.repeat(MAX_ANSWER), 'ok'], 'clipped to a box, no control characters');
  s.checked('ex-18.7-eval', ['0'], true);
  for (const id of ['18.6', '18.7']) s.visit(id);
  const sum = summarize(cat, decode(cat, backend.read()).progress, ['18.5', '18.6', '18.7']);
  assert.deepEqual({ solved: sum.solved, checked: sum.checked, total: sum.total, visited: sum.visited, complete: sum.complete },
    { solved: 2, checked: 2, total: 3, visited: 2, complete: false });
  s.checked('ex-18.5-sin', ['sin 1', 'cos 1'], true);
  s.visit('18.5');
  assert.equal(s.summary(['18.5', '18.6', '18.7']).complete, true, 'every section visited, every exercise checked');
  assert.equal(s.summary(['18.5', '18.6', '18.7']).solved, 3, 'the one solved before counts');
  s.forget();
  assert.equal(forgotten, 1);
  assert.equal(backend.read(), null);
  assert.equal(s.exercise('ex-18.5-sin'), null);
  assert.equal(s.summary(cat.sections).visited, 0);
});

test('page options: solutions, print, sections, key, paper; bad values are named', () => {
  const ids = SECTIONS.map((s) => s.id);
  const read = (q) => readOptions(new URLSearchParams(q), ids);
  assert.deepEqual(read(''), { options: { solutions: true, print: null, sections: null, key: false, paper: null }, rejected: [] });
  assert.deepEqual(read('solutions=0&print=worksheet&sections=18.3,18.2&key=1&paper=Letter').options,
    { solutions: false, print: 'worksheet', sections: ['18.2', '18.3'], key: true, paper: 'letter' });
  const bad = read('solutions=no&print=pdf&sections=18.2,99&key=yes&paper=a5');
  assert.deepEqual(bad.rejected, ['solutions', 'key', 'print', 'sections', 'paper']);
  assert.deepEqual(bad.options, { solutions: true, print: null, sections: null, key: false, paper: null });
  // an element's attributes are read the same way
  const attrs = { solutions: '0' };
  assert.equal(readOptions({ get: (n) => attrs[n] ?? null }, ids).options.solutions, false);
});
