// A smoke suite of the built lab in Firefox ESR (Debian's firefox-esr, headless, over WebDriver
// BiDi): every section renders and computes, one edit per section is checked against numbers
// computed here (tests/web/reference.mjs), a bad cell is marked and the last result stays, the
// language switch, embed mode, training the GPT with its future check, the single file from
// file://, and no console errors. The full suite runs in Chromium (tests/web/).
// Elements are found by stable attributes only: data-section, data-name, data-row/data-col, roles.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { serve } from '../web/harness.mjs';
import * as ref from '../web/reference.mjs';
import { launch, openPage } from './firefox.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, firefox;
before(async () => { server = await serve(DIST); firefox = await launch(); });
after(async () => { await firefox?.close(); server?.close(); });

const nearAll = (A, B, tol, msg) => {
  assert.equal(JSON.stringify(A.map((r) => r.length)), JSON.stringify(B.map((r) => r.length)), `${msg}: shape`);
  assert.ok(ref.maxAbs(A, B) <= tol, `${msg}: max diff ${ref.maxAbs(A, B)}\n got ${JSON.stringify(A)}\nwant ${JSON.stringify(B)}`);
};
const sec = (id) => `.lab-section[data-section="${id}"]`;
const fig = (id, name) => `${sec(id)} [data-name="${name}"]`;
const cell = (id, editor, i, j) => `${fig(id, editor)} input[data-row="${i}"][data-col="${j}"]`;

async function open(query = '') {
  const r = await openPage(firefox.browser, server.url + query);
  await r.page.waitForSelector(`${sec(SECTIONS.at(-1).id)}, body.embed .lab-section`);   // every section in place
  // the whole page builds the labs out of view after its first paint (mount.js, lazy)
  await r.page.waitForFunction(() => document.body.classList.contains('embed')
    || performance.getEntriesByName('attention-lab:mounted').length > 0);
  return r;
}
/** Numbers of heatmaps (by their figures' selectors), each as rows, read in one round trip. */
const heatmaps = (where, sels) => where.evaluate((sels) => sels.map((sel) => [...document.querySelectorAll(`${sel} table.heatmap tbody tr`)]
  .map((r) => [...r.querySelectorAll('td:not(.rowmark)')].map((td) => (td.classList.contains('nan') ? NaN : Number(td.dataset.value))))), sels);
const heatmap = async (where, sel) => (await heatmaps(where, [sel]))[0];
const texts = (page, sel) => page.$$eval(sel, (els) => els.map((e) => e.textContent));
const readout = (page, id, name) => texts(page, `${sec(id)} dl[data-name="${name}"] dd`);
/** Read until `ok` holds (the page may paint on a later frame), at most 2,000 readings; returns the
 * last reading. Each reading is a round trip to the browser, which paces the loop (as Puppeteer's
 * own waitForFunction polls); the assertion after it says what was wrong if `ok` never held. */
async function settle(read, ok) {
  for (let n = 0; ; n++) {
    const v = await read();
    if (ok(v) || n >= 2000) return v;
    await new Promise((r) => setImmediate(r));
  }
}
const within = (B, tol) => (A) => A.length === B.length && A.every((r, i) => r.length === B[i].length) && ref.maxAbs(A, B) <= tol;
/** Replace a field's text with the keyboard, as a student does: focus, select all, type (in a page or a frame). */
async function type(where, target, text) {
  const el = typeof target === 'string' ? await where.waitForSelector(target) : target;
  const { keyboard } = where.keyboard ? where : where.page();
  await el.focus();
  await keyboard.down('Control');
  await keyboard.press('a');
  await keyboard.up('Control');
  if (text === '') await keyboard.press('Backspace');
  else await keyboard.type(text);
}

const X1 = [[2, 0], [0, 4], [4, 2]];
const avg = (M) => M.map((_, t) => M[0].map((__, c) => M.slice(0, t + 1).reduce((s, r) => s + r[c], 0) / (t + 1)));
const S2 = [[1, 2, 0], [0.5, 1, 3], [2, 0, 1]];
const X3 = [[2, 0], [0, 4], [4, 2]], WQ = [[0.3, 0.1], [0, 0.3]], WK = [[0.2, -0.3], [0.3, 0.2]], WV = [[1, 0], [0.5, 1]];
const attn3 = (X) => ({ Q: ref.matmul(X, WQ), ...ref.attention(ref.matmul(X, WQ), ref.matmul(X, WK), ref.matmul(X, WV), true) });
const X5 = [[1, 0], [0, 1], [1, 1], [2, -1]];
const softmax2 = (S) => {
  const causal = S.map((r, i) => r.map((_, j) => j <= i));
  return { before: S.map((r, i) => ref.softmaxRow(r, causal[i])), after: S.map((r, i) => ref.softmaxRow(r).map((v, j) => (causal[i][j] ? v : 0))) };
};
const perm5 = async (page) => (await page.$eval(`${sec('18.5')} .perm`, (e) => e.textContent)).match(/\[([\d, ]+)\]/)[1].split(', ').map(Number);

test('every section renders in Chinese and computes its defaults; console errors are collected and there are none', async () => {
  const { page, errors } = await open();
  const ids = SECTIONS.map((s) => s.id);
  const shown = await page.evaluate((ids) => ({
    lang: document.documentElement.lang, title: document.querySelector('header h1')?.textContent,
    lessons: ids.map((id) => document.querySelector(`.lab-section[data-section="${id}"] .lesson`)?.textContent.length ?? 0),
    katex: document.querySelectorAll('.katex').length, statusErrors: document.querySelectorAll('.status.error').length,
  }), ids);
  assert.equal(shown.lang, 'zh-CN');
  assert.equal(shown.title, '注意力实验室');
  ids.forEach((id, i) => assert.ok(shown.lessons[i] > (SECTIONS[i].module ? 200 : 20), `lesson ${id}: ${shown.lessons[i]} characters`));
  assert.ok(shown.katex > 20, 'math rendered by KaTeX');
  assert.equal(shown.statusErrors, 0);
  const [y1, before2, after2, q3, a3, y3, w4, px5, w6, probe7] = await heatmaps(page, [fig('18.1', 'y0'), fig('18.2', 'before'),
    fig('18.2', 'after'), fig('18.3', 'q'), fig('18.3', 'a'), fig('18.3', 'y'), fig('18.4', 'w-head'), fig('18.5', 'px'), fig('18.6', 'w0'), fig('18.7', 'probe')]);
  // 18.1: the chapter's example, Y = A X with rows (2, 0), (1, 2), (2, 2)
  nearAll(y1, [[2, 0], [1, 2], [2, 2]], 2.3e-16, '18.1 Y');
  nearAll(before2, softmax2(S2).before, 1e-15, '18.2 mask before softmax');
  nearAll(after2, softmax2(S2).after, 1e-15, '18.2 mask after softmax');
  const r3 = attn3(X3);
  nearAll(q3, r3.Q, 1e-15, '18.3 Q');
  nearAll(a3, r3.A, 1e-15, '18.3 A');
  nearAll(y3, r3.Y, 1e-14, '18.3 Y');
  assert.equal(w4.length, 6);
  ref.rowSums(w4).forEach((s) => assert.ok(Math.abs(s - 1) <= 1e-14, `18.4 row sum ${s}`));
  assert.equal(w4[0][1], 0, '18.4 causal');
  nearAll(px5, (await perm5(page)).map((p) => X5[p]), 0, '18.5 P X');
  ref.rowSums(w6).forEach((s) => assert.ok(Math.abs(s - 1) <= 1e-15, `18.6 row sum ${s}`));
  assert.ok(probe7.slice(0, 3).flat().every((v) => v === 0), '18.7 prefix rows exactly 0');
  assert.ok(probe7.slice(3).flat().some((v) => v > 1e-3), '18.7 the future did change');
  assert.equal((await readout(page, '18.7', 'probe'))[0], '0');
  assert.deepEqual(errors, []);
  // the error channel is live: a console error and an uncaught error on this page are both seen
  const both = new Promise((resolve) => {   // openPage's listeners (registered first) have recorded each one
    const check = () => { if (errors.length >= 2) resolve(); };
    page.on('console', check);
    page.on('pageerror', check);
  });
  await page.evaluate(() => { console.error('smoke-probe'); setTimeout(() => { throw new Error('smoke-throw'); }); });
  await both;
  assert.ok(errors.some((e) => e.includes('smoke-probe')) && errors.some((e) => e.includes('smoke-throw')), JSON.stringify(errors));
  await page.close();
});

test('one edit per section recomputes, checked against numbers computed here', async () => {
  const { page, errors } = await open('?lang=en');
  // 18.1: X[1][1] = 10 -> Y is the running average of the new X
  await type(page, cell('18.1', 'x', 1, 1), '10');
  const x1 = X1.map((r) => [...r]); x1[1][1] = 10;
  nearAll(await settle(() => heatmap(page, fig('18.1', 'y0')), within(avg(x1), 1e-15)), avg(x1), 1e-15, '18.1 after edit');
  // 18.2: S[1][2] = -1 -> both mask orders follow
  await type(page, cell('18.2', 's', 1, 2), '-1');
  const s2 = S2.map((r) => [...r]); s2[1][2] = -1;
  const want2 = softmax2(s2);
  const [before2, after2] = await settle(() => heatmaps(page, [fig('18.2', 'before'), fig('18.2', 'after')]), ([b]) => within(want2.before, 1e-15)(b));
  nearAll(before2, want2.before, 1e-15, '18.2 before');
  nearAll(after2, want2.after, 1e-15, '18.2 after');
  // 18.3: X[2][0] = -1.5 -> Q, S, A, Y
  await type(page, cell('18.3', 'x', 2, 0), '-1.5');
  const x3 = X3.map((r) => [...r]); x3[2][0] = -1.5;
  const r3 = attn3(x3);
  const [q3, s3, a3, y3] = await settle(() => heatmaps(page, ['q', 's', 'a', 'y'].map((n) => fig('18.3', n))), ([q]) => within(r3.Q, 1e-15)(q));
  nearAll(q3, r3.Q, 1e-15, '18.3 Q');
  nearAll(s3, r3.S, 1e-14, '18.3 S');
  nearAll(a3, r3.A, 1e-15, '18.3 A');
  nearAll(y3, r3.Y, 1e-14, '18.3 Y');
  // 18.4: the last logit = 1 -> the largest softmax weight at x1 and x8
  await type(page, cell('18.4', 'logits', 0, 4), '1');
  const logits = [0.1, -0.2, 0.3, -0.2, 1];
  const want4 = [Math.max(...ref.softmaxRow(logits)), Math.max(...ref.softmaxRow(logits.map((v) => 8 * v)))];
  const shown4 = await settle(async () => (await readout(page, '18.4', 'sharp'))[0].split('→').map(Number),
    (m) => Math.abs(m[0] - want4[0]) <= 1e-4);
  shown4.forEach((m, i) => assert.ok(Math.abs(m - want4[i]) <= 1e-4, `18.4 max weight ${m} vs ${want4[i]}`));
  // 18.5: X[3][1] = 3 -> P X holds the rows of X in the shown order; shuffling commutes with attention
  await type(page, cell('18.5', 'x', 3, 1), '3');
  const x5 = X5.map((r) => [...r]); x5[3][1] = 3;
  const px = (await perm5(page)).map((p) => x5[p]);
  const [px5, attnPx, pAttn] = await settle(() => heatmaps(page, ['px', 'attnPx', 'pAttn'].map((n) => fig('18.5', n))), ([p]) => within(px, 0)(p));
  nearAll(px5, px, 0, '18.5 P X');
  nearAll(attnPx, pAttn, 1e-14, '18.5 equivariance (a few ulps of values near 4)');
  // 18.6: T_out = 2, T_in = 4 in cross-attention: 2 x 4 weights, rows sum to 1, nothing masked
  await type(page, fig('18.6', 'tout'), '2');
  await type(page, fig('18.6', 'tin'), '4');
  const [w6, mask6] = await settle(() => heatmaps(page, [fig('18.6', 'w0'), fig('18.6', 'mask')]), ([w]) => w.length === 2 && w[0].length === 4);
  assert.deepEqual([w6.length, w6[0].length], [2, 4]);
  ref.rowSums(w6).forEach((s) => assert.ok(Math.abs(s - 1) <= 1e-15, `18.6 row sum ${s}`));
  nearAll(mask6, [[1, 1, 1, 1], [1, 1, 1, 1]], 0, '18.6 cross mask');
  // 18.7: compare up to t = 4 -> rows 0..4 exactly unchanged
  await type(page, fig('18.7', 't'), '4');
  const probe = await settle(() => heatmap(page, fig('18.7', 'probe')), (c) => c.slice(0, 5).flat().every((v) => v === 0));
  assert.ok(probe.slice(0, 5).flat().every((v) => v === 0), `t = 4: prefix rows exactly 0: ${JSON.stringify(probe)}`);
  assert.ok(probe.slice(5).flat().some((v) => v > 1e-3), 't = 4: the future moved');
  // exercises: an answer is checked
  const ex = '[data-exercise="ex-chapter-1"]';
  const inputs = await page.$$(`${ex} input[type="text"]`);
  assert.equal(inputs.length, 4);
  for (const [i, v] of ['0.25', '0.5', '0.25', '5'].entries()) await type(page, inputs[i], v);
  await page.click(`${ex} button[type="submit"]`);
  assert.match(await settle(() => page.$eval(`${ex} .feedback`, (e) => e.textContent), (f) => f.length > 0), /^Correct/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a bad cell is marked and explained, and the last good result stays; so is a bad whole number', async () => {
  const { page, errors } = await open('?lang=en');
  const kept = await heatmap(page, fig('18.1', 'y0'));
  const bad = cell('18.1', 'x', 2, 1);
  await type(page, bad, 'abc');
  assert.equal(await settle(() => page.$eval(bad, (e) => e.getAttribute('aria-invalid')), (v) => v === 'true'), 'true');
  const msg = await page.$eval(`${fig('18.1', 'x')} [role="alert"]`, (e) => ({ text: e.textContent, shown: !e.hidden && e.offsetParent !== null }));
  assert.ok(msg.shown, 'the message is visible');
  assert.match(msg.text, /“abc” is not a number/);
  assert.match(msg.text, /Row 2, column 1/);
  assert.deepEqual(await heatmap(page, fig('18.1', 'y0')), kept, 'the last good result stays');
  await type(page, bad, '8');
  const x1 = X1.map((r) => [...r]); x1[2][1] = 8;
  nearAll(await settle(() => heatmap(page, fig('18.1', 'y0')), within(avg(x1), 1e-15)), avg(x1), 1e-15, 'recomputed once fixed');
  assert.equal(await page.$eval(bad, (e) => e.getAttribute('aria-invalid')), null);
  // Firefox lets letters into <input type="number"> (its value reads ''): marked, result kept
  const w0 = await heatmap(page, fig('18.6', 'w0'));
  await type(page, fig('18.6', 'tout'), 'abc');
  assert.equal(await settle(() => page.$eval(fig('18.6', 'tout'), (e) => e.getAttribute('aria-invalid')), (v) => v === 'true'), 'true');
  assert.deepEqual(await heatmap(page, fig('18.6', 'w0')), w0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the language switch goes to English and back, keeping the state in the URL', async () => {
  const { page, errors } = await open('?s1.norm=0');
  await Promise.all([page.waitForNavigation(), page.click('a.lang-switch')]);
  await page.waitForSelector(`html[lang="en"] ${sec('18.7')}`);
  assert.equal(await page.$eval('header h1', (e) => e.textContent), 'Attention Lab');
  assert.match(page.url(), /lang=en/);
  assert.match(page.url(), /s1\.norm=0/);
  assert.equal(await page.$eval(fig('18.1', 'norm'), (e) => e.checked), false, 'state survives the switch');
  const L = [[1, 0, 0], [1, 1, 0], [1, 1, 1]];   // un-normalized A: running sums
  nearAll(await heatmap(page, fig('18.1', 'y0')), ref.matmul(L, X1), 0, 'running sums');
  await Promise.all([page.waitForNavigation(), page.click('a.lang-switch')]);
  await page.waitForSelector(`html[lang="zh-CN"] ${sec('18.7')}`);
  assert.equal(await page.$eval('header h1', (e) => e.textContent), '注意力实验室');
  assert.deepEqual(errors, []);
  await page.close();
});

test('embed=18.3 in an iframe shows one section that computes, and posts its height to the parent', async () => {
  const { page, errors } = await openPage(firefox.browser, server.url);   // same origin as the frame; the parent only listens
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
  assert.ok(frame, 'the embedded frame');
  await frame.waitForSelector('body.embed .lab-section');
  assert.equal((await frame.$$('.lab-section')).length, 1);
  assert.equal((await frame.$$('header.site')).length, 0);
  await type(frame, cell('18.3', 'x', 0, 1), '1');
  const x3 = X3.map((r) => [...r]); x3[0][1] = 1;
  const r3 = attn3(x3);
  nearAll(await settle(() => heatmap(frame, fig('18.3', 'y')), within(r3.Y, 1e-14)), r3.Y, 1e-14, 'embedded 18.3 Y after an edit');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Start 18.8 and train until the step counter reaches `steps` (and, if given, the shown training
 *  loss is below `loss`), then pause; resolves when the future check has come back exactly 0. */
async function train(page, steps, loss = null) {
  const s8 = sec('18.8');
  await page.click(`${s8} [data-name="start"]`);
  await page.waitForFunction((s8, steps, loss) => {
    const stats = document.querySelector(`${s8} dl[data-name="stats"]`);
    return Number(stats?.querySelector('dd')?.textContent) >= steps && (loss === null || Number(stats.querySelector('dd.train-loss')?.textContent || NaN) < loss);
  }, {}, s8, steps, loss);
  await page.click(`${s8} [data-name="pause"]`);
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '0', {}, `${s8} dl[data-name="future"] dd`);
}

test('18.8: the GPT trains for a few seconds in a worker and its future check reads exactly 0', async () => {
  // the lab's short text (27 characters: the untrained model's loss is about ln 27 = 3.30 nats; a few
  // dozen Adam steps take it under 2.8), not the default corpus, so that a few seconds suffice
  const { page, errors } = await open(`?lang=en&s8.source=shipped&s8.probe=${encodeURIComponent('the cat sat on the mat')}`);
  await train(page, 40, Math.log(27) - 0.5);
  const change = (await heatmap(page, fig('18.8', 'future')))[0];
  assert.equal(change.length, 'the cat sat on the mat'.length);
  assert.ok(change.slice(0, 7).every((v) => v === 0), `prefix (t = 6) exactly unchanged: ${change}`);
  assert.ok(change.slice(7).some((v) => v > 1e-3), 'the changed future moves its own logits');
  assert.equal((await page.$$(`${sec('18.8')} .status.error`)).length, 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the single-file build works from file://, trains, and fetches nothing from the network', async () => {
  const { page, errors } = await openPage(firefox.browser);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${pathToFileURL(`${DIST}attention-lab.html`).href}?lang=en`);
  await page.waitForSelector(sec('18.7'));
  nearAll(await heatmap(page, fig('18.1', 'y0')), [[2, 0], [1, 2], [2, 2]], 2.3e-16, 'defaults');
  await type(page, cell('18.1', 'x', 0, 0), '4');
  const x1 = X1.map((r) => [...r]); x1[0][0] = 4;
  nearAll(await settle(() => heatmap(page, fig('18.1', 'y0')), within(avg(x1), 1e-15)), avg(x1), 1e-15, 'after an edit');
  assert.ok((await page.$$('.katex')).length > 20);
  await train(page, 10);   // a classic worker from a Blob here, given the core's bytes
  assert.equal((await page.$$('.status.error')).length, 0);
  assert.deepEqual(requests.filter((u) => !/^(file|data|blob):/.test(u)), [], 'nothing fetched from the network');
  assert.ok(requests.length > 0, 'requests were observed');
  assert.deepEqual(errors, []);
  await page.close();
});
