// The built lab in real headless Chromium (Debian's chromium through playwright-core), served
// from a sub-path. Numbers on the page are checked against tests/web/reference.mjs, computed
// independently here; interactions go through the keyboard and mouse as a student would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { serve, launch, openPage, heatmapValues, urlWritten, labMounted, LAST_SECTION } from './harness.mjs';
import * as ref from './reference.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';
import { exercises } from './page-modules.mjs';

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

const near = (a, b, tol, msg) => assert.ok(Math.abs(a - b) <= tol, `${msg ?? ''} ${a} vs ${b} (tol ${tol})`);
const nearAll = (A, B, tol, msg) => assert.ok(ref.maxAbs(A, B) <= tol, `${msg ?? ''}: max diff ${ref.maxAbs(A, B)}\n got ${JSON.stringify(A)}\nwant ${JSON.stringify(B)}`);

async function open(query = '') {
  const { page, errors } = await openPage(chrome.browser, server.url + query);
  await page.waitForSelector(`${LAST_SECTION}, body.embed .lab-section`);
  await labMounted(page);
  return { page, errors };
}
const sec = (page, id) => page.locator(`.lab-section[data-section="${id}"]`);
const fig = (page, id, name) => sec(page, id).locator(`[data-name="${name}"]`);
async function typeCell(page, id, editor, i, j, text) {
  const cell = fig(page, id, editor).locator(`input[data-row="${i}"][data-col="${j}"]`);
  await cell.fill(text);
  return cell;
}
const readout = (page, id, name) => fig(page, id, name).locator('dd').allTextContents();

test('all sections load in Chinese by default, with lessons and no console errors', async () => {
  const { page, errors } = await open();
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.locator('header h1').textContent(), '注意力实验室');
  for (const { id, module } of SECTIONS) {
    assert.equal(await sec(page, id).count(), 1, id);
    assert.ok((await sec(page, id).locator('.lesson').textContent()).length > (module ? 200 : 20), `lesson ${id}`);
    assert.equal(await sec(page, id).locator('.lab').count(), module ? 1 : 0, `${id}: a lab only with a controller`);
  }
  assert.equal(await page.locator('.katex').count() > 20, true, 'math rendered by KaTeX');
  assert.equal(await page.locator('.lab-section.has-error').count(), 0);
  assert.equal(await page.locator('nav.toc a').count(), SECTIONS.length);
  assert.equal(await page.locator('[data-exercise="ex-18.2-after"] label.answer-box').textContent(), '第 1 行的和 ', 'exercise labels in Chinese');
  assert.equal(await page.locator('[data-exercise="ex-18.2-after"] button[type="submit"]').textContent(), '检查');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.1: editing X recomputes Y = A X; un-normalized A gives running sums; the batch shares A', async () => {
  const { page, errors } = await open('?embed=18.1&lang=en');
  const X = [[2, 0], [0, 4], [4, 2]];
  const avg = (M) => M.map((_, t) => M[0].map((__, c) => M.slice(0, t + 1).reduce((s, r) => s + r[c], 0) / (t + 1)));
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, 'chapter example');
  assert.ok(ref.parseShown((await readout(page, '18.1', 'diff'))[0]) <= 2.22e-16);
  await typeCell(page, '18.1', 'x', 1, 1, '10');
  X[1][1] = 10;
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), avg(X), 1e-15, 'after edit');
  await fig(page, '18.1', 'norm').uncheck();
  const L = [[1, 0, 0], [1, 1, 0], [1, 1, 1]];
  nearAll(await heatmapValues(fig(page, '18.1', 'A')), L, 0);
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), ref.matmul(L, X), 0, 'running sums');
  await fig(page, '18.1', 'norm').check();
  await fig(page, '18.1', 'batch').check();
  const X2 = [[1, 3], [5, -1], [0, 2]];
  nearAll(await heatmapValues(fig(page, '18.1', 'y1')), avg(X2), 1e-15, 'sequence 1 uses the same A');
  assert.match(await sec(page, '18.1').locator('.shape-line').first().textContent(), /\(B, T, C\) = \(2, 3, 2\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.2: mask before vs after changes the row sums; a fully masked row is NaN with a reason', async () => {
  const { page, errors } = await open('?embed=18.2&lang=en');
  const S = [[1, 2, 0], [0.5, 1, 3], [2, 0, 1]];
  const causal = S.map((r, i) => r.map((_, j) => j <= i));
  const before = S.map((r, i) => ref.softmaxRow(r, causal[i]));
  const after = S.map((r, i) => ref.softmaxRow(r).map((v, j) => (causal[i][j] ? v : 0)));
  nearAll(await heatmapValues(fig(page, '18.2', 'before')), before, 1e-15);
  nearAll(await heatmapValues(fig(page, '18.2', 'after')), after, 1e-15);
  const sumsShown = await fig(page, '18.2', 'after').locator('td.rowmark').allTextContents();
  ref.rowSums(after).forEach((s, i) => near(Number(sumsShown[i]), s, 6e-4, `after row ${i}`));
  assert.ok(ref.rowSums(after)[0] < 0.5, 'the after-order row 0 keeps less than its unit of weight');
  // turn the only allowed entry of row 0 off: nothing allowed -> NaN under "before"
  await fig(page, '18.2', 'mask').locator('button[data-row="0"][data-col="0"]').click();
  const b = await heatmapValues(fig(page, '18.2', 'before'));
  assert.ok(b[0].every(Number.isNaN), 'row 0 is NaN');
  nearAll([b[1], b[2]], [before[1], before[2]], 1e-15, 'other rows unchanged');
  const note = sec(page, '18.2').locator('.nan-note');
  assert.equal(await note.isVisible(), true);
  assert.match(await note.textContent(), /Row 0 has no allowed position/);
  assert.deepEqual((await heatmapValues(fig(page, '18.2', 'after')))[0], [0, 0, 0]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.2: the dim selector changes which axis sums to 1, on (B, T, T) and (B, H, T, T)', async () => {
  const { page, errors } = await open('?embed=18.2&lang=en');
  const slices = async () => [await heatmapValues(fig(page, '18.2', 'slice0')), await heatmapValues(fig(page, '18.2', 'slice1'))];
  let [a, b] = await slices();
  for (const m of [a, b]) ref.rowSums(m).forEach((s) => near(s, 1, 1e-15, 'dim -1: rows'));
  await fig(page, '18.2', 'dim').getByLabel('dim 1: receiving t').check();
  [a, b] = await slices();
  for (const m of [a, b]) ref.colSums(m).forEach((s) => near(s, 1, 1e-15, 'dim 1: columns'));
  assert.ok(ref.rowSums(a).some((s) => Math.abs(s - 1) > 0.05), 'dim 1: rows no longer sum to 1');
  assert.match(await sec(page, '18.2').locator('.dim-explain').textContent(), /every column sums to 1/);
  await fig(page, '18.2', 'kind').getByLabel('(B, H, T, T)').check();
  await fig(page, '18.2', 'dim').getByLabel('dim 1: head').check();
  [a, b] = await slices();   // head 0 and head 1
  a.forEach((r, i) => r.forEach((v, j) => near(v + b[i][j], 1, 1e-15, 'dim 1 of (B, H, T, T) mixes heads')));
  assert.match(await sec(page, '18.2').locator('.dim-explain').textContent(), /head axis/);
  assert.equal(await fig(page, '18.2', 'slice1').locator('.tensor-label').textContent(), 'slice h = 1');
  assert.equal(await fig(page, '18.2', 'sums').locator('.tensor-label').textContent(), 'Sums along dim 1 (each is 1)');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.3: Q, K, V, S, A, Y follow the edits; the nn.Linear layout shows and accepts (d, C)', async () => {
  const { page, errors } = await open('?embed=18.3&lang=en');
  const X = [[2, 0], [0, 4], [4, 2]];
  const Wq = [[0.3, 0.1], [0, 0.3]], Wk = [[0.2, -0.3], [0.3, 0.2]], Wv = [[1, 0], [0.5, 1]];
  const check = async (label) => {
    const Q = ref.matmul(X, Wq), K = ref.matmul(X, Wk), V = ref.matmul(X, Wv);
    const r = ref.attention(Q, K, V, true);
    nearAll(await heatmapValues(fig(page, '18.3', 'q')), Q, 1e-15, `${label} Q`);
    nearAll(await heatmapValues(fig(page, '18.3', 's')), r.S, 1e-14, `${label} S`);
    nearAll(await heatmapValues(fig(page, '18.3', 'a')), r.A, 1e-15, `${label} A`);
    nearAll(await heatmapValues(fig(page, '18.3', 'y')), r.Y, 1e-14, `${label} Y`);
  };
  await check('default');
  await typeCell(page, '18.3', 'x', 2, 0, '-1.5');
  X[2][0] = -1.5;
  await check('edited X');
  await fig(page, '18.3', 'layout').getByLabel(/nn.Linear/).check();
  const shown = await fig(page, '18.3', 'wk').locator('input').evaluateAll((els) => els.map((e) => Number(e.value)));
  assert.deepEqual(shown, ref.transpose(Wk).flat(), 'W_K shown as (d, C)');
  assert.match(await fig(page, '18.3', 'wk').locator('.shape-badge').textContent(), /^\(d, C\) = \(2, 2\)$/);
  await typeCell(page, '18.3', 'wk', 0, 1, '0.7');   // (d, C)[0][1] is math (C, d)[1][0]
  Wk[1][0] = 0.7;
  await check('edited in linear layout');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.4: sqrt(hs), sqrt(C) and no scaling give different weights; x8 sharpens the softmax', async () => {
  const { page, errors } = await open('?embed=18.4&lang=en');
  const w = async (s) => heatmapValues(fig(page, '18.4', `w-${s}`));
  // √C and no scaling are shown (and painted) once the student predicts or skips
  await sec(page, '18.4').locator('button.show-scales').click();
  await fig(page, '18.4', 'predict-scale').locator('button[data-act="skip"]').click();
  const [head, model, none] = [await w('head'), await w('model'), await w('none')];
  assert.ok(ref.maxAbs(head, model) > 1e-3 && ref.maxAbs(head, none) > 1e-3, 'three scalings differ with 4 heads');
  // causal rows sum to 1 in every panel; sqrt(C) = 2 sqrt(hs) flattens the rows
  for (const m of [head, model, none]) ref.rowSums(m).forEach((s) => near(s, 1, 1e-14));
  const maxOf = (m) => m.slice(1).map((r) => Math.max(...r));
  assert.ok(maxOf(model).reduce((a, b) => a + b) < maxOf(head).reduce((a, b) => a + b), 'sqrt(C) gives flatter weights');
  await fig(page, '18.4', 'heads').selectOption('1');
  nearAll(await w('head'), await w('model'), 0, 'one head: hs = C');
  // the x8 comparison, against softmax computed here
  const logits = [0.1, -0.2, 0.3, -0.2, 0.5];
  const p1 = ref.softmaxRow(logits), p8 = ref.softmaxRow(logits.map((v) => 8 * v));
  const dd = await readout(page, '18.4', 'sharp');
  const [m1, m8] = dd[0].split('→').map(Number);
  near(m1, Math.max(...p1), 1e-4);
  near(m8, Math.max(...p8), 1e-4);
  const jac = (p) => Math.sqrt(p.flatMap((pi, i) => p.map((pj, j) => ((i === j ? pi : 0) - pi * pj) ** 2)).reduce((a, b) => a + b));
  const [j1, j8] = dd[2].split('→').map(Number);
  near(j1, jac(p1), 1e-4);
  near(j8, jac(p8), 1e-4);
  const table = await fig(page, '18.4', 'sharp').count();
  assert.equal(table, 1);
  await sec(page, '18.4').locator('details.chart-data summary').first().click();   // the table is built when opened
  await sec(page, '18.4').locator('details.chart-data table tbody tr').first().waitFor();
  const variance = await sec(page, '18.4').locator('details.chart-data table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((c) => Number(c.textContent))));
  const at256 = variance.find((r) => r[0] === 256);
  assert.ok(Math.abs(at256[1] / 256 - 1) < 0.15 && Math.abs(at256[2] - 1) < 0.15, `Var(q.k) at d = 256: ${at256}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.5: shuffling is equivariant without positions or mask, not with them; T past T_max is an error', async () => {
  const { page, errors } = await open('?embed=18.5&lang=en');
  const X = [[1, 0], [0, 1], [1, 1], [2, -1]];
  const perm = (await sec(page, '18.5').locator('.perm').textContent()).match(/\[([\d, ]+)\]/)[1].split(', ').map(Number);
  nearAll(await heatmapValues(fig(page, '18.5', 'px')), perm.map((p) => X[p]), 0, 'P X rows are X[perm[t]]');
  nearAll(await heatmapValues(fig(page, '18.5', 'attnPx')), await heatmapValues(fig(page, '18.5', 'pAttn')), 1e-15);
  assert.ok(ref.parseShown((await readout(page, '18.5', 'diff'))[0]) < 1e-14);
  for (const label of ['learned (a table of T_max rows)', 'sinusoidal']) {
    await fig(page, '18.5', 'pos').getByLabel(label).check();
    assert.ok(ref.parseShown((await readout(page, '18.5', 'diff'))[0]) > 1e-3, label);
  }
  const table = await heatmapValues(fig(page, '18.5', 'table'));
  near(table[1][0], Math.sin(1), 1e-15, 'sinusoidal PE[1, 0]');
  near(table[3][1], Math.cos(3), 1e-15, 'sinusoidal PE[3, 1]');
  await fig(page, '18.5', 'pos').getByLabel('none').check();
  await fig(page, '18.5', 'causal').check();
  assert.ok(ref.parseShown((await readout(page, '18.5', 'diff'))[0]) > 1e-3, 'causal mask');
  await fig(page, '18.5', 'pos').getByLabel('learned (a table of T_max rows)').check();
  const kept = await heatmapValues(fig(page, '18.5', 'attnPx'));
  const tmax = fig(page, '18.5', 'tmax');
  await tmax.fill('3');   // T = 4 rows > T_max = 3
  const message = page.locator(`#${await tmax.getAttribute('aria-describedby')}`);
  assert.match(await message.textContent(), /T = 4 positions, but the learned position table has only T_max = 3 rows/);
  nearAll(await heatmapValues(fig(page, '18.5', 'attnPx')), kept, 0, 'the last good result stays');
  await tmax.fill('6');
  assert.equal(await message.isVisible(), false);
  assert.equal(await sec(page, '18.5').getAttribute('class'), 'lab-section');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.6: bidirectional, causal and cross-attention with T_out != T_in', async () => {
  const { page, errors } = await open('?embed=18.6&lang=en');
  await fig(page, '18.6', 'tout').fill('2');
  await fig(page, '18.6', 'tin').fill('4');
  for (const h of [0, 1]) {
    const w = await heatmapValues(fig(page, '18.6', `w${h}`));
    assert.equal(w.length, 2);
    assert.equal(w[0].length, 4);
    ref.rowSums(w).forEach((s) => near(s, 1, 1e-15));
  }
  assert.match(await sec(page, '18.6').locator('.shape-line').textContent(), /\(B, H, T_out, T_in\) = \(1, 2, 2, 4\)/);
  nearAll(await heatmapValues(fig(page, '18.6', 'mask')), [[1, 1, 1, 1], [1, 1, 1, 1]], 0, 'cross: nothing masked');
  await fig(page, '18.6', 'mode').getByLabel(/Decoder/).click();   // the first switch asks for a prediction: skip it
  await fig(page, '18.6', 'predict-mode').locator('button[data-act="skip"]').click();
  nearAll(await heatmapValues(fig(page, '18.6', 'mask')), [[1, 0], [1, 1]], 0, 'causal mask');
  const w = await heatmapValues(fig(page, '18.6', 'w0'));
  assert.equal(w[0][1], 0);
  near(w[0][0], 1, 0);
  await fig(page, '18.6', 'mode').getByLabel(/Encoder/).check();
  assert.ok((await heatmapValues(fig(page, '18.6', 'w0')))[0][1] > 0, 'bidirectional sees the future');
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.7: future probe is exactly 0 with the mask and not without; gradcheck passes; dropout', async () => {
  const { page, errors } = await open('?embed=18.7&lang=en');
  const probe = async () => heatmapValues(fig(page, '18.7', 'probe'));
  let change = await probe();
  assert.ok(change.slice(0, 3).flat().every((v) => v === 0), 'prefix rows exactly 0');
  assert.ok(change.slice(3).flat().some((v) => v > 1e-3), 'the future did change');
  assert.equal((await readout(page, '18.7', 'probe'))[0], '0');
  await fig(page, '18.7', 't').fill('4');
  change = await probe();
  assert.ok(change.slice(0, 5).flat().every((v) => v === 0), 't = 4: prefix rows exactly 0');
  await fig(page, '18.7', 'causal').click();   // the first switch asks for a prediction: skip it
  await fig(page, '18.7', 'predict-causal').locator('button[data-act="skip"]').click();
  change = await probe();
  assert.ok(change.slice(0, 5).flat().some((v) => v > 1e-3), 'without the mask the prefix moves');
  assert.ok(ref.parseShown((await readout(page, '18.7', 'probe'))[0]) > 1e-3);
  const gc = await readout(page, '18.7', 'gradcheck');
  assert.equal(gc[0], 'passed');
  for (const v of gc.slice(1)) assert.ok(ref.parseShown(v) < 1e-5, v);
  assert.ok(ref.parseShown((await readout(page, '18.7', 'ref'))[0]) <= 4.5e-16);
  const sums = async () => (await heatmapValues(fig(page, '18.7', 'drop'))).map((r) => r.reduce((a, b) => a + b, 0));
  assert.ok((await sums()).some((s) => Math.abs(s - 1) > 1e-3), 'training: a sample row does not sum to 1');
  await fig(page, '18.7', 'training').uncheck();
  (await sums()).forEach((s) => near(s, 1, 1e-14, 'evaluation: rows sum to 1'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad cell is marked and explained, and the last good result stays', async () => {
  const { page, errors } = await open('?embed=18.1&lang=en');
  const y = async () => heatmapValues(fig(page, '18.1', 'y0'));
  const good = await y();
  for (const [text, message] of [['abc', /“abc” is not a number/], ['', /is empty/], ['1e999', /not a finite number/], ['NaN', /“NaN” is not a number/], ['<b>x</b>', /is not a number/]]) {
    const cell = await typeCell(page, '18.1', 'x', 2, 1, text);
    assert.equal(await cell.getAttribute('aria-invalid'), 'true', text);
    const err = fig(page, '18.1', 'x').locator('.cell-error');
    assert.match(await err.textContent(), message);
    assert.match(await err.textContent(), /Row 2, column 1/);
    nearAll(await y(), good, 0, `kept after ${JSON.stringify(text)}`);
  }
  assert.equal(await page.locator('.cell-error b').count(), 0, 'text is never rendered as HTML');
  assert.match(await fig(page, '18.1', 'x').locator('.cell-error').textContent(), /is not a number\. The results keep the last valid input\.$/);
  await typeCell(page, '18.1', 'x', 2, 1, '8');
  assert.equal(await fig(page, '18.1', 'x').locator('.cell-error').isVisible(), false);
  near((await y())[2][1], (0 + 4 + 8) / 3, 1e-15);
  assert.deepEqual(errors, []);
  await page.close();
  // in Chinese the two sentences follow each other with no space (none after 。)
  const zh = await open('?embed=18.1&lang=zh');
  await typeCell(zh.page, '18.1', 'x', 2, 1, 'abc');
  assert.equal(await fig(zh.page, '18.1', 'x').locator('.cell-error').textContent(), '第 2 行第 1 列的“abc”不是数字。其余结果仍是按上一次的有效输入算出的。');
  assert.deepEqual(zh.errors, []);
  await zh.page.close();
});

test('the URL holds the state: a link reproduces the view; reset restores the defaults', async () => {
  const { page } = await open('?lang=en');
  await typeCell(page, '18.1', 'x', 0, 0, '6');
  await fig(page, '18.2', 'dim').getByLabel('dim 1: receiving t').check();
  await page.waitForURL(/s2\.dim=1/);   // the URL is written once the edits pause
  const url = page.url();
  assert.match(url, /s1\.x=6%2C0%3B0%2C4%3B4%2C2|s1\.x=6,0;0,4;4,2/);
  const { page: again } = await openPage(chrome.browser, url);
  await again.waitForSelector('.lab-section[data-section="18.7"]');
  await labMounted(again);
  nearAll(await heatmapValues(fig(again, '18.1', 'y0')), [[6, 0], [3, 2], [10 / 3, 2]], 1e-15);
  assert.equal(await fig(again, '18.2', 'dim').getByLabel('dim 1: receiving t').isChecked(), true);
  await sec(again, '18.1').locator('button.reset').click();
  nearAll(await heatmapValues(fig(again, '18.1', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16);
  await again.waitForURL((u) => !/s1\./.test(u.search));
  await page.close();
  await again.close();
});

test('after a reset, hidden parts hold nothing stale: 18.1\'s second sequence, 18.5\'s position table', async () => {
  const { page, errors } = await open('?lang=en');
  const inputs = (id, name) => fig(page, id, name).locator('input').evaluateAll((xs) => xs.map((x) => x.value));
  const badge = (id, name) => fig(page, id, name).locator('.shape-badge').textContent();
  // 18.1: the batch on, sequence 1 edited, then the section reset (batch off again)
  await fig(page, '18.1', 'batch').check();
  await typeCell(page, '18.1', 'x2', 0, 0, '7');
  near((await heatmapValues(fig(page, '18.1', 'y1')))[0][0], 7, 0);
  await sec(page, '18.1').locator('button.reset').click();
  assert.equal(await fig(page, '18.1', 'y1').isHidden(), true);
  assert.deepEqual(await heatmapValues(fig(page, '18.1', 'y1')), [], '18.1 y1 emptied');
  assert.equal(await badge('18.1', 'y1'), '');
  assert.deepEqual(await inputs('18.1', 'x2'), ['1', '3', '5', '-1', '0', '2'], '18.1 x2 back to its default');
  await fig(page, '18.1', 'batch').check();   // shown again: recomputed from the defaults, not the old edit
  nearAll(await heatmapValues(fig(page, '18.1', 'y1')), [[1, 3], [3, 1], [2, 4 / 3]], 1e-15, '18.1 y1 after reset');
  // 18.5: a learned table shown, then the section reset (positions none)
  await fig(page, '18.5', 'pos').getByLabel('learned (a table of T_max rows)').check();
  assert.equal((await heatmapValues(fig(page, '18.5', 'table'))).length, 4);
  await sec(page, '18.5').locator('button.reset').click();
  assert.equal(await fig(page, '18.5', 'table').isHidden(), true);
  assert.deepEqual(await heatmapValues(fig(page, '18.5', 'table')), [], '18.5 position table emptied');
  assert.equal(await badge('18.5', 'table'), '');
  await fig(page, '18.5', 'pos').getByLabel('sinusoidal').check();
  const table = await heatmapValues(fig(page, '18.5', 'table'));
  near(table[1][0], Math.sin(1), 1e-15, 'sinusoidal PE[1, 0] after reset');
  assert.deepEqual(errors, []);
  await page.close();
});

test('heatmaps updated in place (only the cells that changed) show exactly what a fresh page shows for the same state', async () => {
  const { page, errors } = await open('?lang=en');
  // every heatmap table of a section: values, text, colours, labels, row marks
  const tables = (p, id) => sec(p, id).locator('figure.heat:not([hidden]) table.heatmap').evaluateAll((ts) => ts.map((t) =>
    [...t.querySelectorAll('th, td')].map((c) => {
      const cs = getComputedStyle(c);
      return [c.tagName, c.className, c.textContent, c.getAttribute('aria-label'), c.title, c.dataset.value, cs.backgroundColor, cs.color].join('|');
    })));
  const sameAsFresh = async (id, what) => {
    await page.waitForFunction(() => !document.querySelector('.lab-section.has-error'));
    await urlWritten(page);
    const fresh = await open(new URL(page.url()).search);
    assert.deepEqual(await tables(page, id), await tables(fresh.page, id), `${id}: ${what}`);
    assert.deepEqual(fresh.errors, []);
    await fresh.page.close();
  };
  // 18.3: values change, come back to earlier ones, and the colour scale moves with them
  for (const [i, j, v] of [[0, 0, '5'], [1, 1, '-3'], [0, 0, '2'], [2, 1, '40'], [2, 1, '2']]) await typeCell(page, '18.3', 'x', i, j, v);
  await typeCell(page, '18.3', 'wq', 0, 1, '-0.7');
  await sameAsFresh('18.3', 'after six edits');
  // 18.2: a row becomes NaN (nothing allowed) and a number again
  const cell00 = fig(page, '18.2', 'mask').locator('button[data-row="0"][data-col="0"]');
  await cell00.click();
  assert.equal(await fig(page, '18.2', 'before').locator('td.nan').count(), 3);
  await sameAsFresh('18.2', 'a row of NaN');
  await cell00.click();
  assert.equal(await fig(page, '18.2', 'before').locator('td.nan').count(), 0);
  await sameAsFresh('18.2', 'the row back to numbers');
  // 18.1: the row sums of A change when the rows stop being normalized
  await fig(page, '18.1', 'norm').uncheck();
  await typeCell(page, '18.1', 'x', 2, 0, '-1.5');
  await sameAsFresh('18.1', 'running sums');
  assert.deepEqual(errors, []);
  await page.close();
});

test('hostile or broken URLs fall back to defaults with a notice and run no script', async () => {
  const evil = encodeURIComponent('<img src=x onerror=alert(1)>');
  const { page, errors } = await open(`?lang=${evil}&s1.x=${evil}&s4.T=99999&s2.dim=9&embed=nope&s3.x=${'1,'.repeat(5000)}1`);
  let dialog = false;
  page.on('dialog', async (d) => { dialog = true; await d.dismiss(); });
  // an image of the same address, loaded now: once its error has fired, an injected one's would
  // have too (the browser's report of the probe's own 404 is not the page's error)
  const before = errors.length;
  await page.evaluate(() => new Promise((resolve) => Object.assign(new Image(), { onerror: resolve, onload: resolve, src: 'x' })));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const probe = errors.findIndex((e, i) => i >= before && /404 \(Not Found\)/.test(e));
  if (probe >= 0) errors.splice(probe, 1);
  assert.equal(dialog, false);
  assert.equal(await page.locator('img[src="x"]').count(), 0);
  const notice = await page.locator('.notice').textContent();
  for (const name of ['s1.x', 's4.T', 's2.dim', 'lang', 'embed']) assert.ok(notice.includes(name), `${name} in notice`);
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, 'defaults used');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the language switch goes to English and back, kept in the URL', async () => {
  const { page } = await open('?s1.norm=0');
  await page.locator('a.lang-switch').click();
  await page.waitForSelector('html[lang="en"] .lab-section[data-section="18.7"]');
  await labMounted(page);
  assert.equal(await page.locator('header h1').textContent(), 'Attention Lab');
  assert.match(page.url(), /lang=en/);
  assert.match(page.url(), /s1\.norm=0/, 'state survives the switch');
  assert.equal(await fig(page, '18.1', 'norm').isChecked(), false);
  assert.match(await sec(page, '18.3').locator('h2').textContent(), /Q, K and V/);
  await page.locator('a.lang-switch').click();
  await page.waitForSelector('html[lang="zh-CN"] .lab-section[data-section="18.7"]');
  await labMounted(page);
  assert.match(await sec(page, '18.3').locator('h2').textContent(), /投影/);
  await page.close();
});

test('embed mode shows one section and posts its height to the parent page', async () => {
  const page = await chrome.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.blank);   // same origin as the frame; the parent only listens
  await page.evaluate((src) => {
    window.heights = [];
    window.addEventListener('message', (e) => { if (e.data?.type === 'attention-lab:height') window.heights.push(e.data); });
    const f = document.createElement('iframe');
    f.src = src;
    f.style.width = '900px';
    document.body.replaceChildren(f);
  }, `${server.url}?embed=18.3&lang=en`);
  await page.waitForFunction(() => window.heights.length > 0);
  const last = await page.evaluate(() => window.heights.at(-1));
  assert.equal(last.section, '18.3');
  assert.ok(last.height > 400, `height ${last.height}`);
  const frame = page.frames().find((f) => f.url().includes('embed=18.3'));
  assert.equal(await frame.locator('.lab-section').count(), 1);
  assert.equal(await frame.locator('header.site').count(), 0);
  assert.equal(await frame.locator('body.embed').count(), 1);
  assert.deepEqual(errors, []);
  await page.close();
});

test('?solutions=0 leaves out hints, solutions and diagnoses, on the page and in the embed; the exercises still check', async () => {
  for (const query of ['?lang=en&solutions=0', '?lang=en&embed=exercises&solutions=0']) {
    const { page, errors } = await open(query);
    const exercises = await page.locator('.exercise').count();
    assert.ok(exercises >= 3, `${query}: ${exercises} exercises`);
    assert.equal(await page.locator('details.hint, details.solution').count(), 0, query);
    const ex = page.locator('[data-exercise="ex-chapter-1"]');
    for (const [i, v] of [0.25, 0.5, 0.25, 5].entries()) await ex.locator('input[type="text"]').nth(i).fill(String(v));
    await ex.locator('button[type="submit"]').click();
    assert.match(await ex.locator('.feedback').textContent(), /^Correct/);
    // exercise 3 with the given row unchanged: a known misconception, shown without its diagnosis
    const ex3 = page.locator('[data-exercise="ex-chapter-3"]');
    const given = (await ex3.locator('.given').textContent()).match(/\(([^,]+), ([^)]+)\)/).slice(1).map((v) => v.trim());
    for (const [i, v] of given.entries()) await ex3.locator('input[type="text"]').nth(i).fill(v);
    await ex3.locator('button[type="submit"]').click();
    assert.equal(await ex3.locator('.feedback').textContent(), 'Not yet. Think again.', 'no hint to point to');
    assert.equal(await ex3.locator('.diagnosis').count(), 0, 'no diagnosis');
    assert.equal(page.url().includes('solutions=0'), true, 'kept in the URL');
    assert.deepEqual(errors, []);
    await page.close();
  }
  const { page } = await open('?lang=en&solutions=1');
  assert.equal(await page.locator('details.hint').count(), await page.locator('.exercise').count(), 'one hint per exercise');
  await page.close();
});

for (const { id } of SECTIONS) {
  test(`embed=${id} alone renders without console errors, in both languages`, async () => {
    for (const lang of ['zh', 'en']) {
      const { page, errors } = await openPage(chrome.browser, `${server.url}?embed=${id}&lang=${lang}`);
      await page.waitForSelector('.lab-section');
      await labMounted(page);   // its exercises too, built after the lab
      assert.equal(await page.locator('.lab-section').count(), 1);
      assert.equal(await page.locator('.lab-section.has-error').count(), 0);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
}

test('exercises: the core checks typed answers; hints and solutions open', async () => {
  const { page, errors } = await open('?lang=en');
  const ex = (id) => page.locator(`[data-exercise="${id}"]`);
  const answer = async (id, values) => {
    const inputs = ex(id).locator('input[type="text"]');
    for (let i = 0; i < values.length; i++) await inputs.nth(i).fill(String(values[i]));
    await ex(id).locator('button[type="submit"]').click();
    return ex(id).locator('.feedback').textContent();
  };
  assert.match(await answer('ex-chapter-1', [0.25, 0.5, 0.25, 5]), /^Correct/);
  assert.match(await answer('ex-chapter-1', [0.33, 0.33, 0.33, 5.33]), /^Not yet/);
  assert.match(await answer('ex-18.4-head', [1]), /^Not yet/, 'the sqrt(C) answer is wrong');
  assert.match(await answer('ex-18.4-head', [2.828]), /^Correct/);
  assert.match(await answer('ex-18.1-cumsum', [6, 6]), /^Correct/);
  assert.match(await answer('ex-18.2-after', [0.5]), /^Correct/);
  assert.match(await answer('ex-18.3-score', [0.707]), /^Correct/);
  assert.match(await answer('ex-18.5-sin', [0.841, 0.540]), /^Correct/);
  assert.match(await answer('ex-18.6-shape', [2, 4, 3, 7]), /^Correct/);
  assert.match(await answer('ex-18.7-eval', [0]), /^Correct/);
  assert.match(await answer('ex-18.7-eval', ['zero']), /Enter a number/);
  // exercise 3: the given row plus c = (1, -2)
  const given = (await ex('ex-chapter-3').locator('.given').textContent()).match(/\(([-\d.]+), ([-\d.−]+)\)/).slice(1).map(ref.parseShown);
  assert.match(await answer('ex-chapter-3', [given[0] + 1, given[1] - 2]), /^Correct/);
  const choice = ex('ex-chapter-2');
  await choice.getByLabel('dim=1').check();
  await choice.locator('button[type="submit"]').click();
  assert.match(await choice.locator('.feedback').textContent(), /^Not yet/);
  await choice.getByLabel('dim=-1').check();
  await choice.locator('button[type="submit"]').click();
  assert.match(await choice.locator('.feedback').textContent(), /^Correct/);
  await ex('ex-chapter-1').locator('details.solution summary').click();
  assert.equal(await ex('ex-chapter-1').locator('details.solution .katex').first().isVisible(), true);
  const V = Number((await ex('ex-18.8-init').locator('.given').textContent()).match(/V = (\d+)/)[1]);
  assert.ok(V > 20 && V < 40, `V = ${V}`);
  assert.match(await answer('ex-18.8-init', [Math.log(V).toFixed(3)]), /^Correct/);
  assert.match(await answer('ex-18.8-init', [Math.log(V) / 2]), /^Not yet/);
  assert.equal(await page.locator('[data-exercise]').count(), exercises.length);
  assert.deepEqual(errors, []);
  await page.close();
});

test('keyboard: cells are reachable with Tab, arrows move, typing recomputes', async () => {
  const { page } = await open('?lang=en');
  const first = fig(page, '18.1', 'x').locator('input').first();
  await first.focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.row), '1');
  await page.keyboard.press('End');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.col), '1');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), [[2, 0], [1, 1], [2, 4 / 3]], 1e-15);
  // mask cells toggle with the keyboard
  const cell = fig(page, '18.2', 'mask').locator('button[data-row="2"][data-col="2"]');
  await cell.focus();
  await page.keyboard.press('Space');
  assert.equal(await fig(page, '18.2', 'mask').locator('button[data-row="2"][data-col="2"]').getAttribute('aria-pressed'), 'false');
  // every heatmap cell carries an accessible label with its value
  const unlabeled = await page.locator('table.heatmap tbody td:not(.rowmark):not([aria-label])').count();
  assert.equal(unlabeled, 0);
  await page.close();
});

test('the single-file build works from file:// with no server', async () => {
  const { page, errors } = await openPage(chrome.browser, `${pathToFileURL(`${DIST}attention-lab.html`).href}?lang=en`);
  await page.waitForSelector('.lab-section[data-section="18.7"]');
  await labMounted(page);
  nearAll(await heatmapValues(fig(page, '18.1', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16);
  await typeCell(page, '18.1', 'x', 0, 0, '4');
  near((await heatmapValues(fig(page, '18.1', 'y0')))[2][0], 8 / 3, 1e-15);
  assert.ok(await page.locator('.katex').count() > 20);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.reload();
  await page.waitForSelector('.lab-section[data-section="18.7"]');
  await labMounted(page);
  assert.deepEqual(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('blob:')), [], 'nothing fetched from the network');
  // the GPT trains here too: a classic worker from a Blob, given the core's bytes (an opaque origin cannot share a module)
  const s8 = sec(page, '18.8');
  await s8.locator('[data-name="start"]').click();
  await page.waitForFunction(() => Number(document.querySelector('.lab-section[data-section="18.8"] dl[data-name="stats"] dd')?.textContent) >= 20);
  assert.equal(await s8.locator('.status.error').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('T = 64: large heatmaps are drawn on a canvas and their table, built on request, holds the numbers', async () => {
  const x = Array.from({ length: 64 }, (_, t) => [((t * 7) % 11) / 5 - 1, ((t * 3) % 7) / 3 - 1]);
  const { page, errors } = await open(`?embed=18.3&lang=en&s3.x=${x.map((r) => r.join(',')).join(';')}`);
  const a = fig(page, '18.3', 'a');
  assert.equal(await a.locator('canvas.heatmap-canvas').isVisible(), true);
  await a.locator('details.heatmap-table summary').click();
  await a.locator('table.heatmap tbody tr').nth(63).waitFor();   // built on the (asynchronous) toggle event
  const A = await heatmapValues(a);
  assert.equal(A.length, 64);
  const Wq = [[0.3, 0.1], [0, 0.3]], Wk = [[0.2, -0.3], [0.3, 0.2]], Wv = [[1, 0], [0.5, 1]];
  const want = ref.attention(ref.matmul(x, Wq), ref.matmul(x, Wk), ref.matmul(x, Wv), true);
  nearAll(A, want.A, 1e-15, 'A at T = 64');
  // an edit redraws, and the open table follows
  await typeCell(page, '18.3', 'x', 0, 0, '3');
  x[0][0] = 3;
  const again = ref.attention(ref.matmul(x, Wq), ref.matmul(x, Wk), ref.matmul(x, Wv), true);
  nearAll(await heatmapValues(a), again.A, 1e-15, 'A after the edit');
  // Q (64 × 2): past 32 rows a map is a canvas too, its cells wider than tall (32 × 8 px), its table on request
  const q = fig(page, '18.3', 'q');
  assert.equal(await q.locator('canvas.heatmap-canvas').isVisible(), true);
  assert.deepEqual(await q.locator('canvas').evaluate((c) => [c.width, c.height]), [64, 512]);
  await q.locator('details.heatmap-table summary').click();
  await q.locator('table.heatmap tbody tr').nth(63).waitFor();
  nearAll(await heatmapValues(q), ref.matmul(x, Wq), 1e-15, 'Q at T = 64');
  await page.close();
  const { page: p4 } = await open('?embed=18.4&lang=en&s4.T=64');
  const w = fig(p4, '18.4', 'w-head');
  assert.equal(await w.locator('canvas.heatmap-canvas').isVisible(), true);
  await w.locator('details.heatmap-table summary').click();
  await w.locator('table.heatmap tbody tr').nth(63).waitFor();
  const rows = await heatmapValues(w);
  assert.equal(rows.length, 64);
  ref.rowSums(rows).forEach((s) => near(s, 1, 1e-13));
  assert.equal(rows[0][1], 0, 'causal');
  assert.deepEqual(errors, []);
  await p4.close();
});
