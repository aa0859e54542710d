// Lesson files: every section of web/src/sections/index.js, in both languages, renders (KaTeX
// throws on bad math), and every exercise the page defines has its text in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderLesson } from '../../web/lessons-plugin.js';
import { exercises } from '../web/page-modules.mjs';
import { SECTIONS, lessonPath } from '../../web/src/sections/index.js';

const IDS = SECTIONS.map((s) => s.id);
const read = (lang, id) => readFileSync(new URL(`../../${lessonPath(lang, id)}`, import.meta.url), 'utf8');

for (const lang of ['zh', 'en']) {
  test(`lessons/${lang}: every section renders with a title, math and its exercises`, () => {
    for (const id of IDS) {
      const lesson = renderLesson(read(lang, id), `${lang}/${id}`);
      if (/^\d/.test(id)) {
        assert.ok(lesson.title.startsWith(id), `${lang}/${id} title "${lesson.title}"`);
        assert.match(lesson.html, /class="katex/, `${lang}/${id} has math`);
      }
      const want = exercises.filter((e) => e.section === id).map((e) => e.id).sort();
      assert.deepEqual(Object.keys(lesson.exercises).sort(), want, `${lang}/${id} exercises`);
      for (const [exId, parts] of Object.entries(lesson.exercises)) {
        for (const part of ['prompt', 'hint', 'solution']) assert.ok(parts[part].length > 20, `${lang} ${exId} ${part}`);
      }
    }
  });
}

test('the two languages are really two languages', () => {
  for (const id of IDS) {
    const zh = read('zh', id), en = read('en', id);
    assert.ok((zh.match(/[\u4e00-\u9fff]/g) ?? []).length > 30, `zh/${id} is Chinese`);
    assert.equal((en.match(/[\u4e00-\u9fff]/g) ?? []).length, 0, `en/${id} is English`);
  }
});

test('raw HTML in lesson Markdown is not passed through', () => {
  const r = renderLesson('# t\n\n<script>alert(1)</script> <img src=x onerror=alert(1)>\n');
  assert.doesNotMatch(r.html, /<script|<img/);
});

test('a lesson without a title or with a broken exercise is rejected at build time', () => {
  assert.throws(() => renderLesson('no title\n'), /first line must be the title/);
  assert.throws(() => renderLesson('# t\n\n::: exercise x\nprompt\n::: hint\nh\n:::\n'), /exercise x has no solution/);
});

test('every exercise belongs to a listed section', () => {
  for (const e of exercises) assert.ok(IDS.includes(e.section), `${e.id}: section ${e.section}`);
});
