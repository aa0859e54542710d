// Small things a student reads wrong, each measured on the page: a line the page says and what
// it shows next to it (18.4's head size, 18.2's softmax along the batch of one sequence, the axis
// names of a table of sums), where a note sits, what a chart marks and whether its titles collide
// with its numbers, words that point at a place a phone does not have, a prediction's verdict
// after the section's reset, and line breaks that split a number or start a line with a comma.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig, heatmapValues } from './harness.mjs';

const lab = builtLab();
const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

test('18.4: the head size line shows hs, computed by the core, as C and the number of heads change', async () => {
  const { page, errors } = await lab.open('?embed=18.4&lang=en');
  const line = () => sec(page, '18.4').locator('p.shape-line').textContent();
  assert.match(await line(), /^Head size hs = C \/ heads = 16 \/ 4 = 4;/);
  await fig(page, '18.4', 'heads').selectOption('2');
  await page.waitForFunction(() => /= 16 \/ 2 = 8;/.test(document.querySelector('p.shape-line').textContent));
  await fig(page, '18.4', 'C').selectOption('8');
  await fig(page, '18.4', 'heads').selectOption('8');
  await page.waitForFunction(() => /= 8 \/ 8 = 1;/.test(document.querySelector('p.shape-line').textContent));
  const zh = await lab.open('?embed=18.4&lang=zh');
  assert.match(await sec(zh.page, '18.4').locator('p.shape-line').textContent(), /^每个头的宽度 hs = C \/ 头数 = 16 \/ 4 = 4；/);
  assert.deepEqual([...errors, ...zh.errors], []);
  await page.close();
  await zh.page.close();
});

test('18.2: a softmax along the batch of one sequence is said to give every weight 1, as its slices show; the sums along a dim name their axes', async () => {
  for (const [lang, says, mixes] of [['en', /every weight is exactly 1/, /sequences mix/], ['zh', /每个权重都恰好是 1/, /不同序列互相混合/]]) {
    const { page, errors } = await lab.open(`?embed=18.2&lang=${lang}`);
    const s2 = sec(page, '18.2');
    await fig(page, '18.2', 'kind').locator('input[value="bhtt"]').check();
    await s2.locator('[data-name="dim"] input[value="0"]').check();
    await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.2"] [data-name="slice0"] .shape-badge')?.textContent.includes('(3, 3)'));
    const slices = [...await heatmapValues(fig(page, '18.2', 'slice0')), ...await heatmapValues(fig(page, '18.2', 'slice1'))];
    assert.ok(slices.flat().every((v) => v === 1), `every weight is 1: ${JSON.stringify(slices)}`);
    const explain = await s2.locator('.dim-explain').textContent();
    assert.match(explain, says);
    assert.doesNotMatch(explain, mixes, 'nothing mixes with one sequence');
    // the sums along the chosen dim: the axes that are left, by name
    assert.equal(await fig(page, '18.2', 'sums').locator('.shape-badge').textContent(), '(H, T, T) = (2, 3, 3)');
    await s2.locator('[data-name="dim"] input[value="1"]').check();
    await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.2"] [data-name="sums"] .shape-badge')?.textContent === '(B, T, T) = (1, 3, 3)');
    await fig(page, '18.2', 'kind').locator('input[value="btt"]').check();
    await s2.locator('[data-name="dim"] input[value="1"]').check();
    await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.2"] [data-name="sums"] .shape-badge')?.textContent === '(B, T) = (2, 3)');
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('18.2: the note on a row with nothing allowed sits under the mask that causes it', async () => {
  for (const [lang, width] of [['en', 1280], ['zh', 390]]) {
    const { page, errors } = await lab.open(`?embed=18.2&lang=${lang}`);
    await page.setViewportSize({ width, height: 900 });
    const mask = fig(page, '18.2', 'mask');
    for (const j of [0, 1, 2]) await mask.locator(`button[data-row="2"][data-col="${j}"]`).click();
    const note = sec(page, '18.2').locator('.nan-note');
    await note.waitFor({ state: 'visible' });
    const n = await note.boundingBox(), m = await mask.boundingBox(), before = await fig(page, '18.2', 'before').boundingBox();
    assert.ok(n.y >= m.y + m.height - 1 && n.y - (m.y + m.height) < 80, `${lang} ${width}: under the mask: note ${JSON.stringify(n)}, mask ${JSON.stringify(m)}`);
    assert.ok(n.x < m.x + m.width && n.x + n.width > m.x, `${lang} ${width}: in the mask's column`);
    assert.ok(n.y + n.height <= before.y + 1, `${lang} ${width}: before the weights it explains`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('18.4: a line chart marks every point of its table, and no axis title overlaps a tick label', async () => {
  for (const [query, width] of [['?embed=18.4&lang=en', 1280], ['?embed=18.4&lang=zh', 390]]) {
    const { page, errors } = await lab.open(query);
    await page.setViewportSize({ width, height: 900 });
    await frame(page);
    const variance = fig(page, '18.4', 'variance');
    await variance.locator('details.chart-data summary').click();
    await variance.locator('details.chart-data tbody tr').first().waitFor();
    const rows = await variance.locator('details.chart-data tbody tr').count();
    const markers = await variance.locator('g.chart-markers path').evaluateAll((ps) => ps.map((p) => (p.getAttribute('d').match(/M/g) ?? []).length));
    assert.deepEqual(markers, [rows, rows], `a marker at each of the ${rows} widths d, on both lines`);
    const collisions = await sec(page, '18.4').locator('svg.chart').evaluateAll((svgs) => svgs.flatMap((svg) => {
      const box = (e) => e.getBoundingClientRect();
      const ticks = [...svg.querySelectorAll('text.tick')].filter((e) => e.textContent).map((e) => [e.textContent, box(e)]);
      return [...svg.querySelectorAll('text.axis-label')].filter((e) => e.textContent).flatMap((title) => ticks
        .filter(([, r]) => { const a = box(title); return Math.min(a.right, r.right) - Math.max(a.left, r.left) > 0.5 && Math.min(a.bottom, r.bottom) - Math.max(a.top, r.top) > 0.5; })
        .map(([text]) => `"${title.textContent}" over "${text}"`));
    }));
    assert.deepEqual(collisions, [], `${query} at ${width} px`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('18.5: the note on the comparison names the two figures it compares, not where they sit', async () => {
  for (const [lang, where] of [['en', /\b(right|left|above|below them)\b/], ['zh', /[左右]边/]]) {
    const { page, errors } = await lab.open(`?embed=18.5&lang=${lang}`);
    await page.setViewportSize({ width: 390, height: 900 });
    const note = await sec(page, '18.5').locator('p.note').filter({ hasText: 'attn(Π X + P)' }).textContent();
    assert.doesNotMatch(note, where, note);
    for (const name of ['pAttn', 'attnPx']) {
      const caption = await fig(page, '18.5', name).locator('.tensor-label').textContent();
      assert.ok(note.includes(caption), `the note names “${caption}”: ${note}`);
    }
    // and on a phone the figures it names are stacked, which is why places would mislead
    const [b, a] = [await fig(page, '18.5', 'pAttn').boundingBox(), await fig(page, '18.5', 'attnPx').boundingBox()];
    assert.ok(a.y >= b.y + b.height - 1, 'stacked at 390 px');
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('a prediction\'s verdict goes with "Reset this section"', async () => {
  const { page, errors } = await lab.open('?embed=18.3&lang=en');
  const s3 = sec(page, '18.3');
  const card = s3.locator('[data-name="predict-causal"]');
  await fig(page, '18.3', 'causal').click();   // the card holds the switch until the student predicts
  await card.locator('input[type="radio"]').first().check();   // "all of it": wrong without the mask
  await card.locator('[data-act="predict"]').click();
  await page.waitForFunction(() => /Not what you predicted/.test(document.querySelector('[data-name="predict-causal"] .predict-message')?.textContent ?? ''));
  assert.equal(await card.isVisible(), true);
  await s3.locator('button.reset').click();
  assert.equal(await card.isVisible(), false, 'the verdict is gone with the reset');
  assert.equal(await fig(page, '18.3', 'causal').isChecked(), true);
  // the next switch asks again, as on a fresh section
  await fig(page, '18.3', 'causal').click();
  assert.equal(await card.locator('form').isVisible(), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('phones: no line starts with the punctuation after a formula, and no number splits over two lines', async () => {
  const { page, errors } = await lab.open('?lang=zh');
  await page.addStyleTag({ content: '.lab-section { content-visibility: visible !important; }' });
  const problems = [];
  for (const width of [320, 360, 375, 390, 414]) {
    await page.setViewportSize({ width, height: 800 });
    await frame(page);
    problems.push(...await page.evaluate((w) => {
      const out = [];
      // a comma, full stop, ... right after inline math stays on the math's line
      for (const math of document.querySelectorAll('.lab-section .katex:not(.katex-display .katex)')) {
        const tail = math.nextSibling, at = 0;   // the text right after it
        if (tail?.nodeType !== 3 || !/[，。、；：！？）,.;:!?)]/.test(tail.textContent[at])) continue;
        const r = document.createRange();
        r.setStart(tail, at);
        r.setEnd(tail, at + 1);
        const rects = [...math.getClientRects()].filter((x) => x.width > 0);
        if (!rects.length) continue;   // not shown (a closed hint or solution)
        const punct = r.getBoundingClientRect(), last = rects[rects.length - 1];
        if (punct.top > last.bottom - 2) out.push(`${w} px: “${tail.textContent.slice(at, at + 6)}” starts a line after ${math.textContent.slice(0, 20)}`);
      }
      // a number in exponent form (1e−6, 2.22e−16) keeps its line
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.parentElement.offsetParent || n.parentElement.closest('.katex, script, style')) continue;
        for (const m of n.textContent.matchAll(/\d+(\.\d+)?e[-−]\d+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (tops.size > 1) out.push(`${w} px: “${m[0]}” splits over two lines in ${n.parentElement.tagName}.${n.parentElement.className}`);
        }
      }
      return out;
    }, width));
  }
  assert.deepEqual([...new Set(problems)], []);
  assert.deepEqual(errors, []);
  await page.close();
});
