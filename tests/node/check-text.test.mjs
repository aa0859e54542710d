// "Check my numbers"' words and copied inputs, without a browser: every mistake the core's
// diagnose knows has a name and a sentence in each language and a place in its lesson (the phrase
// that finds the paragraph is in the lesson's text); every code parse-tensor.js throws has its
// words; the inputs copied in each form (check-inputs.js) read back as the same numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore, parseTensor, parseNpy } from '../../wasm/js/index.js';
import { strings, LESSON_PLACES } from '../../web/src/widgets/check-strings.js';
import { inputsText, FORMS } from '../../web/src/check-inputs.js';
import { LANGS } from '../../web/src/i18n.js';

const core = await loadCore();
const CHECKS = ['causalAverage', 'softmax', 'attention', 'positions', 'sdpaBackward', 'dropout'];
const lesson = (lang, id) => readFileSync(new URL(`../../lessons/${lang}/${id}.md`, import.meta.url), 'utf8').replace(/\*\*?/g, '');

test('every mistake of every check: a name and a sentence in each language, and a paragraph of its lesson', () => {
  const known = new Set();
  for (const check of CHECKS) {
    for (const id of core.diagnoseMistakes(check)) {
      known.add(`${check}/${id}`);
      for (const lang of LANGS) {
        for (const kind of ['name', 'mistake']) assert.ok(strings[lang][`${kind}_${check}_${id}`], `${lang}: ${kind}_${check}_${id}`);
        const place = LESSON_PLACES[`${check}/${id}`];
        assert.ok(place, `${check}/${id}: a place in the lesson`);
        assert.ok(lesson(lang, place.section).includes(place[lang]), `${check}/${id}: "${place[lang]}" is in lessons/${lang}/${place.section}.md`);
      }
    }
  }
  // nothing for a mistake the core does not know
  for (const key of Object.keys(LESSON_PLACES)) assert.ok(known.has(key), `${key} is a mistake the core knows`);
  for (const key of Object.keys(strings.en).filter((k) => /^(name|mistake)_/.test(k))) {
    assert.ok(known.has(key.replace(/^(name|mistake)_([a-zA-Z]+)_/, '$2/')), `${key} is a mistake the core knows`);
  }
});

// text a student might paste, and files, that parse-tensor.js refuses: each code has its words
const BAD_TEXT = ['', '   ', 'tensor([[1., ..., 2.]])', '[[1, 2], [3]]', '1 2\n3', '[[1, 2]', '[1, 2]]', 'tensor([1.]) tensor([2.])',
  'y = 2', '[[[[[[[1]]]]]]]', `[${'1,'.repeat(200001)}1]`];
const npy = (header, body = new Uint8Array(0), major = 1) => {
  const h = new TextEncoder().encode(header);
  return new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0, h.length, 0, ...h, ...body]);
};
const BAD_FILES = [new Uint8Array([1, 2, 3]), npy("{'descr': '<f8'}"), npy("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }"),
  npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", new Uint8Array(8)), npy('{}', new Uint8Array(0), 7)];

test('every parse error has its words in each language', () => {
  const codes = new Set();
  const caught = (f) => { try { f(); } catch (e) { return e; } assert.fail('no error'); };
  for (const text of BAD_TEXT) codes.add(caught(() => parseTensor(text)).code);
  codes.add(caught(() => parseTensor(42)).code);
  for (const bytes of BAD_FILES) codes.add(caught(() => parseNpy(bytes)).code);
  // the codes docs/api.md lists
  const documented = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').match(/`(paste|npy)_[a-z_]+`/g).map((c) => c.slice(1, -1));
  for (const code of [...codes, ...documented, 'paste_ragged_rows']) {
    for (const lang of LANGS) assert.ok(strings[lang][code], `${lang}: words for ${code}`);
  }
  assert.ok(codes.size >= 12, `parse errors tried: ${[...codes]}`);
});

test('the inputs copied in each form read back as the same numbers, flags and counts as Python values', () => {
  const X = core.randn([1, 3, 2], 5), W = { shape: [2, 2], data: Float64Array.from([0.1, -1 / 3, 2, 1e-17]) };
  for (const form of FORMS) {
    const text = inputsText({ X, W_Q: W, heads: 2, causal: true }, form, 'a note');
    assert.match(text, /^# a note$/m);
    assert.match(text, /^heads = 2$/m);
    assert.match(text, /^causal = True$/m);
    for (const [name, t] of [['X', X], ['W_Q', W]]) {
      const rhs = new RegExp(`^${name} = ([\\s\\S]*?)(?=^\\w+ = |(?![\\s\\S]))`, 'm').exec(text)[1];
      const back = parseTensor(rhs.trim());
      assert.deepEqual(back.shape, t.shape, `${form} ${name}`);
      assert.deepEqual(Array.from(back.data), Array.from(t.data), `${form} ${name}: every digit`);
    }
  }
  assert.match(inputsText({ X }, 'pytorch'), /^torch\.set_default_dtype\(torch\.float64\)$/m);
  assert.match(inputsText({ X }, 'numpy'), /^X = np\.array\(\[\[\[/m);
  assert.throws(() => inputsText({ X }, 'matlab'), /no form/);
});
