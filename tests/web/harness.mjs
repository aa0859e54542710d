// Shared set-up for the browser suites: serve a folder on loopback under a sub-path (the lab
// must work from any path), and drive Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { SECTIONS } from '../../web/src/sections/index.js';
import { WAIT_MS } from '../wait.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
/** The selector of the page's last section: there once mountLab has put every section in place. */
export const LAST_SECTION = `.lab-section[data-section="${SECTIONS.at(-1).id}"]`;

/** The name of an empty page that serve() adds to every folder it serves: a same-origin host for
 * iframes, and where a page handed back to the pool waits (see openPage). */
export const BLANK = '__blank__.html';

/** Start scripts/serve.mjs on a free port for `dir` (with BLANK beside its files, through a folder
 * of links); resolves to {url, blank, close}. */
export function serve(dir, base = '/course/attention/') {
  const overlay = mkdtempSync(join(tmpdir(), 'attention-lab-serve-'));
  for (const name of readdirSync(dir)) symlinkSync(join(resolve(dir), name), join(overlay, name));
  writeFileSync(join(overlay, BLANK), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title><link rel="icon" href="data:,"></head><body></body></html>');
  const cleanup = () => rmSync(overlay, { recursive: true, force: true });
  return new Promise((resolveServer, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), overlay, '--port', String(20000 + Math.floor(Math.random() * 20000)), '--base', base],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (d) => {
      const m = /(http:\/\/\S+)/.exec(String(d));
      if (m) resolveServer({ url: m[1], blank: m[1] + BLANK, close: () => { child.kill(); cleanup(); } });
    });
    child.on('exit', (code) => { cleanup(); reject(new Error(`server exited with ${code}`)); });
  });
}

/** Chromium with the flags this machine needs; Playwright gives it a fresh empty profile. */
export async function launch() {
  const browser = await chromium.launch({
    timeout: WAIT_MS,
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    // Chromium 156 builds its omnibox popup (a WebUI page, chrome://omnibox-popup.top-chrome, of
    // hundreds of requests) in a renderer of its own for every new window, which headless Playwright
    // opens for every new context: on a 2-core machine it takes the CPU from the page under test
    // while that page loads. A phone's browser has no such page; these features keep it from being built.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI'],
  });
  // every context waits WAIT_MS by default (tests/wait.mjs), and so does every page of its own
  // (set again on the page's context: it does not rely on newPage making it through newContext)
  const newContext = browser.newContext.bind(browser), newPage = browser.newPage.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(WAIT_MS);
    return context;
  };
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.context().setDefaultTimeout(WAIT_MS);
    return page;
  };
  return { browser, close: () => browser.close() };
}

// Pages are reused through navigation: a new page costs a new browser context and renderer
// process (about 2 CPU-seconds here), a navigation of a page that exists about a quarter of that.
// A test's page.close() hands the page back; the next openPage() of the same browser resets it
// (listeners, viewport, emulated media, pointer, the origin's storage) and navigates it. A page
// that cannot be reset (an init script, a fake clock, routes, bindings or permissions were added,
// or it went to a second origin) is closed for good instead. A test that fails before closing its
// page leaves it open (with whatever it runs) until the file's browser closes; the pool never
// hands it out again.
const DEFAULT_VIEWPORT = { width: 1280, height: 900 };
const pools = new WeakMap();   // browser -> pages free for the next openPage

function poolable(page, pool) {
  const close = page.close.bind(page);
  const state = { dirty: false, origins: new Set() };
  const track = () => page.on('framenavigated', (f) => { if (f === page.mainFrame() && /^https?:/.test(f.url())) state.origins.add(new URL(f.url()).origin); });
  track();
  for (const name of ['addInitScript', 'route', 'routeFromHAR', 'exposeFunction', 'exposeBinding']) {
    const original = page[name].bind(page);
    page[name] = (...args) => { state.dirty = true; return original(...args); };
  }
  const install = page.clock.install.bind(page.clock);
  page.clock.install = (...args) => { state.dirty = true; return install(...args); };
  const context = page.context();   // a page of its own context (browser.newPage)
  for (const name of ['grantPermissions', 'addInitScript', 'route', 'exposeBinding', 'exposeFunction', 'addCookies']) {
    const original = context[name].bind(context);
    context[name] = (...args) => { state.dirty = true; return original(...args); };
  }
  page.close = async () => {
    if (state.dirty || state.origins.size > 1 || page.isClosed() || !/^https?:/.test(page.url())) return close();
    try {
      // a blank document of the same server (BLANK) first: the old one stops (its workers, timers
      // and observers with it, so nothing writes storage after it is cleared) and the renderer
      // process stays for the next test's page
      await page.goto(new URL(BLANK, page.url()).href);
      await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
      page.removeAllListeners();
      track();
      await page.setViewportSize(DEFAULT_VIEWPORT);
      await page.emulateMedia({ media: null, colorScheme: null, reducedMotion: null, forcedColors: null });
      await page.mouse.move(0, 0);
      pool.push(page);
    } catch {
      await close().catch(() => {});
    }
  };
  return page;
}

/** A page (new, or one a finished test handed back) at `url`, recording console errors and page errors. */
export async function openPage(browser, url) {
  if (!pools.has(browser)) pools.set(browser, []);
  const pool = pools.get(browser);
  const page = pool.pop() ?? poolable(await browser.newPage({ viewport: DEFAULT_VIEWPORT }), pool);
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** A page of the pool at the server's empty page, with `viewport` and emulated media (e.g.
 * reducedMotion) set: for a test that sets the page up before it loads what it checks. */
export async function blankPage(browser, server, { viewport, ...media } = {}) {
  const r = await openPage(browser, server.blank);
  if (viewport) await r.page.setViewportSize(viewport);
  if (Object.keys(media).length) await r.page.emulateMedia(media);
  return r;
}

/** Numbers shown in a heatmap (by its figure), as rows. */
export async function heatmapValues(locator) {
  return locator.locator('table.heatmap tbody tr').evaluateAll((rows) => rows.map((r) =>
    [...r.querySelectorAll('td:not(.rowmark)')].map((td) => (td.classList.contains('nan') ? NaN : Number(td.dataset.value)))));
}

/** For one test file: serve `dist` (default: the repository's dist/; a function: called before the
 * tests, resolving to the folder) and start Chromium before its tests, stop both after. Returns
 * {open(query)}, which opens the lab and waits until every section is mounted. */
export function builtLab(dist = join(ROOT, 'dist')) {
  const lab = {};
  before(async () => { lab.server = await serve(typeof dist === 'function' ? await dist() : dist); lab.chrome = await launch(); });
  after(async () => { await lab.chrome?.close(); lab.server?.close(); });
  lab.open = async (query = '?lang=en') => {
    const r = await openPage(lab.chrome.browser, lab.server.url + query);
    await r.page.waitForSelector(`${LAST_SECTION}, body.embed .lab-section`);
    await labMounted(r.page);
    return r;
  };
  return lab;
}

/** A section of the page, and a widget in it by its data-name. */
export const sec = (page, id) => page.locator(`.lab-section[data-section="${id}"]`);
export const fig = (page, id, name) => sec(page, id).locator(`[data-name="${name}"]`);

/** Resolves once the page has written its URL: main.js writes it 250 ms after the last edit
 * (URL_QUIET) and marks <html data-url-due> until then. */
export const urlWritten = (page) => page.waitForFunction(() => !('urlDue' in document.documentElement.dataset));

/** Resolves once every section's lab and exercises are built: the whole page builds the labs out
 * of view after its first paint (mount.js, lazy), an embedded section its exercises after its lab
 * (exercisesWhenIdle), and each marks 'attention-lab:mounted' when all are. */
export const labMounted = (page) => page.waitForFunction(() => document.body.classList.contains('worksheet-mode')
  || performance.getEntriesByName('attention-lab:mounted').length > 0);
