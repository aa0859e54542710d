// The <attention-lab> web component (dist/element/attention-lab.js) on host pages in headless
// Chromium: a course page with aggressive CSS of its own and three elements (two sections, one of
// them twice), served on loopback with the element's files in a subfolder as a course site would.
// Numbers are checked against tests/web/reference.mjs; the host's page and the lab must not touch
// each other's styles, ids or URL; the core is fetched and instantiated once per page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, symlinkSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, heatmapValues } from './harness.mjs';
import { WAIT_MS } from '../wait.mjs';
import * as ref from './reference.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const ELEMENT = new URL('../../dist/element/', import.meta.url).pathname;
// The page's Content-Security-Policy (scripts/csp.mjs): no eval, scripts from our own origin.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'none'";

// A course page's own CSS at its most aggressive, aimed at tags and at the lab's own class names.
const HOST_CSS = `
* { color: rgb(255, 0, 0) !important; font-size: 40px; font-family: serif; line-height: 3; letter-spacing: 5px; text-transform: uppercase; }
table { display: none; }
input { width: 300px; background: rgb(255, 255, 0); border: 5px solid green; }
button { display: none; }
h2 { font-size: 80px !important; }
.lab-section, .lesson, .heatmap, .katex { display: none !important; }
`;

const HOST = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta http-equiv="Content-Security-Policy" content="${CSP}">
  <title>A course page</title>
  <link rel="stylesheet" href="host.css">
  <script type="module" src="lab/attention-lab.js"></script>
</head>
<body>
  <h1 id="s18-3">Week 6: attention</h1>
  <p class="host-text">Read the section, then try the lab.</p>
  <div class="lab-section host-box">the host's own .lab-section</div>
  <label for="m-1">host field</label> <input id="m-1" value="host">
  <button type="button" id="host-button">host button</button>
  <attention-lab id="a" section="18.3" lang="en"></attention-lab>
  <attention-lab id="b" section="18.1" lang="en"></attention-lab>
  <attention-lab id="c" section="18.3" lang="en" state="s3.causal=0&amp;s3.x=1,2;3,4;5,6"></attention-lab>
</body>
</html>`;

// Nothing but the module and the element.
const PLAIN = `<!doctype html>
<script type="module" src="lab/attention-lab.js"></script>
<attention-lab section="18.1"></attention-lab>`;

let server, chrome, dir;
before(async () => {
  assert.ok(existsSync(join(ELEMENT, 'attention-lab.js')), 'dist/element/attention-lab.js: run scripts/build.sh web first');
  dir = mkdtempSync(join(tmpdir(), 'attention-lab-host-'));
  symlinkSync(ELEMENT, join(dir, 'lab'));
  writeFileSync(join(dir, 'host.html'), HOST);
  writeFileSync(join(dir, 'host.css'), HOST_CSS);
  writeFileSync(join(dir, 'plain.html'), PLAIN);
  server = await serve(dir, '/course/week6/');
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const X0 = [[2, 0], [0, 4], [4, 2]];
const W = { q: [[0.3, 0.1], [0, 0.3]], k: [[0.2, -0.3], [0.3, 0.2]], v: [[1, 0], [0.5, 1]] };
const attention = (X, causal) => ref.attention(ref.matmul(X, W.q), ref.matmul(X, W.k), ref.matmul(X, W.v), causal);
const nearAll = (A, B, tol, msg) => assert.ok(ref.maxAbs(A, B) <= tol, `${msg}: max diff ${ref.maxAbs(A, B)}\n got ${JSON.stringify(A)}\nwant ${JSON.stringify(B)}`);

/** A page that lists its requests, counts .wasm fetches, WebAssembly compilations and instantiations, console errors.
 * hold: a URL pattern whose responses wait until the core has been instantiated. */
async function open(file, { hold = null } = {}) {
  const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  const wasmFetches = [], urls = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasmFetches.push(r.url()); });
  await page.route('**/favicon.ico', (r) => r.fulfill({ status: 204 }));   // the test pages have no icon
  await page.addInitScript(() => {
    window.__wasm = { compile: 0, instantiate: 0 };
    // the rendering opportunity (frame) in which each element said it was ready
    window.__frames = 0;
    window.__ready = [];
    const count = () => { window.__frames += 1; requestAnimationFrame(count); };
    requestAnimationFrame(count);
    document.addEventListener('attention-lab:ready', (e) => window.__ready.push({ id: e.target.id, frame: window.__frames }));
    for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = function (...args) {
        // instantiate(module) instantiates; instantiate(bytes) compiles and instantiates
        if (name.startsWith('compile') || !(args[0] instanceof WebAssembly.Module)) window.__wasm.compile += 1;
        if (name.startsWith('instantiate')) window.__wasm.instantiate += 1;
        const result = original.apply(this, args);
        if (name.startsWith('instantiate')) result.then(() => { window.__wasm.done = true; }, () => {});
        return result;
      };
    }
  });
  if (hold) {
    await page.route(hold, async (route) => {
      await page.waitForFunction(() => window.__wasm.done === true);
      await route.continue();
    });
  }
  await page.goto(server.url + file);
  return { page, errors, wasmFetches, urls };
}
/** Waits until the element has rendered its sections. */
const ready = (page, sel, section) => page.waitForSelector(`${sel} .lab-section[data-section="${section}"] .lab`);
const fig = (page, sel, name) => page.locator(`${sel} [data-name="${name}"]`);

test('three elements on a course page: isolated styles, ids and edits, one WebAssembly instance, no URL changes', async () => {
  // 18.1's code arrives only after the core is instantiated, when 18.3's is long there: the three
  // elements still wait for one another
  const { page, errors, wasmFetches } = await open('host.html', { hold: '**/assets/s18-1-*.js' });
  await Promise.all([ready(page, '#a', '18.3'), ready(page, '#b', '18.1'), ready(page, '#c', '18.3')]);
  const url = page.url();

  // one core per page however many elements
  assert.equal(wasmFetches.length, 1, `one fetch of the .wasm: ${wasmFetches}`);
  assert.deepEqual(await page.evaluate(() => window.__wasm), { compile: 1, instantiate: 1, done: true }, 'compiled once, instantiated once');
  // the elements fetch together and mount together: no layout and paint of the page between them
  const readies = await page.evaluate(() => window.__ready);
  assert.deepEqual(readies.map((r) => r.id), ['a', 'b', 'c'], 'each element ready once, in page order');
  assert.equal(new Set(readies.map((r) => r.frame)).size, 1, `all three ready before the same frame: ${JSON.stringify(readies)}`);

  // numbers: #a and #c are the same section in different states; #b is 18.1
  nearAll(await heatmapValues(fig(page, '#a', 'y')), attention(X0, true).Y, 1e-14, '#a Y (defaults, causal)');
  const Xc = [[1, 2], [3, 4], [5, 6]];
  nearAll(await heatmapValues(fig(page, '#c', 'y')), attention(Xc, false).Y, 1e-14, '#c Y (from its state attribute)');
  nearAll(await heatmapValues(fig(page, '#b', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, '#b 18.1 chapter example');

  // the host's CSS does not reach inside: computed styles of the lab
  const inside = await page.locator('#a').evaluate((host) => {
    const root = host.shadowRoot;
    const cs = (sel) => getComputedStyle(root.querySelector(sel));
    const p = cs('.lesson p'), input = cs('[data-name="x"] input'), title = cs('.lab-section > h2'), badge = cs('figcaption .shape-badge');
    return {
      p: [p.color, p.fontSize, p.fontFamily.split(',')[0], p.textTransform, p.letterSpacing],
      section: cs('.lab-section').display, heatmap: cs('table.heatmap').display, button: cs('button.reset').display,
      input: [input.width, input.backgroundColor, input.borderTopWidth],
      sizes: [title.fontSize, badge.fontSize],
      katex: [cs('.lesson p .katex').display, cs('.lesson p .katex').fontFamily],
    };
  });
  assert.deepEqual(inside.p, ['rgb(27, 31, 36)', '16px', 'system-ui', 'none', 'normal'], 'lesson text: the lab\'s colour and font');
  assert.equal(inside.section, 'block');
  assert.equal(inside.heatmap, 'table');
  assert.equal(inside.button, 'block', 'a flex item, shown');
  assert.notEqual(inside.input[0], '300px');
  assert.equal(inside.input[1], 'rgb(255, 255, 255)');
  assert.equal(inside.input[2], '1px');
  assert.deepEqual(inside.sizes, ['22.4px', '13.6px'], 'rem lengths of the lab (1.4rem; .85rem inside a .92rem caption), not of the host\'s root size');
  assert.equal(inside.katex[0], 'inline');
  assert.match(inside.katex[1], /^KaTeX_Main/);

  // the lab's CSS does not reach out: the host's elements keep the host's styles
  const outside = await page.evaluate(() => {
    const cs = (sel) => getComputedStyle(document.querySelector(sel));
    return {
      text: [cs('.host-text').color, cs('.host-text').fontSize, cs('.host-text').textTransform],
      box: [cs('.host-box').display, cs('.host-box').borderTopWidth, cs('.host-box').paddingTop],
      input: [cs('#m-1').width, cs('#m-1').backgroundColor],
      button: cs('#host-button').display,
      fg: getComputedStyle(document.documentElement).getPropertyValue('--fg'),
      // the only thing declared on the document: KaTeX's fonts
      sheets: document.adoptedStyleSheets.map((s) => [...s.cssRules].every((r) => r instanceof CSSFontFaceRule)),
    };
  });
  assert.deepEqual(outside.text, ['rgb(255, 0, 0)', '40px', 'uppercase']);
  assert.deepEqual(outside.box, ['none', '0px', '0px']);
  assert.deepEqual(outside.input, ['300px', 'rgb(255, 255, 0)']);
  assert.equal(outside.button, 'none');
  assert.equal(outside.fg, '', 'no lab variables on the host document');

  // KaTeX's fonts: declared once on the document, used (so fetched) by the math inside the shadow roots
  await page.evaluate(() => document.fonts.ready);
  const fonts = await page.evaluate(() => ({
    loaded: [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family),
    fetched: performance.getEntriesByType('resource').map((r) => r.name).filter((n) => n.endsWith('.woff2')).map((n) => n.split('/').pop().split('-')[0] + '-' + n.split('/').pop().split('-')[1]),
  }));
  assert.ok(fonts.loaded.includes('KaTeX_Main') && fonts.loaded.includes('KaTeX_Math'), `KaTeX fonts loaded: ${fonts.loaded}`);
  assert.ok(fonts.fetched.includes('KaTeX_Main-Regular') && fonts.fetched.includes('KaTeX_Math-Italic'), `fetched: ${fonts.fetched}`);
  assert.deepEqual(outside.sheets, [true], 'one document sheet, @font-face rules only');

  // ids: the host's are untouched; inside each root unique, and every reference resolves in its own root
  assert.equal(await page.evaluate(() => document.getElementById('s18-3').tagName), 'H1');
  assert.equal(await page.evaluate(() => document.getElementById('m-1').value), 'host');
  for (const sel of ['#a', '#b', '#c']) {
    const r = await page.locator(sel).evaluate((host) => {
      const root = host.shadowRoot;
      const ids = [...root.querySelectorAll('[id]')].map((e) => e.id);
      const refs = [...root.querySelectorAll('[for], [aria-labelledby], [aria-describedby], [aria-controls]')].flatMap((e) =>
        ['for', 'aria-labelledby', 'aria-describedby', 'aria-controls'].flatMap((a) => (e.getAttribute(a) ?? '').split(/\s+/).filter(Boolean)));
      return { ids: ids.length, unique: new Set(ids).size, refs: refs.length, missing: refs.filter((id) => !root.getElementById(id)) };
    });
    assert.equal(r.unique, r.ids, `${sel}: ids unique in the element`);
    assert.ok(r.refs >= 3, `${sel}: references checked (${r.refs})`);
    assert.deepEqual(r.missing, [], `${sel}: every label and aria reference resolves inside the element`);
  }
  // a label inside an element focuses its own input, not the host's #m-1 nor the twin element's
  const label = page.locator('#c label.toggle');
  await label.click();
  await page.locator('#c .predict:not([hidden]) button[data-act="skip"]').click();   // the first switch asks for a prediction
  assert.equal(await page.locator('#c [data-name="causal"]').isChecked(), true, '#c causal toggled by its label');
  assert.equal(await page.locator('#a [data-name="causal"]').isChecked(), true, '#a unchanged');

  // an edit in #a: its numbers, its state attribute and an event; #c and #b untouched
  const events = page.evaluate(() => new Promise((resolve) => {
    document.addEventListener('attention-lab:state', (e) => resolve({ target: e.target.id, detail: e.detail }), { once: true });
  }));
  await fig(page, '#a', 'x').locator('input[data-row="2"][data-col="0"]').fill('-1.5');
  const X1 = [[2, 0], [0, 4], [-1.5, 2]];
  nearAll(await heatmapValues(fig(page, '#a', 'y')), attention(X1, true).Y, 1e-14, '#a after its edit');
  nearAll(await heatmapValues(fig(page, '#c', 'y')), attention(Xc, true).Y, 1e-14, '#c: only its own toggle');
  nearAll(await heatmapValues(fig(page, '#b', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, '#b untouched');
  const event = await events;
  assert.equal(event.target, 'a');
  assert.equal(event.detail.section, '18.3');
  assert.equal(event.detail.state, 's3.x=2,0;0,4;-1.5,2');
  assert.deepEqual(event.detail.values.x, X1);
  assert.equal(await page.getAttribute('#a', 'state'), 's3.x=2,0;0,4;-1.5,2');
  assert.equal(await page.getAttribute('#c', 'state'), 's3.x=1,2;3,4;5,6', '#c wrote its own state (causal back to its default)');
  assert.equal(await page.locator('#a [data-name="x"] input[data-row="2"][data-col="0"]').evaluate((e) => e === e.getRootNode().activeElement), true,
    'writing the state attribute back does not re-render the element under the student');

  assert.equal(page.url(), url, 'the host page URL never changes');
  assert.deepEqual(errors, []);
  await page.close();
});

test('attributes change at run time: lang, section, state, solutions; bad values show a message inside', async () => {
  const { page, errors } = await open('host.html');
  await Promise.all([ready(page, '#a', '18.3'), ready(page, '#b', '18.1'), ready(page, '#c', '18.3')]);
  await fig(page, '#a', 'x').locator('input[data-row="0"][data-col="1"]').fill('3');
  const X = [[2, 3], [0, 4], [4, 2]];

  // lang: re-rendered in Chinese, keeping the student's edit (it is in the state attribute)
  await page.locator('#a').evaluate((e) => e.setAttribute('lang', 'zh'));
  await page.waitForFunction(() => /投影/.test(document.querySelector('#a').shadowRoot.querySelector('h2')?.textContent));
  assert.equal(await page.locator('#a button.reset').textContent(), '重置本节');
  assert.equal(await page.locator('#a .attention-lab').getAttribute('lang'), 'zh-CN');
  nearAll(await heatmapValues(fig(page, '#a', 'y')), attention(X, true).Y, 1e-14, '#a in Chinese, same state');

  // section: #b becomes 18.2
  await page.locator('#b').evaluate((e) => e.setAttribute('section', '18.2'));
  await ready(page, '#b', '18.2');
  assert.equal(await page.locator('#b .lab-section').count(), 1);
  const S = [[1, 2, 0], [0.5, 1, 3], [2, 0, 1]];
  nearAll(await heatmapValues(fig(page, '#b', 'before')), S.map((r, i) => ref.softmaxRow(r, r.map((_, j) => j <= i))), 1e-15, '#b 18.2');

  // state: set from outside, #c re-renders with it
  await page.locator('#c').evaluate((e) => e.setAttribute('state', 's3.x=1,0;0,1'));
  await page.waitForFunction(() => document.querySelector('#c').shadowRoot.querySelectorAll('[data-name="x"] tr').length === 2);
  nearAll(await heatmapValues(fig(page, '#c', 'y')), attention([[1, 0], [0, 1]], true).Y, 1e-14, '#c new state');
  assert.equal(await fig(page, '#c', 'causal').isChecked(), true, 'causal back to its default');

  // solutions="0" hides hints and solutions; removing it brings them back
  assert.ok(await page.locator('#b details.hint').count() > 0);
  await page.locator('#b').evaluate((e) => e.setAttribute('solutions', '0'));
  await page.waitForFunction(() => !document.querySelector('#b').shadowRoot.querySelector('details.hint') &&
    document.querySelector('#b').shadowRoot.querySelector('.exercise'));
  assert.equal(await page.locator('#b details.solution').count(), 0);
  await page.locator('#b').evaluate((e) => e.removeAttribute('solutions'));
  await page.waitForSelector('#b details.solution');

  // bad values: a message inside the element, the host page intact
  await page.locator('#b').evaluate((e) => e.setAttribute('section', '99.9'));
  await page.waitForSelector('#b .status.error');
  const ids = SECTIONS.map((s) => s.id).join(', ').replace(/\./g, '\\.');
  assert.match(await page.locator('#b .status.error').textContent(), new RegExp(`section="99\\.9" is not a section of the lab\\. Use one of ${ids}\\.$`));
  await page.locator('#c').evaluate((e) => { e.setAttribute('lang', 'fr'); e.setAttribute('state', 's3.x=1,oops&s3.causal=2'); });
  await page.waitForSelector('#c .notice');
  assert.match(await page.locator('#c .notice').textContent(), /attribute values were not valid.*: lang, s3\.x, s3\.causal/);
  nearAll(await heatmapValues(fig(page, '#c', 'y')), attention(X0, true).Y, 1e-14, '#c defaults after bad state');
  assert.equal(await page.locator('h1').textContent(), 'Week 6: attention');
  assert.ok(await page.locator('#a .lab-section').isVisible());
  assert.deepEqual(errors, []);
  await page.close();
});

test('an element removed from the page releases its training worker; the core stays for the others', async () => {
  const { page, errors } = await open('host.html');
  await ready(page, '#a', '18.3');
  const workers = [];
  page.on('worker', (w) => workers.push({ w, closed: new Promise((resolve) => w.on('close', resolve)) }));
  await page.evaluate(() => {
    const el = document.createElement('attention-lab');
    el.id = 'gpt';
    el.setAttribute('section', '18.8');
    el.setAttribute('lang', 'en');
    document.body.append(el);
  });
  await ready(page, '#gpt', '18.8');
  await page.locator('#gpt [data-name="reset-model"]').click();
  await page.waitForFunction(() => document.querySelector('#gpt').shadowRoot.querySelector('[data-name="stats"] dd'));
  assert.equal(workers.length, 1, 'one training worker');
  await page.evaluate(() => document.querySelector('#gpt').remove());
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the worker was not terminated')), WAIT_MS).unref());
  await Promise.race([workers[0].closed, timeout]);   // terminated by disconnectedCallback
  assert.equal(await page.evaluate(() => document.querySelector('attention-lab#gpt')), null);

  // removing #a empties its shadow root; #c keeps computing with the shared core
  const shadow = await page.locator('#a').evaluateHandle((e) => e.shadowRoot);
  await page.evaluate(() => document.querySelector('#a').remove());
  assert.equal(await shadow.evaluate((r) => r.querySelectorAll('.lab-section').length), 0);
  await fig(page, '#c', 'x').locator('input[data-row="0"][data-col="0"]').fill('0');
  nearAll(await heatmapValues(fig(page, '#c', 'y')), attention([[0, 2], [3, 4], [5, 6]], false).Y, 1e-14, '#c after #a left');
  assert.deepEqual(await page.evaluate(() => window.__wasm), { compile: 1, instantiate: 1, done: true }, 'no second core for the new element');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a plain HTML page with only the module script and the element', async () => {
  const { page, errors, wasmFetches, urls } = await open('plain.html');
  await ready(page, 'attention-lab', '18.1');
  // its own section's code, no other section's (each controller is a chunk of its own), and the
  // lesson of its section and language only
  const code = urls.filter((u) => /\/s18-\d-[\w-]+\.js$/.test(u)).map((u) => u.match(/s18-\d/)[0]);
  assert.deepEqual(code, ['s18-1'], urls.join(' '));
  assert.deepEqual(urls.map((u) => /\/(lessons-(?:en|zh)|lesson-[\w.]+-(?:en|zh))-[\w-]{8}\.js$/.exec(u)?.[1]).filter(Boolean), ['lesson-18.1-zh'], urls.join(' '));
  // no lang anywhere: Chinese, the lab's default
  assert.match(await page.locator('attention-lab h2').textContent(), /^18\.1/);
  assert.equal(await page.locator('attention-lab button.reset').textContent(), '重置本节');
  nearAll(await heatmapValues(fig(page, 'attention-lab', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, '18.1 chapter example');
  assert.ok(await page.locator('attention-lab .katex').count() > 0, 'math rendered');
  assert.equal(wasmFetches.length, 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the package export attention-lab/element imports where there is no DOM (a bundler\'s server render)', async () => {
  const m = await import('attention-lab/element');
  assert.equal(typeof m.AttentionLabElement, 'function');
  assert.deepEqual(m.AttentionLabElement.observedAttributes, ['section', 'lang', 'state', 'solutions']);
});
