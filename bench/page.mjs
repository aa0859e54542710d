// The page in headless Chromium: bytes of the first load (gzip, fonts apart), time from navigation
// to interactive, and edit-to-repaint latency (median and p95 over 100 edits) in 18.3 and 18.4 at
// the default sizes and at T = 64. Writes bench/results/page.json.
//   node bench/page.mjs   (after npm run build)
import { gzipSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { serve, launch } from '../tests/web/harness.mjs';

const ROOT = new URL('../', import.meta.url).pathname;
const EDITS = 100;
const server = await serve(`${ROOT}dist`);
const chrome = await launch();
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

async function firstLoad() {
  const page = await chrome.browser.newPage();
  const resources = [];
  page.on('response', async (r) => {
    try {
      const body = await r.body();
      resources.push({ url: r.url(), bytes: body.length, gzip: gzipSync(body).length });
    } catch { /* redirects have no body */ }
  });
  await page.goto(server.url);
  await page.waitForSelector('.lab-section[data-section="18.8"]');
  const interactive = await page.evaluate(() => performance.getEntriesByName('attention-lab:interactive')[0].startTime);
  await page.waitForTimeout(300);
  await page.close();
  const font = (r) => /\.woff2?$|\.ttf$/.test(r.url);
  const sum = (rs, k) => rs.reduce((a, r) => a + r[k], 0);
  return { interactiveMs: interactive, resources, gzipBytesExcludingFonts: sum(resources.filter((r) => !font(r)), 'gzip'),
    fontBytes: sum(resources.filter(font), 'bytes'), rawBytes: sum(resources, 'bytes') };
}

// Time from an input event to the updated DOM being laid out (style and layout forced), without
// the wait for the display's next frame.
async function latency(query, section, act) {
  const page = await chrome.browser.newPage();
  await page.goto(server.url + query);
  await page.waitForSelector(`.lab-section[data-section="${section}"] .lab`);
  const times = await page.evaluate(async ({ section, act, EDITS }) => {
    const sec = document.querySelector(`.lab-section[data-section="${section}"]`);
    sec.scrollIntoView();   // the student is looking at the section being edited
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)));
    const out = [];
    for (let i = 0; i < EDITS + 10; i++) {
      const t0 = performance.now();
      if (act === 'cell') {
        const input = sec.querySelector('[data-name="x"] input');
        input.value = String((i % 7) * 0.5 + 0.25);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      } else {
        sec.querySelector('[data-name="causal"]').click();
      }
      void document.body.offsetHeight;   // force style and layout of what changed
      const t1 = performance.now();
      if (i >= 10) out.push(t1 - t0);   // the first ten warm up
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));   // let the frame paint before the next edit
    }
    return out;
  }, { section, act, EDITS });
  const errors = await page.evaluate((s) => document.querySelector(`.lab-section[data-section="${s}"] .status.error`)?.textContent ?? null, section);
  await page.close();
  if (errors) throw new Error(`${section}: ${errors}`);
  return { median: quantile(times, 0.5), p95: quantile(times, 0.95), max: Math.max(...times) };
}

const x64 = Array.from({ length: 64 }, (_, t) => `${(t % 5) - 2},${(t % 3) - 1}`).join(';');
const load = await firstLoad();
const cases = [
  ['18.3 edit a cell of X, default (T 3)', '?lang=en', '18.3', 'cell', 16],
  ['18.3 edit a cell of X, T = 64', `?lang=en&s3.x=${x64}`, '18.3', 'cell', 50],
  ['18.4 toggle the mask, default (T 6, 3 scalings x 4 heads)', '?lang=en', '18.4', 'toggle', 16],
  ['18.4 toggle the mask, T = 64', '?lang=en&s4.T=64', '18.4', 'toggle', 50],
];
const edits = [];
for (const [label, query, section, act, target] of cases) edits.push({ label, target, ...(await latency(query, section, act)) });
await chrome.close();
server.close();

console.log('\nThe page in headless Chromium (Debian chromium, software rendering), served from localhost');
console.log(`first load: ${(load.gzipBytesExcludingFonts / 1024).toFixed(0)} KB gzip excluding fonts (target < 400 KB); KaTeX fonts ${(load.fontBytes / 1024).toFixed(0)} KB woff2; interactive ${load.interactiveMs.toFixed(0)} ms after navigation (target < 1000 ms)`);
console.log('edit to repaint (input event to updated layout, 100 edits):');
for (const e of edits) console.log(`  ${e.label}: median ${e.median.toFixed(2)} ms, p95 ${e.p95.toFixed(2)} ms (target p95 < ${e.target} ms)`);
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(`${ROOT}bench/results/page.json`, JSON.stringify({ load, edits }, null, 2));
console.log('wrote bench/results/page.json');
