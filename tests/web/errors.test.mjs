// Errors the core reports, as a student meets them: for each input a student can give that the
// core rejects (a table of triggers), the message appears beside the control or matrix that caused
// it, inside the window (a phone-sized one for Chinese), in the page's language, with no internal
// function names; the last good result stays; reset clears it. Nothing goes to the status line
// when a control owns the error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig, heatmapValues, labMounted } from './harness.mjs';

const lab = builtLab();

const cell = (page, id, editor, i, j) => fig(page, id, editor).locator(`input[data-row="${i}"][data-col="${j}"]`);
const learned = { zh: /学习式/, en: /learned/ };
// [what, section, the widget that must show the message, a result that must stay, valid steps first, the rejected step]
const none = async () => {};
const TRIGGERS = [
  ['a weight with the wrong number of rows', '18.3', 'wk', 'y', none, async (p) => fig(p, '18.3', 'wk').locator('button[data-act="add-row"]').click()],
  ['X wider than the weights take', '18.3', 'x', 'y', none, async (p) => fig(p, '18.3', 'x').locator('button[data-act="add-col"]').click()],
  ['W_Q wider than W_K and W_V', '18.3', 'wq', 'y', none, async (p) => fig(p, '18.3', 'wq').locator('button[data-act="add-col"]').click()],
  ['scores that overflow (1e200 in X)', '18.3', 'x', 'y', none, async (p) => cell(p, '18.3', 'x', 0, 0).fill('1e200')],
  ['sums that overflow (1.7e308 twice in X)', '18.1', 'x', 'y0', async (p) => cell(p, '18.1', 'x', 0, 0).fill('1.7e308'),
    async (p) => cell(p, '18.1', 'x', 1, 0).fill('1.7e308')],
  ['the second sequence overflowing (batch on)', '18.1', 'x2', 'y0', async (p) => {
    await fig(p, '18.1', 'batch').check();
    await cell(p, '18.1', 'x2', 0, 0).fill('1.7e308');
  }, async (p) => cell(p, '18.1', 'x2', 1, 0).fill('1.7e308')],
  ['scaled logits that overflow', '18.4', 'logits', null, none, async (p) => cell(p, '18.4', 'logits', 0, 0).fill('1e308')],
  ['T_max below T (learned positions)', '18.5', 'tmax', 'attnPx', async (p, lang) => fig(p, '18.5', 'pos').getByLabel(learned[lang]).check(),
    async (p) => fig(p, '18.5', 'tmax').fill('3')],
  ['rows past T_max (learned positions)', '18.5', 'x', 'attnPx', async (p, lang) => {
    await fig(p, '18.5', 'pos').getByLabel(learned[lang]).check();
    await fig(p, '18.5', 'tmax').fill('4');
  }, async (p) => fig(p, '18.5', 'x').locator('button[data-act="add-row"]').click()],
];

const INTERNAL = /multiHeadAttention|permutationCheck|futureProbe|softmaxSharpening|causalAverage|matmul|positions:|opts\.|tMax\b|flat index/;
// words of an English sentence (the notation the lessons use, W_K, T_max, float64 ..., is not one)
const ENGLISH = /\b(the|must|is|are|has|have|of|to|and|with|not|than|past|shape|axis|numbers?|positions?|rows?|table|learned)\b/i;

for (const [lang, width] of [['zh', 390], ['en', 1280]]) {
  test(`${lang} at ${width} px: each error a student can cause is explained beside its control, in ${lang}, and the result stays`, async () => {
    const page = await lab.chrome.browser.newPage({ viewport: { width, height: 800 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${lab.server.url}?lang=${lang}`);
    await page.waitForSelector('.lab-section[data-section="18.7"]');
    await labMounted(page);
    for (const [what, id, owner, result, prepare, act] of TRIGGERS) {
      await prepare(page, lang);
      const kept = result ? await heatmapValues(fig(page, id, result)) : null;
      await act(page, lang);
      const widget = fig(page, id, owner);
      // the message of an integer field sits in its label; of a matrix, in its figure
      const message = (await widget.evaluate((el) => el.tagName)) === 'INPUT' ? widget.locator('xpath=..').locator('.cell-error') : widget.locator('.cell-error');
      assert.equal(await message.isVisible(), true, `${lang} ${what}: a message beside ${owner}`);
      const text = await message.textContent();
      assert.doesNotMatch(text, INTERNAL, `${lang} ${what}: ${text}`);
      if (lang === 'zh') {
        assert.match(text, /[\u4e00-\u9fff]/, `${what}: ${text}`);
        assert.doesNotMatch(text, ENGLISH, `${what} is in Chinese: ${text}`);
      }
      assert.equal(await sec(page, id).locator('.status.error').count(), 0, `${lang} ${what}: not in the status line`);
      // in the window, and beside the control: right under it, within its section
      const box = await message.boundingBox(), control = await widget.boundingBox();
      assert.ok(box.y >= -1 && box.y + box.height <= 801 && box.x >= -1 && box.x + box.width <= width + 1, `${lang} ${what}: in the window ${JSON.stringify(box)}`);
      assert.ok(box.y - (control.y + control.height) < 80 && box.y >= control.y, `${lang} ${what}: under ${owner} ${JSON.stringify({ box, control })}`);
      const marked = await sec(page, id).locator('[aria-invalid="true"]').evaluateAll((els) => els.map((e) => e.getAttribute('aria-describedby')));
      assert.ok(marked.includes(await message.getAttribute('id')), `${lang} ${what}: the control is marked and described by the message`);
      if (kept) assert.deepEqual(await heatmapValues(fig(page, id, result)), kept, `${lang} ${what}: the last good result stays`);
      await sec(page, id).locator('button.reset').click();
      assert.equal(await message.isVisible(), false, `${lang} ${what}: reset clears it`);
      assert.equal(await sec(page, id).evaluate((el) => el.classList.contains('has-error')), false);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// A weight's error speaks in the layout the editors show and in the lesson's names: in nn.Linear's
// layout W_Q is (d, C), so its shape is told as the editor shows it, the axis is d (never the
// core's D) and it sits where the editor has it.
for (const [lang, width] of [['zh', 390], ['en', 1280]]) {
  test(`${lang}: 18.3's weight errors name the shapes and axes as the editors show them, in both layouts`, async () => {
    const { page, errors } = await lab.open(`?embed=18.3&lang=${lang}`);
    await page.setViewportSize({ width, height: 800 });
    const shown = async (key) => (await fig(page, '18.3', key).locator('.shape-badge').textContent()).match(/\(\d+(, \d+)*\)$/)[0];
    for (const [layout, act, wq] of [['math', 'add-col', '(2, 3)'], ['linear', 'add-row', '(3, 2)']]) {
      await fig(page, '18.3', 'layout').locator(`input[value="${layout}"]`).check();
      await fig(page, '18.3', 'wq').locator(`button[data-act="${act}"]`).click();
      assert.equal(await shown('wq'), wq, `${layout}: the editor shows W_Q as ${wq}`);
      const message = sec(page, '18.3').locator('.cell-error:visible');
      assert.equal(await message.count(), 1, `${layout}: one message`);
      const text = await message.textContent();
      const shapes = text.match(/\(\d+, \d+\)/g);
      assert.ok(shapes.includes(wq), `${layout}: W_Q's shape as on screen, ${wq}: ${text}`);
      for (const s of shapes) assert.ok([wq, await shown('wk'), await shown('wv'), await shown('x')].includes(s), `${layout}: ${s} is a shape on screen: ${text}`);
      assert.doesNotMatch(text, /\bD\b/, `${layout}: the lesson's d, not D: ${text}`);
      assert.match(text, /\bd\b/, `${layout}: the axis is named d: ${text}`);
      if (layout === 'linear') assert.match(text, lang === 'zh' ? /W_Q 的第一维/ : /the first axis of W_Q/, `the axis d of W_Q is its first in (d, C): ${text}`);
      await sec(page, '18.3').locator('button.reset').click();
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
}
