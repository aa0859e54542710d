// The whole page builds the labs in view first and the others later (web/src/mount.js, lazy):
// when the student scrolls near a section, when the page is idle, and before printing. Here the
// page's idle callbacks are held back (an init script), so that each of the other ways can be
// seen on its own: the sections out of view wait with a placeholder, and each way builds a lab
// that shows the state from the URL and computes the right numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { serve, launch, openPage, sec, fig, heatmapValues, labMounted } from './harness.mjs';
import { exercises } from './page-modules.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const LABS = SECTIONS.filter((s) => s.module).map((s) => s.id);   // the sections with a lab

let server, chrome;
before(async () => { server = await serve(new URL('../../dist', import.meta.url).pathname); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

const interactive = (page) => page.waitForFunction(() => performance.getEntriesByName('attention-lab:interactive').length > 0);
const marked = (page, name) => page.evaluate((n) => performance.getEntriesByName(n).length > 0, name);
const pending = (page) => page.$$eval('.lab-section:has(> .lab-pending)', (els) => els.map((e) => e.dataset.section));

/** The page with its idle callbacks held back in window.__idle (run only if a test runs them):
 * only scrolling and printing build labs. */
async function openHeld(query) {
  const r = await openPage(chrome.browser, 'about:blank');
  await r.page.addInitScript(() => {
    window.__idle = [];
    window.requestIdleCallback = (f) => window.__idle.push(f);
    window.cancelIdleCallback = () => {};
  });
  await r.page.goto(server.url + query);
  await interactive(r.page);
  return r;
}

test('at first the labs in view are built and the ones below wait; scrolling to a section builds its lab with the URL\'s state', async () => {
  const { page, errors } = await openHeld('?lang=en&s7.t=3');
  assert.equal(await page.locator(`${'.lab-section[data-section="18.1"]'} > .lab`).count(), 1, '18.1 (in view) is built');
  const waiting = await pending(page);
  // the labs after the first four are more than a screen below the first at 1280 x 900
  for (const id of LABS.slice(4)) assert.ok(waiting.includes(id), `${id} waits: ${waiting}`);
  assert.equal(await marked(page, 'attention-lab:mounted'), false);
  assert.equal(await sec(page, '18.7').locator('.lab-pending').getAttribute('aria-busy'), 'true');
  // its exercises wait with it (they are built with the lab); the lesson is there already
  assert.equal(await sec(page, '18.7').locator('.exercise').count(), 0);
  assert.ok((await sec(page, '18.7').locator('.lesson').textContent()).length > 200);

  await sec(page, '18.7').scrollIntoViewIfNeeded();
  await sec(page, '18.7').locator('> .lab').waitFor();
  // lesson, lab, status line, then the exercises: once each
  assert.deepEqual(await sec(page, '18.7').evaluate((el) => [...el.children].map((c) => c.className.split(' ')[0] || c.tagName.toLowerCase())),
    ['h2', 'lesson', 'lab', 'status', 'exercises']);
  assert.equal(await sec(page, '18.7').locator('.exercise[data-exercise="ex-18.7-eval"]').count(), 1);
  // the state from the URL (t = 3): the first t + 1 = 4 rows of the probe are exactly unchanged
  const probe = await heatmapValues(fig(page, '18.7', 'probe'));
  assert.equal(probe.length, 6);
  assert.ok(probe.slice(0, 4).flat().every((v) => v === 0), `prefix rows exactly 0: ${JSON.stringify(probe)}`);
  assert.ok(probe.slice(4).flat().some((v) => v > 1e-3), 'the future changed');
  assert.equal(await fig(page, '18.7', 't').inputValue(), '3');
  assert.ok(!(await pending(page)).includes('18.7'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('printing builds every lab first, and then the page marks attention-lab:mounted', async () => {
  const { page, errors } = await openHeld('?lang=en');
  assert.ok((await pending(page)).length > 0);
  await page.evaluate(() => dispatchEvent(new Event('beforeprint')));
  assert.deepEqual(await pending(page), []);
  await labMounted(page);
  assert.equal(await page.locator('.lab-section > .lab').count(), LABS.length, `every section with a controller has its lab: ${LABS}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('left alone, the page builds the other labs when idle: all of them, none twice', async () => {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=zh`);
  await labMounted(page);
  assert.deepEqual(await pending(page), []);
  assert.equal(await page.locator('.lab-section > .lab').count(), LABS.length);
  assert.equal(await page.locator('.lab-section .lab .lab').count(), 0);
  for (const id of LABS) {
    assert.equal(await sec(page, id).locator('> .lab').count(), 1, `${id}: one lab`);
    assert.equal(await sec(page, id).locator('> p.status').count(), 1, `${id}: one status line`);
    // each exercise once, after the lab
    const own = exercises.filter((e) => e.section === id).map((e) => e.id);
    assert.deepEqual(await sec(page, id).locator('> .exercises .exercise').evaluateAll((els) => els.map((e) => e.dataset.exercise)), own, `${id}: its exercises, once`);
  }
  // an anchor in the URL builds everything before the page is interactive; an embedded section
  // its lab (its exercises come in the first idle moment: the test above)
  for (const query of ['?lang=en&embed=18.7', '?lang=en#s18-7']) {
    const r = await openPage(chrome.browser, server.url + query);
    await interactive(r.page);
    assert.deepEqual(await pending(r.page), [], query);
    if (!query.includes('embed')) {
      assert.equal(await marked(r.page, 'attention-lab:mounted'), true, query);
      assert.ok(await sec(r.page, '18.7').locator('.exercise').count() > 0, query);
    }
    await r.page.close();
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.4 answers input before its variance Monte Carlo, which draws the chart in the first idle moment', async () => {
  const { page, errors } = await openHeld('?embed=18.4&lang=en');
  const chart = fig(page, '18.4', 'variance');
  assert.equal(await chart.locator('details.chart-data').isHidden(), true, 'no data yet: the table is hidden');
  assert.equal(await chart.locator('g.chart-markers path').count(), 0, 'nothing drawn yet');
  // the maps answer the mask already
  await fig(page, '18.4', 'causal').uncheck();
  assert.ok((await heatmapValues(fig(page, '18.4', 'w-head')))[0][5] > 0);
  await page.evaluate(() => { for (const f of window.__idle.splice(0)) f({ timeRemaining: () => 50, didTimeout: false }); });
  await chart.locator('details.chart-data summary').click();
  await chart.locator('details.chart-data tbody tr').nth(8).waitFor();   // the table is built when it opens (its toggle event)
  const rows = await chart.locator('details.chart-data tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => Number(c.textContent))));
  assert.deepEqual(rows.map((row) => row[0]), [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  // Var(q·k) near d, Var(q·k / √d) near 1 (2000 draws each: within 20 %)
  for (const [d, unscaled, scaled] of rows) {
    assert.ok(Math.abs(unscaled / d - 1) < 0.2 && Math.abs(scaled - 1) < 0.2, `d ${d}: ${unscaled}, ${scaled}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

// An edit costs the browser in proportion to what it changes. A toggle of 18.4's mask writes its
// heatmap's cells and row marks and nothing else (a refresh sets every control: the values it
// already shows are not written again), and no style rule makes Chromium look through the whole
// document after it (a `:root:has(...)` rule did: the root's style was recomputed, searching every
// element, after each change anywhere: about 5 ms per edit with the CPU slowed 4x).
test('a toggle of 18.4\'s mask changes its heatmap\'s cells and nothing else, and restyles nothing outside its section', async () => {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=en`);
  await page.waitForFunction(() => performance.getEntriesByName('attention-lab:mounted').length > 0);
  const changed = () => page.evaluate(async () => {
    const sec = document.querySelector('.lab-section[data-section="18.4"]');
    const seen = [];
    const mo = new MutationObserver((ms) => {
      for (const m of ms) {
        const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        // <html data-url-due> says that the URL will be written (no style rule reads it)
        if (!el.closest('table.heatmap') && m.attributeName !== 'data-url-due') seen.push(`${m.type} ${m.attributeName ?? ''} ${el.tagName} ${el.dataset.name ?? el.className}`);
      }
    });
    mo.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
    sec.querySelector('[data-name="causal"]').click();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    mo.disconnect();
    return seen;
  });
  await sec(page, '18.4').scrollIntoViewIfNeeded();
  // what comes after the load is done: the progress view has counted the visit, and every
  // lesson formula has its MathML back (mathml-later.js)
  await page.waitForFunction(() => document.querySelector('.progress-table tr[data-section="18.4"] td.yes')
    && !document.querySelector('.katex[data-tex] .katex-mathml:empty'));
  assert.deepEqual(await changed(), [], 'the mask off: only the heatmap changed');
  // and the heatmap did change: row 0 now gives weight to position 5, which the mask had hidden
  assert.ok((await heatmapValues(fig(page, '18.4', 'w-head')))[0][5] > 0, 'the mask off: the future has weight');
  const cdp = await page.context().newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline.invalidationTracking' });
  assert.deepEqual(await changed(), [], 'the mask on again: only the heatmap changed');
  assert.equal((await heatmapValues(fig(page, '18.4', 'w-head')))[0][5], 0, 'the mask on: exactly zero weight on the future');
  await cdp.send('Tracing.end');
  await done;
  const restyles = events.filter((e) => e.name === 'StyleRecalcInvalidationTracking').map((e) => e.args.data);
  assert.ok(restyles.some((d) => d.nodeName.startsWith('TD') && /style/i.test(d.reason)), 'the trace has the cells\' new colours');
  // only the section (its `:has(> .lab-pending)`) and the figures in it (their error outline's)
  const inside = new Set(await page.$$eval('.lab-section[data-section="18.4"], .lab-section[data-section="18.4"] figure[id]', (els) => els.map((e) => e.id)));
  const byHas = restyles.filter((d) => /:has\(\)/.test(d.reason)).map((d) => d.nodeName);
  assert.ok(byHas.every((n) => inside.has(/ id='([^']*)'/.exec(n)?.[1])), `restyled by a :has() rule: ${[...new Set(byHas)]}`);
  // and once the other two maps are shown (the prediction skipped), a toggle changes the three maps alone
  await sec(page, '18.4').locator('button.show-scales').click();
  await sec(page, '18.4').getByRole('button', { name: 'Skip, just switch' }).click();
  await fig(page, '18.4', 'w-none').waitFor();
  assert.deepEqual(await changed(), [], 'revealed: only the heatmaps changed');
  for (const name of ['w-head', 'w-model', 'w-none']) assert.ok((await heatmapValues(fig(page, '18.4', name)))[0][5] > 0, `${name}: the mask off`);
  assert.deepEqual(errors, []);
  await page.close();
});

// A lesson's formulas show their picture at once and get their MathML (what screen readers read)
// back in the idle moments after the first frame, a few per moment, or all at once before printing
// (web/src/mathml-later.js); the accessibility tree then has every formula as math.
test('a lesson\'s MathML comes back in idle moments, or before printing, and screen readers get every formula', async () => {
  const mathNodes = async (page) => {
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    await cdp.detach();
    return nodes.filter((n) => !n.ignored && n.role?.value === 'MathMLMath').length;
  };
  const formulas = (page) => sec(page, '18.3').locator('.lesson .katex').evaluateAll((ks) => ks.map((k) => ({
    picture: !!k.querySelector('.katex-html'), maths: k.querySelectorAll('.katex-mathml > math').length,
    tex: k.querySelector('.katex-mathml annotation[encoding="application/x-tex"]')?.textContent ?? null, dataTex: k.dataset.tex ?? null })));
  const { page, errors } = await openHeld('?embed=18.3&lang=en');
  const before = await formulas(page);
  assert.ok(before.length > 20, `${before.length} formulas`);
  assert.ok(before.every((f) => f.picture && f.maths === 0 && f.dataTex), 'pictures now, MathML held back, the TeX in data-tex');
  assert.equal(await mathNodes(page), 0);
  // one idle moment puts back eight, and asks for another
  await page.evaluate(() => window.__idle.shift()({ timeRemaining: () => 50, didTimeout: false }));
  assert.equal((await formulas(page)).filter((f) => f.maths === 1).length, 8);
  await page.evaluate(() => { while (window.__idle.length) window.__idle.shift()({ timeRemaining: () => 50, didTimeout: false }); });
  const after = await formulas(page);
  assert.ok(after.every((f) => f.maths === 1 && f.tex && f.tex === f.dataTex), 'every formula has its MathML, with its TeX');
  assert.ok(after.some((f) => f.tex.includes('\\sqrt')), 'the TeX is the lesson\'s');
  const open = await sec(page, '18.3').locator('.lesson .katex-mathml > math').evaluateAll((ms) => ms.filter((m) => !m.closest('details:not([open])')).length);
  assert.ok(open > 20 && await mathNodes(page) >= open, 'screen readers get the lesson\'s formulas (those in closed details aside)');
  assert.deepEqual(errors, []);
  await page.close();

  const printed = await openHeld('?embed=18.3&lang=zh');
  assert.ok((await formulas(printed.page)).every((f) => f.maths === 0));
  await printed.page.evaluate(() => dispatchEvent(new Event('beforeprint')));
  assert.ok((await formulas(printed.page)).every((f) => f.maths === 1), 'all back before printing');
  assert.deepEqual(printed.errors, []);
  await printed.page.close();
});

// An embedded section is interactive before its exercises exist: they are built in the first idle
// moment after its lab (18.8's build a model to read its given V), and then the page marks
// attention-lab:mounted. A click on the progress view's link to one builds them at once.
test('an embedded section builds its exercises in the first idle moment, or when a link to one is clicked', async () => {
  const { page, errors } = await openHeld('?embed=18.8&lang=en');
  const s8 = sec(page, '18.8');
  assert.equal(await s8.locator('.lab').count(), 1, 'the lab is built');
  assert.equal(await s8.locator('.exercise').count(), 0, 'its exercises wait');
  assert.equal(await marked(page, 'attention-lab:mounted'), false);
  await page.evaluate(() => { for (const f of window.__idle.splice(0)) f({ timeRemaining: () => 50, didTimeout: false }); });
  await labMounted(page);
  // lesson, lab, status line, then the exercises, with their given values from the core
  assert.deepEqual(await s8.evaluate((el) => [...el.children].map((c) => c.className.split(' ')[0] || c.tagName.toLowerCase())),
    ['h2', 'lesson', 'lab', 'status', 'exercises']);
  assert.equal(await s8.locator('.exercise').count(), 2);
  assert.match(await s8.locator('.exercise').first().textContent(), /V = \d+/);
  assert.deepEqual(errors, []);
  await page.close();

  const held = await openHeld('?embed=18.3&lang=en');
  const link = held.page.locator('a.ex-status').first();
  const target = held.page.locator(`[id="${(await link.getAttribute('href')).slice(1)}"]`);
  assert.equal(await target.count(), 0);
  await link.evaluate((a) => a.click());   // the link is in the progress view's folded table
  assert.equal(await target.count(), 1, 'the link found its exercise');
  await labMounted(held.page);
  assert.deepEqual(held.errors, []);
  await held.page.close();

  // a course page pointing the frame at an exercise (the hash changes), and printing, build them too
  const hashed = await openHeld('?embed=18.7&lang=en');
  await hashed.page.evaluate(() => { location.hash = '#ex-ex-18.7-eval'; });
  await hashed.page.locator('[id="ex-ex-18.7-eval"]').waitFor();
  await labMounted(hashed.page);
  await hashed.page.close();
  const printed = await openHeld('?embed=18.2&lang=en');
  assert.equal(await printed.page.locator('.exercise').count(), 0);
  await printed.page.evaluate(() => dispatchEvent(new Event('beforeprint')));
  assert.ok(await printed.page.locator('.exercise').count() > 0, 'built before printing');
  await labMounted(printed.page);
  assert.deepEqual([...hashed.errors, ...printed.errors], []);
  await printed.page.close();
});

// The progress table links to every exercise; one whose section is not built yet is built when
// the link is followed (a click, or the hash typed into the address bar), and shown.
test('a link to an exercise not built yet builds its section and shows the exercise', async () => {
  const { page, errors } = await openHeld('?lang=en');
  const inView = (id) => page.waitForFunction((i) => {
    const el = document.getElementById(i);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    return r.top < innerHeight && r.bottom > 0;
  }, id);
  for (const id of ['18.4', '18.8']) assert.equal(await sec(page, id).locator('.exercise').count(), 0, `${id} waits`);
  await page.locator('details.progress-view > summary').click();
  await page.locator('a.ex-status[data-ex="ex-18.4-head"]').click();
  await inView('ex-ex-18.4-head');
  assert.equal(await sec(page, '18.4').locator('> .lab').count(), 1, 'its lab too');
  assert.equal(await sec(page, '18.8').locator('.exercise').count(), 0, '18.8 still waits');
  await page.evaluate(() => { location.hash = '#ex-ex-18.8-init'; });   // typed into the address bar
  await inView('ex-ex-18.8-init');
  assert.match(await page.locator('#ex-ex-18\\.8-init .given').textContent(), /^V = \d+$/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The lessons (web/lessons-plugin.js, vite.config.js): the whole page fetches every lesson of its
// language in one chunk and not the other language's, and still names every section in both the
// contents and its lessons; an embedded section fetches its own lesson's chunk and no other.
test('a page fetches the lessons of its own language only, an embed its own section\'s', async () => {
  // chunk files are named <name>-<8 characters of hash>.js
  const lessonChunks = (urls) => urls.map((u) => /\/(lessons-(?:en|zh)|lesson-[\w.]+-(?:en|zh))-[\w-]{8}\.js$/.exec(u)?.[1]).filter(Boolean).sort();
  for (const [lang, other, title] of [['en', 'zh', '18.3 Q, K and V'], ['zh', 'en', '18.3 Q、K、V']]) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const urls = [];
    page.on('request', (r) => urls.push(r.url()));
    await page.goto(`${server.url}?lang=${lang}`);
    await interactive(page);
    assert.deepEqual(lessonChunks(urls), [`lessons-${lang}`], `${lang}: its lessons, in one chunk: ${urls.join(' ')}`);
    const toc = await page.locator('nav.toc li').allTextContents();
    assert.equal(toc.length, SECTIONS.length);
    const at = SECTIONS.findIndex((s) => s.id === '18.3');
    assert.ok(toc[at].startsWith(title), `${lang} contents: ${toc[at]}`);
    assert.equal(await sec(page, '18.3').locator('h2').textContent(), toc[at]);
    assert.equal(await page.locator('.lesson').count(), SECTIONS.length, `${lang}: every section's lesson`);
    await page.close();
  }
  for (const [query, want, title, words] of [['?lang=en&embed=18.3', ['lesson-18.3-en'], '18.3 Q, K and V', 'three projections'],
    ['?lang=zh&embed=18.8', ['lesson-18.8-zh'], '18.8', '字符'], ['?lang=en&embed=exercises', ['lesson-exercises-en'], 'Exercises', 'Three questions from the end of the chapter']]) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const urls = [];
    page.on('request', (r) => urls.push(r.url()));
    await page.goto(server.url + query);
    await interactive(page);
    assert.deepEqual(lessonChunks(urls), want, `${query}: ${urls.join(' ')}`);
    assert.ok((await page.locator('.lab-section h2').textContent()).startsWith(title), query);
    assert.ok((await page.locator('.lesson').first().textContent()).includes(words), `${query}: its lesson's text`);
    await page.close();
  }
});

// Every chunk of code, the page's and the element's, starts with V8's compile hint (vite.config.js,
// compileHints: minification would drop it, so it is written after); the lessons and the training
// texts, which are data, do not.
test('the code chunks carry the compile hint, the data chunks do not', () => {
  for (const dir of ['../../dist/assets/', '../../dist/element/assets/', '../../dist/element/']) {
    const files = readdirSync(new URL(dir, import.meta.url)).filter((f) => f.endsWith('.js'));
    const data = /^(lessons?-|notebook-text-|speeches|poems)/;
    assert.ok(files.some((f) => !data.test(f)) && (dir.endsWith('element/') || files.some((f) => data.test(f))), `${dir}: ${files.join(' ')}`);
    for (const f of files) {
      const head = readFileSync(new URL(dir + f, import.meta.url), 'utf8').slice(0, 40);
      assert.equal(head.startsWith('//# allFunctionsCalledOnLoad\n'), !data.test(f), `${dir}${f}: ${head}`);
    }
  }
});

// A lesson chunk that cannot be fetched (the network dropped) is a message that says what to do,
// in the page's language, never a blank page; the worksheet says the same.
test('a lesson chunk that fails to load is a message, not a blank page', async () => {
  for (const [query, said] of [['?lang=en&embed=18.3', /^Part of the lab \(lessons or controls\) could not be loaded; check the connection and reload the page: /],
    ['?lang=zh', /^实验的一部分（章节的讲解或控件）没能加载，请检查网络后刷新页面：/], ['?lang=en&print=worksheet', /^Part of the lab /]]) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route(/\/lessons?-[\w.]*-?(en|zh)-[\w-]+\.js$/, (route) => route.abort());
    await page.goto(server.url + query);
    const message = page.locator('main p.loading.error');
    await message.waitFor();
    assert.match(await message.textContent(), said, query);
    await page.close();
  }
});

// Each section's controller is a chunk of its own (web/lessons-plugin.js): an embedded section
// fetches its own code and no other section's, and the whole page fetches every section's.
test('an embedded section fetches its own section\'s code only', async () => {
  const sectionChunks = (urls) => urls.filter((u) => /\/s18-\d-[\w-]+\.js$/.test(u)).map((u) => u.match(/\/(s18-\d)-/)[1]).sort();
  for (const [query, want] of [['?lang=en&embed=18.3', ['s18-3']], ['?lang=zh&embed=18.8', ['s18-8']], ['?lang=en&embed=exercises', []],
    ['?lang=en', LABS.map((id) => `s${id.replace('.', '-')}`)]]) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const urls = [];
    page.on('request', (r) => urls.push(r.url()));
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server.url + query);
    await interactive(page);
    assert.deepEqual(sectionChunks(urls), want, `${query}: ${urls.join(' ')}`);
    assert.deepEqual(errors, [], query);
    await page.close();
  }
});

// The same for a section's code: its chunk failing is the same message, on the page and embedded.
test('a section\'s code chunk that fails to load is a message, not a blank page', async () => {
  for (const query of ['?lang=en&embed=18.3', '?lang=en']) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route(/\/s18-3-[\w-]+\.js$/, (route) => route.abort());
    await page.goto(server.url + query);
    const message = page.locator('main p.loading.error');
    await message.waitFor();
    assert.match(await message.textContent(), /^Part of the lab \(lessons or controls\) could not be loaded; check the connection and reload the page: /, query);
    await page.close();
  }
});

// "Check my numbers" and "Show as PyTorch" fetch their code on their first opening
// (widgets/lazy-panel.js, widgets/pytorch-panel.js): a page that is never asked for a check or a
// program never downloads them. A fetch that fails is a message in the panel, in the page's
// language, and the next opening tries again and works.
test('the check panel\'s and the PyTorch programs\' code is fetched on first opening; a failed fetch says so and is retried', async () => {
  const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  let fail = true;
  await page.route(/\/(check-panel|pytorch-programs)-[\w-]+\.js$/, (route) => (fail ? route.abort() : route.continue()));
  await page.goto(`${server.url}?lang=en&embed=18.3`);
  await interactive(page);
  await labMounted(page);
  const fetched = (name) => urls.filter((u) => new RegExp(`/${name}-[\\w-]+\\.js$`).test(u)).length;
  assert.equal(fetched('check-panel'), 0, 'the check panel waits for its first opening');
  assert.equal(fetched('pytorch-programs'), 0, 'the programs wait for the PyTorch panel\'s first opening');

  const check = sec(page, '18.3').locator('details.check-panel'), program = sec(page, '18.3').locator('details.pytorch-panel');
  assert.equal(await check.locator(':scope > summary').textContent(), 'Check my numbers');
  const failed = /^This panel’s code could not be loaded\. Check the connection, then close the panel and open it again: /;
  // before the programs are here, nothing can be copied or saved
  assert.equal(await program.locator('button.pytorch-copy').isDisabled(), true);
  assert.equal(await program.locator('pre.pytorch-code').isHidden(), true);
  await check.locator(':scope > summary').click();
  await page.waitForFunction((el) => el.textContent.length > 0, await check.locator('p.lazy-error').elementHandle());
  assert.match(await check.locator('p.lazy-error').textContent(), failed);
  assert.equal(await check.getAttribute('aria-busy'), null, 'not busy once it failed');
  await program.locator(':scope > summary').click();
  await program.locator('.pytorch-note:not([hidden])').waitFor();
  assert.match(await program.locator('.pytorch-note').textContent(), failed);
  assert.equal(await program.locator('button.pytorch-copy').isDisabled(), true);
  // the messages (with the chunk's URL in them) stay inside their panels on a phone
  await page.setViewportSize({ width: 390, height: 900 });
  for (const line of [check.locator('p.lazy-error'), program.locator('.pytorch-note')]) {
    assert.ok(await line.evaluate((el) => el.scrollWidth <= el.clientWidth), await line.textContent());
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // an edit while the panel is open and failed does not fetch again: the next opening does
  await sec(page, '18.3').locator('[data-name="x"] input[data-row="0"][data-col="0"]').fill('3');
  await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.3"] [data-name="y"] td[data-value]'));
  assert.equal(fetched('check-panel'), 1);
  assert.equal(fetched('pytorch-programs'), 1);

  fail = false;   // the connection is back: closing and opening again fetches and builds
  for (const panel of [check, program]) {
    await panel.locator(':scope > summary').click();
    await panel.locator(':scope > summary').click();
  }
  await check.locator('textarea.check-paste').waitFor();
  assert.equal(await check.locator('p.lazy-error').textContent(), '', 'the message goes once the panel is built');
  assert.equal(fetched('check-panel'), 2);
  await page.waitForFunction((el) => el.textContent.startsWith('# Attention Lab 18.3'), await program.locator('[data-pytorch]').elementHandle());
  assert.equal(await program.locator('.pytorch-note').isHidden(), true);
  // the built panel works: the section's own output, pasted, is correct
  const out = await heatmapValues(fig(page, '18.3', 'y'));
  await check.locator('textarea.check-paste').fill(JSON.stringify(out));
  await check.locator('button.check-run').click();
  await page.waitForFunction((el) => el.dataset.verdict, await check.locator('.check-result').elementHandle());
  assert.equal(await check.locator('.check-result').getAttribute('data-verdict'), 'correct');
  assert.deepEqual(errors, []);
  await page.close();
});

// A file dropped on the check panel before its code is here is the panel's: the panel opens,
// fetches its code and checks the file (not the section, which would take it for a state file).
test('a CSV dropped on the closed check panel opens it, fetches its code and is checked', async () => {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=en&embed=18.3`);
  await interactive(page);
  await labMounted(page);
  const check = sec(page, '18.3').locator('details.check-panel');
  assert.equal(await check.evaluate((d) => d.open), false);
  const csv = (await heatmapValues(fig(page, '18.3', 'y'))).map((row) => row.join(',')).join('\n');
  await check.evaluate((el, text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'mine.csv', { type: 'text/csv' }));
    el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, csv);
  await page.waitForFunction((el) => el.dataset.verdict, await check.locator('.check-result').elementHandle());
  assert.equal(await check.evaluate((d) => d.open), true);
  assert.equal(await check.locator('.check-result').getAttribute('data-verdict'), 'correct');
  assert.equal(await sec(page, '18.3').locator('.status.error').count(), 0, 'not taken for a state file');
  assert.deepEqual(errors, []);
  await page.close();
});
