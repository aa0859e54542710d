// Progress that is kept (web/src/progress.js) and the page options (web/src/options.js), in Node:
// the text encoding round trip (format 2, and format 1 read back), what is refused when read back,
// the worst cases against SCORM 1.2's 4,096 characters and the room left, the storage fallbacks,
// and the store's rules. The expected texts are written out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sections } from '../web/page-modules.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';
import { exercisesOf } from '../../web/src/exercises.js';
import {
  catalogueOf, encode, decode, emptyProgress, worstCase, summarize, localBackend, memoryBackend, openProgress,
  LIMITS, MAX_ANSWER, SOLVED, SOLVED_BEFORE, WRONG, NOT_CHECKED, STORAGE_KEY, TABLE,
} from '../../web/src/progress.js';
import { readOptions } from '../../web/src/options.js';

const EXERCISES = exercisesOf(sections);
const cat = catalogueOf(sections, EXERCISES);

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

/** The progress of the hand-written examples. */
function example() {
  const p = emptyProgress();
  p.visited.add('18.3').add('18.1');
  p.exercises.set('ex-18.3-score', { status: SOLVED, answer: ['√2/2'] });
  p.exercises.set('ex-18.1-cumsum', { status: WRONG, answer: ['6', '1,5'] });
  p.exercises.set('ex-chapter-2', { status: SOLVED, answer: ['-1'] });
  p.exercises.set('ex-18.2-after', { status: NOT_CHECKED, answer: [''] });   // nothing to keep: left out
  return p;
}
const assertExample = (back, what) => {
  assert.equal(back.problem, null, what);
  assert.deepEqual([...back.progress.visited].sort(), ['18.1', '18.3'], what);
  assert.deepEqual(back.progress.exercises.get('ex-18.3-score'), { status: SOLVED, answer: ['√2/2'] }, what);
  assert.deepEqual(back.progress.exercises.get('ex-18.1-cumsum'), { status: WRONG, answer: ['6', '1,5'] }, what);
  assert.deepEqual(back.progress.exercises.get('ex-chapter-2'), { status: SOLVED, answer: ['-1'] }, what);
  assert.equal(back.progress.exercises.has('ex-18.2-after'), false, what);
};

test('encoding: a hand-written example, both ways', () => {
  // sections by their URL prefixes; an exercise by its section's prefix (the first) and .n (the
  // n-th after it: ex-chapter-2 is the exercises section's second); "," = ~A, √ = ~G (TABLE)
  const text = 'AL2|s1,s3|s1:1:6,1~A5;s3:2:~G2/2;ex.1:2:-1';
  assert.equal(encode(cat, example()), text);
  assertExample(decode(cat, text), 'format 2');
  // an exercise checked with empty boxes keeps its status
  assert.deepEqual(decode(cat, 'AL2||s7:1').progress.exercises.get('ex-18.7-eval'), { status: WRONG, answer: [''] });
  assert.deepEqual(decode(cat, 'AL2||').progress, emptyProgress());
});

test('encoding: format 1 (ids, every other character ~dddd) is still read, and written again as format 2', () => {
  // √ = U+221A = 8730 = "6qi" in base 36; "," = 44 = "18"
  const old = 'AL1|18.1,18.3|ex-18.1-cumsum:1:6,1~00185;ex-18.3-score:2:~06qi2/2;ex-chapter-2:2:-1';
  const back = decode(cat, old);
  assertExample(back, 'format 1');
  assert.equal(encode(cat, back.progress), 'AL2|s1,s3|s1:1:6,1~A5;s3:2:~G2/2;ex.1:2:-1');
  assert.deepEqual(decode(cat, 'AL1||ex-18.7-eval:1').progress.exercises.get('ex-18.7-eval'), { status: WRONG, answer: [''] });
  assert.deepEqual(decode(cat, 'AL1||').progress, emptyProgress());
});

test('encoding: any character survives, astral ones included; what answers are written with takes at most two', () => {
  const odd = ['π/4 − 1', '２^−3', '𝑥·e', '~06qi', 'a|b;c:d', '"<&>\'', '\\%', ' 1 / 4 ', '１，２：３；４｜５～６！', '!~,;:|', '\u3000½', '~A!1'];
  for (const s of odd) {
    const p = emptyProgress();
    p.exercises.set('ex-18.4-head', { status: WRONG, answer: [s] });
    const text = encode(cat, p);
    assert.match(text, /^[\x20-\x7e]+$/, `${s}: ASCII only`);
    assert.deepEqual(decode(cat, text).progress.exercises.get('ex-18.4-head').answer, [s], s);
  }
  // one character's cost in the text, by kind
  const cost = (c) => {
    const p = emptyProgress();
    p.exercises.set('ex-18.4-head', { status: WRONG, answer: [c] });
    return encode(cat, p).length - 'AL2||s4:1:'.length;
  };
  for (const c of [...'09azAZ .()*+/^_-=<>"#$%&\'?@[\\]{}`']) assert.equal(cost(c), 1, c);
  for (const c of [...TABLE, ...'０９ａｚＡＺ．（）＊＋／＾＿－＝']) assert.equal(cost(c), 2, c);
  for (const c of ['中', '½', '²', '𝑥', '\u00a0']) assert.equal(cost(c), 5, c);
  assert.equal(TABLE.length, 25, 'written ~A to ~Y');
});

test('reading back: foreign, newer and broken values are ignored whole; bad entries are dropped', () => {
  const whole = [
    ['{"answers":{"ex-18.3-score":"1"}}', 'foreign'], ['hello', 'foreign'], ['AL|x|y', 'foreign'], ['AL0|18.1|', 'foreign'],
    ['AL3|s1|', 'newer'], ['AL1|18.1', 'corrupt'], ['AL1|18.1||', 'corrupt'], ['AL2|s1', 'corrupt'], ['AL2|s1||', 'corrupt'],
    [`AL1||${'x'.repeat(70000)}`, 'foreign'], [`AL2||${'x'.repeat(70000)}`, 'foreign'],
  ];
  for (const [text, problem] of whole) {
    const r = decode(cat, text);
    assert.equal(r.problem, problem, text.slice(0, 40));
    assert.deepEqual(r.progress, emptyProgress(), text.slice(0, 40));
  }
  const partial = [
    'AL1|18.1,19.9|',                                   // format 1: a section this version does not have
    'AL1||ex-gone:2:1',                                 // an exercise it does not have
    'AL1||ex-18.3-score:2:1,2',                         // two answers for one box
    'AL1||ex-18.3-score:4:1',                           // no such status
    'AL1||ex-18.3-score:2:~zzzz',                       // past U+10FFFF
    'AL1||ex-18.3-score:2:~0zz',                        // a short escape
    'AL1||ex-18.3-score:2:a=b',                         // a character that is always escaped
    `AL1||ex-18.3-score:2:${'1'.repeat(MAX_ANSWER + 1)}`, // longer than a box holds
    'AL1||ex-chapter-2:2:7',                            // not one of the choices
    'AL1||ex-18.3-score:2:1;ex-18.3-score:1:2',         // twice
    'AL2|s1,zz9|',                                      // format 2: a section this version does not have
    'AL2|18.1|',                                        // a section id, not its prefix
    'AL2||s3.7:2:1',                                    // an exercise it does not have
    'AL2||ex-18.3-score:2:1',                           // an exercise id, not its key
    'AL2||s3:2:1,2',                                    // two answers for one box
    'AL2||s3:4:1',                                      // no such status
    'AL2||s3:2:~zzzz',                                  // past U+10FFFF
    'AL2||s3:2:~16o0',                                  // a lone surrogate (U+D800)
    'AL2||s3:2:~0zz',                                   // a short escape
    'AL2||s3:2:~Z',                                     // past the table
    'AL2||s3:2:! ',                                     // a full-width form of the space (there is none)
    'AL2||s3:2:!',                                      // an escape cut short
    'AL2||s3:2:~0007',                                  // a control character
    'AL2||s3:2:1\u00e9',                                // a character that is always escaped
    `AL2||s3:2:${'1'.repeat(MAX_ANSWER + 1)}`,          // longer than a box holds
    'AL2||ex.1:2:7',                                    // not one of the choices
    'AL2||s3:2:1;s3:1:2',                               // twice
  ];
  for (const text of partial) {
    const r = decode(cat, text);
    assert.equal(r.problem, 'partial', text.slice(0, 50));
  }
  // what was good in a partial value is kept
  for (const text of ['AL1|18.1,19.9|ex-gone:2:1;ex-18.7-eval:2:0', 'AL2|s1,zz9|zz9:2:1;s7:2:0']) {
    const r = decode(cat, text);
    assert.deepEqual([...r.progress.visited], ['18.1'], text);
    assert.deepEqual(r.progress.exercises.get('ex-18.7-eval'), { status: SOLVED, answer: ['0'] }, text);
  }
});

/** `n` copies (n < 10) of the lab's sections and exercises as a catalogue: each copy's ids made
 * different, and its prefixes one character longer than the lab's own (s1 -> s10, s11, ...). */
function copies(n) {
  const secs = [], exs = [];
  for (let k = 0; k < n; k++) {
    for (const s of sections) secs.push({ ...s, id: `${s.id}#${k}`, prefix: `${s.prefix}${k}` });
    for (const e of EXERCISES) exs.push({ ...e, id: `${e.id}#${k}`, section: `${e.section}#${k}` });
  }
  return catalogueOf(secs, exs);
}
/** The worst case for a catalogue and a character, encoded under SCORM 1.2's limit, and whether
 * every answer came back in full. */
function worst(c, char) {
  const progress = worstCase(c, char);
  const text = encode(c, progress, LIMITS['1.2']);
  const back = decode(c, text);
  assert.equal(back.problem, null);
  assert.deepEqual(back.progress.visited, progress.visited, 'every visit is kept');
  for (const e of c.exercises) assert.equal(back.progress.exercises.get(e.id)?.status, SOLVED, `${e.id}: its status is kept`);
  return { text, whole: c.exercises.every((e) => JSON.stringify(back.progress.exercises.get(e.id)) === JSON.stringify(progress.exercises.get(e.id))) };
}
const boxes = (c) => c.exercises.reduce((n, e) => n + e.boxes, 0);

test('the worst cases fit SCORM 1.2 suspend_data, with room for a lab twice this one', () => {
  assert.ok(boxes(cat) >= 18, `${boxes(cat)} answer boxes`);
  // every box full of what answers are written with (two characters each at most: √, π, −, ×,
  // full-width digits and signs from an IME): nothing has to be dropped, for this lab and for
  // a lab with twice its sections and exercises
  const page = worst(cat, '１');
  assert.ok(page.text.length <= LIMITS['1.2'] && page.whole, `${page.text.length} characters`);
  assert.equal(worst(cat, '√').text.length, page.text.length, 'every character of the table costs the same');
  const twice = worst(copies(2), '１');
  assert.ok(twice.text.length <= LIMITS['1.2'] && twice.whole, `2x: ${twice.text.length} characters`);
  let fit = 2;
  while (fit < 9 && worst(copies(fit + 1), '１').whole) fit++;
  // every box full of characters that take five (32 Chinese characters in each box, as drafts
  // can be): this lab still fits whole; a lab twice its size keeps every status and visit, and
  // leaves out the longest answers until it fits
  const any = worst(cat, '中');
  assert.ok(any.text.length <= LIMITS['1.2'] && any.whole, `any character: ${any.text.length} characters`);
  const anyTwice = worst(copies(2), '中');
  assert.ok(anyTwice.text.length <= LIMITS['1.2'] && !anyTwice.whole, `2x, any character: ${anyTwice.text.length} characters`);
  // the statuses alone: 400 one-box exercises of one section fit (every one solved, keys of up to six characters)
  const many = catalogueOf([{ id: 'x', prefix: 'xx' }], Array.from({ length: 400 }, (_, i) => ({ id: `e${i}`, section: 'x', inputs: ['a'] })));
  assert.ok(encode(many, worstCase(many, '中'), LIMITS['1.2']).length <= LIMITS['1.2']);
  console.log(`progress (${cat.exercises.length} exercises, ${boxes(cat)} boxes, ${cat.sections.length} sections, limit ${LIMITS['1.2']}): ` +
    `every box full of answer characters ${page.text.length}, twice the lab ${twice.text.length}, ${fit} times the lab fit whole; ` +
    `every box full of any character ${any.text.length}`);
});

test('over a limit, the longest answers are dropped, drafts first, and the statuses stay', () => {
  const p = emptyProgress();
  p.exercises.set('ex-18.3-score', { status: SOLVED, answer: ['sqrt(2)/2'] });
  p.exercises.set('ex-18.4-head', { status: NOT_CHECKED, answer: ['2*sqrt(2)'] });
  p.exercises.set('ex-18.7-eval', { status: WRONG, answer: ['1'] });
  const full = encode(cat, p);
  const fit = encode(cat, p, full.length - 1);
  assert.equal(fit, 'AL2||s3:2:sqrt(2)/2;s7:1:1', 'the draft goes first, and with it its entry');
  const tight = encode(cat, p, 'AL2||s3:2;s7:1'.length);
  assert.equal(tight, 'AL2||s3:2;s7:1');
  assert.throws(() => encode(cat, p, 10), /do not fit the limit of 10/);
});

test('the catalogue: keys from the prefixes and the order of each section\'s exercises; a list it cannot key is refused', () => {
  assert.deepEqual(cat.exercises.map((e) => [e.id, e.key]).slice(0, 3), [['ex-18.1-cumsum', 's1'], ['ex-18.2-after', 's2'], ['ex-18.3-score', 's3']]);
  assert.deepEqual(cat.exercises.filter((e) => e.section === 'exercises').map((e) => e.key), ['ex', 'ex.1', 'ex.2']);
  assert.equal(new Set(cat.exercises.map((e) => e.key)).size, cat.exercises.length, 'keys are unique');
  const one = [{ id: 'a', section: 'x', inputs: ['v'] }];
  assert.throws(() => catalogueOf([{ id: 'x', prefix: 'X.1' }], one), /prefix 'X.1'/);
  assert.throws(() => catalogueOf([{ id: 'x', prefix: 'p' }, { id: 'y', prefix: 'p' }], one), /prefixes repeat/);
  assert.throws(() => catalogueOf([{ id: 'x', prefix: 'p' }], [...one, ...one]), /ids repeat/);
  assert.throws(() => catalogueOf([{ id: 'y', prefix: 'p' }], one), /section x, which is not listed/);
});

test('storage: localStorage when it works; memory when it throws, at once or later', () => {
  const storage = fakeStorage();
  const local = localBackend(() => storage);
  assert.equal(local.kind, 'local');
  const store = openProgress(cat, local);
  store.checked('ex-18.3-score', ['√2/2'], true);
  assert.equal(storage.map.get(STORAGE_KEY), 'AL2||s3:2:~G2/2');
  assert.equal(storage.map.has(`${STORAGE_KEY}.probe`), false, 'the probe is removed');

  for (const getStorage of [() => { throw new DOMException('denied', 'SecurityError'); }, () => null, () => fakeStorage({ failAfter: 0 })]) {
    const b = localBackend(getStorage);
    assert.equal(b.kind, 'memory');
    const s = openProgress(cat, b);
    s.visit('18.2');
    assert.equal(s.summary(['18.2']).visited, 1);
    assert.equal(b.read(), 'AL2|s2|');
  }
  // the quota runs out after the probe and one write: the second write goes to memory, nothing is lost
  const tight = fakeStorage({ failAfter: 2 });
  const b = localBackend(() => tight);
  const s = openProgress(cat, b);
  s.visit('18.1');
  assert.equal(b.kind, 'local');
  s.visit('18.2');
  assert.equal(b.kind, 'memory');
  assert.equal(b.read(), 'AL2|s1,s2|');
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
