// Where an edit's time goes: a Chromium trace (CDP Tracing, the Performance panel's categories)
// and a V8 CPU profile taken over a run of edits, summarized as the main thread's CPU time per kind
// of work (script, style, layout, paint ...: the trace's thread time, which other processes on a
// busy machine do not inflate, and which CPU throttling does not scale) and the JavaScript
// functions with the most self time (wall-clock samples).
// The profiler docs/performance.md describes ("Profiling the page"); not part of `npm run bench`.
//   node bench/profile-page.mjs [case] [rate] [edits]     case: 18.3 | 18.4 | 18.3-T64 | load | embed
//   CSS='...' adds a style sheet before the edits (to try a change of the page's CSS)
//   (after npm run build, or DIST=/tmp/x after `npx vite build --minify false --outDir /tmp/x`; rate: CPU throttling, default 4; the raw trace goes to bench/results/trace.json)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { serve, launch } from '../tests/web/harness.mjs';
import { coursePage } from './course-page.mjs';
import { interactiveMark, watchInteractive } from './interactive.mjs';

const ROOT = new URL('../', import.meta.url).pathname;
const [which = '18.3', rate = '4', edits = '60'] = process.argv.slice(2);
const RESULTS = process.env.BENCH_RESULTS ?? `${ROOT}bench/results`;   // scripts/bench.sh --smoke writes elsewhere
const x64 = Array.from({ length: 64 }, (_, t) => `${(t % 5) - 2},${(t % 3) - 1}`).join(';');
const CASES = {
  '18.3': ['?lang=en', '18.3', 'cell'],
  '18.4': ['?lang=en', '18.4', 'toggle'],
  '18.3-T64': [`?lang=en&s3.x=${x64}`, '18.3', 'cell'],
  load: ['?lang=en', null, null],
  embed: ['?lang=en&embed=18.3', null, null],
  'embed-18.8': ['?lang=en&embed=18.8', null, null],
  course: ['', null, null],   // the course page with three <attention-lab> elements, as bench/page.mjs builds it
};
const [query, section, act] = CASES[which];
const DIST = process.env.DIST ?? `${ROOT}dist`;   // DIST: e.g. a build with --minify false, for readable names
const courseDir = which === 'course' ? coursePage(DIST) : null;
const server = await serve(courseDir ?? DIST);
const chrome = await launch();
const page = await chrome.browser.newPage({ viewport: { width: 1280, height: 900 } });
const cdp = await page.context().newCDPSession(page);
await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(rate) });
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
const categories = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink.user_timing'];
await watchInteractive(page);   // the mark, awaited from inside the page (bench/interactive.mjs)
const ready = () => interactiveMark(page);

if (section) {
  await page.goto(server.url + query);
  await ready();
  if (process.env.CSS) await page.addStyleTag({ content: process.env.CSS });
  // the section's lab is built when it comes into view; then two frames, so that its first paint is done
  await page.evaluate((s) => document.querySelector(`.lab-section[data-section="${s}"]`).scrollIntoView(), section);
  await page.waitForSelector(`.lab-section[data-section="${section}"] [data-name="${act === 'cell' ? 'x' : 'causal'}"]`);
  // 18.4 draws its variance chart in the first idle moment after it is built: not inside the trace
  if (section === '18.4') await page.waitForSelector('.lab-section[data-section="18.4"] [data-name="variance"] details.chart-data:not([hidden])', { state: 'attached' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
await chrome.browser.startTracing(page, { categories });
await cdp.send('Profiler.start');
if (section) {
  await page.evaluate(async ({ section, act, n }) => {
    const sec = document.querySelector(`.lab-section[data-section="${section}"]`);
    const frame = () => new Promise((r) => requestAnimationFrame(() => { const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0); }));
    for (let i = 0; i < n; i++) {
      if (act === 'cell') {
        const input = sec.querySelector('[data-name="x"] input');
        input.value = String((i % 7) * 0.5 + 0.25);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      } else sec.querySelector('[data-name="causal"]').click();
      await frame();
    }
  }, { section, act, n: Number(edits) });
} else {
  await page.goto(server.url + query, { waitUntil: 'commit' });
  await ready();
}
const { profile } = await cdp.send('Profiler.stop');
const trace = JSON.parse(String(await chrome.browser.stopTracing()));
await chrome.close();
server.close();
if (courseDir) rmSync(courseDir, { recursive: true, force: true });

// the renderer's main thread: the CrRendererMain thread that parsed the lab's HTML when the trace
// has a load, else the CrRendererMain thread with the most events
const events = trace.traceEvents ?? trace;
const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`);
const count = new Map();
for (const e of events) { const k = `${e.pid}:${e.tid}`; if (mains.includes(k)) count.set(k, (count.get(k) ?? 0) + 1); }
const parsed = events.find((e) => e.name === 'ParseHTML' && mains.includes(`${e.pid}:${e.tid}`) && e.args?.beginData?.url?.startsWith(server.url));
const main = parsed ? `${parsed.pid}:${parsed.tid}` : [...count].sort((a, b) => b[1] - a[1])[0][0];
const KIND = {
  UpdateLayoutTree: 'style', RecalculateStyles: 'style', ParseAuthorStyleSheet: 'style',
  Layout: 'layout', PrePaint: 'paint', Paint: 'paint', PaintImage: 'paint', Layerize: 'paint', Commit: 'paint', UpdateLayer: 'paint',
  HitTest: 'hit test', ParseHTML: 'parse HTML',
  MinorGC: 'GC', MajorGC: 'GC', 'V8.GC_SCAVENGER': 'GC', BlinkGC: 'GC',
  'v8.compile': 'compile', 'v8.compileModule': 'compile', 'V8.CompileCode': 'compile',
};
const SCRIPT = new Set(['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'EvaluateScript', 'v8.evaluateModule', 'RunMicrotasks']);
// a kind's time is its events' time minus nested events of other kinds; script is the rest of
// the script events once style, layout, paint, GC and compile inside them are taken out
const ours = events.filter((e) => `${e.pid}:${e.tid}` === main && e.ph === 'X' && e.dur && e.tdur !== undefined);
ours.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
const kindOf = (e) => KIND[e.name] ?? (SCRIPT.has(e.name) ? 'script' : e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask' ? 'task' : null);
const self = new Map();
const stack = [];
for (const e of ours) {
  const k = kindOf(e);
  if (!k) continue;
  while (stack.length && stack.at(-1).end <= e.ts) stack.pop();
  const parent = stack.at(-1);
  if (parent) self.set(parent.kind, (self.get(parent.kind) ?? 0) - e.tdur / 1000);
  self.set(k, (self.get(k) ?? 0) + e.tdur / 1000);
  stack.push({ kind: k, end: e.ts + e.dur });
}
const n = section ? Number(edits) : 1;
console.log(`\n${which}, CPU ${rate}x slower, ${section ? `${n} edits` : 'one load'}: main-thread CPU time per ${section ? 'edit' : 'load'} (ms, self time by kind)`);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1])) console.log(`  ${k.padEnd(12)} ${(v / n).toFixed(2).padStart(8)}`);
console.log(`  ${'total'.padEnd(12)} ${([...self.values()].reduce((a, v) => a + v, 0) / n).toFixed(2).padStart(8)}`);

// V8 CPU profile: self time per function (across the run)
const byId = new Map(profile.nodes.map((nd) => [nd.id, nd]));
const selfTime = new Map();
const dt = profile.timeDeltas;
profile.samples.forEach((id, i) => {
  const nd = byId.get(id);
  const f = nd.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
  selfTime.set(key, (selfTime.get(key) ?? 0) + (dt[i + 1] ?? 0) / 1000);
});
console.log('JavaScript self time per edit (ms), top 25:');
for (const [k, v] of [...selfTime].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(v / n).toFixed(3).padStart(8)}  ${k}`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(`${RESULTS}/trace.json`, JSON.stringify(trace));
writeFileSync(`${RESULTS}/profile.cpuprofile`, JSON.stringify(profile));   // Chromium DevTools opens it
