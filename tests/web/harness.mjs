// Shared set-up for the browser suites: serve a folder on loopback under a sub-path (the lab
// must work from any path), and drive Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

const ROOT = new URL('../../', import.meta.url).pathname;

/** Start scripts/serve.mjs on a free port; resolves to {url, close}. */
export function serve(dir, base = '/course/attention/') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), dir, '--port', String(20000 + Math.floor(Math.random() * 20000)), '--base', base],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (d) => {
      const m = /(http:\/\/\S+)/.exec(String(d));
      if (m) resolve({ url: m[1], close: () => child.kill() });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Chromium with the flags this machine needs; Playwright gives it a fresh empty profile. */
export async function launch() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return { browser, close: () => browser.close() };
}

/** A new page that records console errors and page errors. */
export async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  return { page, errors };
}

/** Numbers shown in a heatmap (by its figure), as rows. */
export async function heatmapValues(locator) {
  return locator.locator('table.heatmap tbody tr').evaluateAll((rows) => rows.map((r) =>
    [...r.querySelectorAll('td:not(.rowmark)')].map((td) => (td.classList.contains('nan') ? NaN : Number(td.dataset.value)))));
}

/** For one test file: serve dist/ and start Chromium before its tests, stop both after. Returns
 * {open(query)}, which opens the lab and waits until every section is mounted. */
export function builtLab() {
  const lab = {};
  before(async () => { lab.server = await serve(join(ROOT, 'dist')); lab.chrome = await launch(); });
  after(async () => { await lab.chrome?.close(); lab.server?.close(); });
  lab.open = async (query = '?lang=en') => {
    const r = await openPage(lab.chrome.browser, lab.server.url + query);
    await r.page.waitForSelector('.lab-section[data-section="18.7"], body.embed .lab-section', { timeout: 15000 });
    await labMounted(r.page);
    return r;
  };
  return lab;
}

/** A section of the page, and a widget in it by its data-name. */
export const sec = (page, id) => page.locator(`.lab-section[data-section="${id}"]`);
export const fig = (page, id, name) => sec(page, id).locator(`[data-name="${name}"]`);

/** Resolves once the page has written its URL: main.js writes it 250 ms after the last edit
 * (URL_QUIET), with a margin for a loaded machine. */
export const urlWritten = (page) => page.waitForTimeout(800);

/** Resolves once every section's lab is built: the whole page builds the labs out of view after
 * its first paint (mount.js, lazy), and marks 'attention-lab:mounted' when all are. */
export const labMounted = (page) => page.waitForFunction(() => document.body.classList.contains('embed')
  || document.body.classList.contains('worksheet-mode')
  || performance.getEntriesByName('attention-lab:mounted').length > 0, null, { timeout: 30000 });
