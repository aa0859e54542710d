// Accessibility (WCAG 2.1 AA) of the built lab in headless Chromium, in both languages.
//
// 1. axe-core (rule sets wcag2a, wcag2aa, wcag21a, wcag21aa, best-practice) over every section in
//    each state that renders differently, one page load per language and group of states:
//      default    the whole page as it opens (with the progress view), at 1280 px and at 320 px
//      large      canvas heatmaps with their tables opened (18.4 and 18.3 at T = 64: three
//                 4,096-cell tables in 18.4), the charts' data tables, 18.4's prediction answered
//      input      a core error shown beside its control, a bad matrix cell, an out-of-range number,
//                 a URL notice, a prediction asked (18.3), exercises
//                 answered (right, wrong with a diagnosis, unreadable) with every hint and
//                 solution open, the progress view open with "forget" asked, and 18.8 after a few
//                 training steps with its data table open
//      embed      every section in an iframe (?embed=<id>) of a host page
//      single     the single-file build (dist/attention-lab.html) opened from disk, and as a
//                 SCORM package launches it (?embed=18.3&solutions=0 beside a SCORM 1.2 API)
//      worksheet  ?print=worksheet&key=1 (every section's exercises and the answer key)
//      element    the <attention-lab> web component (dist/element/) on a host page, two sections
//    Zero violations, except those in EXCEPTIONS (each with its reason).
// 2. The keyboard: Tab reaches every control of the page once, in document order, and each shows a
//    focus ring of at least 2 px and 3:1 against what surrounds it; the controls work from the keys.
// 3. prefers-reduced-motion: nothing moves on the page when the student asks for reduced motion.
// 4. Charts and heatmaps carry their numbers in text: every chart is a named image with a named
//    data table reachable by keyboard; every heatmap cell has a label; a canvas heatmap has a name.
// Reflow (320 px) and 200 % zoom are checked by layout.test.mjs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, symlinkSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve, launch, openPage, blankPage, sec, fig, labMounted } from './harness.mjs';
import { contrastRatio } from '../../web/src/widgets/contrast.js';
import { SECTIONS } from '../../web/src/sections/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIST = join(ROOT, 'dist');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const LANGS = ['zh', 'en'];

// Violations accepted, each with its reason: {rule, target (a RegExp on the node's selector), reason}.
const EXCEPTIONS = [];

// A course page hosting the web component: the element's files in a subfolder, as a course site has them.
const HOST = (lang) => `<!doctype html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>Course page</title>
<script type="module" src="lab/attention-lab.js"></script></head>
<body><main><h1>Week 6</h1>
<attention-lab section="18.2" lang="${lang}"></attention-lab>
<attention-lab section="18.3" lang="${lang}"></attention-lab>
</main></body></html>`;

let server, chrome, hostDir, hostServer;
before(async () => {
  server = await serve(DIST);
  hostDir = mkdtempSync(join(tmpdir(), 'attention-lab-a11y-'));
  symlinkSync(join(DIST, 'element'), join(hostDir, 'lab'));
  for (const lang of LANGS) writeFileSync(join(hostDir, `host-${lang}.html`), HOST(lang));
  hostServer = await serve(hostDir);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.close();
  hostServer?.close();
  if (hostDir) rmSync(hostDir, { recursive: true, force: true });
});

const mounted = '.lab-section[data-section="18.7"], body.embed .lab-section .lab, body.embed .lab-section .lesson';
// an embedded section builds its exercises after its lab (mount.js, exercisesWhenIdle): audited with them
const embedMounted = () => !document.body.classList.contains('embed') || performance.getEntriesByName('attention-lab:mounted').length > 0;
async function open(query, url = server.url) {
  const r = await openPage(chrome.browser, url + query);
  await r.page.waitForSelector(mounted);
  await r.page.waitForFunction(embedMounted);
  return r;
}

/** axe-core in a page or frame: the violations as readable lines, less the exceptions. */
async function audit(target, where) {
  // every section laid out (off-screen sections skip layout: content-visibility: auto), so that
  // colours and sizes are measured as a student who scrolls there sees them
  await target.evaluate(() => {
    for (const s of document.querySelectorAll('.lab-section')) s.style.contentVisibility = 'visible';
  });
  if (!(await target.evaluate(() => 'axe' in window))) await target.evaluate(AXE);
  const violations = await target.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 160), summary: n.failureSummary })) }));
  }, TAGS);
  const lines = [];
  for (const v of violations) {
    const nodes = v.nodes.filter((n) => !EXCEPTIONS.some((e) => e.rule === v.id && e.target.test(n.target)));
    if (nodes.length) {
      lines.push(`${where}: ${v.id} (${v.impact}, ${nodes.length} node${nodes.length > 1 ? 's' : ''}): ${v.help}\n` +
        nodes.slice(0, 4).map((n) => `    ${n.target}  ${n.html}\n      ${n.summary.replace(/\n/g, '\n      ')}`).join('\n'));
    }
  }
  return lines;
}

/** Open every <details> that matches, and resolve once each has fired its 'toggle' (a task after
 * `open` is set): the widgets build a table's rows in their own toggle handler, which runs first.
 * A panel whose code is fetched on opening (widgets/lazy-panel.js, the PyTorch panel) is
 * aria-busy until it is built: resolve once none is. */
async function openAll(page, selector) {
  await page.locator(selector).evaluateAll((els) => Promise.all(els.filter((d) => !d.open).map((d) => new Promise((resolve) => {
    d.addEventListener('toggle', resolve, { once: true });
    d.open = true;
  }))));
  await page.waitForFunction((sel) => ![...document.querySelectorAll(sel)].some((d) => d.hasAttribute('aria-busy')), selector);
}

for (const lang of LANGS) {
  test(`axe (${lang}): the whole page at its default state`, async () => {
    const { page, errors } = await open(`?lang=${lang}`);
    const problems = await audit(page, 'default');
    // and on a 320 px phone, where wide matrices and formulas scroll in their own boxes
    await page.setViewportSize({ width: 320, height: 640 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    problems.push(...await audit(page, 'default at 320 px'));
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`axe (${lang}): canvas heatmaps with their tables open (T = 64), the charts' data tables, a prediction answered`, async () => {
    const x64 = Array.from({ length: 64 }, (_, i) => `${(i % 5) - 2},${(i % 3) * 0.5}`).join(';');
    const { page, errors } = await open(`?lang=${lang}&s4.T=64&s3.x=${x64}`);
    // 18.4 shows √C and no scaling once the student has predicted: predict, and see the verdict
    await sec(page, '18.4').locator('button.show-scales').click();
    const predict = fig(page, '18.4', 'predict-scale');
    await predict.locator('input[type="radio"]').first().check();
    await predict.locator('button[data-act="predict"]').click();
    await predict.locator('.predict-message:not(:empty)').waitFor();
    // three 64 × 64 maps in 18.4; in 18.3 S and A, and Q, K, V and Y, 64 rows each (past 32 rows a map is a canvas)
    assert.equal(await page.locator('canvas.heatmap-canvas:visible').count(), 9, 'the canvas maps at T = 64');
    // one 4,096-cell table per section (its other maps' tables are built by the same code; axe over
    // five such tables took 30 s), and every chart's data table
    await openAll(page, '.lab-section[data-section="18.4"] [data-name="w-head"] details.heatmap-table');
    await openAll(page, '.lab-section[data-section="18.3"] [data-name="a"] details.heatmap-table');
    await openAll(page, 'details.chart-data');
    await page.waitForFunction(() => [...document.querySelectorAll('details.heatmap-table[open]')].every((d) => d.querySelector('tbody td'))
      && document.querySelectorAll('details.heatmap-table[open]').length === 2);
    assert.ok(await sec(page, '18.4').locator('details.heatmap-table tbody td').count() >= 64 * 64);
    assert.ok(await sec(page, '18.3').locator('details.heatmap-table tbody td').count() >= 64 * 64);
    assert.equal(await sec(page, '18.4').locator('details.chart-data table').count(), 2);
    assert.deepEqual(await audit(page, 'canvas maps'), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`axe (${lang}): errors shown, exercises answered with hints and solutions open, 18.8 after training steps`, async () => {
    // 18.5: a learned table shorter than T is the core's error; s2.dim=9 is a bad URL value (notice)
    const { page, errors } = await open(`?lang=${lang}&s5.pos=learned&s5.tmax=2&s2.dim=9`);
    await sec(page, '18.5').locator('.cell-error:visible').first().waitFor();   // the core's error, beside T_max
    assert.equal(await page.locator('.notice').count(), 1, 'URL notice shown');
    await fig(page, '18.1', 'x').locator('input[data-row="1"][data-col="0"]').fill('abc');
    assert.equal(await fig(page, '18.1', 'x').locator('.cell-error').isVisible(), true, 'bad cell explained');
    await sec(page, '18.4').locator('input[data-name="T"]').fill('999');
    assert.equal(await sec(page, '18.4').locator('.cell-error').first().isVisible(), true, 'out-of-range number explained');
    const ex = (id) => page.locator(`[data-exercise="${id}"]`);
    const answer = async (id, values) => {
      for (const [i, v] of values.entries()) await ex(id).locator('input[type="text"]').nth(i).fill(v);
      await ex(id).locator('button[type="submit"]').click();
    };
    await answer('ex-18.3-score', ['√2/2']);     // right, read as a number
    await answer('ex-18.4-head', ['1']);         // wrong, with a diagnosis
    await answer('ex-18.2-after', ['1//2']);     // unreadable
    await ex('ex-chapter-2').locator('input[value="1"]').check();
    await ex('ex-chapter-2').locator('button[type="submit"]').click();
    assert.equal(await page.locator('.feedback .diagnosis').count(), 2);
    await openAll(page, 'details.hint, details.solution');
    // predictions: 18.3's asked and left open, 18.2's answered
    await fig(page, '18.3', 'causal').click();
    await fig(page, '18.3', 'predict-causal').locator('form').waitFor();
    // the progress view open, "forget my progress" asked
    await openAll(page, 'details.progress-view');
    await page.locator('button.forget').click();
    await page.locator('.forget-confirm:visible').waitFor();
    // 18.8: a few training steps, paused, with the loss table open
    const s8 = sec(page, '18.8');
    await s8.locator('[data-name="start"]').click();
    await page.waitForFunction(() => Number(document.querySelector('.lab-section[data-section="18.8"] dl[data-name="stats"] dd')?.textContent) >= 3);
    await s8.locator('[data-name="pause"]').click();
    await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.8"] dl[data-name="future"] dd'));
    await openAll(page, '.lab-section[data-section="18.8"] details');
    assert.ok(await s8.locator('details.chart-data tbody tr').count() >= 1);
    assert.deepEqual(await audit(page, 'input'), []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`axe (${lang}): every section embedded (?embed=<id>) in a host page`, async () => {
    const { page } = await blankPage(chrome.browser, server, { viewport: { width: 1000, height: 900 } });   // the host: an empty page of the same server, one iframe per section
    await page.evaluate(({ base, ids, lang: l }) => {
      document.body.replaceChildren(...ids.map((id) => Object.assign(document.createElement('iframe'),
        { src: `${base}?embed=${id}&lang=${l}`, title: id, style: 'width: 700px; height: 600px; border: 0' })));
    }, { base: server.url, ids: SECTIONS.map((s) => s.id), lang });
    const problems = [];
    for (const { id } of SECTIONS) {
      const frame = () => page.frames().find((f) => f.url().includes(`embed=${id}&`));
      await page.waitForFunction((sel) => [...document.querySelectorAll('iframe')].every((f) => f.contentDocument?.querySelector(sel)
        && f.contentWindow.performance.getEntriesByName('attention-lab:mounted').length > 0), mounted);
      assert.equal(await frame().evaluate(() => document.body.classList.contains('embed')), true, id);
      problems.push(...await audit(frame(), `embed ${id}`));
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test(`axe (${lang}): the single-file build opened from disk, and as a SCORM package launches it`, async () => {
    const file = pathToFileURL(join(DIST, 'attention-lab.html')).href;
    const { page, errors } = await open(`?lang=${lang}`, file);
    const problems = await audit(page, 'single file');
    await page.close();
    // a platform's launch: one section, solutions hidden, a SCORM 1.2 API in the window
    const scorm = await chrome.browser.newPage({ viewport: { width: 1000, height: 900 } });
    await scorm.addInitScript(() => {
      const data = {};
      window.API = { LMSInitialize: () => 'true', LMSFinish: () => 'true', LMSCommit: () => 'true', LMSGetLastError: () => '0',
        LMSGetErrorString: () => '', LMSGetDiagnostic: () => '', LMSGetValue: (k) => data[k] ?? '', LMSSetValue: (k, v) => { data[k] = String(v); return 'true'; } };
    });
    await scorm.goto(`${file}?embed=18.3&lang=${lang}&solutions=0`);
    await scorm.waitForSelector(mounted);
    await scorm.waitForFunction(embedMounted);
    problems.push(...await audit(scorm, 'SCORM launch'));
    await scorm.close();
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
  });

  test(`axe (${lang}): the worksheet (?print=worksheet with the answer key)`, async () => {
    const { page } = await blankPage(chrome.browser, server, { viewport: { width: 1000, height: 900 } });
    await page.goto(`${server.url}?print=worksheet&key=1&lang=${lang}`);
    await page.waitForSelector('article.worksheet .ws-key');
    assert.deepEqual(await audit(page, 'worksheet'), []);
    await page.close();
  });

  test(`axe (${lang}): the <attention-lab> web component on a course page`, async () => {
    const page = await chrome.browser.newPage({ viewport: { width: 1000, height: 900 } });
    await page.goto(`${hostServer.url}host-${lang}.html`);
    await page.waitForFunction(() => [...document.querySelectorAll('attention-lab')].every((el) => el.shadowRoot?.querySelector('.lab-section .lab')));
    assert.deepEqual(await audit(page, 'element'), []);
    await page.close();
  });
}

// ---- the keyboard ----

/** In the page: the controls Tab should reach, in document order, each marked with data-tab="k". A
 * radio group is one stop (its checked radio, or its first). */
function tabStops() {
  const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible' && !el.closest('[hidden], details:not([open]) > :not(summary)');
  const groups = new Set();
  const stops = [];
  for (const el of document.querySelectorAll(sel)) {
    // the provenance panel is rebuilt (and moved) for each cell explained: its buttons are not fixed stops
    if (el.disabled || el.tabIndex < 0 || !shown(el) || el.closest('div.provenance')) continue;
    if (el.type === 'radio') {
      const group = [...document.getElementsByName(el.name)].filter(shown);
      if (groups.has(el.name)) continue;
      groups.add(el.name);
      const stop = group.find((r) => r.checked) ?? group[0];
      if (stop !== el && !group.find((r) => r.checked)) continue;
      stop.dataset.tab = String(stops.length);
      stops.push(stop);
      continue;
    }
    el.dataset.tab = String(stops.length);
    stops.push(el);
  }
  return stops.length;
}

/** In the page: the focused element's tab index, and what its focus ring looks like. */
function focusRing() {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  // the colour around the ring: the first ancestor (from the parent) with an opaque background
  let around = 'rgb(255, 255, 255)';
  for (let a = el.parentElement; a; a = a.parentElement) {
    const bg = getComputedStyle(a).backgroundColor;
    if (!/rgba\(.*, 0\)$|transparent/.test(bg)) { around = bg; break; }
  }
  return { tab: el.dataset.tab ?? null, inPanel: !!el.closest('div.provenance'), what: `${el.tagName.toLowerCase()}${el.dataset.name ? `[${el.dataset.name}]` : ''} "${(el.getAttribute('aria-label') ?? el.textContent).trim().slice(0, 30)}"`,
    style: cs.outlineStyle, width: parseFloat(cs.outlineWidth), colour: cs.outlineColor, around, focusVisible: el.matches(':focus-visible') };
}

const rgb = (css) => (/rgba?\((\d+), (\d+), (\d+)/.exec(css) ?? [0, 0, 0, 0]).slice(1, 4).map(Number);

test('keyboard (en): Tab reaches every control once, in document order, each with a visible focus ring of 3:1', async () => {
  const { page, errors } = await open('?lang=en&s4.T=64');   // T = 64: the canvas heatmaps are stops too
  // 18.8 loads its text when it comes into view and then draws its future strip and attention
  // maps (each with an export menu); a matrix too wide for its box becomes a tab stop of its own
  // once it is laid out (keyboardScrollable, on a ResizeObserver). So: every lab built, 18.8 in view
  // until it shows the untrained model's check and maps, every section laid out (no
  // content-visibility skipping), two frames for the observers; then the stops are counted.
  await labMounted(page);
  await page.waitForFunction(() => {
    const s8 = document.querySelector('.lab-section[data-section="18.8"]');
    s8.querySelector('[data-name="start"]').scrollIntoView({ block: 'center' });   // the model is built when its controls are in view
    return s8.querySelector('dl[data-name="future"] dd.prefix') && s8.querySelector('[data-name="future"] tbody tr')
      && s8.querySelectorAll('[data-name^="attn-"] tbody tr').length > 0 && s8.querySelectorAll('[data-name^="attn-"]').length === 8;
  }, null, { polling: 250 });
  await page.evaluate(() => {
    for (const s of document.querySelectorAll('.lab-section')) s.style.contentVisibility = 'visible';
    return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  await page.evaluate(() => window.scrollTo(0, 0));
  const n = await page.evaluate(tabStops);
  assert.ok(n > 100, `${n} stops`);
  const seen = [], rings = [];
  for (let k = 0; k < n; k++) {
    // the walk starts at the first stop (the first walk left Chromium's starting point elsewhere), then Tab
    if (k === 0) await page.evaluate(() => document.querySelector('[data-tab="0"]').focus());
    else await page.keyboard.press('Tab');
    const f = await page.evaluate(focusRing);
    if (f.inPanel && f.tab === null) { k -= 1; continue; }   // a button of the explanation the cell just focused opened (18.8's maps: "Show all")
    seen.push(f.tab === null ? `outside: ${f.what}` : Number(f.tab));
    if (f.tab === null) continue;
    const problem = !f.focusVisible ? 'not :focus-visible' : f.style === 'none' ? 'no outline' : f.width < 2 ? `outline ${f.width} px`
      : contrastRatio(rgb(f.colour), rgb(f.around)) < 3 ? `outline ${f.colour} on ${f.around}: ${contrastRatio(rgb(f.colour), rgb(f.around)).toFixed(2)}:1` : null;
    if (problem) rings.push(`${f.what}: ${problem}`);
  }
  const missed = await page.evaluate((got) => [...document.querySelectorAll('[data-tab]')].filter((el) => !got.includes(Number(el.dataset.tab)))
    .map((el) => el.outerHTML.slice(0, 160)), seen.filter(Number.isInteger));
  assert.deepEqual(seen.filter((s) => typeof s === 'string'), [], `focus never lands on something that is not a control (stops never reached: ${missed.join(' | ')}; around the first gap: ${JSON.stringify(seen.slice(Math.max(0, seen.findIndex((v, k) => v !== k) - 3), seen.findIndex((v, k) => v !== k) + 3))})`);
  assert.deepEqual(seen, Array.from({ length: n }, (_, k) => k), 'every stop once, in document order');
  assert.deepEqual([...new Set(rings)], []);
  assert.deepEqual(errors, []);
  await page.close();
});

test('keyboard (en): each kind of control works from the keys', async () => {
  const { page, errors } = await open('?lang=en&s4.T=64');
  const key = async (locator, ...keys) => { await locator.focus(); for (const k of keys) await page.keyboard.press(k); };
  // a matrix cell: type a number, the result follows
  const cell = fig(page, '18.1', 'x').locator('input[data-row="0"][data-col="0"]');
  await key(cell, 'Control+A', '6', 'Tab');
  await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.1"] [data-name="y0"] tbody tr td')?.dataset.value === '6');
  // a mask cell: Space toggles it; arrows move between cells
  const m = fig(page, '18.2', 'mask');
  await key(m.locator('button[data-row="0"][data-col="0"]'), 'ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.col), '1');
  const before = await m.locator('button[data-row="0"][data-col="1"]').getAttribute('aria-pressed');
  await page.keyboard.press('Space');
  assert.notEqual(await m.locator('button[data-row="0"][data-col="1"]').getAttribute('aria-pressed'), before);
  // a checkbox, a radio group, a drop-down, a number field
  await key(fig(page, '18.1', 'norm'), 'Space');
  assert.equal(await fig(page, '18.1', 'norm').isChecked(), false);
  const kind = fig(page, '18.2', 'kind');
  await key(kind.locator('input:checked'), 'ArrowRight');
  assert.equal(await kind.locator('input:checked').getAttribute('value'), 'bhtt');
  const heads = sec(page, '18.4').locator('select[data-name="heads"]');
  const h0 = await heads.inputValue();
  await key(heads, 'ArrowDown');
  assert.notEqual(await heads.inputValue(), h0);
  const seed = sec(page, '18.2').locator('input[data-name="seed"]');
  await key(seed, 'ArrowUp');
  assert.equal(await seed.inputValue(), '2');
  // a disclosure (the data table under a chart): Enter opens it
  await key(fig(page, '18.4', 'variance').locator('details.chart-data > summary'), 'Enter');
  await fig(page, '18.4', 'variance').locator('table tbody tr').nth(4).waitFor();   // rows are built when it opens
  // a canvas heatmap: arrows move a cell cursor, and its value is read out
  const big = fig(page, '18.4', 'w-head');
  await key(big.locator('canvas'), 'ArrowRight', 'ArrowDown', 'ArrowRight');
  await big.locator('output.heatmap-probe', { hasText: /receiver t = 1, source j = 1: / }).waitFor();
  // the language switch is a link: Enter follows it
  await key(page.locator('a.lang-switch'), 'Enter');
  await page.waitForSelector('html[lang="zh-CN"] .lab-section[data-section="18.7"]');
  await labMounted(page);
  assert.deepEqual(errors, []);
  await page.close();
});

// ---- motion ----

test('prefers-reduced-motion: nothing on the page moves (CSS or script animations, smooth scrolling)', async () => {
  const { page } = await blankPage(chrome.browser, server, { reducedMotion: 'reduce' });
  await page.goto(`${server.url}?lang=en`);
  await page.waitForSelector(mounted);
  await page.locator('nav.toc a').nth(3).click();   // in-page navigation
  await fig(page, '18.2', 'mask').locator('button').first().click();
  const moving = await page.evaluate(() => {
    const out = [];
    const ms = (v) => Math.max(...v.split(',').map((s) => parseFloat(s) * (s.trim().endsWith('ms') ? 1 : 1000)));
    for (const el of [document.documentElement, ...document.querySelectorAll('body *')]) {
      for (const pseudo of [null, '::before', '::after']) {
        const cs = getComputedStyle(el, pseudo);
        if (ms(cs.transitionDuration) > 0.01 || (cs.animationName !== 'none' && ms(cs.animationDuration) > 0.01)) out.push(`${el.tagName}${pseudo ?? ''}.${el.className}`);
      }
    }
    if (getComputedStyle(document.documentElement).scrollBehavior === 'smooth') out.push('smooth scrolling');
    for (const a of document.getAnimations()) if (a.playState === 'running' && a.effect?.getTiming().duration > 0.01) out.push(`animation ${a.id || a.constructor.name}`);
    return { out, reduced: matchMedia('(prefers-reduced-motion: reduce)').matches };
  });
  assert.equal(moving.reduced, true);
  assert.deepEqual(moving.out, []);
  await page.close();
});

// ---- the accessibility tree ----

// A section whose lab is not built yet skips layout while off screen (content-visibility), and
// Chromium leaves a skipped section out of the accessibility tree; every lab is built within a few
// idle moments of the load, and a lesson's MathML comes back in the same moments
// (web/src/mathml-later.js). After that a screen reader has the whole page.
test('screen readers get the whole page once its labs are built: every section\'s headings and every formula', async () => {
  for (const lang of LANGS) {
    const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=${lang}`);
    await labMounted(page);
    await page.waitForFunction(() => [...document.querySelectorAll('.katex-mathml')].every((s) => s.firstChild));
    const cdp = await page.context().newCDPSession(page);
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    await cdp.detach();
    const headings = new Set(nodes.filter((n) => !n.ignored && n.role?.value === 'heading').map((n) => n.name?.value));
    const titles = await page.$$eval('.lab-section > h2', (hs) => hs.map((h) => h.textContent));
    assert.equal(titles.length, SECTIONS.length);
    assert.deepEqual(titles.filter((t) => !headings.has(t)), [], `${lang}: headings the accessibility tree does not have`);
    // every formula that is not inside a closed <details> (hints, solutions) is math to a screen reader
    const shown = await page.$$eval('.katex-mathml > math', (ms) => ms.filter((m) => !m.closest('details:not([open])')).length);
    const maths = nodes.filter((n) => !n.ignored && n.role?.value === 'MathMLMath').length;
    assert.ok(shown > 100 && maths >= shown, `${lang}: ${maths} math nodes for ${shown} formulas`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

// ---- text alternatives ----

test('charts and heatmaps carry their numbers as text: named images, named tables reachable by keyboard', async () => {
  const { page, errors } = await open('?lang=en&s4.T=64');
  const s8 = sec(page, '18.8');
  await s8.locator('[data-name="start"]').click();
  await page.waitForFunction(() => Number(document.querySelector('.lab-section[data-section="18.8"] dl[data-name="stats"] dd')?.textContent) >= 2);
  await s8.locator('[data-name="pause"]').click();
  const charts = page.locator('figure.chart-figure');
  assert.equal(await page.locator('.lab-section:is([data-section="18.4"], [data-section="18.8"]) figure.chart-figure').count(), 3,
    "18.4's line and bar charts, 18.8's loss chart");
  for (let k = 0; k < await charts.count(); k++) {   // and any other section's
    const c = charts.nth(k);
    const label = await c.locator('figcaption').textContent();
    assert.equal(await c.locator('svg.chart').getAttribute('role'), 'img');
    assert.equal(await c.locator('svg.chart').getAttribute('aria-label'), label, 'the SVG is named by the caption');
    const summary = c.locator('details.chart-data summary');
    await summary.focus();
    assert.equal(await page.evaluate(() => document.activeElement.tagName), 'SUMMARY', 'the table is reachable by keyboard');
    await page.keyboard.press('Enter');
    const table = c.locator('details.chart-data table');
    assert.equal(await table.locator('caption').textContent(), label, 'the table is named (caption)');
    const cells = await table.locator('tbody td').allTextContents();
    assert.ok(cells.length >= 3 && cells.every((s) => /^[−\d]/.test(s)), `${label}: numbers in the table (${cells.slice(0, 4)})`);
  }
  // the bar chart's table holds the same numbers as the bars (softmax of the logits, × 1 and × 8)
  const bars = await fig(page, '18.4', 'bars').locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((d) => Number(d.textContent.replace('−', '-')))));
  const logits = [0.1, -0.2, 0.3, -0.2, 0.5];
  const softmax = (z) => { const e = z.map((v) => Math.exp(v - Math.max(...z))); const s = e.reduce((a, b) => a + b); return e.map((v) => v / s); };
  for (const [row, k] of [[0, 1], [1, 8]]) softmax(logits.map((v) => v * k)).forEach((p, i) => assert.ok(Math.abs(bars[row][i] - p) < 5e-5, `bars ${row} ${i}`));
  // heatmaps: every table cell has a label with its value; a canvas has a name and a table on request
  assert.equal(await page.locator('table.heatmap tbody td:not(.rowmark):not([aria-label])').count(), 0);
  for (const canvas of await page.locator('canvas.heatmap-canvas:visible').all()) {
    assert.match(await canvas.getAttribute('aria-label'), /: 64 × 64\. Show the data as a table\.$/);
    assert.equal(await canvas.getAttribute('role'), 'img');
  }
  assert.deepEqual(errors, []);
  // in Chinese, with Chinese punctuation
  const zh = await open('?lang=zh&embed=18.4&s4.T=64');
  const labels = await zh.page.locator('canvas.heatmap-canvas:visible').evaluateAll((cs) => cs.map((c) => c.getAttribute('aria-label')));
  assert.ok(labels.length > 0 && labels.every((l) => /：64 × 64。以表格查看数据。$/.test(l)), labels.join(' | '));
  assert.deepEqual(zh.errors, []);
  await zh.page.close();
  await page.close();
});
