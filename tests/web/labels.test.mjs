// Attention maps are read the way the lessons read them, in both languages: rows are the receiving
// positions t (queries), columns the positions j that give (keys, the sources); cross-attention
// says T_out and T_in, self-attention says T; shape names follow the lessons (d for one head's
// width, C for the model's, no D).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig } from './harness.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const { open } = builtLab();

/** A switch the lesson is about asks for a prediction first (once per visit): skip it. */
async function skipPrediction(page, id) {
  const skip = sec(page, id).locator('.predict:not([hidden]) button[data-act="skip"]');
  if (await skip.count()) await skip.first().click();
}

// every attention-shaped matrix of 18.1-18.7, by section (18.5 has none); a section not named here
// (18.8, whose maps are labelled with characters, or a new one) is held to the words only: every
// map in it that says which axis is which says it as the lessons do
const MAPS = { '18.1': ['A'], '18.2': ['s', 'mask', 'before', 'after', 'slice0', 'slice1'], '18.3': ['s', 'a'],
  '18.4': ['w-head', 'w-model', 'w-none'], '18.5': [], '18.6': ['mask', 'w0', 'w1'], '18.7': ['drop', 'a'] };
const OTHERS = SECTIONS.filter((s) => s.module && !MAPS[s.id]).map((s) => s.id);
const WORDS = { zh: [/行 t/, /接收/, /列 j/, /给出/], en: [/row t/, /receives/, /column j/, /gives/] };
const CELL = { zh: /接收 t = 1，来源 j = 0/, en: /receiver t = 1, source j = 0/ };

for (const lang of ['zh', 'en']) {
  test(`${lang}: every attention map names its rows (t receives, query) and columns (j gives, key), and only those do`, async () => {
    const { page, errors } = await open(`?lang=${lang}&s6.mode=causal`);
    // 18.2 shows the mask-after weights and 18.4 the √C and unscaled maps once the student asks
    // (after a prediction, skipped here)
    for (const [id, button] of [['18.2', 'show-after'], ['18.4', 'show-scales']]) {
      await sec(page, id).locator(`button.${button}`).click();
      await skipPrediction(page, id);
    }
    for (const [id, names] of Object.entries(MAPS)) {
      for (const name of names) {
        const note = fig(page, id, name).locator('p.axes');
        assert.equal(await note.isVisible(), true, `${id} ${name}`);
        for (const w of WORDS[lang]) assert.match(await note.textContent(), w, `${id} ${name}`);
        if (await fig(page, id, name).locator('table.heatmap').count()) {
          assert.equal(await fig(page, id, name).locator('th.corner').textContent(), 't \\ j', `${id} ${name} corner`);
          assert.match(await fig(page, id, name).locator('tbody tr').nth(1).locator('td').first().getAttribute('aria-label'), CELL[lang], `${id} ${name} cell`);
        }
      }
      const shown = await sec(page, id).locator('p.axes:visible').count();
      assert.equal(shown, names.length, `${id}: no other matrix claims attention axes`);
    }
    for (const id of OTHERS) {
      for (const text of await sec(page, id).locator('p.axes:visible').allTextContents()) {
        for (const w of WORDS[lang]) assert.match(text, w, `${id}: ${text}`);
      }
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('18.6: self-attention says (B, H, T, T) and T; cross-attention says (B, H, T_out, T_in), queries from the output, keys from the encoder', async () => {
  const { page, errors } = await open('?embed=18.6&lang=en');
  const s6 = sec(page, '18.6');
  assert.match(await fig(page, '18.6', 'w0').locator('p.axes').textContent(), /output side .*T_out.* encoder side .*T_in/);
  assert.match(await fig(page, '18.6', 'w0').locator('.shape-badge').textContent(), /^\(B, H, T_out, T_in\) = \(1, 2, 3, 5\)$/);
  assert.match(await s6.locator('label.control.integer').first().textContent(), /T_out/);
  for (const mode of [/Encoder/, /Decoder/]) {
    await fig(page, '18.6', 'mode').getByLabel(mode).click();
    await skipPrediction(page, '18.6');   // the first switch asks for a prediction
    assert.match(await fig(page, '18.6', 'w0').locator('.shape-badge').textContent(), /^\(B, H, T, T\) = \(1, 2, 3, 3\)$/);
    assert.match(await fig(page, '18.6', 'mask').locator('.shape-badge').textContent(), /^\(T, T\)/);
    assert.match(await s6.locator('.shape-line').textContent(), /\(B, H, T, T\)/);
    assert.doesNotMatch(await fig(page, '18.6', 'w0').locator('p.axes').textContent(), /T_out|encoder/);
    assert.doesNotMatch(await s6.locator('label.control.integer').first().textContent(), /T_out/);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('shape names follow the lessons: one head is (B, T, d), several heads concatenated are (B, T, C), never D', async () => {
  const { page } = await open('?lang=en');
  const badges = await page.locator('.lab-section .shape-badge').allTextContents();
  assert.equal(badges.filter((b) => /\bD\b/.test(b)).length, 0, badges.filter((b) => /\bD\b/.test(b)).join(' | '));
  assert.match(await fig(page, '18.5', 'attnPx').locator('.shape-badge').textContent(), /^\(B, T, d\)/);
  assert.match(await fig(page, '18.7', 'probe').locator('.shape-badge').textContent(), /^\(B, T, C\)/);
  assert.match(await fig(page, '18.3', 'y').locator('.shape-badge').textContent(), /^\(B, T, d\)/);
  await page.close();
});

test('a cell\'s tooltip is its label, given on hover, and it follows the label when the number changes', async () => {
  const { page, errors } = await open('?embed=18.3&lang=en');
  const cell = fig(page, '18.3', 'y').locator('tbody tr').nth(1).locator('td').first();
  assert.equal(await cell.getAttribute('title'), null, 'no tooltip written before the pointer comes');
  await cell.hover();
  const before = await cell.getAttribute('aria-label');
  assert.match(before, /\d/);
  assert.equal(await cell.getAttribute('title'), before);
  await fig(page, '18.3', 'x').locator('input[data-row="1"][data-col="0"]').fill('7');
  await page.waitForFunction((el) => el.getAttribute('aria-label') !== el.dataset.before,
    await cell.evaluateHandle((el, b) => { el.dataset.before = b; return el; }, before));
  assert.notEqual(await cell.getAttribute('aria-label'), before);
  assert.equal(await cell.getAttribute('title'), await cell.getAttribute('aria-label'), 'the tooltip says the new number');
  assert.deepEqual(errors, []);
  await page.close();
});
