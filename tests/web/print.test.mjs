// Paper, in headless Chromium: the worksheet (?print=worksheet) as a PDF on A4 and Letter (page
// counts read from the PDF), nothing clipped in print emulation (no element past the page's
// content box or its container; blocks that must not split fit a page), the lab's inputs from the
// URL, the answer key computed by the core; the browser's print of the lab page; and solutions=0
// hiding hints and solutions in the page, the embed, the single file and the worksheet's key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { serve, launch, openPage, labMounted } from './harness.mjs';
import { exercises } from './page-modules.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const MM = 96 / 25.4;   // CSS px per mm
const MARGIN = 14;      // mm, print.css @page
const PAPER = { A4: { w: 210, h: 297 }, Letter: { w: 215.9, h: 279.4 } };
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

/** Pages in a PDF: its page objects (/Type /Page, not /Pages). */
const pageCount = (pdf) => (pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;

async function worksheet(query, paper = 'A4') {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?print=worksheet&${query}`);
  await page.waitForSelector('.worksheet');
  await page.evaluate(() => document.fonts.ready);
  // white paper on screen as well (the lab's page is off-white)
  assert.equal(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor), 'rgb(255, 255, 255)');
  const pdf = await page.pdf({ format: paper, printBackground: true, margin: { top: `${MARGIN}mm`, bottom: `${MARGIN}mm`, left: `${MARGIN}mm`, right: `${MARGIN}mm` } });
  return { page, errors, pdf, pages: pageCount(pdf) };
}

/** In print emulation at the paper's content width: everything inside its container and the page,
 * and every block that must not split shorter than a page. Returns a list of problems. */
async function clipped(page, paper, root = '.worksheet') {
  const { w, h } = PAPER[paper];
  await page.emulateMedia({ media: 'print' });
  await page.setViewportSize({ width: Math.floor((w - 2 * MARGIN) * MM), height: Math.floor((h - 2 * MARGIN) * MM) });
  return page.evaluate(({ root, pageHeight }) => {
    const problems = [];
    const box = document.querySelector(root).getBoundingClientRect();
    const name = (el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''}`;
    for (const el of document.querySelectorAll(`${root} *`)) {
      // not painted as laid out: screen-reader copies (KaTeX's MathML, visually hidden text) and
      // the inside of an SVG (KaTeX draws a long radical path that its svg crops)
      if (el.closest('.katex-mathml, .visually-hidden') || el.ownerSVGElement) continue;
      const r = el.getBoundingClientRect();
      if (!r.width && !r.height) continue;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) problems.push(`${name(el)} past the page: ${r.left}..${r.right} of ${box.left}..${box.right}`);
      const parent = el.parentElement.getBoundingClientRect();
      // (KaTeX positions the parts of a formula inside its own boxes; the formula as a whole is checked)
      if (!el.parentElement.closest('.katex') && getComputedStyle(el.parentElement).display !== 'inline' &&
        (r.right > parent.right + 0.5 || r.left < parent.left - 0.5)) {
        problems.push(`${name(el)} past its container ${name(el.parentElement)}`);
      }
      const cs = getComputedStyle(el);
      if (cs.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) problems.push(`${name(el)} clips its content (${el.scrollWidth} > ${el.clientWidth})`);
      if (cs.breakInside === 'avoid' && r.height > pageHeight) problems.push(`${name(el)} is taller than a page (${r.height} > ${pageHeight})`);
    }
    for (const sel of ['.ws-exercise', '.ws-state', '.ws-key-item', 'tr']) {
      for (const el of document.querySelectorAll(`${root} ${sel}`)) if (getComputedStyle(el).breakInside !== 'avoid') problems.push(`${sel} may split`);
    }
    return problems;
  }, { root, pageHeight: (h - 2 * MARGIN) * MM });
}

for (const paper of ['A4', 'Letter']) {
  test(`worksheet PDF on ${paper}: one section is one page, the key adds a page, nothing clipped`, async () => {
    for (const lang of ['en', 'zh']) {
      const one = await worksheet(`sections=18.3&lang=${lang}`, paper);
      assert.equal(one.pages, 1, `${lang}: 18.3 alone on one sheet`);
      assert.deepEqual(await clipped(one.page, paper), []);
      assert.deepEqual(one.errors, []);
      await one.page.close();
      const keyed = await worksheet(`sections=18.3&key=1&lang=${lang}`, paper);
      assert.equal(keyed.pages, 2, `${lang}: the key on a page of its own`);
      await keyed.page.close();
    }
    // the whole chapter with its key: every section, the key after them; each page full enough
    const all = await worksheet('lang=en&key=1', paper);
    assert.equal(await all.page.locator('.ws-exercise').count(), exercises.length);
    assert.equal(await all.page.locator('.ws-key-item').count(), exercises.length);
    assert.deepEqual(await clipped(all.page, paper), []);
    const without = await worksheet('lang=en', paper);
    assert.ok(all.pages > without.pages, `key: ${all.pages} pages, without: ${without.pages}`);
    // no more pages than blocks that must stay whole, no fewer than the content's height needs
    const height = await without.page.evaluate(() => document.querySelector('.worksheet').getBoundingClientRect().height);
    const perPage = (PAPER[paper].h - 2 * MARGIN) * MM;
    assert.ok(without.pages >= Math.ceil(height / perPage) - 1 && without.pages <= Math.ceil(height / perPage) + 9,
      `${without.pages} pages for ${Math.round(height)} px of worksheet at ${Math.round(perPage)} px a page`);
    console.log(`worksheet on ${paper}: all sections ${without.pages} pages, with the key ${all.pages}`);
    await all.page.close();
    await without.page.close();
  });
}

test('the worksheet shows the lab inputs from the URL, answer boxes, and a key computed by the core', async () => {
  const { page, errors } = await openPage(chrome.browser,
    `${server.url}?print=worksheet&sections=18.3,exercises,18.6&key=1&lang=en&s3.x=1,2;3,-4&s3.causal=0`);
  await page.waitForSelector('.worksheet');
  // sections in page order, whatever the order asked
  assert.deepEqual(await page.locator('.ws-section').evaluateAll((s) => s.map((e) => e.dataset.section)), ['18.3', '18.6', 'exercises']);
  const state = page.locator('.ws-section[data-section="18.3"] .ws-state');
  const x = await state.locator('figure.ws-matrix').first().locator('tr').evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(x, [['1', '2'], ['3', '−4']]);
  assert.equal(await state.locator('figure.ws-matrix figcaption').first().textContent(), 'Input X');
  assert.deepEqual(await state.locator('figure.ws-matrix figcaption').allTextContents(), ['Input X', 'W_Q', 'W_K', 'W_V']);
  const settings = await state.locator('dl.ws-settings > div').evaluateAll((ds) => ds.map((d) => `${d.firstChild.textContent}: ${d.lastChild.textContent}`));
  assert.deepEqual(settings, ['Show the weights in: math layout (C, d): Q = X W', 'Causal mask: off']);
  const link = new URL((await state.locator('.ws-url span').textContent()));
  assert.deepEqual([...link.searchParams].sort(), [['lang', 'en'], ['s3.causal', '0'], ['s3.x', '1,2;3,-4']], 'the state, without the worksheet\'s own parameters');
  assert.equal(link.hash, '#s18-3');
  // answer boxes: one per input, labelled; the choice exercise has tick boxes
  assert.deepEqual(await page.locator('.ws-exercise[data-exercise="ex-18.6-shape"] .ws-label').allTextContents(), ['B', 'H', 'T_out', 'T_in']);
  assert.equal(await page.locator('.ws-exercise[data-exercise="ex-chapter-2"] .ws-tick').count(), 3);
  // the key: the core's answers (by hand: 1·3 + 2·(−1) = 1, / √2 = 0.7071; the cross-attention weights (2, 4, 3, 7))
  const answer = (id) => page.locator(`.ws-key-item[data-exercise="${id}"] .ws-answer`).textContent();
  assert.equal(await answer('ex-18.3-score'), 'Answer: S[0, 0] = 0.7071');
  assert.equal(await answer('ex-18.6-shape'), 'Answer: B = 2,  H = 4,  T_out = 3,  T_in = 7');
  assert.equal(await answer('ex-chapter-1'), 'Answer: w₀ = 0.2500,  w₁ = 0.5000,  w₂ = 0.2500,  y = 5');
  assert.equal(await answer('ex-chapter-2'), 'Answer: dim=-1');
  assert.equal(await page.locator('.ws-key-item .ws-solution .katex').count() > 0, true, 'worked solutions with their math');
  // a bad state value in the URL: the default, and a notice (on screen, not on paper)
  const bad = await openPage(chrome.browser, `${server.url}?print=worksheet&sections=18.3,nope&s3.x=zzz&lang=en`);
  await bad.page.waitForSelector('.worksheet');
  assert.match(await bad.page.locator('p.notice').textContent(), /sections.*s3\.x|s3\.x.*sections/);
  assert.equal(await bad.page.locator('.ws-section').count(), SECTIONS.length, 'an unknown section: all of them');
  await bad.page.emulateMedia({ media: 'print' });
  assert.equal(await bad.page.locator('p.notice').isVisible(), false);
  assert.deepEqual([...errors, ...bad.errors], []);
  await page.close();
  await bad.page.close();
});

test('the browser’s print of the lab page: tools hidden, every section, nothing past the page', async () => {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=en`);
  await page.waitForSelector('.progress-view');
  await labMounted(page);
  const problems = await clipped(page, 'A4', 'main');
  const hidden = await page.evaluate(() => ['.toc', '.progress-view', '.section-tools', 'details.hint', 'details.solution', '.lang-switch']
    .map((sel) => [sel, [...document.querySelectorAll(sel)].every((el) => getComputedStyle(el).display === 'none')]));
  assert.deepEqual(hidden.filter(([, ok]) => !ok), []);
  assert.deepEqual(problems.filter((p) => !p.includes('taller than a page')), []);
  const pdf = await page.pdf({ format: 'A4', margin: { top: '14mm', bottom: '14mm', left: '14mm', right: '14mm' } });
  assert.ok(pageCount(pdf) >= SECTIONS.length, `every section starts a page: ${pageCount(pdf)} pages`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('solutions=0 hides hints, solutions and diagnoses in the page, the embed, the single file and the worksheet', async () => {
  const urls = {
    page: `${server.url}?lang=en&solutions=0`,
    embed: `${server.url}?embed=exercises&lang=en&solutions=0`,
    single: `${pathToFileURL(`${DIST}attention-lab.html`).href}?lang=en&solutions=0`,
  };
  for (const [mode, url] of Object.entries(urls)) {
    const { page, errors } = await openPage(chrome.browser, url);
    await page.waitForSelector('article[data-exercise="ex-chapter-1"]');
    assert.ok(await page.locator('article.exercise').count() >= 3, mode);
    assert.equal(await page.locator('details.hint, details.solution').count(), 0, `${mode}: no hints or solutions`);
    const ex = page.locator('article[data-exercise="ex-chapter-1"]');
    for (const [i, v] of ['1/3', '1/3', '1/3', '16/3'].entries()) await ex.locator('input').nth(i).fill(v);   // the "uniform" misconception
    await ex.locator('button[type="submit"]').click();
    assert.match(await ex.locator('.feedback').textContent(), /^Not yet\. Think again\.(Your answer reads as [\d., ]+\.)?$/, `${mode}: no diagnosis, no pointer to a hint`);
    assert.equal(await ex.locator('.diagnosis').count(), 0, mode);
    assert.deepEqual(errors, [], mode);
    await page.close();
  }
  // and with solutions shown (the default), the same answer is diagnosed
  const { page } = await openPage(chrome.browser, `${server.url}?embed=exercises&lang=en`);
  await page.waitForSelector('article[data-exercise="ex-chapter-1"]');
  const ex = page.locator('article[data-exercise="ex-chapter-1"]');
  assert.equal(await ex.locator('details.solution').count(), 1);
  for (const [i, v] of ['1/3', '1/3', '1/3', '16/3'].entries()) await ex.locator('input').nth(i).fill(v);
  await ex.locator('button[type="submit"]').click();
  assert.equal(await ex.locator('.diagnosis').count(), 1);
  await page.close();
  // the worksheet: key=1 with solutions=0 prints no key
  const sheet = await worksheet('sections=exercises&key=1&solutions=0&lang=en');
  const plain = await worksheet('sections=exercises&lang=en');
  assert.equal(await sheet.page.locator('.ws-key').count(), 0);
  assert.equal(sheet.pages, plain.pages, 'no page for a key');
  await sheet.page.close();
  await plain.page.close();
});
