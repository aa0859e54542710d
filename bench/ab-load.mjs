// Two builds of the page loaded in turn, a first visit each time (a new browser context), with the
// CPU slowed `rate` times: time to interactive (navigation start to the mark
// 'attention-lab:interactive') and to the first frame painted after it (bench/interactive.mjs),
// median and spread per build. For a before/after of a change to the
// page's load, which the machine's load moves alike for both builds (docs/performance.md).
//   node bench/ab-load.mjs DIST_A DIST_B [query = ?lang=en&embed=18.3] [loads = 9] [rate = 4]
//   query `course`: the course page with three <attention-lab> elements (bench/course-page.mjs)
import { rmSync } from 'node:fs';
import { serve, launch } from '../tests/web/harness.mjs';
import { coursePage } from './course-page.mjs';
import { openInteractive, watchInteractive } from './interactive.mjs';

const [a, b, query = '?lang=en&embed=18.3', loads = '9', rate = '4'] = process.argv.slice(2);
if (!a || !b || !(Number(loads) >= 1)) throw new Error('usage: node bench/ab-load.mjs DIST_A DIST_B [query] [loads >= 1] [rate]');
const course = query === 'course';
const dirs = course ? [coursePage(a), coursePage(b)] : [a, b];
const servers = [await serve(dirs[0]), await serve(dirs[1])];
const chrome = await launch();
const times = [[], []], painted = [[], []];
for (let i = 0; i <= Number(loads); i++) {
  for (const k of i % 2 ? [1, 0] : [0, 1]) {
    const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(rate) });
    await watchInteractive(page);
    const t = await openInteractive(page, servers[k].url + (course ? '' : query));
    if (i > 0) { times[k].push(t.mark); painted[k].push(t.painted); }   // the first load of each warms up
    await page.context().close();
  }
}
await chrome.close();
for (const s of servers) s.close();
if (course) for (const d of dirs) rmSync(d, { recursive: true, force: true });
const q = (xs, p) => { const s = [...xs].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const line = (xs) => `median ${q(xs, 0.5).toFixed(0)} ms, p95 ${q(xs, 0.95).toFixed(0)}, range ${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`;
for (const [k, dir] of [[0, a], [1, b]]) {
  console.log(`${dir} (${times[k].length} loads, ${query}, CPU ${rate}x slower): to the mark ${line(times[k])}; to its frame painted ${line(painted[k])}`);
}
