// 18.8 (the character GPT trained live) and the charts, in headless Chromium: training on the
// default corpus, the mask toggle and the future check, what shows before training, the reset,
// characters the model cannot read, the attention maps' labels, phones (390 px), and the cost of
// one worker message after 10,000 evaluation points.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, heatmapValues, labMounted } from './harness.mjs';

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

const S8 = '.lab-section[data-section="18.8"]';
async function open(query = '', { width = 1280, captureWorkers = false, wait = `${S8} [data-name="start"]` } = {}) {
  const { page, errors } = await openPage(chrome.browser, 'about:blank');
  await page.setViewportSize({ width, height: 900 });
  if (captureWorkers) {
    // keep a handle on the training worker, to feed its message handler directly
    await page.addInitScript(() => {
      const W = window.Worker;
      window.__workers = [];
      window.Worker = class extends W { constructor(...a) { super(...a); window.__workers.push(this); } };
    });
  }
  await page.goto(server.url + query);
  await page.waitForSelector(wait);
  await labMounted(page);
  return { page, errors, s8: page.locator(S8) };
}
const stat = async (s8, name) => (await s8.locator(`dl[data-name="stats"] dd.${name}`).textContent()).trim();
const num = async (s8, name) => Number.parseFloat((await stat(s8, name)).replace('−', '-'));
/** Scroll until `selector` stays in view (sections off screen have estimated heights until drawn). */
const scrollTo = (page, selector) => page.waitForFunction((sel) => {
  const el = document.querySelector(sel);
  el.scrollIntoView({ block: 'center' });
  const r = el.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= innerHeight;
}, selector, { polling: 250 });
/** Scroll 18.8 into view (which builds the untrained model) and wait for it. */
async function built(page, s8) {
  await scrollTo(page, `${S8} [data-name="start"]`);
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === '0'
    && document.querySelector(`${sel} dl[data-name="future"] dd.prefix`), S8);
}
/** Train the page's model to exactly `steps` steps: a `start` with `until` sent to the page's own
 * worker (the page's Start sends `until: null`); the worker then stops and says `paused`. */
async function trainTo(page, s8, steps, whileTraining = async () => {}) {
  await page.evaluate((until) => window.__workers[0].postMessage({ type: 'start', until }), steps);
  await whileTraining();
  await page.waitForFunction(([sel, n]) => document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === String(n), [S8, steps]);
}
/** The validation loss of the chart's data table at `step` (an evaluation every EVAL_EVERY steps). */
async function valAt(s8, step) {
  await s8.page().waitForFunction(([sel, step]) => [...document.querySelectorAll(`${sel} details.chart-data tbody tr`)]   // rows are built once the table is open
    .some((tr) => tr.firstElementChild?.textContent === String(step)), [S8, step]);
  const rows = await s8.locator('details.chart-data tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  const row = rows.find((r) => r[0] === String(step));
  assert.ok(row, `an evaluation at step ${step} in the chart's table (${rows.map((r) => r[0])})`);
  return Number.parseFloat(row[2].replace('−', '-'));
}

// 18.8 learns, counted in steps: the seed is fixed and the worker's training deterministic, so
// these losses are the same on any machine at any load (the long curve is in `npm run bench`).
const STEPS = 400;
test(`18.8 on the default corpus (zh): after ${STEPS} steps the validation loss is below the baseline and below its value at ${STEPS / 2}; the check stays 0`, async (t) => {
  const { page, errors, s8 } = await open('', { captureWorkers: true });
  await built(page, s8);
  const V = Number(await stat(s8, 'vocab'));
  assert.ok(V > 1000 && V <= 2048, `the poems' vocabulary: ${V}`);
  const initial = await num(s8, 'val-loss');
  assert.ok(Math.abs(initial - Math.log(V)) < 0.3, `untrained loss ${initial} is about ln V = ${Math.log(V)}`);
  const unigram = await num(s8, 'unigram');
  await trainTo(page, s8, STEPS / 2);
  const nodesHalf = await s8.evaluate((el) => el.querySelectorAll('*').length);
  // the page stays responsive while training: typing in another section recomputes at once
  await trainTo(page, s8, STEPS, async () => {
    await page.locator('.lab-section[data-section="18.1"] [data-name="x"] input').first().fill('5');
    assert.equal((await heatmapValues(page.locator('.lab-section[data-section="18.1"] [data-name="y0"]')))[0][0], 5);
  });
  const nodesEnd = await s8.evaluate((el) => el.querySelectorAll('*').length);
  await s8.locator('details.chart-data summary').click();
  const valHalf = await valAt(s8, STEPS / 2), valEnd = await valAt(s8, STEPS);
  assert.equal(await num(s8, 'val-loss'), valEnd, 'the stats show the last evaluation');
  t.diagnostic(`V ${V}, baseline ${unigram}, validation loss ${initial} untrained, ${valHalf} at step ${STEPS / 2}, ${valEnd} at step ${STEPS}`);
  assert.ok(valEnd < unigram, `after ${STEPS} steps the validation loss ${valEnd} is below the unigram baseline ${unigram}`);
  assert.ok(valEnd < valHalf, `and still falling: ${valHalf} at step ${STEPS / 2}, ${valEnd} at step ${STEPS}`);
  assert.ok(Math.abs(nodesEnd - nodesHalf) <= 6, `the section keeps its size while training: ${nodesHalf} -> ${nodesEnd} elements`);
  // the chart rings the best validation point, with its value and step
  const best = await stat(s8, 'best-loss');
  const mark = await s8.locator('svg.chart .mark-label').textContent();
  const [bestVal, bestStep] = best.match(/[\d.]+/g);
  assert.ok(Math.abs(Number(mark.match(/[\d.]+/)[0]) - Number(bestVal)) <= 6e-4 && mark.includes(`第 ${bestStep} 步`), `mark "${mark}" vs best ${best}`);
  // stopped at the step asked for, the page asks for a sample and the maps, as after "Pause"
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="sample"]`)?.textContent.length > 60, S8);
  const change = (await heatmapValues(s8.locator('[data-name="future"]')))[0];
  assert.ok(change.slice(0, 7).every((v) => v === 0), 'prefix (t = 6) exactly unchanged');
  assert.ok(change.slice(7).some((v) => v > 1e-3), 'the changed future moves its own logits');
  assert.equal(await s8.locator('[data-name^="attn-"]').count(), 8, '2 layers x 4 heads');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.8 mask toggle: without the causal mask the future check fails, with it the prefix change is exactly 0', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en');
  await built(page, s8);
  const prefix = () => s8.locator('dl[data-name="future"] dd.prefix').textContent();
  assert.equal(await prefix(), '0');
  assert.match(await s8.locator('[data-name="verdict"]').textContent(), /^Exactly 0/);
  await s8.locator('[data-name="causal"]').uncheck();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="future"] dd.prefix`)?.textContent !== '0', S8);
  const leak = Number((await prefix()).replace('−', '-'));
  assert.ok(leak > 1e-6, `without the mask the prefix moves: ${leak}`);
  assert.match(await s8.locator('[data-name="verdict"]').textContent(), /leak/);
  assert.match(await s8.locator('[data-name="train-note"]').textContent(), /mask is off/);
  await page.waitForURL(/s8\.causal=0/);   // the toggle is in the URL (written once the edits pause)
  const noMask = await heatmapValues(s8.locator('[data-name="future"]'));
  assert.ok(noMask[0].slice(0, 7).some((v) => v > 0), 'positions <= t change');
  await s8.locator('[data-name="causal"]').check();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="future"] dd.prefix`)?.textContent === '0', S8);
  assert.ok((await heatmapValues(s8.locator('[data-name="future"]')))[0].slice(0, 7).every((v) => v === 0));
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.8 before training: the chart and the check say what will appear, then show the untrained model; Reset returns to step 0', async () => {
  const { page, errors, s8 } = await open('?lang=en');
  // far below the fold: nothing is built yet, and both areas explain themselves
  assert.match(await s8.locator('.chart-note').textContent(), /three lines appear here/);
  assert.match(await s8.locator('[data-name="future-waiting"]').textContent(), /Positions 0 to t must read exactly 0/);
  assert.deepEqual(await s8.locator('ul.chart-legend li').allTextContents(),
    [], 'no legend before any data');
  await built(page, s8);
  assert.deepEqual(await s8.locator('ul.chart-legend li').allTextContents(),
    [' training loss (solid)', ' validation loss (dashed)', ' unigram baseline (dotted)']);
  assert.equal(await s8.locator('[data-name="future-waiting"]').isVisible(), false);
  assert.equal(await s8.locator('svg.chart polyline').nth(1).getAttribute('stroke-dasharray'), '7 4', 'validation dashed');
  assert.equal(await s8.locator('svg.chart .chart-hlines line').getAttribute('stroke-dasharray'), '1.5 3.5', 'baseline dotted');
  // train a little, then Reset the model: back to the untrained weights at step 0
  const untrained = await stat(s8, 'val-loss');
  await s8.locator('[data-name="start"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.best-loss`)?.textContent, S8);
  assert.notEqual(await stat(s8, 'val-loss'), untrained);
  await s8.locator('[data-name="reset-model"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === '0', S8);
  assert.equal(await stat(s8, 'val-loss'), untrained, 'the same seed rebuilds the same untrained model');
  assert.equal(await s8.locator('[data-name="pause"]').isDisabled(), true, 'reset stops training');
  await s8.locator('details.chart-data summary').click();
  await page.waitForFunction((sel) => document.querySelectorAll(`${sel} details.chart-data tbody tr`).length === 1, S8);
  // the short text: the page tells the student what to expect (overfitting)
  await s8.locator('[data-name="source"]').getByLabel('the short text').check();
  assert.match(await s8.locator('[data-name="train-note"]').textContent(), /overfitting/);
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.vocab`)?.textContent === '28', S8);
  assert.deepEqual(errors, []);
  await page.close();
});

// The student's own text: an error the core reports about it is shown beside the text box (in the
// window, right under the box, in the page's language), and the status line stops waiting.
for (const [lang, width, want] of [['en', 1280, /Too short: the text has only 11 characters.*T_max = 32.*330/], ['zh', 390, /文本只有 11 个字符，太短了.*T_max = 32.*330/]]) {
  test(`18.8 own text (${lang}, ${width} px): a text the core rejects is explained beside the box, and the status ends`, async () => {
    const { page, errors, s8 } = await open(`?embed=18.8&lang=${lang}`, { width });
    await built(page, s8);
    await s8.locator('[data-name="source"] input[value="custom"]').check();
    const box = s8.locator('[data-name="customText"]');
    await box.fill('the cat sat');
    await s8.locator('[data-name="reset-model"]').click();
    // wherever the page puts it, the core's message appears
    await page.waitForFunction((sel) => [...document.querySelectorAll(`${sel} .cell-error, ${sel} .status`)]
      .some((e) => e.offsetParent && /330/.test(e.textContent)), S8);
    const message = s8.locator('.cell-error:visible, .status:visible').filter({ hasText: '330' }).first();
    assert.match(await message.textContent(), want);
    const m = await message.boundingBox(), b = await box.boundingBox();
    assert.ok(m.y >= b.y + b.height - 1 && m.y - (b.y + b.height) < 80, `right under the text box: message ${JSON.stringify(m)}, box ${JSON.stringify(b)}`);
    assert.ok(m.y >= 0 && m.y + m.height <= 900 && m.x >= 0 && m.x + m.width <= width + 1, `in the window: ${JSON.stringify(m)}`);
    assert.equal(await box.getAttribute('aria-describedby'), await message.getAttribute('id'), 'the box is described by the message');
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    // nothing is pending: the status line says nothing more ("Preparing the model…" ends)
    assert.equal((await s8.locator('.train-status').textContent()).trim(), '', 'the status line ends');
    // a text long enough builds the model, and the message goes
    await box.fill('the cat sat on the mat. '.repeat(20));
    await s8.locator('[data-name="reset-model"]').click();
    await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.vocab`)?.textContent === '11', S8);
    assert.equal(await s8.locator('.cell-error:visible').count(), 0, 'the message goes once the text is accepted');
    assert.equal(await box.getAttribute('aria-invalid'), null);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('18.8 sentence field: capitals and ASCII punctuation are read as the model knows them; unknown characters are named, the check still runs', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en');
  await built(page, s8);
  const probe = s8.locator('[data-name="probe"]');
  await probe.fill('The Cat sat on the mat€');
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="attn-0-0"] thead th:last-child`)?.textContent === 't', S8);
  const note = await s8.locator('[data-name="probe-note"]').textContent();
  assert.match(note, /cannot read “€”/);
  assert.match(note, /T → t, C → c/);
  assert.equal(await page.locator('.lab-section.has-error').count(), 0, 'no greyed-out section');
  const cols = await s8.locator('[data-name="attn-0-0"] thead th').allTextContents();
  assert.deepEqual(cols.slice(1), [...'the cat sat on the mat'].map((c) => (c === ' ' ? '␣' : c)));
  // zh: ASCII punctuation maps to the poems' full-width marks, Latin letters are named
  const zh = await open('?embed=18.8');
  await built(zh.page, zh.s8);
  await zh.s8.locator('[data-name="probe"]').fill('床前明月光,疑是地上霜.Ab');
  await zh.page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="attn-0-0"] thead th:last-child`)?.textContent === '。', S8);
  const zhNote = await zh.s8.locator('[data-name="probe-note"]').textContent();
  assert.match(zhNote, /模型读不了 “A” “b”/);
  assert.match(zhNote, /, → ，, \. → 。/);
  assert.deepEqual(errors, []);
  assert.deepEqual(zh.errors, []);
  await page.close();
  await zh.page.close();
});

test('18.8 attention maps: characters on both axes, rows receive, the hover names both characters and the weight', async () => {
  for (const [query, want] of [['?embed=18.8&lang=en', /^'(.)' attends to '(.)': ([\d.]+)$/], ['?embed=18.8', /^“(.)”看“(.)”：([\d.]+)$/]]) {
    const { page, errors, s8 } = await open(query);
    await built(page, s8);
    await page.waitForSelector(`${S8} [data-name="attn-1-3"] tbody tr`);
    const map = s8.locator('[data-name="attn-1-3"]');
    const rows = await map.locator('tbody th').allTextContents(), cols = (await map.locator('thead th').allTextContents()).slice(1);
    const sentence = [...(await s8.locator('[data-name="probe"]').inputValue())].map((c) => (c === ' ' ? '␣' : c));
    assert.deepEqual(rows, sentence);
    assert.deepEqual(cols, sentence);
    const cell = map.locator('tbody tr').nth(3).locator('td').nth(1);
    await cell.hover();   // the tooltip is given when the pointer comes over the cell
    const [, a, b, v] = (await cell.getAttribute('title')).match(want);
    assert.equal(a, sentence[3]);
    assert.equal(b, sentence[1]);
    assert.equal(Number(v).toFixed(3), Number(await cell.getAttribute('data-value')).toFixed(3));
    assert.equal(await cell.getAttribute('aria-label'), await cell.getAttribute('title'));
    // causal: nothing right of the diagonal
    const w = await heatmapValues(map);
    assert.ok(w.every((row, i) => row.every((x, j) => j <= i || x === 0)));
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('at 390 px: chart text is at least 11 px (18.4 and 18.8) and no 18.8 text runs past the screen', async () => {
  for (const lang of ['en', 'zh']) {
    const bars = await open(`?embed=18.4&lang=${lang}`, { width: 390, wait: '.lab-section[data-section="18.4"] svg.chart' });
    const { page, errors, s8 } = await open(`?embed=18.8&lang=${lang}`, { width: 390 });
    await built(page, s8);
    for (const [id, p] of [['18.4', bars.page], ['18.8', page]]) {
      const page = p;
      await scrollTo(page, `.lab-section[data-section="${id}"] svg.chart`);
      const sizes = await page.locator(`.lab-section[data-section="${id}"] svg.chart text`).evaluateAll((els) => els.filter((e) => e.textContent).map((e) => {
        const svg = e.ownerSVGElement;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return Number.parseFloat(getComputedStyle(e).fontSize) * scale;
      }));
      assert.ok(sizes.length > 5, `${id}: chart text found`);
      assert.ok(Math.min(...sizes) >= 11, `${id}: smallest chart text ${Math.min(...sizes)} px`);
      const legend = await page.locator(`.lab-section[data-section="${id}"] ul.chart-legend li`).evaluateAll((els) => els.map((e) => Number.parseFloat(getComputedStyle(e).fontSize)));
      assert.ok(legend.length && Math.min(...legend) >= 11, `${id}: legend ${legend}`);
    }
    await s8.locator('[data-name="causal"]').uncheck();   // the longer verdict
    await page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="verdict"].bad`), S8);
    const over = await s8.evaluate((sec) => {
      const scrolls = (el) => { for (let p = el.parentElement; p && p !== sec; p = p.parentElement) if (/auto|scroll/.test(getComputedStyle(p).overflowX)) return true; return false; };
      return [...sec.querySelectorAll('p, dd, dt, li, label, legend, figcaption, h3, h4, pre, button')]
        .filter((e) => e.offsetParent && e.getBoundingClientRect().right > window.innerWidth + 0.5 && !scrolls(e))
        .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`);
    });
    assert.deepEqual(over, [], 'text past the right edge');
    assert.deepEqual(errors, []);
    assert.deepEqual(bars.errors, []);
    await page.close();
    await bars.page.close();
  }
});

// What one message costs is counted, not timed (the time per message is bench/train.mjs's): the
// points drawn and the elements stay bounded however long the history grows.
test('18.8 after 10,000 evaluation points: the chart draws a bounded number of points, keeps the first and best, the DOM stays bounded', async (t) => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en', { captureWorkers: true });
  await built(page, s8);
  const r = await page.evaluate(() => {
    const w = window.__workers[0];
    const sec = document.querySelector('.lab-section[data-section="18.8"]');
    const BEST = 6217;
    // the worker's real message shape: a progress message every slice, a new evaluation point every 25 steps
    const msg = (i) => {
      const step = i * 25, val = i === BEST ? 1.25 : 1.5 + 2 / (1 + i / 500) + 0.01 * Math.sin(i);
      return { type: 'progress', step, loss: val - 0.1, stepsPerSec: 24, tokensPerSec: 6144, seconds: step / 24,
        point: { step, seconds: step / 24, train: val - 0.1, val, trainSe: 0.02, valSe: 0.03 }, due: false };
    };
    const drawn = () => [...sec.querySelectorAll('svg.chart polyline')].map((p) => p.points.length);
    let nodes1000 = 0, drawn1000 = [];
    for (let i = 1; i <= 10000; i++) {
      w.onmessage({ data: msg(i) });
      if (i === 1000) { nodes1000 = sec.querySelectorAll('*').length; drawn1000 = drawn(); }
    }
    return { nodes1000, nodes10000: sec.querySelectorAll('*').length, drawn1000, drawn10000: drawn(), bestStep: BEST * 25 };
  });
  t.diagnostic(`points drawn per line: ${r.drawn1000} at 1,000 evaluations, ${r.drawn10000} at 10,000`);
  assert.equal(r.drawn10000.length, 2, 'the training and validation lines');
  assert.ok(r.drawn10000.every((n) => n >= 100 && n <= 320), `each line thinned to a bounded number of points: ${r.drawn10000}`);
  assert.ok(r.drawn10000.every((n, i) => n <= r.drawn1000[i] + 20), `no more points after 10,000 evaluations than after 1,000: ${r.drawn1000} -> ${r.drawn10000}`);
  assert.ok(Math.abs(r.nodes10000 - r.nodes1000) <= 8, `about the same number of elements (axis ticks vary) after 1,000 and 10,000 points: ${r.nodes1000}, ${r.nodes10000}`);
  assert.equal(await stat(s8, 'step'), '250000');
  assert.match(await s8.locator('svg.chart .mark-label').textContent(), new RegExp(`1\\.250 \\(step ${r.bestStep}\\)`));
  // the drawn curves start at the untrained model (step 0) and pass through the best point
  await s8.locator('details.chart-data summary').click();
  await s8.locator('details.chart-data tbody tr').first().waitFor();   // built on the (asynchronous) toggle event
  const rows = await s8.locator('details.chart-data tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.ok(rows.length <= 310, `thinned to ${rows.length} rows`);
  assert.equal(rows[0][0], '0');
  assert.ok(rows.some((row) => row[0] === String(r.bestStep) && row[2] === '1.2500'), 'the best validation point is drawn');
  assert.equal(rows.at(-1)[0], '250000', 'and the latest');
  assert.deepEqual(errors, []);
  await page.close();
});
