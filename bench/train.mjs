// 18.8 in headless Chromium, as a student runs it: the default model trains on the default corpus
// in the page's worker for a while, and this prints what it reaches (validation loss at 1, 3 and
// 10 minutes against the unigram baseline, the best validation point) and how long the page's
// main thread spends on each message from the worker, minute by minute (it must stay flat).
// Writes bench/results/train.json.
//   node bench/train.mjs [minutes = 10] [lang = zh]   (after npm run build; minutes may be a fraction)
//   BENCH_RESULTS=dir writes there instead of bench/results (scripts/bench.sh --smoke does)
import { mkdirSync, writeFileSync } from 'node:fs';
import { serve, launch } from '../tests/web/harness.mjs';
import { WAIT_MS } from '../tests/wait.mjs';

const ROOT = new URL('../', import.meta.url).pathname;
const MINUTES = Number(process.argv[2] ?? 10);
const LANG = process.argv[3] ?? 'zh';
const RESULTS = process.env.BENCH_RESULTS ?? `${ROOT}bench/results`;
const S8 = '.lab-section[data-section="18.8"]';
const quantile = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN; };

const server = await serve(`${ROOT}dist`);
const chrome = await launch();
const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
// time the section's handler of every worker message, on the page's main thread
await page.addInitScript(() => {
  const W = window.Worker;
  window.__timings = [];
  window.Worker = class extends W {
    set onmessage(f) {
      super.onmessage = (e) => {
        const t0 = performance.now();
        f(e);
        window.__timings.push([t0, performance.now() - t0, e.data.type]);
      };
    }
    get onmessage() { return super.onmessage; }
  };
});
await page.goto(`${server.url}?lang=${LANG}`);
// 18.8's lab is built when it comes into view: scroll to the section (its start button once it
// exists) until the button stays in view (sections off screen have estimated heights until drawn)
await page.waitForFunction((sel) => {
  const start = document.querySelector(`${sel} [data-name="start"]`);
  (start ?? document.querySelector(sel))?.scrollIntoView({ block: 'center' });   // the section may not be there yet
  const r = start?.getBoundingClientRect();
  return r && r.top >= 0 && r.bottom <= innerHeight;
}, S8, { polling: 250 });
await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === '0', S8);
const read = () => page.evaluate((sel) => {
  const dd = (c) => document.querySelector(`${sel} dl[data-name="stats"] dd.${c}`)?.textContent ?? '';
  const n = (s) => Number.parseFloat(s.replace('−', '-'));
  return { seconds: n(dd('time')), step: Number(dd('step')), train: n(dd('train-loss')), val: n(dd('val-loss')), best: dd('best-loss'),
    unigram: n(dd('unigram')), vocab: Number(dd('vocab')), params: dd('params'), wall: performance.now() };
}, S8);
const untrained = await read();
const startWall = untrained.wall;
await page.locator(`${S8} [data-name="start"]`).click();
// a reading every 5 s of training (the section's own clock), the last at MINUTES
const samples = [];
for (let at = Math.min(5, MINUTES * 60); ; at = Math.min(at + 5, MINUTES * 60)) {
  await page.waitForFunction(([sel, at]) => Number.parseFloat(document.querySelector(`${sel} dl[data-name="stats"] dd.time`)?.textContent) >= at,
    [S8, at], { timeout: WAIT_MS + at * 1000 });
  const r = await read();
  samples.push(r);
  if (r.seconds >= MINUTES * 60) break;
}
await page.locator(`${S8} [data-name="pause"]`).click();
const timings = (await page.evaluate(() => window.__timings)).filter(([t0]) => t0 >= startWall);
const sample = await page.locator(`${S8} [data-name="sample"]`).textContent();
await page.close();
await chrome.close();
server.close();
if (errors.length) throw new Error(errors.join('\n'));

/** The last reading at or before `sec` seconds of training. */
const at = (sec) => samples.filter((r) => r.seconds <= sec).at(-1);
const marks = [1, 2, 3, 5, 10].filter((m) => m <= MINUTES).map((m) => ({ minutes: m, ...at(m * 60) }));
const last = samples.at(-1);
const perMinute = Array.from({ length: Math.ceil(MINUTES) }, (_, i) => {
  const ts = timings.filter(([t0]) => t0 - startWall >= i * 60000 && t0 - startWall < (i + 1) * 60000).map(([, d]) => d);
  return { minute: i + 1, messages: ts.length, medianMs: quantile(ts, 0.5), p95Ms: quantile(ts, 0.95), maxMs: Math.max(...ts) };
});

console.log(`\n18.8 in headless Chromium (${LANG} page, default corpus and model), ${MINUTES} minutes of training`);
console.log(`V = ${untrained.vocab}, ${untrained.params} parameters; unigram baseline ${untrained.unigram.toFixed(4)} nats; untrained validation loss ${untrained.val.toFixed(4)}`);
for (const m of marks) {
  console.log(`  after ${m.minutes} min: step ${m.step}, training loss ${m.train.toFixed(4)}, validation loss ${m.val.toFixed(4)} `
    + `(${m.val < m.unigram ? 'below' : 'NOT below'} the baseline by ${(m.unigram - m.val).toFixed(3)}); best so far ${m.best}`);
}
console.log(`  ${(last.step / last.seconds).toFixed(1)} steps/s on average; last sample: ${JSON.stringify(sample.slice(0, 80))}`);
console.log('main-thread time per worker message (handler, including the repaint), by minute:');
for (const p of perMinute) console.log(`  minute ${p.minute}: ${p.messages} messages, median ${p.medianMs.toFixed(2)} ms, p95 ${p.p95Ms.toFixed(2)} ms, max ${p.maxMs.toFixed(1)} ms`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(`${RESULTS}/train.json`, JSON.stringify({ lang: LANG, minutes: MINUTES, untrained, marks, samples, perMinute }, null, 2));
console.log(`wrote ${RESULTS}/train.json`);
