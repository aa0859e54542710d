// Phones and small frames: at 390 px (the whole page) and in a 700 px iframe (?embed=<section>),
// in both languages, no text runs past the viewport or gets clipped by its box (wide matrices
// scroll inside their own box instead), side-by-side parts do not overlap, numeric readouts stay
// on one line, operators are not left alone on a line, and no chart text is under 11 CSS px.
// WCAG 2.1 reflow (1.4.10) and resize (1.4.4), the same checks: the whole page at 320 px, and at
// 1280 px zoomed to 200 %, which is a 640 px viewport (browser zoom divides the CSS viewport by the
// zoom factor, so media and container queries see 640 px; deviceScaleFactor only changes the
// pixel density, and CSS zoom on the root would leave the viewport and its queries at 1280 px).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, blankPage, labMounted } from './harness.mjs';
import { SECTIONS as LIST } from '../../web/src/sections/index.js';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const SECTIONS = LIST.map((s) => s.id);
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

/** In the page: every problem with the layout of one section, as readable strings. */
function layoutProblems(sectionId) {
  const root = document.querySelector(`.lab-section[data-section="${sectionId}"]`);
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const where = (el) => {
    const parts = [];
    for (let a = el; a && a !== root && parts.length < 4; a = a.parentElement) {
      parts.unshift(a.tagName.toLowerCase() + (a.dataset.name ? `[${a.dataset.name}]` : '') + (a.className && typeof a.className === 'string' ? `.${a.className.trim().split(/\s+/).join('.')}` : ''));
    }
    return parts.join(' > ');
  };
  // one line per kind of problem and place, with the first text it hit and how many
  const seen = new Map();
  const report = (key, text) => {
    if (seen.has(key)) seen.get(key).count++;
    else seen.set(key, { text: text.trim().slice(0, 40), count: 1 });
  };
  const hidden = (el) => el.closest('[hidden], .visually-hidden, .katex-mathml') !== null;
  // text: every visible text node, line by line, must be reachable: inside the viewport, and not
  // cut off by an ancestor that hides overflow (a scrolling ancestor is fine: it can be scrolled)
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || hidden(n.parentElement)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const line of range.getClientRects()) {
      if (line.width < 1 || line.height < 1) continue;
      let box = { left: line.left, right: line.right }, bad = null, sticky = false;
      for (let a = n.parentElement; a && a !== document.body; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (cs.position === 'sticky') sticky = true;
        if (cs.overflowX === 'visible') continue;
        const r = a.getBoundingClientRect();
        if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') {
          // reachable by scrolling unless it sits left of the scroll origin, or stays put (sticky) outside the box
          if (box.left < r.left + a.clientLeft - a.scrollLeft - 1) { bad = `left of its scroll box ${where(a)}`; break; }
          if (sticky && (box.right > r.left + a.clientLeft + a.clientWidth + 1 || box.left < r.left - 1)) { bad = `sticky and cut off by ${where(a)}`; break; }
          sticky = false;
          box = { left: r.left, right: r.right };
        } else if (box.right > r.right + 1 || box.left < r.left - 1) { bad = `clipped by ${where(a)}`; break; }
      }
      if (!bad && (box.right > vw + 1 || box.left < -1)) bad = `past the viewport (${Math.round(box.left)}..${Math.round(box.right)} of ${vw})`;
      if (bad) { report(`${where(n.parentElement)}: ${bad}`, n.textContent); break; }
    }
  }
  // a numeric readout ("0.2872 → 0.8000", "2.22e−16") stays on one line
  for (const dd of root.querySelectorAll('dl.readout dd')) {
    if (hidden(dd) || !/^[\d\s.,−+e→()/×]+$/.test(dd.textContent.trim())) continue;
    const range = document.createRange();
    range.selectNodeContents(dd);
    const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
    if (tops.size > 1) problems.push(`"${dd.textContent.trim()}" in ${where(dd)}: breaks over ${tops.size} lines`);
  }
  // an operator (×, =) shares its line with what it operates on
  for (const op of root.querySelectorAll('.op')) {
    if (hidden(op)) continue;
    const r = op.getBoundingClientRect();
    const next = op.nextElementSibling?.getBoundingClientRect();
    if (!next || next.top > r.bottom - 1 || next.bottom < r.top + 1) problems.push(`"${op.textContent}" alone on its line in ${where(op)}`);
  }
  // parts laid side by side (controls, matrices in a row, readout lines) do not overlap
  for (const box of root.querySelectorAll('.controls, .row, .stack, .product, .resize, .section-tools, .predict-actions, .attn-maps, .slices, form.answer')) {
    if (hidden(box)) continue;
    const kids = [...box.children].filter((k) => !hidden(k) && k.getClientRects().length).map((k) => [k, k.getBoundingClientRect()]);
    for (let a = 0; a < kids.length; a++) {
      for (let b = a + 1; b < kids.length; b++) {
        const [p, q] = [kids[a][1], kids[b][1]];
        const x = Math.min(p.right, q.right) - Math.max(p.left, q.left), y = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (x > 1 && y > 1) problems.push(`${where(kids[a][0])} and ${where(kids[b][0])} overlap by ${Math.round(x)} × ${Math.round(y)} px`);
      }
    }
  }
  for (const [key, { text, count }] of seen) problems.push(`"${text}"${count > 1 ? ` and ${count - 1} more` : ''} in ${key}`);
  if (document.documentElement.scrollWidth > vw + 1) problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  return problems;
}

/** In the page: chart and SVG text rendered under 11 CSS px. */
function smallChartText(sectionId) {
  const root = document.querySelector(`.lab-section[data-section="${sectionId}"]`);
  const out = [];
  for (const text of root.querySelectorAll('svg text')) {
    if (text.closest('[hidden]') || text.closest('.katex')) continue;
    const m = text.getScreenCTM();   // rendered size: the font size times the drawing's scale (rotation aside)
    const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
    if (px < 11 - 1e-6) out.push(`"${text.textContent}" at ${px.toFixed(1)} px`);
  }
  return out;
}

async function check(frameOrPage, id, measure) {
  // sections off screen skip layout (content-visibility: auto): bring each into view first
  await frameOrPage.locator(`.lab-section[data-section="${id}"]`).scrollIntoViewIfNeeded();
  await frameOrPage.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return frameOrPage.evaluate(measure, id);
}

async function phone(lang, width = 390, height = 844) {
  const { page } = await blankPage(chrome.browser, server, { viewport: { width, height } });
  await page.goto(`${server.url}?lang=${lang}`);
  await page.waitForSelector('.lab-section[data-section="exercises"]');
  await labMounted(page);
  return page;
}

async function iframe(lang, id) {
  const { page } = await openPage(chrome.browser, server.blank);   // an empty page of the same server
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.evaluate((src) => {
    const f = document.createElement('iframe');
    f.src = src;
    f.style.cssText = 'width: 700px; height: 860px; border: 0';
    document.body.replaceChildren(f);
  }, `${server.url}?embed=${id}&lang=${lang}`);
  const frame = () => page.frames().find((f) => f.url().includes(`embed=${id}`));
  // its lab, and its exercises, which an embedded section builds after the lab
  await page.waitForFunction(() => document.querySelector('iframe').contentWindow.performance?.getEntriesByName('attention-lab:mounted').length > 0);
  return { page, frame: frame() };
}

for (const lang of ['zh', 'en']) {
  test(`390 px (${lang}): nothing is clipped or runs off the screen, in every section`, async () => {
    const page = await phone(lang);
    const problems = [];
    for (const id of SECTIONS) problems.push(...(await check(page, id, layoutProblems)).map((p) => `${id}: ${p}`));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test(`700 px iframe (${lang}): nothing is clipped or runs off the frame, in every section`, async () => {
    const problems = [];
    for (const id of SECTIONS) {
      const { page, frame } = await iframe(lang, id);
      problems.push(...(await check(frame, id, layoutProblems)).map((p) => `${id}: ${p}`));
      await page.close();
    }
    assert.deepEqual(problems, []);
  });

  for (const [width, height, what] of [[320, 640, '320 px (reflow)'], [640, 450, '1280 px at 200 % zoom (a 640 px viewport)']]) {
    test(`${what} (${lang}): nothing is clipped, overlaps or scrolls sideways, in every section`, async () => {
      const page = await phone(lang, width, height);
      const problems = [];
      for (const id of SECTIONS) problems.push(...(await check(page, id, layoutProblems)).map((p) => `${id}: ${p}`));
      // the page header and contents too
      problems.push(...await page.evaluate(() => {
        const out = [];
        for (const el of document.querySelectorAll('header.site *, nav.toc *')) {
          const r = el.getBoundingClientRect();
          if (r.width && (r.right > document.documentElement.clientWidth + 1 || r.left < -1)) out.push(`header/contents: ${el.tagName} ${el.textContent.trim().slice(0, 20)} past the viewport`);
        }
        return out;
      }));
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test(`chart text is at least 11 px at 390 px and in a 700 px iframe (${lang})`, async () => {
    const problems = [];
    const page = await phone(lang);
    for (const id of SECTIONS) problems.push(...(await check(page, id, smallChartText)).map((p) => `390 px ${id}: ${p}`));
    await page.close();
    for (const id of ['18.4', '18.8']) {
      const { page: p, frame } = await iframe(lang, id);
      problems.push(...(await check(frame, id, smallChartText)).map((x) => `700 px ${id}: ${x}`));
      await p.close();
    }
    assert.deepEqual(problems, []);
  });
}

/** In the page: the sideways-scrolling boxes of one section that are shown: their width, their
 * content's, and the scroll cue they show (data-more and the mask that draws it). */
function scrollBoxes(sectionId) {
  const root = document.querySelector(`.lab-section[data-section="${sectionId}"]`);
  return [...root.querySelectorAll('.scroll, .katex-display, .lesson pre')].filter((b) => b.offsetParent && !b.closest('[hidden]')).map((b) => ({
    name: `${b.closest('[data-name]')?.dataset.name ?? b.className}`, scrollWidth: b.scrollWidth, clientWidth: b.clientWidth,
    more: b.dataset.more ?? null, mask: getComputedStyle(b).maskImage ?? getComputedStyle(b).webkitMaskImage,
  }));
}

/** Show what 18.2 and 18.4 show only after a prediction (or a skip): the other order, the other scalings. */
async function revealAll(page) {
  for (const reveal of ['button.show-after', 'button.show-scales']) {
    await page.locator(reveal).click();
    await page.locator('.predict:not([hidden]) [data-act="skip"]').click();
  }
}

for (const lang of ['en', 'zh']) {
  test(`1280 px (${lang}): every figure at its default size fits its column, 18.4's three maps included`, async () => {
    const page = await phone(lang, 1280, 900);
    await revealAll(page);
    const cut = [];
    for (const id of SECTIONS) {
      for (const b of await check(page, id, scrollBoxes)) if (b.scrollWidth > b.clientWidth + 1) cut.push(`${id} ${b.name}: ${b.scrollWidth} px in ${b.clientWidth}`);
    }
    assert.deepEqual(cut, []);
    await page.close();
  });
}

test('390 px: what does not fit its box says so: a box that scrolls sideways fades out on the side with more, and only then', async () => {
  const page = await phone('zh');
  await revealAll(page);
  const seen = [];
  for (const id of SECTIONS) {
    for (const b of await check(page, id, scrollBoxes)) {
      const over = b.scrollWidth > b.clientWidth + 1;
      if (over) seen.push(`${id} ${b.name}`);
      assert.equal(b.more, over ? 'right' : null, `${id} ${b.name}: ${b.scrollWidth} px in ${b.clientWidth}, cue ${b.more}`);
      assert.equal(b.mask !== 'none', over, `${id} ${b.name}: the cue is drawn (${b.mask})`);
    }
  }
  assert.ok(seen.some((n) => n.startsWith('18.4 w-head')) && seen.some((n) => n.startsWith('18.7 drop')), `18.4's and 18.7's maps are wider than a phone: ${seen}`);
  // scrolled to its end, the cue moves to the other side; back at the start, it returns
  const box = page.locator('.lab-section[data-section="18.4"] [data-name="w-head"] .scroll');
  await box.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await page.waitForFunction((el) => el.dataset.more === 'left', await box.elementHandle());
  assert.notEqual(await box.evaluate((el) => getComputedStyle(el).maskImage), 'none');
  await box.evaluate((el) => el.scrollTo({ left: 40 }));
  await page.waitForFunction((el) => el.dataset.more === 'left right', await box.elementHandle());
  await page.close();
});

test('a row\'s statistic (row marks) stays beside a scrolled matrix on a wide screen and scrolls with its row on a phone; an explanation floats right under the figures it explains', async () => {
  const position = (page) => page.locator('.lab-section[data-section="18.2"] table.heatmap td.rowmark').first().evaluate((td) => getComputedStyle(td).position);
  const { page: wide } = await blankPage(chrome.browser, server, { viewport: { width: 1280, height: 500 } });
  await wide.goto(`${server.url}?lang=en`);
  await labMounted(wide);
  assert.equal(await position(wide), 'sticky');
  // pointing at a cell: the panel is out of the flow (nothing moves), just under S and A (the line
  // of their row that A is on; Y, on the row's next line, may be covered)
  const s3 = wide.locator('.lab-section[data-section="18.3"]');
  await s3.locator('[data-name="a"] tbody td').nth(4).hover();
  const panel = s3.locator('div.provenance');
  await wide.locator('.lab-section[data-section="18.3"] div.provenance[data-quantity]').waitFor();
  assert.equal(await panel.evaluate((el) => getComputedStyle(el).position), 'absolute');
  const bottom = Math.max(...await Promise.all(['s', 'a'].map((n) => s3.locator(`[data-name="${n}"]`).evaluate((el) => el.getBoundingClientRect().bottom))));
  const box = await panel.boundingBox();
  assert.ok(box.y >= bottom && box.y - bottom <= 12, `the panel starts under S and A: ${JSON.stringify({ box, bottom })}`);
  await wide.close();
  const narrow = await phone('en');
  assert.equal(await position(narrow), 'static');
  await narrow.close();
});

