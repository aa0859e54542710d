// The section list (web/src/sections/index.js) and what it names, read in Node: every listed
// module and lesson exists and nothing in the folder is left out, URL prefixes are unique, every
// exercise sits in a listed section once, each state schema's defaults are valid and inside their
// own limits, and the two languages have the same strings (keys and {placeholders}) in the shared
// table and in every section's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { sections, exercises } from './page-modules.mjs';
import { lessonPath } from '../../web/src/sections/index.js';
import { LANGS, shared } from '../../web/src/i18n.js';
import { exercises as listed } from '../../web/src/exercises.js';
import { catalogueOf } from '../../web/src/progress.js';
import { defaults, fitState, parseValue, serializeValue, limitsOf, readSection } from '../../web/src/state.js';

const ROOT = new URL('../../', import.meta.url);

test('the section list: unique ids and URL prefixes, every module and lesson exists, no module left out', () => {
  const unique = (xs, what) => assert.equal(new Set(xs).size, xs.length, `${what} repeat: ${xs}`);
  unique(sections.map((s) => s.id), 'ids');
  unique(sections.map((s) => s.prefix), 'prefixes');
  for (const s of sections) {
    for (const lang of LANGS) assert.ok(existsSync(new URL(lessonPath(lang, s.id), ROOT)), `${s.id}: ${lessonPath(lang, s.id)}`);
    if (s.module) for (const key of ['strings', 'state', 'build']) assert.ok(s.controller[key], `${s.module} exports ${key}`);
  }
  const files = readdirSync(new URL('web/src/sections/', ROOT)).filter((f) => f.endsWith('.js') && f !== 'index.js');
  assert.deepEqual(files.sort(), sections.filter((s) => s.module).map((s) => s.module).sort(), 'every module in web/src/sections/ is listed');
});

test('the exercises: each in a listed section, declared once, in a form the page and the progress can take', () => {
  const ids = sections.map((s) => s.id);
  for (const e of listed) assert.ok(ids.includes(e.section), `${e.id}: web/src/exercises.js puts it in ${e.section}, which is not listed`);
  for (const s of sections.filter((x) => x.controller?.exercises)) {
    for (const e of s.controller.exercises) assert.equal(e.section, undefined, `${s.module}: ${e.id} takes its section from the controller`);
  }
  assert.equal(new Set(exercises.map((e) => e.id)).size, exercises.length, 'exercise ids repeat');
  for (const e of exercises) {
    assert.match(e.id, /^[\w.-]{1,64}$/, e.id);
    assert.ok(e.choices ? typeof e.check === 'function' : e.inputs?.length > 0 && typeof e.expected === 'function', `${e.id}: inputs and expected(), or choices and check()`);
  }
  // the progress keys every exercise by its section's prefix and its place there (progress.js)
  const cat = catalogueOf(sections, exercises);
  assert.deepEqual(cat.exercises.map((e) => e.id), exercises.map((e) => e.id), 'in page order');
});

test('every state schema: unique keys, defaults that the URL parser accepts back and that sit inside their limits', () => {
  for (const { id, controller } of sections.filter((s) => s.controller)) {
    const schema = controller.state;
    assert.equal(new Set(schema.map((e) => e.key)).size, schema.length, `${id}: keys repeat`);
    const d = defaults(schema);
    for (const e of schema) {
      const back = parseValue(e, serializeValue(e, d[e.key]));
      assert.ok(back.ok, `${id}.${e.key}: the default does not parse back`);
      assert.deepEqual(back.value, d[e.key], `${id}.${e.key}: round trip`);
    }
    assert.deepEqual(fitState(schema, d), d, `${id}: a default is outside the limits the state gives it`);
  }
});

test('narrowed limits only narrow: within(state) stays inside the entry\'s own limits', () => {
  for (const { id, controller } of sections.filter((s) => s.controller)) {
    const d = defaults(controller.state);
    for (const e of controller.state.filter((x) => x.within)) {
      const lim = limitsOf(e, d);
      if ('min' in e) assert.ok(lim.min >= e.min && lim.max <= e.max && lim.min <= lim.max, `${id}.${e.key}: ${lim.min}..${lim.max}`);
      if (lim.options && lim.options !== e.options) assert.ok(lim.options.every((o) => e.options.includes(o)), `${id}.${e.key} options`);
      if ('rows' in lim) assert.ok(lim.rows <= e.maxRows && (lim.cols <= (e.maxCols ?? lim.cols)), `${id}.${e.key} shape`);
    }
  }
});

test('fitState moves values inside limits narrowed by the state; readSection reports a URL value it moved', () => {
  const schema = [
    { key: 'T', type: 'int', min: 2, max: 10, default: 6 },
    { key: 't', type: 'int', min: 0, max: 8, default: 2, within: (s) => ({ max: s.T - 2 }) },
    { key: 'C', type: 'enum', options: [4, 8], default: 8 },
    { key: 'heads', type: 'enum', options: [1, 2, 4, 8], default: 2, within: (s) => ({ options: [1, 2, 4, 8].filter((n) => s.C % n === 0) }) },
    { key: 'kind', type: 'enum', options: ['a', 'b', 'c'], default: 'b', within: (s) => ({ options: s.T > 3 ? ['a', 'b', 'c'] : ['c', 'a'] }) },
    { key: 'dim', type: 'enum', options: [-1, 0, 1, 2, 3], default: -1, within: () => ({ options: [0, 1, 2, -1] }) },
    { key: 'x', type: 'matrix', maxRows: 4, maxCols: 4, default: [[1, 2], [3, 4]] },
    { key: 'x2', type: 'matrix', maxRows: 4, maxCols: 4, default: [[5, 6], [7, 8]], within: (s) => ({ rows: s.x.length, cols: s.x[0].length }) },
    { key: 'm', type: 'mask', maxRows: 4, default: [[1, 0], [1, 1]], within: (s) => ({ rows: s.x.length, cols: s.x[0].length }) },
  ];
  const s = fitState(schema, { ...defaults(schema), T: 3, t: 5, C: 4, heads: 8, dim: 3, x: [[1, 2, 3], [4, 5, 6], [7, 8, 9]] });
  assert.equal(s.t, 1, 't clamped to T - 2');
  assert.equal(s.heads, 4, 'the largest allowed option not above 8');
  assert.equal(s.kind, 'c', 'a string option not allowed: the first allowed');
  assert.equal(s.dim, 2, 'the largest allowed not above, whatever the order of the options');
  assert.deepEqual(s.x2, [[5, 6, 0], [7, 8, 0], [0, 0, 0]], 'padded with zeros');
  assert.deepEqual(s.m, [[1, 0, 0], [1, 1, 0], [1, 1, 1]], 'a mask padded with the causal pattern');
  assert.deepEqual(fitState(schema, { ...s, x: [[1]] }).x2, [[5]], 'cropped');
  const { state, rejected } = readSection('p', schema, new URLSearchParams('p.T=4&p.t=3&p.x2=1,2;3,4'));
  assert.equal(state.t, 2);
  assert.deepEqual(rejected, ['p.t'], 'the moved value is named; the fitting ones are not');
});

const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Same keys in every language, and each string with the same placeholders. */
function sameShape(tables, name) {
  const [first, ...rest] = LANGS;
  for (const lang of rest) {
    assert.deepEqual(Object.keys(tables[lang]).sort(), Object.keys(tables[first]).sort(), `${name}: keys of ${lang} vs ${first}`);
    for (const key of Object.keys(tables[first])) {
      assert.deepEqual(placeholders(tables[lang][key]), placeholders(tables[first][key]), `${name}.${key}: placeholders of ${lang} vs ${first}`);
    }
  }
}

test('zh and en string tables: the same keys and the same placeholders (shared, every section, every other module with a table)', async () => {
  sameShape(shared, 'shared');
  for (const { id, controller } of sections.filter((s) => s.controller)) sameShape(controller.strings, id);
  // any other module with a `strings` table exports it, so that it is checked here
  const src = new URL('web/src/', ROOT);
  const files = readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.js') && !f.startsWith('sections/'));
  const withTables = files.filter((f) => /^(export )?const strings = \{/m.test(readFileSync(new URL(f, src), 'utf8')));
  assert.ok(withTables.length >= 2, `modules with string tables: ${withTables}`);
  for (const f of withTables) {
    const { strings } = await import(new URL(f, src));
    assert.ok(strings, `${f} exports its strings table`);
    sameShape(strings, f);
  }
  // an exercise's answer labels: a notation string, or one label per language
  for (const e of exercises) {
    for (const label of e.inputs ?? []) if (typeof label !== 'string') assert.deepEqual(Object.keys(label).sort(), [...LANGS].sort(), `${e.id}: ${JSON.stringify(label)}`);
  }
});

test('a planted difference between the languages is caught', () => {
  assert.throws(() => sameShape({ zh: { a: '{x}', b: '' }, en: { a: '{x}' } }, 'planted'), /keys of en/);
  assert.throws(() => sameShape({ zh: { a: '{x} 与 {y}' }, en: { a: '{x} and {z}' } }, 'planted'), /placeholders/);
});

test('18.3 tells a weight\'s shape error as the editors show it: (C, d), or in nn.Linear layout (d, C), with the lesson\'s d', async () => {
  const { loadCore } = await import('../../wasm/js/index.js');
  const { onScreen } = await import('../../web/src/sections/s18-3.js');
  const { errorMessage } = await import('../../web/src/messages.js');
  const core = await loadCore();
  const caught = (fn) => { try { fn(); } catch (e) { return e; } return null; };
  // X has C = 3 columns; W_Q in math layout is (2, 3): two rows where three are needed
  const error = caught(() => core.multiHeadAttention(core.randn([1, 2, 3], 1), { wq: core.randn([2, 3], 2), wk: core.randn([3, 3], 3), wv: core.randn([3, 3], 4) }));
  assert.equal(error.params.arg, 'opts.wq');
  assert.deepEqual(error.params.shape, [2, 3]);
  const shown = onScreen(error, 'linear');
  assert.equal(shown.code, 'axis_mismatch');
  assert.deepEqual(shown.params.shape, [3, 2], 'the editor in nn.Linear layout holds (d, C) = (3, 2)');
  assert.equal(shown.params.layout, '(d, C)');
  assert.match(errorMessage('en', shown), /has shape \(3, 2\)/);
  assert.match(errorMessage('zh', shown), /形状是 \(3, 2\)/);
  assert.equal(onScreen(error, 'math').params.layout, '(C, d)');
  assert.deepEqual(onScreen(error, 'math').params.shape, [2, 3]);
  // W_K narrower than W_Q: the width is d, and in (d, C) W_Q's d is its first axis
  const width = caught(() => core.multiHeadAttention(core.randn([1, 2, 2], 1), { wq: core.randn([2, 3], 2), wk: core.randn([2, 2], 3), wv: core.randn([2, 3], 4) }));
  assert.equal(width.params.axis, 'D');
  const linear = onScreen(width, 'linear');
  assert.deepEqual([linear.params.axis, linear.params.shape, linear.params.otherShape, linear.params.otherAxis], ['d', [2, 2], [3, 2], 0]);
  assert.match(errorMessage('en', linear), /its axis d must be 3, like the first axis of W_Q \(W_Q has shape \(3, 2\)\)/);
  assert.match(errorMessage('en', onScreen(width, 'math')), /its axis d must be 3, like the last axis of W_Q \(W_Q has shape \(2, 3\)\)/);
  // other errors pass through unchanged
  const other = Object.assign(new Error('x'), { code: 'not_finite', params: { arg: 'x' } });
  assert.equal(onScreen(other, 'linear'), other);
});
