// The 18.3 step-through: X -> Q, K, V -> Q K^T -> scaled -> + mask -> softmax -> Y,
// one stage at a time. Each stage outlines the figures it reads and makes, highlights its formula
// in the lesson, shows every tensor's shape on its arrow (the data's shapes), and is in the URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig, heatmapValues } from './harness.mjs';

const { open } = builtLab();

// T = 4, C = 3, d = 2: every axis length differs, so a shape cannot come out right by accident
const STATE = 's3.x=1,0,2;0,1,1;2,1,0;1,1,1&s3.wq=0.3,0.1;0,0.3;0.2,0.5&s3.wk=0.2,-0.3;0.3,0.2;-0.1,0.4&s3.wv=1,0;0.5,1;0.25,-0.5';
const STAGES = [
  { id: 'x', reads: [], makes: ['x'], tex: 'XW_Q', shape: '(B, T, C) = (1, 4, 3)' },
  { id: 'qkv', reads: ['wk', 'wq', 'wv', 'x'], makes: ['k', 'q', 'v'], tex: 'XW_Q', shape: '(B, T, d) = (1, 4, 2)' },
  { id: 'qk', reads: ['k', 'q'], makes: ['qk'], tex: 'softmax', shape: '(B, T, T) = (1, 4, 4)' },
  { id: 'scaled', reads: ['qk'], makes: ['s'], tex: 'softmax', shape: '(B, T, T) = (1, 4, 4)' },
  { id: 'mask', reads: ['s'], makes: ['mask'], tex: 'softmax', shape: '(T, T) = (4, 4)' },
  { id: 'a', reads: ['mask', 's'], makes: ['a'], tex: 'softmax', shape: '(B, T, T) = (1, 4, 4)' },
  { id: 'y', reads: ['a', 'v'], makes: ['y'], tex: 'softmax', shape: '(B, T, d) = (1, 4, 2)' },
];
const s3 = (page) => sec(page, '18.3');
const stageParam = (page) => new URL(page.url()).searchParams.get('s3.stage');

/** What the page shows for the current stage. */
async function shown(page) {
  return s3(page).evaluate((el) => {
    const role = (r) => [...el.querySelectorAll(`.lab [data-stage-role="${r}"]`)].map((f) => f.dataset.name).sort();
    // the formula's TeX: data-tex (mathml-later.js keeps it there while the MathML waits for an idle moment)
    const formulas = [...el.querySelectorAll('.lesson .katex-display.stage-formula .katex')].map((k) => k.dataset.tex);
    return { current: el.querySelector('ol.step-flow li[aria-current="step"]')?.dataset.stage ?? null, reads: role('reads'), makes: role('makes'),
      formulas, where: el.querySelector('.step-where').textContent,
      line: el.querySelector('.step-formula').innerHTML,
      tags: [...el.querySelectorAll('.lab [data-stage-role]')].map((f) => getComputedStyle(f, '::before').content),
      outline: [...el.querySelectorAll('.lab [data-stage-role]')].map((f) => getComputedStyle(f).outlineStyle) };
  });
}

async function expectStage(page, k) {
  const st = STAGES[k];
  // the page writes the URL once the edits pause (250 ms)
  await page.waitForFunction((id) => new URL(location.href).searchParams.get('s3.stage') === id, st.id);
  const s = await shown(page);
  assert.equal(s.current, st.id);
  assert.deepEqual(s.reads, st.reads, `${st.id}: the figures it reads`);
  assert.deepEqual(s.makes, st.makes, `${st.id}: the figures it makes`);
  assert.equal(s.formulas.length, 1, `${st.id}: one lesson formula highlighted`);
  assert.ok(s.formulas[0].includes(st.tex), `${st.id}: ${s.formulas[0]}`);
  assert.match(s.where, new RegExp(`^Step ${k + 1} of 7: `));
  // the stage's formula line: subscripts set as subscripts, no TeX underscore left
  assert.ok(!s.line.includes('_'), `${st.id}: ${s.line}`);
  if (st.id === 'qkv') assert.match(s.line, /^Q = X W<sub>Q<\/sub>, K = X W<sub>K<\/sub>, V = X W<sub>V<\/sub>: /);
  if (st.id === 'qk') assert.match(s.line, /q<sub>t<\/sub> · k<sub>j<\/sub>/);
  // not colour alone: an outline (dashed to read, solid for the result) and a text tag
  for (const tag of s.tags) assert.match(tag, /this step (reads|makes)/);
  assert.deepEqual([...new Set(s.outline)].sort(), [...new Set([...(st.reads.length ? ['dashed'] : []), 'solid'])].sort());
}

test('the step-through walks every stage forward and back (keyboard), outlining the expected figures and formula', async () => {
  const { page, errors } = await open(`?embed=18.3&lang=en&${STATE}`);
  assert.equal(await s3(page).locator('.step-body').isHidden(), true, 'off by default');
  assert.equal((await shown(page)).reads.length + (await shown(page)).makes.length, 0);
  await s3(page).locator('button.step-toggle').click();
  await expectStage(page, 0);
  assert.equal(await s3(page).locator('button.step-back').isDisabled(), true);
  for (let k = 1; k < STAGES.length; k++) {
    await s3(page).locator('button.step-next').focus();
    await page.keyboard.press(k % 2 ? 'Enter' : 'Space');
    await expectStage(page, k);
  }
  assert.equal(await s3(page).locator('button.step-next').isDisabled(), true);
  for (let k = STAGES.length - 2; k >= 0; k--) {
    await s3(page).locator('button.step-back').click();
    await expectStage(page, k);
  }
  await s3(page).locator('button.step-toggle').click();
  await page.waitForFunction(() => !new URL(location.href).searchParams.has('s3.stage'));
  assert.deepEqual(await shown(page), { current: null, reads: [], makes: [], formulas: [], where: '', line: '', tags: [], outline: [] });
  assert.deepEqual(errors, []);
  await page.close();
});

test('each arrow shows its tensor\'s shape, equal to the data\'s; Q K^T and the mask are the core\'s', async () => {
  const { page, errors } = await open(`?embed=18.3&lang=en&${STATE}&s3.stage=qk`);
  const shapes = await s3(page).locator('ol.step-flow li').evaluateAll((lis) => lis.map((li) => [li.dataset.stage, li.querySelector('.step-shape').textContent]));
  assert.deepEqual(shapes, STAGES.map((s) => [s.id, s.shape]));
  // the shapes are the figures' own data shapes
  const dims = async (name) => { const v = await heatmapValues(fig(page, '18.3', name)); return [v.length, v[0].length]; };
  for (const [name, want] of [['q', [4, 2]], ['qk', [4, 4]], ['s', [4, 4]], ['mask', [4, 4]], ['a', [4, 4]], ['y', [4, 2]]]) assert.deepEqual(await dims(name), want, name);
  for (const name of ['q', 'qk', 'mask', 'y']) {
    const badge = await fig(page, '18.3', name).locator('.shape-badge').textContent();
    assert.ok(shapes.some(([, s]) => s === badge), `${name}: ${badge}`);
  }
  // Q K^T from the page's Q and K (an independent product), and S = Q K^T / sqrt(2)
  const [q, k, qk, s, mask] = await Promise.all(['q', 'k', 'qk', 's', 'mask'].map((n) => heatmapValues(fig(page, '18.3', n))));
  const ref = q.map((qi) => k.map((kj) => qi[0] * kj[0] + qi[1] * kj[1]));
  qk.forEach((row, i) => row.forEach((v, j) => {
    assert.ok(Math.abs(v - ref[i][j]) <= 1e-15, `QK^T[${i},${j}]`);
    assert.ok(Math.abs(s[i][j] - v / Math.SQRT2) <= 1e-15, `S[${i},${j}]`);
  }));
  assert.deepEqual(mask, [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link opens the step-through at its stage; an unknown stage falls back and is named', async () => {
  const { page, errors } = await open(`?embed=18.3&lang=zh&${STATE}&s3.stage=a`);
  await expectStageZh(page);
  await page.close();
  const bad = await open('?embed=18.3&lang=en&s3.stage=softmax');
  assert.match(await bad.page.locator('p.notice').textContent(), /s3\.stage/);
  assert.equal(await s3(bad.page).locator('.step-body').isHidden(), true);
  assert.deepEqual([...errors, ...bad.errors], []);
  await bad.page.close();

  async function expectStageZh(p) {
    const s = await shown(p);
    assert.deepEqual([s.current, s.reads, s.makes], ['a', ['mask', 's'], ['a']]);
    // its lesson formula is highlighted at once, before the lesson's MathML is back
    assert.equal(s.formulas.length, 1);
    assert.ok(s.formulas[0].includes('softmax'), s.formulas[0]);
    assert.match(s.where, /^第 6 \/ 7 步：A = softmax\(S \+ M\)$/);
    assert.equal(await s3(p).locator('button.step-toggle').textContent(), '退出逐步查看');
  }
});

test('Play steps to the end and stops; with reduced motion it keeps a slower pace', async () => {
  const { page, errors } = await open(`?embed=18.3&lang=en&s3.stage=mask`);
  await s3(page).locator('button.step-play').click();
  assert.equal(await s3(page).locator('button.step-play').getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('s3.stage') === 'y');
  await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.3"] button.step-play').getAttribute('aria-pressed') === 'false');
  assert.equal(stageParam(page), 'y');
  // reduced motion, on a clock the test moves (Playwright's fake timers, from here on): no step
  // after 2.5 s (the normal pace is 1.8 s), the next stage after 4 s
  await page.clock.install();
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await s3(page).locator('button.step-play').click();   // at the end: starts again from the first stage
  assert.equal((await shown(page)).current, 'x');
  await page.clock.runFor(2500);
  assert.equal((await shown(page)).current, 'x', 'reduced motion: no step within 2.5 s (normal pace is 1.8 s)');
  await page.clock.runFor(1600);
  assert.equal((await shown(page)).current, 'qkv', 'reduced motion: one step after 4 s');
  await s3(page).locator('button.step-play').click();   // pause
  assert.equal(await s3(page).locator('button.step-play').textContent(), 'Play');
  assert.deepEqual(errors, []);
  await page.close();
});
