// 18.8's reading of the trained model, in headless Chromium: the tour of the heads (predict, then
// the core's numbers, untrained and after a fixed number of seeded steps, equal to the same model
// trained here in Node), the sentence view (its shading is the core's weights, per head and the
// mean of a layer, untrained beside trained; the keyboard moves the pointer), the live exercise,
// the loss note's standard errors, the mask toggle that asks before it discards the training, and
// the tour at 390 px. Training is counted in steps (deterministic for a seed), never timed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { serve, launch, openPage, labMounted } from './harness.mjs';
import { loadCore } from '../../wasm/js/index.js';
import { EVAL_BATCHES } from '../../web/src/train-protocol.js';
import { fmt } from '../../web/src/format.js';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const S8 = '.lab-section[data-section="18.8"]';
// the page's model (web/src/sections/s18-8/training.js, MODEL) with the section's default seed
const OPTIONS = { C: 48, heads: 4, layers: 2, tMax: 32, batch: 4, lr: 3e-3, seed: 1, causal: true };
const STEPS = 200;   // a multiple of 200: the page measures the heads again there
const SENTENCE = 'the state of the union';   // the sentence the page inspects on the speeches
const PATTERNS = ['previous', 'self', 'sameChar', 'start', 'wordStart', 'separator'];
let server, chrome, core, untrained, trained;

before(async () => {
  [server, chrome, core] = await Promise.all([serve(DIST), launch(), loadCore()]);
  // the same model as the page's, untrained and after STEPS steps, measured here
  const text = readFileSync(new URL('../../lessons/data/speeches.en.txt', import.meta.url), 'utf8');
  const model = core.createModel(text, OPTIONS);
  untrained = { patterns: model.headPatterns(), maps: model.attention(SENTENCE) };
  model.trainSteps(STEPS);
  trained = { patterns: model.headPatterns(), maps: model.attention(SENTENCE), eval: model.evaluate(EVAL_BATCHES) };
  model.dispose();
});
after(async () => { await chrome?.close(); server?.close(); });

async function open(query, width = 1280) {
  const { page, errors } = await openPage(chrome.browser, 'about:blank');
  await page.setViewportSize({ width, height: 900 });
  // a handle on the training worker, to train to a fixed step
  await page.addInitScript(() => {
    const W = window.Worker;
    window.__workers = [];
    window.Worker = class extends W { constructor(...a) { super(...a); window.__workers.push(this); } };
  });
  await page.goto(server.url + query);
  await page.waitForSelector(`${S8} [data-name="start"]`);
  await labMounted(page);
  const s8 = page.locator(S8);
  await s8.locator('[data-name="start"]').scrollIntoViewIfNeeded();   // builds the untrained model
  // the heads of the untrained model measured: the tour asks its first question
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="tour-guess"]:not([hidden]) legend`)?.textContent, S8);
  return { page, errors, s8 };
}
const step = (s8) => s8.locator('dl[data-name="stats"] dd.step').textContent();
async function trainTo(page, steps) {
  await page.evaluate((until) => window.__workers[0].postMessage({ type: 'start', until }), steps);
  await page.waitForFunction(([sel, n]) => document.querySelector(`${sel} [data-name="tour-status"]`)?.textContent.includes(`step ${n} `), [S8, steps]);
}
/** Answer the tour's question `pattern` with the guess labelled `label` (or skip). */
async function answer(s8, pattern, label) {
  await s8.locator('[data-name="tour-question"]').selectOption(pattern);
  if (label === null) await s8.locator('[data-name="tour-guess"] [data-act="skip"]').click();
  else {
    await s8.locator('[data-name="tour-guess"]').getByLabel(label, { exact: true }).check();
    await s8.locator('[data-name="tour-guess"] [data-act="measure"]').click();
  }
  await s8.locator(`[data-name="tour-table"][data-pattern="${pattern}"]`).waitFor();
}
/** The tour's table: per head (l-h) its cells' data-value (step 0, now, ratio) and whether it shows the pattern. */
const tableOf = (s8) => s8.locator('[data-name="tour-table"] tbody tr[data-head]').evaluateAll((trs) => trs.map((tr) => ({
  head: tr.dataset.head, values: [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value)), shows: tr.classList.contains('shows') })));
/** Every head's numbers of `pattern`, as the page shows them, against the core's measurement here. */
async function assertTable(s8, pattern, then, now) {
  const rows = await tableOf(s8);
  assert.equal(rows.length, 8);
  for (const { head, values, shows } of rows) {
    const [l, h] = head.split('-').map(Number);
    const at = (p) => p.heads.find((e) => e.layer === l && e.head === h);
    assert.deepEqual(values, [at(then).mean[pattern], at(now).mean[pattern], at(now).ratio[pattern]], `${pattern}, head ${head}`);
    assert.equal(shows, now.found[pattern].some((e) => e.layer === l && e.head === h), `${pattern}: the core's verdict for ${head}`);
  }
}

test('the tour: untrained it finds nothing; after 200 seeded steps every number and verdict is the core\'s, the guess judged against it', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en');
  assert.match(await s8.locator('[data-name="tour-status"]').textContent(), /untrained model \(step 0\).*no pattern at all/);
  assert.equal(await s8.locator('[data-name="tour-result"]').isVisible(), false, 'predict first: no numbers before the guess');
  await answer(s8, 'previous', 'none of them');
  assert.equal(await s8.locator('[data-name="tour-pick"]').textContent(), 'You predicted none of them: right, none does.');
  assert.match(await s8.locator('[data-name="tour-verdict"]').textContent(), /^No head shows this pattern: the strongest is layer \d, head \d with 0\.\d{3}, 1\.0\d× the uniform head’s 0\.099/);
  await assertTable(s8, 'previous', untrained.patterns, untrained.patterns);
  await trainTo(page, STEPS);
  // the answer stays; the numbers are the new measurement's
  await assertTable(s8, 'previous', untrained.patterns, trained.patterns);
  // a new question asks again, then shows the numbers
  await s8.locator('[data-name="tour-question"]').selectOption('self');
  assert.equal(await s8.locator('[data-name="tour-result"]').isVisible(), false);
  assert.equal(await s8.locator('[data-name="tour-guess"] legend').textContent(), 'Which head looks at the character itself?');
  await answer(s8, 'self', 'layer 0, head 0');
  await assertTable(s8, 'self', untrained.patterns, trained.patterns);
  const shows = trained.patterns.found.self.some((e) => e.layer === 0 && e.head === 0);
  const ratio = fmt(trained.patterns.heads[0].ratio.self, 2);
  assert.equal(await s8.locator('[data-name="tour-pick"]').textContent(),
    shows ? `Your prediction, layer 0, head 0, shows it (${ratio}×).` : `Your prediction, layer 0, head 0, does not show it: ${ratio}× the uniform head.`);
  assert.match(await s8.locator('[data-name="tour-why"]').textContent(), /bigram/);
  assert.match(await s8.locator('[data-name="tour-def"]').textContent(), new RegExp(`\\(${trained.patterns.rows.self} rows\\).*gives exactly ${fmt(trained.patterns.baseline.self, 3)}`));
  // every head and pattern: the core's ratios and entropies
  await s8.locator('details.tour-all-box summary').click();
  const all = await s8.locator('[data-name="tour-all"] tbody tr[data-head]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td[data-value]')].map((td) => Number(td.dataset.value))));
  assert.deepEqual(all, trained.patterns.heads.map((e) => [...PATTERNS.map((p) => e.ratio[p]), e.entropy]));
  // the two loss lines: the same windows the core reads here, and the note's standard errors
  assert.equal(await s8.locator('dl[data-name="stats"] dd.train-loss').textContent(), fmt(trained.eval.train, 4));
  assert.equal(await s8.locator('dl[data-name="stats"] dd.val-loss').textContent(), fmt(trained.eval.val, 4));
  const note = await s8.locator('[data-name="eval-note"]').textContent();
  assert.ok(note.includes(`at step ${STEPS} the sample alone makes the training loss uncertain by about ±${fmt(trained.eval.trainSe, 3)} and the validation loss by about ±${fmt(trained.eval.valSe, 3)}`), note);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the sentence view: the shading is the core\'s weights (a layer\'s mean, one head), untrained beside trained; the keyboard moves the pointer', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en');
  await trainTo(page, STEPS);
  await page.waitForFunction((sel) => document.querySelector(`${sel} [data-name="sent-trained"]`)?.closest('.sent-panel').querySelector('h4').textContent === 'now (step 200)', S8);
  const weights = (name) => s8.locator(`[data-name="${name}"] .sent-char`).evaluateAll((els) => els.map((e) => Number(e.dataset.weight)));
  const chars = await s8.locator('[data-name="sent-trained"] .sent-char').allTextContents();
  assert.deepEqual(chars, [...SENTENCE].map((c) => (c === ' ' ? '␣' : c)));
  const T = chars.length, at = 9;
  await s8.locator('[data-name="sent-trained"] .sent-char').nth(at).hover();
  // the default view: layer 0's mean over its 4 heads (computed here from the core's maps)
  const mean = (maps, i) => Array.from({ length: T }, (_, j) => [0, 1, 2, 3].reduce((a, h) => a + maps[0].data[(h * T + i) * T + j], 0) / 4);
  for (const [name, maps] of [['sent-trained', trained.maps], ['sent-untrained', untrained.maps]]) {
    const got = await weights(name), want = mean(maps, at);
    got.forEach((w, j) => assert.ok(Math.abs(w - want[j]) <= 1e-15, `${name} [${at}, ${j}]: ${w} vs ${want[j]}`));
    assert.ok(got.slice(at + 1).every((w) => w === 0), 'causal: nothing after the pointed character');
  }
  assert.equal(await s8.locator('[data-name="sent-trained"] .sent-char.pointed').textContent(), chars[at]);
  // one head: its row, exactly
  await s8.locator('[data-name="sent-view"]').selectOption({ label: 'layer 1, head 2' });
  const row = (maps, i) => Array.from(maps[1].data.slice((2 * T + i) * T, (2 * T + i + 1) * T));
  await page.waitForFunction(([sel, w]) => Number(document.querySelector(`${sel} [data-name="sent-trained"] .sent-char`).dataset.weight) === w, [S8, row(trained.maps, at)[0]]);
  assert.deepEqual(await weights('sent-trained'), row(trained.maps, at));
  assert.deepEqual(await weights('sent-untrained'), row(untrained.maps, at));
  // the weights as text, for both models
  const reads = await s8.locator('[data-name="sent-reads-trained"]').textContent();
  assert.ok(reads.startsWith(`now (step 200): “${chars[at]}” (position ${at}) reads “t” ${fmt(row(trained.maps, at)[0], 3)}`), reads);
  // the keyboard: the pointed character is the panel's tab stop, ← moves it
  await s8.locator('[data-name="sent-trained"] .sent-char[tabindex="0"]').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await s8.locator('[data-name="sent-trained"] .sent-char[tabindex="0"]').getAttribute('data-pos'), String(at - 1));
  assert.equal(await page.evaluate(() => document.activeElement.dataset.pos), String(at - 1));
  assert.deepEqual(await weights('sent-trained'), row(trained.maps, at - 1));
  assert.match(await s8.locator('[data-name="sent-reads-untrained"]').textContent(), new RegExp(`^untrained \\(step 0\\): “.” \\(position ${at - 1}\\)`));
  assert.equal(await s8.locator('[data-name="sent-trained"] .sent-char').nth(3).getAttribute('aria-label'), '“␣”, position 3');
  // the exercise read off this model: no previous-character head yet after 200 steps, the core says so
  assert.deepEqual(trained.patterns.found.previous, []);
  const ex = s8.locator('[data-exercise="ex-18.8-previous"]');
  const s = trained.patterns.strongest.previous;
  for (const [i, v] of [s.layer, s.head, s.mean.toFixed(3)].entries()) await ex.locator('input').nth(i).fill(String(v));
  await ex.locator('button[type="submit"]').click();
  await ex.locator('.diagnosis[data-misconception="untrained"]').waitFor();
  assert.match(await ex.locator('.feedback').textContent(), /^Not yet\.[\s\S]*has not learned a previous-character head yet/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the mask toggle after training asks first: keeping the model keeps its steps and its mask, starting over builds the maskless model', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en');
  await page.evaluate(() => window.__workers[0].postMessage({ type: 'start', until: 50 }));
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === '50', S8);
  const causal = s8.locator('[data-name="causal"]');
  await causal.click();   // unticks it; the page shows the mask of the model it keeps while it asks
  const keep = s8.locator('[data-name="keep-model"]');
  await keep.waitFor();
  assert.match(await keep.textContent(), /trained with the mask \(50 steps\)/);
  assert.equal(await causal.isChecked(), true, 'asked, not switched');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.act), 'rebuild');
  await keep.locator('[data-act="keep"]').click();
  assert.equal(await keep.isVisible(), false);
  assert.equal(await causal.isChecked(), true);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.name), 'causal', 'focus back on the toggle');
  assert.equal(await step(s8), '50', 'the trained model is kept');
  assert.equal(await s8.locator('dl[data-name="future"] dd.prefix').textContent(), '0');
  assert.equal(new URL(page.url()).searchParams.get('s8.causal'), null);
  // asked again, and this time start over without the mask
  await causal.click();
  await keep.locator('[data-act="rebuild"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="future"] dd.prefix`)?.textContent !== '0', S8);
  assert.equal(await step(s8), '0');
  assert.equal(await causal.isChecked(), false);
  await page.waitForURL(/s8\.causal=0/);
  // untrained, nothing to keep: the toggle acts at once
  await causal.check();
  await page.waitForFunction((sel) => document.querySelector(`${sel} dl[data-name="future"] dd.prefix`)?.textContent === '0', S8);
  assert.equal(await keep.isVisible(), false);
  assert.deepEqual(errors, []);
  await page.close();
});

test('at 390 px in zh: the tour\'s guess, verdict and tables fit the screen (a wide table scrolls in its own box)', async () => {
  const { page, errors, s8 } = await open('?embed=18.8', 390);
  assert.match(await s8.locator('[data-name="tour-status"]').textContent(), /未训练的模型（第 0 步）/);
  await answer(s8, 'separator', '第 1 层第 3 个头');
  assert.match(await s8.locator('[data-name="tour-pick"]').textContent(), /^你猜的第 1 层第 3 个头没有这种模式/);
  await s8.locator('details.tour-all-box summary').click();
  const over = await s8.evaluate((sec) => {
    const scrolls = (el) => { for (let p = el.parentElement; p && p !== sec; p = p.parentElement) if (/auto|scroll/.test(getComputedStyle(p).overflowX)) return true; return false; };
    return [...sec.querySelectorAll('p, label, legend, h3, h4, button, select, .sent-char, caption, th, td')]
      .filter((e) => e.offsetParent && e.getBoundingClientRect().right > window.innerWidth + 0.5 && !scrolls(e))
      .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`);
  });
  assert.deepEqual(over, [], 'text past the right edge');
  assert.deepEqual(errors, []);
  await page.close();
});
