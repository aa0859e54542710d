// Provenance (issue 11 section 1): pointing at a computed cell (hover, tap, keyboard focus)
// outlines exactly the cells it came from and explains it with the core's numbers. The expected
// numbers are computed here, independently of the core, from the section's default inputs; the
// panel's value must be the cell's bit for bit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig } from './harness.mjs';
import { strings } from '../../web/src/widgets/provenance.js';

const { open } = builtLab();

// 18.3's defaults (web/src/sections/s18-3.js), causal
const X = [[2, 0], [0, 4], [4, 2]];
const WQ = [[0.3, 0.1], [0, 0.3]], WK = [[0.2, -0.3], [0.3, 0.2]], WV = [[1, 0], [0.5, 1]];
const mm = (a, b) => a.map((r) => b[0].map((_, j) => r.reduce((s, v, c) => s + v * b[c][j], 0)));
const Q = mm(X, WQ), K = mm(X, WK), V = mm(X, WV);
const S = Q.map((q) => K.map((k) => (q[0] * k[0] + q[1] * k[1]) / Math.sqrt(2)));
const A = S.map((row, t) => {
  const m = Math.max(...row.slice(0, t + 1));
  const e = row.map((s, j) => (j <= t ? Math.exp(s - m) : 0));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
});
const Y = A.map((a) => V[0].map((_, c) => a.reduce((s, w, j) => s + w * V[j][c], 0)));

/** Every outlined cell of the section: "figure:row,col:kind[:term]". */
async function outlined(page, id) {
  return sec(page, id).locator('[data-prov]').evaluateAll((cells) => cells.map((td) => {
    const figure = td.closest('figure').dataset.name;
    const tr = td.closest('tr');
    const row = tr.closest('tbody') ? tr.sectionRowIndex : tr.rowIndex;
    const col = td.closest('tbody') ? td.cellIndex - 1 : td.cellIndex;
    return `${figure}:${row},${col}:${td.dataset.prov}${td.dataset.provTerm ? `:${td.dataset.provTerm}` : ''}`;
  }).sort());
}
const cell = (page, id, name, i, j) => fig(page, id, name).locator('tbody tr').nth(i).locator('td').nth(j);
const panel = (page, id) => sec(page, id).locator('div.provenance');
const values = (loc) => loc.evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

test('the panel strings have the same keys in zh and en', () => {
  assert.deepEqual(Object.keys(strings.zh).sort(), Object.keys(strings.en).sort());
});

test('18.3: hovering S[2,1] outlines q row 2 and k row 1, and the panel is q₂·k₁ · 1/√d with the core\'s numbers', async () => {
  const { page, errors } = await open('?lang=en');
  const p = panel(page, '18.3');
  assert.equal(await p.getAttribute('aria-live'), 'polite');
  await cell(page, '18.3', 's', 2, 1).hover();
  assert.deepEqual(await outlined(page, '18.3'), ['k:1,0:in:1', 'k:1,1:in:2', 'q:2,0:in:1', 'q:2,1:in:2', 's:2,1:target']);
  assert.match(await p.locator('.prov-formula').textContent(), /S\[2,1\] = q₂·k₁ · 1\/√d/);
  const terms = await p.locator('.prov-numbers .prov-term').allTextContents();
  const expected = [0, 1].map((c) => [Q[2][c], K[1][c]]);
  assert.equal(terms.length, 2);
  terms.forEach((text, c) => {
    const [a, b] = text.replace(/[()]/g, '').replace(/−/g, '-').split('·').map(Number);
    close(a, expected[c][0], 5e-4, `q term ${c}`);
    close(b, expected[c][1], 5e-4, `k term ${c}`);
  });
  assert.match(await p.locator('.prov-numbers').textContent(), /· 1\/√2 = /);
  assert.equal(await p.locator('.prov-order').count(), 1, 'the core\'s summation order (two running sums) is said');
  const [value] = await values(p.locator('.prov-value'));
  close(value, S[2][1], 1e-15, 'S[2,1]');
  assert.equal(await p.locator('.prov-value').getAttribute('data-value'), await cell(page, '18.3', 's', 2, 1).getAttribute('data-value'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.3: A[1,0] outlines the score row 1 and hatches the masked S[1,2]; every exp, m and the denominator are shown', async () => {
  const { page, errors } = await open('?lang=en');
  const p = panel(page, '18.3');
  await cell(page, '18.3', 'a', 1, 0).hover();
  assert.deepEqual(await outlined(page, '18.3'), ['a:1,0:target', 's:1,0:in:1', 's:1,1:in:2', 's:1,2:masked:3']);
  assert.match(await p.locator('.prov-formula').textContent(), /A\[1,0\] = exp\(S\[1,0\] − m\) \/ Σⱼ exp\(S\[1,j\] − m\)/);
  const m = Math.max(S[1][0], S[1][1]);
  close((await values(p.locator('.prov-max-value')))[0], m, 1e-15, 'm');
  const exps = await values(p.locator('.prov-exp'));
  assert.equal(exps.length, 2);
  close(exps[0], Math.exp(S[1][0] - m), 1e-15, 'exp 0');
  close(exps[1], Math.exp(S[1][1] - m), 1e-15, 'exp 1');
  assert.match(await p.locator('.prov-terms li.masked').textContent(), /−∞ → 0/);
  close((await values(p.locator('.prov-den')))[0], Math.exp(S[1][0] - m) + Math.exp(S[1][1] - m), 1e-15, 'denominator');
  close((await values(p.locator('.prov-value')))[0], A[1][0], 1e-15, 'A[1,0]');
  assert.equal(await p.locator('.prov-value').getAttribute('data-value'), await cell(page, '18.3', 'a', 1, 0).getAttribute('data-value'));
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.3: Y[2,1] by keyboard: Tab reaches a cell, arrows move, the weight row 2 and V column 1 are outlined', async () => {
  const { page, errors } = await open('?lang=en');
  const p = panel(page, '18.3');
  // one tab stop per map: the first cell; arrows move from there
  assert.equal(await cell(page, '18.3', 'y', 0, 0).getAttribute('tabindex'), '0');
  assert.equal(await cell(page, '18.3', 'y', 1, 0).getAttribute('tabindex'), '-1');
  await cell(page, '18.3', 'y', 0, 0).focus();
  for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight']) await page.keyboard.press(key);
  assert.equal(await cell(page, '18.3', 'y', 2, 1).evaluate((td) => td === document.activeElement), true);
  assert.deepEqual(await outlined(page, '18.3'),
    ['a:2,0:in:1', 'a:2,1:in:2', 'a:2,2:in:3', 'v:0,1:in:1', 'v:1,1:in:2', 'v:2,1:in:3', 'y:2,1:target']);
  assert.match(await p.locator('.prov-formula').textContent(), /Y\[2,1\] = Σⱼ A\[2,j\]·V\[j,1\]/);
  close((await values(p.locator('.prov-value')))[0], Y[2][1], 1e-14, 'Y[2,1]');
  assert.equal(await p.locator('.prov-value').getAttribute('data-value'), await cell(page, '18.3', 'y', 2, 1).getAttribute('data-value'));
  // Q[1,0] = x row 1 times W_Q column 0, outlined in the editors; the weights shown as nn.Linear swap rows and columns
  await cell(page, '18.3', 'q', 1, 0).click();
  assert.deepEqual(await outlined(page, '18.3'), ['q:1,0:target', 'wq:0,0:in:1', 'wq:1,0:in:2', 'x:1,0:in:1', 'x:1,1:in:2']);
  close((await values(p.locator('.prov-value')))[0], Q[1][0], 1e-15, 'Q[1,0]');
  await sec(page, '18.3').locator('input[type=radio][value=linear]').check();
  await cell(page, '18.3', 'q', 1, 1).click();
  assert.deepEqual(await outlined(page, '18.3'), ['q:1,1:target', 'wq:1,0:in:1', 'wq:1,1:in:2', 'x:1,0:in:1', 'x:1,1:in:2']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.3 rows are labelled with the lesson\'s tokens', async () => {
  const { page } = await open('?lang=zh');
  const heads = await fig(page, '18.3', 'a').locator('tbody th').allTextContents();
  assert.deepEqual(heads, ['0 the', '1 cat', '2 sat']);
  assert.deepEqual(await fig(page, '18.3', 'a').locator('thead th').allTextContents(), ['t \\ j', '0 the', '1 cat', '2 sat']);
  await page.close();
});

/** Hover a cell and return the panel's value (bit-compared with the cell) and the outlined cells. */
async function pointAt(page, id, name, i, j) {
  await cell(page, id, name, i, j).hover();
  const p = panel(page, id);
  assert.equal(await p.locator('.prov-value').getAttribute('data-value'), await cell(page, id, name, i, j).getAttribute('data-value'), `${id} ${name}[${i},${j}]`);
  return outlined(page, id);
}

test('18.1: Y[2,1] = Σⱼ A[2,j]·X[j,1] outlines row 2 of A and column 1 of X; the loop average outlines x[0..2, 1]', async () => {
  const { page, errors } = await open('?lang=en');
  assert.deepEqual(await pointAt(page, '18.1', 'y0', 2, 1), ['A:2,0:in:1', 'A:2,1:in:2', 'A:2,2:in:3', 'x:0,1:in:1', 'x:1,1:in:2', 'x:2,1:in:3', 'y0:2,1:target']);
  assert.match(await panel(page, '18.1').locator('.prov-formula').textContent(), /Y\[2,1\] = Σⱼ A\[2,j\]·X\[j,1\]/);
  assert.deepEqual(await pointAt(page, '18.1', 'loop', 1, 0), ['loop:1,0:target', 'x:0,0:in:1', 'x:1,0:in:2']);
  assert.match(await panel(page, '18.1').locator('.prov-numbers').textContent(), / \/ 2 = /);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.2: a weight outlines its score row and its mask row, masked entries hatched in both', async () => {
  const { page, errors } = await open('?lang=en');
  const got = await pointAt(page, '18.2', 'before', 0, 0);
  assert.ok(got.includes('before:0,0:target'));
  const scoreCells = got.filter((c) => c.startsWith('s:'));
  const maskCells = got.filter((c) => c.startsWith('mask:'));
  assert.equal(scoreCells.length, maskCells.length);
  assert.ok(scoreCells.length >= 2);
  // the default mask is causal: in row 0 only j = 0 is allowed
  assert.deepEqual(scoreCells.map((c) => c.split(':')[2]), ['in', ...Array(scoreCells.length - 1).fill('masked')]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.4 and 18.6: each weight map explains its cells with the core\'s softmax, to the bit', async () => {
  const { page, errors } = await open('?lang=en&s6.mode=causal');
  await pointAt(page, '18.4', 'w-head', 2, 1);
  assert.match(await panel(page, '18.4').locator('.prov-formula').textContent(), /A\[2,1\] = exp\(S\[2,1\] − m\)/);
  const got = await pointAt(page, '18.6', 'w1', 1, 0);
  // causal: row 1 sees j = 0, 1; the rest of the mask row is hatched
  assert.deepEqual(got.filter((c) => c.startsWith('mask:')).slice(0, 3), ['mask:1,0:in:1', 'mask:1,1:in:2', 'mask:1,2:masked:3']);
  assert.deepEqual(errors, []);
  await page.close();
});
