// What the page shows must agree with the lesson, in both languages: 18.5 never shuffles into the identity and keeps its position
// table; 18.7 in evaluation reports evaluation; 18.2 shows the sums that make a wrong dim
// visibly wrong; 18.1 and 18.7 put the chapter's own figures beside ours; "predict first" holds
// the change, then compares; the exercises section has one heading. Numbers are checked against
// values computed here (tests/web/reference.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, heatmapValues, labMounted } from './harness.mjs';
import * as ref from './reference.mjs';

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

async function open(query) {
  const { page, errors } = await openPage(chrome.browser, server.url + query);
  await page.waitForSelector('.lab-section .lab');
  await labMounted(page);
  return { page, errors };
}
const sec = (page, id) => page.locator(`.lab-section[data-section="${id}"]`);
const fig = (page, id, name) => sec(page, id).locator(`[data-name="${name}"]`);
const text = async (loc) => (await loc.textContent()).replace(/\s+/g, ' ').trim();
const readout = (page, id, name) => fig(page, id, name).locator('dd').allTextContents();

const T = {
  en: { broken: /^A real difference/, evalLabel: 'Weights after dropout (evaluation: unchanged)', evalSums: /mean of 2000 evaluation samples/,
    evalNote: /^Evaluation: dropout is the identity/, trainSums: /mean of 2000 training samples/, noMask: /^Nothing is masked now/,
    zeroChapter: /the chapter's X holds just 0, 2 and 4/, rounding: /^A difference in the last bits/, loopSum: 'Loop: out[t] = sum of X[0..t] (without normalizing, the loop adds)',
    chapterNote: /PyTorch's SDPA, and 5\.480078/, right: /^As you predicted/, wrong: /^Not what you predicted/, exercises: /Exercises/ },
  zh: { broken: /^差异明显/, evalLabel: 'dropout 后的权重（评估模式：原样不变）', evalSums: /2000 次评估采样的平均/,
    evalNote: /^评估模式：dropout 是恒等映射/, trainSums: /2000 次训练采样的平均/, noMask: /^现在什么都没遮/,
    zeroChapter: /教材的 X 只含 0、2、4/, rounding: /^差在最后几位/, loopSum: '循环版：out[t] = X[0..t] 之和（不归一化时循环做的是累加）',
    chapterNote: /PyTorch 的 SDPA，5\.480078/, right: /^和你的预测一致/, wrong: /^和你的预测不同/, exercises: /练习/ },
};

for (const lang of ['en', 'zh']) {
  const L = T[lang];

  test(`18.5 (${lang}): at T = 2 no shuffle is the identity; the position table stays; the unshuffled output is shown`, async () => {
    const { page, errors } = await open(`?lang=${lang}&embed=18.5&s5.x=1,0;0,1&s5.pos=learned`);
    const s5 = sec(page, '18.5');
    const table = await heatmapValues(fig(page, '18.5', 'table'));
    const draws = lang === 'en' ? 40 : 12;
    for (let k = 0; k < draws; k++) {
      const perm = (await s5.locator('.perm').textContent()).match(/\[([\d, ]+)\]/)[1].split(', ').map(Number);
      assert.deepEqual(perm, [1, 0], `draw ${k}: the only non-identity permutation of two rows`);
      const dd = fig(page, '18.5', 'diff').locator('dd').nth(1);
      assert.match(await text(dd), L.broken, `draw ${k}`);
      assert.equal(await dd.getAttribute('class'), 'bad');
      assert.ok(ref.parseShown((await readout(page, '18.5', 'diff'))[0]) > 1e-3, `draw ${k}: positions make a real difference`);
      nearTable(await heatmapValues(fig(page, '18.5', 'table')), table, `draw ${k}: the learned table does not change with the shuffle`);
      // P · attn(X + pos) is attn(X + pos) with its rows taken in the order perm
      const y = await heatmapValues(fig(page, '18.5', 'attnX')), py = await heatmapValues(fig(page, '18.5', 'pAttn'));
      assert.deepEqual(py, perm.map((p) => y[p]));
      await s5.getByRole('button', { name: lang === 'en' ? 'Shuffle again' : '重新打乱' }).click();
    }
    // the table has its own seed
    await fig(page, '18.5', 'posSeed').fill('2');
    assert.ok(ref.maxAbs(await heatmapValues(fig(page, '18.5', 'table')), table) > 1e-2, 'another table seed, another table');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`18.7 (${lang}): in evaluation everything says evaluation and the mean row sums are 1`, async () => {
    const { page, errors } = await open(`?lang=${lang}&embed=18.7`);
    const drop = fig(page, '18.7', 'drop');
    assert.match(await text(drop.locator('thead th.rowmark')), L.trainSums);
    const trainMeans = (await drop.locator('td.rowmark').allTextContents()).map((s) => Number(s.split('·')[1]));
    assert.ok(trainMeans.some((m) => Math.abs(m - 1) > 5e-3), `training: means ${trainMeans}`);
    await fig(page, '18.7', 'training').uncheck();
    assert.equal(await text(drop.locator('.tensor-label')), L.evalLabel);
    assert.match(await text(drop.locator('thead th.rowmark')), L.evalSums);
    for (const mark of await drop.locator('td.rowmark').allTextContents()) {
      const [sample, mean] = mark.split('·').map(Number);
      assert.equal(sample, 1, mark);
      assert.equal(mean, 1, mark);
    }
    ref.rowSums(await heatmapValues(drop)).forEach((v) => assert.ok(Math.abs(v - 1) < 1e-14));
    assert.match(await text(sec(page, '18.7').locator('p.drop-note')), L.evalNote);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`18.2 (${lang}): a wrong dim shows sums over the sources that are not 1; the note follows the mask`, async () => {
    const { page, errors } = await open(`?lang=${lang}&embed=18.2`);
    const slices = async () => [await heatmapValues(fig(page, '18.2', 'slice0')), await heatmapValues(fig(page, '18.2', 'slice1'))];
    const lastOff = () => fig(page, '18.2', 'last-off').locator('dd');
    assert.ok(ref.parseShown(await lastOff().textContent()) < 1e-15, 'dim -1: the sources sum to 1');
    assert.equal(await lastOff().getAttribute('class'), 'good');
    assert.equal(await fig(page, '18.2', 'sums').isVisible(), false, 'dim -1: no second table');
    await fig(page, '18.2', 'dim').locator('input[value="1"]').check();
    const [a, b] = await slices();
    const want = [ref.rowSums(a), ref.rowSums(b)];   // (B, T): per sequence, the sum over the sources
    const shown = await heatmapValues(fig(page, '18.2', 'sums-last'));
    assert.ok(ref.maxAbs(shown, want) < 1e-15, `${JSON.stringify(shown)} vs ${JSON.stringify(want)}`);
    assert.ok(shown.flat().some((v) => Math.abs(v - 1) > 0.05), 'the wrong dim is visibly wrong in the numbers');
    const off = Math.max(...shown.flat().map((v) => Math.abs(v - 1)));
    assert.ok(Math.abs(ref.parseShown(await lastOff().textContent()) - off) <= 5e-3 * off);
    assert.equal(await lastOff().getAttribute('class'), 'bad');
    assert.equal(await fig(page, '18.2', 'sums').isVisible(), true, 'the sums along the chosen dim, all 1');
    (await heatmapValues(fig(page, '18.2', 'sums'))).flat().forEach((v) => assert.ok(Math.abs(v - 1) < 1e-15));
    // softmax-then-zero: shown after a prediction (skipped here); its note only claims a loss when something is masked
    await sec(page, '18.2').locator('button.show-after').click();
    await fig(page, '18.2', 'predict-after').locator('button[data-act="skip"]').click();
    const note = fig(page, '18.2', 'after').locator('.heatmap-note');
    assert.doesNotMatch(await text(note), L.noMask);
    await sec(page, '18.2').getByRole('button', { name: lang === 'en' ? 'No mask' : '不遮' }).click();
    assert.match(await text(note), L.noMask);
    ref.rowSums(await heatmapValues(fig(page, '18.2', 'after'))).forEach((v) => assert.ok(Math.abs(v - 1) < 1e-15));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`18.1 (${lang}): why the chapter's X gives 0, the non-integer X gives the chapter's 2.22e−16, the loop sums without normalizing`, async () => {
    const { page, errors } = await open(`?lang=${lang}&embed=18.1`);
    const note = sec(page, '18.1').locator('.diff-note');
    assert.equal((await readout(page, '18.1', 'diff'))[0], '0');
    assert.match(await text(note), L.zeroChapter);
    await fig(page, '18.1', 'norm').uncheck();   // the example is about averages: it switches normalizing back on
    await sec(page, '18.1').locator('.compare .controls button').click();
    assert.equal(await fig(page, '18.1', 'norm').isChecked(), true);
    const loop = await heatmapValues(fig(page, '18.1', 'loop')), y = await heatmapValues(fig(page, '18.1', 'y0'));
    assert.equal(ref.maxAbs(loop, y), 2 ** -52, 'exactly the chapter\'s 2.220446049250313e-16');
    assert.deepEqual(await readout(page, '18.1', 'diff'), ['2.22e−16', '2.22e−16']);
    assert.match(await text(note), L.rounding);
    // without normalizing the loop adds: out[t] = X[0] + ... + X[t]
    await fig(page, '18.1', 'norm').uncheck();
    const X = [[0.8, 0.2], [0.9, 0.4], [0.7, 0.1]];
    const sums = X.map((_, t) => X[0].map((__, c) => X.slice(0, t + 1).reduce((s, r) => s + r[c], 0)));
    assert.ok(ref.maxAbs(await heatmapValues(fig(page, '18.1', 'loop')), sums) <= 2.3e-16);
    assert.equal(await text(fig(page, '18.1', 'loop').locator('.tensor-label')), L.loopSum);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`18.7 (${lang}): our reference error and prefix changes beside the chapter's 2.22e−16, 0 and 5.480078`, async () => {
    const { page, errors } = await open(`?lang=${lang}&embed=18.7`);
    const row = (k) => fig(page, '18.7', 'chapter').locator(`tr[data-row="${k}"]`);
    const cell = async (k, c) => text(row(k).locator(`td.${c}`));
    assert.deepEqual([await cell('refRow', 'theirs'), await cell('maskedRow', 'theirs'), await cell('unmaskedRow', 'theirs')], ['2.22e−16', '0', '5.480078']);
    assert.ok(ref.parseShown(await cell('refRow', 'ours')) <= 4.5e-16);
    assert.equal(await cell('maskedRow', 'ours'), '0');
    const unmasked = ref.parseShown(await cell('unmaskedRow', 'ours'));
    assert.ok(unmasked > 1e-3, `without the mask the prefix moves: ${unmasked}`);
    // the same number the probe shows once the mask is off (skipping the prediction)
    await fig(page, '18.7', 'causal').click();   // the switch waits for a prediction: skip it
    await fig(page, '18.7', 'predict-causal').locator('button[data-act="skip"]').click();
    assert.equal(ref.parseShown((await readout(page, '18.7', 'probe'))[0]), unmasked);
    assert.match(await text(sec(page, '18.7').locator('.chapter-note')), L.chapterNote);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`predict first (${lang}): the change waits for a prediction or a skip, then the page says whether it held`, async () => {
    const { page, errors } = await open(`?lang=${lang}`);
    // 18.3: switching the mask off, predicting that A[0, 0] stays 1 (it does not)
    const causal = fig(page, '18.3', 'causal');
    const card = fig(page, '18.3', 'predict-causal');
    assert.equal(await card.isVisible(), false);
    const a0 = await heatmapValues(fig(page, '18.3', 'a'));
    await causal.click();
    assert.equal(await card.isVisible(), true);
    assert.equal(await causal.isChecked(), true, 'the switch waits for the prediction');
    assert.deepEqual(await heatmapValues(fig(page, '18.3', 'a')), a0);
    await card.locator('input[value="0"]').check();   // "all of it: A[0, 0] = 1"
    await card.locator('button[data-act="predict"]').click();
    assert.equal(await causal.isChecked(), false);
    assert.ok((await heatmapValues(fig(page, '18.3', 'a')))[0][0] < 1, 'without the mask position 0 shares its weight');
    assert.match(await text(card.locator('.predict-message')), L.wrong);
    await causal.check();   // asked once: the second switch acts at once
    assert.equal(await causal.isChecked(), true);
    assert.equal(await card.isVisible(), false, 'the verdict on the first switch leaves with the next one');
    assert.equal((await heatmapValues(fig(page, '18.3', 'a')))[0][0], 1);
    // 18.4: √C instead of √hs with 4 heads flattens the head's weights. The hidden maps are painted
    // when shown: the mask switched off before they are revealed shows in them
    const causal4 = fig(page, '18.4', 'causal');
    await causal4.uncheck();
    await sec(page, '18.4').locator('button.show-scales').click();
    const c4 = fig(page, '18.4', 'predict-scale');
    await c4.locator('input[value="1"]').check();   // "flatter"
    await c4.locator('button[data-act="predict"]').click();
    assert.equal(await fig(page, '18.4', 'w-model').isVisible(), true);
    for (const name of ['w-model', 'w-none']) {
      const w = await heatmapValues(fig(page, '18.4', name));
      assert.ok(w[0][1] > 0 && w[0].every((v) => v > 0), `${name}: no mask, position 0 sees every position: ${w[0]}`);
    }
    await causal4.check();
    for (const name of ['w-head', 'w-model', 'w-none']) {
      assert.deepEqual((await heatmapValues(fig(page, '18.4', name)))[0].slice(1), Array(5).fill(0), `${name}: masked again`);
    }
    assert.match(await text(c4.locator('.predict-message')), L.right);
    // 18.6: from cross-attention to the causal decoder, query 0 sees no later position
    const c6 = fig(page, '18.6', 'predict-mode');
    await fig(page, '18.6', 'mode').locator('input[value="causal"]').click();
    await c6.locator('input[value="1"]').check();   // "no"
    await c6.locator('button[data-act="predict"]').click();
    assert.match(await text(c6.locator('.predict-message')), L.right);
    assert.equal((await heatmapValues(fig(page, '18.6', 'w0')))[0][1], 0);
    // 18.2: softmax-then-zero with the causal mask: rows with masked entries keep less than 1
    await sec(page, '18.2').locator('button.show-after').click();
    const c2 = fig(page, '18.2', 'predict-after');
    await c2.locator('input[value="0"]').check();   // "every row still sums to 1"
    await c2.locator('button[data-act="predict"]').click();
    assert.match(await text(c2.locator('.predict-message')), L.wrong);
    assert.equal(await fig(page, '18.2', 'after').isVisible(), true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`the exercises section (${lang}) says "Exercises" once; a lab section keeps its exercises heading`, async () => {
    const { page } = await open(`?lang=${lang}`);
    const headings = async (id) => (await sec(page, id).locator('h2, h3').allTextContents()).filter((s) => L.exercises.test(s));
    assert.equal((await headings('exercises')).length, 1, JSON.stringify(await headings('exercises')));
    assert.equal(await sec(page, 'exercises').locator('.exercises > h3').count(), 0);
    assert.equal(await sec(page, '18.1').locator('.exercises > h3').count(), 1);
    await page.close();
  });
}

function nearTable(a, b, msg) {
  assert.ok(ref.maxAbs(a, b) === 0, msg);
}
