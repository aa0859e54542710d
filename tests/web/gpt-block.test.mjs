// 18.8's step-through of one GPT block and the provenance of its attention map, in headless
// Chromium: every stage forward and back with its figures, formula and URL, a
// link that opens a stage, the shapes on the arrows, the numbers against the core called here in
// Node on the same untrained model, and a cell of A explained by the core bit for bit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { serve, launch, openPage, heatmapValues, labMounted } from './harness.mjs';
import { loadCore } from '../../wasm/js/index.js';
import './page-modules.mjs';   // lets Node import a section's controller (its Vite-only imports become empty)

const { MODEL } = await import('../../web/src/sections/s18-8.js');

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

const S8 = '.lab-section[data-section="18.8"]';
const SENTENCE = 'the cat sat on';   // T = 14; C = 48, 4 heads of hs = 12
const T = [...SENTENCE].length;
// the page's model for the shipped text, seed 3, untrained: the same model built here by the core in Node
const QUERY = `?embed=18.8&lang=en&s8.source=shipped&s8.seed=3&s8.probe=${encodeURIComponent(SENTENCE)}`;
const core = await loadCore();
const reference = core.createModel(readFileSync(new URL('../../lessons/data/train.txt', import.meta.url), 'utf8'), { ...MODEL, seed: 3, causal: true });

const STAGES = [
  ['x', [], ['b-x'], 'W_{qkv}', '(T, C) = (14, 48)'],
  ['ln1', ['b-x'], ['b-ln1'], 'W_{qkv}', '(T, C) = (14, 48)'],
  ['qkv', ['b-ln1'], ['b-k', 'b-q', 'b-v'], 'W_{qkv}', '(NH, T, hs) = (4, 14, 12)'],
  ['qk', ['b-k', 'b-q'], ['b-qk'], 'softmax', '(T, T) = (14, 14)'],
  ['scaled', ['b-qk'], ['b-s'], 'softmax', '(T, T) = (14, 14)'],
  ['mask', ['b-s'], ['b-mask'], 'softmax', '(T, T) = (14, 14)'],
  ['a', ['b-mask', 'b-s'], ['b-a'], 'softmax', '(T, T) = (14, 14)'],
  ['y', ['b-a', 'b-v'], ['b-y'], 'softmax', '(T, C) = (14, 48)'],
  ['proj', ['b-y'], ['b-proj'], 'softmax', '(T, C) = (14, 48)'],
  ['res1', ['b-proj', 'b-x'], ['b-res'], 'softmax', '(T, C) = (14, 48)'],
  ['ln2', ['b-res'], ['b-ln2'], 'GELU', '(T, C) = (14, 48)'],
  ['fc', ['b-ln2'], ['b-fc'], 'GELU', '(T, 4C) = (14, 192)'],
  ['gelu', ['b-fc'], ['b-gelu'], 'GELU', '(T, 4C) = (14, 192)'],
  ['fcproj', ['b-gelu'], ['b-fcproj'], 'GELU', '(T, C) = (14, 48)'],
  ['out', ['b-fcproj', 'b-res'], ['b-out'], 'GELU', '(T, C) = (14, 48)'],
].map(([id, reads, makes, tex, shape]) => ({ id, reads, makes, tex, shape }));

async function open(query, width = 1280) {
  const { page, errors } = await openPage(chrome.browser, 'about:blank');
  await page.setViewportSize({ width, height: 900 });
  await page.goto(server.url + query);
  await page.waitForSelector(`${S8} [data-name="start"]`);
  await labMounted(page);
  // scroll 18.8 into view: that builds the model; the step-through then asks the worker for the block
  await page.waitForFunction((sel) => {
    const el = document.querySelector(`${sel} .stepper`);
    el.scrollIntoView({ block: 'center' });
    return document.querySelector(`${sel} dl[data-name="stats"] dd.step`)?.textContent === '0';
  }, S8, { polling: 250 });
  return { page, errors, s8: page.locator(S8) };
}
const stageParam = (page) => new URL(page.url()).searchParams.get('s8.stage');
const fig = (s8, name) => s8.locator(`[data-name="${name}"]`);

/** What the step-through shows now. */
const shown = (s8) => s8.evaluate((el) => {
  const role = (r) => [...el.querySelectorAll(`.lab [data-stage-role="${r}"]`)].map((f) => f.dataset.name).sort();
  return { current: el.querySelector('.stepper ol.step-flow li[aria-current="step"]')?.dataset.stage ?? null, reads: role('reads'), makes: role('makes'),
    visible: [...el.querySelectorAll('.step-extra figure[data-name^="b-"]')].filter((f) => !f.hidden).map((f) => f.dataset.name).sort(),
    formulas: [...el.querySelectorAll('.lesson .katex-display.stage-formula .katex')].map((k) => k.dataset.tex),
    where: el.querySelector('.stepper .step-where').textContent, explains: !el.querySelector('div.provenance').hidden };
});

async function expectStage(page, s8, k) {
  const st = STAGES[k];
  await page.waitForFunction((id) => new URL(location.href).searchParams.get('s8.stage') === id, st.id);
  const s = await shown(s8);
  assert.equal(s.current, st.id);
  assert.deepEqual(s.reads, st.reads, `${st.id}: the figures it reads`);
  assert.deepEqual(s.makes, st.makes, `${st.id}: the figures it makes`);
  assert.deepEqual(s.visible, [...st.reads, ...st.makes].sort(), `${st.id}: only its figures are shown`);
  assert.equal(s.formulas.length, 1, `${st.id}: one lesson formula highlighted`);
  assert.ok(s.formulas[0].includes(st.tex), `${st.id}: ${s.formulas[0]}`);
  assert.match(s.where, new RegExp(`^Step ${k + 1} of ${STAGES.length}: `));
  assert.equal(s.explains, ['scaled', 'mask', 'a', 'y'].includes(st.id), `${st.id}: the explanation panel only beside S or A`);
}

test('18.8: a link opens the block at a stage; Back and Next walk all 15 stages with their figures, formula and shapes', async () => {
  const { page, errors, s8 } = await open(`${QUERY}&s8.stage=mask&s8.layer=1&s8.head=2`);
  await page.waitForFunction((sel) => !document.querySelector(`${sel} [data-name="b-s"]`).hidden, S8);
  await expectStage(page, s8, 5);
  assert.equal(await s8.locator('.step-body').isVisible(), true);
  const shapes = await s8.locator('.stepper ol.step-flow li').evaluateAll((lis) => lis.map((li) => [li.dataset.stage, li.querySelector('.step-shape').textContent]));
  assert.deepEqual(shapes, STAGES.map((s) => [s.id, s.shape]));
  for (let k = 4; k >= 0; k--) {
    await s8.locator('.stepper button.step-back').click();
    await expectStage(page, s8, k);
  }
  assert.equal(await s8.locator('.stepper button.step-back').isDisabled(), true);
  for (let k = 1; k < STAGES.length; k++) {
    await s8.locator('.stepper button.step-next').click();
    await expectStage(page, s8, k);
  }
  assert.equal(await s8.locator('.stepper button.step-next').isDisabled(), true);
  await s8.locator('.stepper button.step-toggle').click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('s8.stage'));
  assert.deepEqual((await shown(s8)).visible, []);
  assert.deepEqual(errors, []);
  await page.close();
});

/** 18.8 at stage A, layer 1, head 2, once A is drawn; with the same model's layer-1 trace from the Node core. */
async function openLayer1Head2() {
  const r = await open(`${QUERY}&s8.stage=a&s8.layer=1&s8.head=2`);
  await r.page.waitForFunction((sel) => !document.querySelector(`${sel} [data-name="b-a"]`).hidden, S8);
  return { ...r, trace: reference.blockTrace(SENTENCE, { layer: 1 }) };
}

test('18.8: the block\'s numbers are the core\'s (the same model in Node), per layer and head', async () => {
  const { page, errors, s8, trace } = await openLayer1Head2();
  const at = (t, ...i) => { let k = 0; for (let d = 0; d < i.length; d++) k = k * t.shape[d] + i[d]; return t.data[k]; };
  const a = await heatmapValues(fig(s8, 'b-a'));
  assert.equal(a.length, T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) assert.ok(Object.is(a[i][j], at(trace.weights, 2, i, j)), `A[2, ${i}, ${j}]`);
  const s = await heatmapValues(fig(s8, 'b-s'));
  assert.ok(Object.is(s[5][9], at(trace.scores, 2, 5, 9)), 'S before the mask, above the diagonal too');
  // the row labels are the sentence's characters (the space shown as ␣)
  const rows = await fig(s8, 'b-a').locator('tbody th').allTextContents();
  assert.deepEqual(rows.map((r) => r.trim().slice(-1)), [...SENTENCE].map((c) => (c === ' ' ? '␣' : c)));
  // another head: the page asks nothing new of the worker, the head's values change
  await s8.locator('input[data-name="head"]').fill('0');
  await page.waitForFunction(([sel, v]) => document.querySelector(`${sel} [data-name="b-a"] tbody tr:nth-child(3) td:not(.rowmark)`)?.dataset.value === v,
    [S8, String(at(trace.weights, 0, 2, 0))]);
  // layer 0's q: the first layer's input through LayerNorm and W_qkv
  await s8.locator('.stepper button.step-toggle').click();   // off
  await s8.locator('.stepper button.step-toggle').click();   // on at the first stage
  await page.waitForFunction(() => new URL(location.href).searchParams.get('s8.stage') === 'x');
  await s8.locator('input[data-name="layer"]').fill('0');
  await s8.locator('.stepper button.step-next').click();
  await s8.locator('.stepper button.step-next').click();
  const t0 = reference.blockTrace(SENTENCE, { layer: 0 });
  await page.waitForFunction(([sel, v]) => document.querySelector(`${sel} [data-name="b-q"] tbody tr:nth-child(4) td:not(.rowmark)`)?.dataset.value === v,
    [S8, String(at(t0.q, 0, 3, 0))]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.8: pointing at A[t, j] explains it with the core\'s numbers; the panel\'s value is the cell bit for bit', async () => {
  const { page, errors, s8, trace } = await openLayer1Head2();
  const t = 6, j = 2;
  const target = fig(s8, 'b-a').locator('tbody tr').nth(t).locator('td:not(.rowmark)').nth(j);
  const p = s8.locator('div.provenance');
  for (let tries = 0; ; tries++) {   // hover again if a repaint moved the cell away before the panel followed
    assert.ok(tries < 30, 'the panel follows the pointer');
    await target.hover();
    const followed = await page.waitForFunction(([sel]) => document.querySelector(`${sel} div.provenance`)?.dataset.at === '6,2', [S8], { timeout: 5000 })
      .then(() => true, () => false);
    if (followed) break;
  }
  assert.match(await p.locator('.prov-formula').textContent(), /A\[6,2\] = exp\(S\[6,2\] − m\) \/ Σⱼ exp\(S\[6,j\] − m\)/);
  const value = await p.locator('.prov-value').getAttribute('data-value');
  assert.equal(value, await target.getAttribute('data-value'), 'the panel\'s last number is the cell');
  assert.ok(Object.is(Number(value), trace.weights.data[(2 * T + t) * T + j]));
  // the core's own explanation of the same cell, called here
  const head = (name) => ({ shape: trace[name].shape.slice(1), data: trace[name].data.slice(2 * T * 12, 3 * T * 12) });
  const e = core.explain('sdpa', 'weights', [t, j], { q: head('q'), k: head('k'), v: head('v'), causal: true });
  await p.locator('button.prov-more').click();   // T = 14 terms: the full list is one click away
  assert.equal(Number(await p.locator('.prov-den').getAttribute('data-value')), e.denominator);
  assert.equal(Number(await p.locator('.prov-max-value').getAttribute('data-value')), e.max);
  const exps = await p.locator('.prov-exp').evaluateAll((els) => els.map((x) => Number(x.dataset.value)));
  assert.deepEqual(exps, e.exps.slice(0, t + 1));
  assert.equal(await p.locator('.prov-terms li.masked').count(), T - t - 1, 'the masked scores: −∞ → 0');
  // the score row t of S and the mask row are outlined (the inputs), the cell itself as the target
  const outlined = await s8.locator('[data-prov]').evaluateAll((cells) => cells.map((td) =>
    `${td.closest('figure').dataset.name}:${td.closest('tr').sectionRowIndex},${td.cellIndex - 1}:${td.dataset.prov}`).sort());
  const want = ['b-a:6,2:target'];
  for (let k = 0; k < T; k++) for (const f of ['b-mask', 'b-s']) want.push(`${f}:6,${k}:${k <= t ? 'in' : 'masked'}`);
  assert.deepEqual(outlined, want.sort());
  // keyboard: focus moves along the row and the panel follows
  await target.focus();
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((sel) => document.querySelector(`${sel} div.provenance`)?.dataset.at === '6,1', S8);
  assert.equal(await p.locator('.prov-value').getAttribute('data-value'),
    await fig(s8, 'b-a').locator('tbody tr').nth(t).locator('td:not(.rowmark)').nth(1).getAttribute('data-value'));
  // a cell of the mask M: not computed, said in one line; the weight's panel and outlines are gone
  for (const [mj, m] of [[9, '−∞'], [2, '0']]) {
    await fig(s8, 'b-mask').locator('tbody tr').nth(t).locator('td:not(.rowmark)').nth(mj).hover();
    await page.waitForFunction(([sel, at]) => document.querySelector(`${sel} div.provenance`)?.dataset.at === at, [S8, `${t},${mj}`]);
    assert.equal(await p.getAttribute('data-quantity'), 'mask');
    assert.equal(await p.locator('.prov-formula').textContent(), `M[${t},${mj}] = ${m}`);
    assert.match(await p.locator('.prov-note').textContent(), /^M\[t,j\] = 0 if j ≤ t, −∞ otherwise/);
    assert.equal(await p.locator('.prov-value, .prov-terms').count(), 0);
    assert.deepEqual(await s8.locator('[data-prov]').evaluateAll((cells) => cells.map((td) => `${td.closest('figure').dataset.name}:${td.dataset.prov}`)), ['b-mask:target']);
  }
  // the next stage (A V) reads A and V: pointing at V, which has nothing to explain, clears A's panel
  await s8.locator('.stepper button.step-next').click();
  await page.waitForFunction(() => new URL(location.href).searchParams.get('s8.stage') === 'y');
  await target.hover();
  await page.waitForFunction((sel) => document.querySelector(`${sel} div.provenance`)?.dataset.at === '6,2', S8);
  await fig(s8, 'b-v').locator('tbody tr').nth(3).locator('td:not(.rowmark)').nth(1).hover();
  await page.waitForFunction((sel) => document.querySelector(`${sel} div.provenance`)?.dataset.at === undefined, S8);
  assert.equal(await p.locator('.prov-hint').count(), 1);
  assert.equal(await s8.locator('[data-prov]').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
for (const lang of ['zh', 'en']) {
  test(`axe (${lang}): 18.8's step-through at A with a cell explained, and at the MLP, has no violations`, async () => {
    const { page, errors, s8 } = await open(`${QUERY.replace('lang=en', `lang=${lang}`)}&s8.stage=a&s8.head=1`);
    await page.waitForFunction((sel) => !document.querySelector(`${sel} [data-name="b-a"]`).hidden, S8);
    await fig(s8, 'b-a').locator('tbody tr').nth(4).locator('td:not(.rowmark)').nth(1).click();
    await page.evaluate(AXE);
    const run = () => s8.evaluate(async (el) => (await window.axe.run(el.querySelector('.stepper'), { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'] })).violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(await run(), []);
    for (let k = 0; k < 5; k++) await s8.locator('.stepper button.step-next').click();   // fc: canvas heatmaps
    await page.waitForFunction(() => new URL(location.href).searchParams.get('s8.stage') === 'fc');
    assert.deepEqual(await run(), []);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// The provenance of the small maps: each map's cell explained by its own layer's trace (asked of the worker when pointed at)
test('18.8: pointing at a cell of a small attention map explains it with its layer\'s trace, bit for bit; another layer switches the trace', async () => {
  const { page, errors, s8 } = await open('?embed=18.8&lang=en&s8.source=shipped&s8.seed=3');   // the default sentence
  const text = 'the cat sat on the mat', n = [...text].length;
  assert.equal(await s8.locator('input[data-name="probe"]').inputValue(), text);
  await page.waitForSelector(`${S8} [data-name="attn-1-3"] tbody tr`);
  const p = s8.locator('div.provenance');
  const cell = (name, t, j) => fig(s8, name).locator('tbody tr').nth(t).locator('td:not(.rowmark)').nth(j);
  // the panel shows this map's cell: placed below the map's row (the layer), with the cell's index
  const explains = (name, t, j) => page.waitForFunction(([sel, name, at]) => {
    const el = document.querySelector(`${sel} div.provenance`);
    return !el.hidden && el.dataset.at === at && el.previousElementSibling?.contains(document.querySelector(`${sel} [data-name="${name}"]`));
  }, [S8, name, `${t},${j}`]);
  async function hover(name, t, j) {
    await cell(name, t, j).hover();
    await explains(name, t, j);
  }
  const at = (x, ...i) => { let k = 0; for (let d = 0; d < i.length; d++) k = k * x.shape[d] + i[d]; return x.data[k]; };
  const head = (tr, name, hd) => { const [, T, hs] = tr[name].shape; return { shape: [T, hs], data: tr[name].data.slice(hd * T * hs, (hd + 1) * T * hs) }; };
  async function check(name, layer, hd, t, j) {
    const tr = reference.blockTrace(text, { layer });
    const value = await p.locator('.prov-value').getAttribute('data-value');
    assert.equal(value, await cell(name, t, j).getAttribute('data-value'), `${name}: the panel's last number is the cell`);
    assert.ok(Object.is(Number(value), at(tr.weights, hd, t, j)), `${name}: the value is the core's A[${hd}, ${t}, ${j}] of layer ${layer}`);
    const e = core.explain('sdpa', 'weights', [t, j], { q: head(tr, 'q', hd), k: head(tr, 'k', hd), v: head(tr, 'v', hd), causal: true });
    assert.ok(Object.is(e.value, Number(value)));
    if (await p.locator('button.prov-more[aria-expanded="false"]').count()) await p.locator('button.prov-more').click();   // T = 22 terms
    assert.ok(Object.is(Number(await p.locator('.prov-den').getAttribute('data-value')), e.denominator), `${name}: the denominator`);
    assert.ok(Object.is(Number(await p.locator('.prov-max-value').getAttribute('data-value')), e.max), `${name}: the max`);
    const exps = await p.locator('.prov-exp').evaluateAll((els) => els.map((x) => Number(x.dataset.value)));
    assert.deepEqual(exps, e.exps.slice(0, t + 1), `${name}: every exp`);
    assert.equal(await p.locator('.prov-terms li.masked').count(), n - t - 1, 'the masked scores: −∞ → 0');
    assert.match(await p.locator('.prov-formula').textContent(), new RegExp(`A\\[${t},${j}\\] = exp\\(S\\[${t},${j}\\] − m\\)`));
    // the cell pointed at is outlined as the target (the scores of a small map are not drawn)
    const outlined = await s8.locator('[data-prov]').evaluateAll((cs) => cs.map((td) => `${td.closest('figure').dataset.name}:${td.closest('tr').sectionRowIndex},${td.cellIndex - 1}:${td.dataset.prov}`));
    assert.deepEqual(outlined, [`${name}:${t},${j}:target`]);
  }
  await hover('attn-1-2', 7, 3);
  await check('attn-1-2', 1, 2, 7, 3);
  // keyboard: focus a cell, the arrows move along the map and the panel follows
  await cell('attn-1-2', 7, 3).focus();
  await page.keyboard.press('ArrowDown');
  await explains('attn-1-2', 8, 3);
  await check('attn-1-2', 1, 2, 8, 3);
  // layer 0, then back to layer 1 at another head: the trace of the map's own layer each time
  await hover('attn-0-0', 12, 5);
  await check('attn-0-0', 0, 0, 12, 5);
  await hover('attn-1-3', 20, 19);
  await check('attn-1-3', 1, 3, 20, 19);
  assert.deepEqual(errors, []);
  await page.close();
});

// The maps' explanation floats under the layer pointed at: a cell in a map's last row at the
// bottom of the window stays uncovered and in place, and nothing on the page moves.
test('18.8: explaining a small map\'s cell covers no part of that cell and moves nothing, at 1280 and 390 px', async () => {
  for (const width of [1280, 390]) {
    const { page, errors, s8 } = await open('?embed=18.8&lang=en&s8.source=shipped&s8.seed=3', width);
    await page.waitForSelector(`${S8} [data-name="attn-0-1"] tbody tr`);
    const target = fig(s8, 'attn-0-1').locator('tbody tr').nth(21).locator('td:not(.rowmark)').nth(4);
    await target.evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const layout = () => s8.locator('.lab').evaluate((lab) => [...lab.querySelectorAll('figure, .row, .stack, .controls, p, h3')]
      .filter((el) => !el.closest('div.provenance') && el.getClientRects().length)
      .map((el) => { const r = el.getBoundingClientRect(); return [el.tagName, el.dataset.name ?? '', Math.round(r.x), Math.round(r.y), Math.round(r.width), Math.round(r.height)].join(' '); }));
    const before = await layout(), box = await target.boundingBox();
    await target.hover();
    await page.waitForFunction((sel) => document.querySelector(`${sel} div.provenance`)?.dataset.at === '21,4', S8);
    assert.deepEqual(await layout(), before, `${width} px: nothing moved`);
    assert.deepEqual(await target.boundingBox(), box, `${width} px: the cell stays under the pointer`);
    const p = await s8.locator('div.provenance').boundingBox();
    assert.ok(p.y >= box.y + box.height, `${width} px: the panel (${JSON.stringify(p)}) is below the cell (${JSON.stringify(box)})`);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
