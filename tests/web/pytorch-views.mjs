// The sections' "Show as PyTorch" views as the browser tests set them up (tests/web/pytorch.test.mjs,
// tests/web/notebook.test.mjs): what each section's program prints as the page shows it (PAGE:
// read from the DOM, the heatmaps' and readouts' data-value, the chart tables), the edits a
// student makes (EDITS over DEFAULTS, the state they leave), and opening a panel and collecting
// its program and the files it offers.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { sec, fig, heatmapValues } from './harness.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

// ---- reading what the page shows -------------------------------------------------------------
const nums = (s) => s.trim().split(/\s+/).map(Number);
const heat = (page, id, name) => heatmapValues(fig(page, id, name));
/** Per row, the exact numbers behind a heatmap's row marks (data-value, space-separated). */
const marks = (page, id, name) => fig(page, id, name).locator('td.rowmark').evaluateAll((tds) => tds.map((td) => td.dataset.value));
const column = async (page, id, name, k) => (await marks(page, id, name)).map((v) => nums(v)[k]);
/** The exact numbers of a readout's values, in order (those that carry one). */
const readout = async (page, id, name) => (await fig(page, id, name).locator('dd[data-value]').evaluateAll((dds) => dds.map((d) => d.dataset.value))).flatMap(nums);
/** A chart's data table (built when opened), opened. */
const openTable = async (figure) => {
  const details = figure.locator('details.chart-data');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await details.locator('table tbody tr').first().waitFor();   // built on the (asynchronous) toggle event
};
/** A chart's data table: rows of [x, series values...]. */
const chartTable = async (figure) => {
  await openTable(figure);
  return figure.locator('table tbody tr').evaluateAll((trs) => trs.map((tr) =>
    [Number(tr.querySelector('th').textContent), ...[...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))]));
};
/** 18.7's comparison with the chapter: our number in a row. */
const chapterRow = async (page, row) => Number(await sec(page, '18.7').locator(`tr[data-row="${row}"] td.ours`).getAttribute('data-value'));
const rowsWithNaN = (m) => m.flatMap((r, i) => (r.every(Number.isNaN) ? [i] : []));

/** What each section's program prints, as the page shows it: {label: numbers}. `s` is what the test set.
 * A section without an entry here (a new one) is named and left out of the runs (LABS below). */
export const PAGE = {
  async '18.1'(page, s) {
    const y0 = await heat(page, '18.1', 'y0');
    return { A: await heat(page, '18.1', 'A'), 'row sums of A': await column(page, '18.1', 'A', 0),
      Y: s.batch ? [y0, await heat(page, '18.1', 'y1')] : y0, 'loop, sequence 0': await heat(page, '18.1', 'loop'),
      'max |loop - Y|': await readout(page, '18.1', 'diff') };
  },
  async '18.2'(page, s) {
    const before = await heat(page, '18.2', 'before');
    return { 'mask, then softmax': before, 'row sums, mask then softmax': await column(page, '18.2', 'before', 0),
      'softmax, then zero': await heat(page, '18.2', 'after'), 'row sums, softmax then zero': await column(page, '18.2', 'after', 0),
      'rows with nothing allowed': rowsWithNaN(before),
      [`softmax along dim ${s.dim}`]: [await heat(page, '18.2', 'slice0'), await heat(page, '18.2', 'slice1')],
      'sums over the sources (dim -1)': await heat(page, '18.2', 'sums-last'),
      ...(s.dim === -1 ? {} : { [`sums along dim ${s.dim}`]: await heat(page, '18.2', 'sums') }),
      'max |sum over the sources - 1|': await readout(page, '18.2', 'last-off') };
  },
  async '18.3'(page) {
    const out = {};
    for (const n of ['Q', 'K', 'V', 'S', 'A', 'Y']) out[n] = await heat(page, '18.3', n.toLowerCase());
    return out;
  },
  async '18.4'(page, s) {
    const out = {};
    // √C's and no scaling's maps are shown (and painted) once the student predicts (here: skips)
    const reveal = sec(page, '18.4').locator('button.show-scales');
    if (await reveal.isVisible()) {
      await reveal.click();
      await fig(page, '18.4', 'predict-scale').locator('button[data-act="skip"]').click();
    }
    for (const [sc, name] of [['head', 'sqrt(hs)'], ['model', 'sqrt(C)'], ['none', 'none']]) {
      out[`weights, divide by ${name}`] = await heat(page, '18.4', `w-${sc}`);
      out[`entropy, divide by ${name}`] = await column(page, '18.4', `w-${sc}`, 0);
      out[`max weight, divide by ${name}`] = await column(page, '18.4', `w-${sc}`, 1);
    }
    const charts = sec(page, '18.4').locator('figure.chart-figure');
    const variance = await chartTable(charts.nth(0));
    out.d = variance.map((r) => r[0]);
    out['Var(q.k)'] = variance.map((r) => r[1]);
    out['Var(q.k / sqrt(d))'] = variance.map((r) => r[2]);
    await openTable(charts.nth(1));
    const bars = await charts.nth(1).locator('table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
    const [maxW, entropy, jac] = await fig(page, '18.4', 'sharp').locator('dd').evaluateAll((dds) => dds.map((d) => d.dataset.value));
    ['× 1', `× ${s.factor}`].forEach((k, i) => {
      out[`softmax(logits ${k})`] = bars[i];
      out[`max weight ${k}`] = nums(maxW)[i];
      out[`entropy ${k}`] = nums(entropy)[i];
      out[`Jacobian norm ${k}`] = nums(jac)[i];
    });
    return out;
  },
  async '18.5'(page, s) {
    // the program's labels name the permutation Π and the position table P as the lesson does
    const diff = s.pos === 'none' ? 'max |attn(Π X) - Π attn(X)|' : 'max |attn(Π X + P) - Π attn(X + P)|';
    const out = { 'Π X + P': await heat(page, '18.5', 'px'), 'attn(X + P)': await heat(page, '18.5', 'attnX'),
      'attn(Π X + P)': await heat(page, '18.5', 'attnPx'),
      'Π attn(X + P)': await heat(page, '18.5', 'pAttn'), [diff]: await readout(page, '18.5', 'diff') };
    if (s.pos !== 'none') out['position table'] = await heat(page, '18.5', 'table');
    return out;
  },
  async '18.6'(page, s) {
    const out = { 'mask M': await heat(page, '18.6', 'mask') };
    for (let h = 0; h < s.heads; h++) out[`weights of head ${h}`] = await heat(page, '18.6', `w${h}`);
    return out;
  },
  async '18.7'(page, s) {
    const [prefix, future] = await readout(page, '18.7', 'probe');
    assert.equal(prefix, await chapterRow(page, s.causal === false ? 'unmaskedRow' : 'maskedRow'), 'the probe is the table\'s row for the mask as set');
    return { 'max |attention - reference|': await readout(page, '18.7', 'ref'),
      passed: [await fig(page, '18.7', 'gradcheck').locator('dd.good').count() === 1],
      'inputs.q.maxAbsError': (await readout(page, '18.7', 'gradcheck'))[0], 'inputs.k.maxAbsError': (await readout(page, '18.7', 'gradcheck'))[1],
      'inputs.v.maxAbsError': (await readout(page, '18.7', 'gradcheck'))[2],
      A: await heat(page, '18.7', 'a'), 'dL/dQ': await heat(page, '18.7', 'dq'), 'dL/dK': await heat(page, '18.7', 'dk'), 'dL/dV': await heat(page, '18.7', 'dv'),
      '|change|': await heat(page, '18.7', 'probe'), 'max change in the future (> t)': future,
      // the probe's prefix change is the chapter table's row for the mask as set; the table has both
      'max change in the prefix (<= t), with the mask': await chapterRow(page, 'maskedRow'),
      'max change in the prefix (<= t), without the mask': await chapterRow(page, 'unmaskedRow'),
      'A after dropout': await heat(page, '18.7', 'drop'), 'row sums after dropout': await column(page, '18.7', 'drop', 0),
      'mean row sums over 2000 samples': await column(page, '18.7', 'drop', 1) };
  },
  async '18.8'(page) {
    const out = {};
    for (const name of await sec(page, '18.8').locator('.attn-maps [data-name^="attn-"]').evaluateAll((fs) => fs.map((f) => f.dataset.name))) {
      const [, l, h] = name.split('-');
      out[`layer ${l} head ${h}`] = await heat(page, '18.8', name);
    }
    out['max |change| per position'] = await heat(page, '18.8', 'future');
    out['max change in the prefix (<= t)'] = await readout(page, '18.8', 'future');
    return out;
  },
};
// The sections whose numbers PAGE reads: each has a panel, and its program (and notebook) is run. A
// section with a controller and no reader here is named (with or without a panel) and not run.
export const LABS = SECTIONS.filter((s) => s.module && PAGE[s.id]).map((s) => s.id);
export const UNREAD = SECTIONS.filter((s) => s.module && !PAGE[s.id]).map((s) => s.id);

// finite differences at eps 1e-6 are rounding noise that PyTorch and the core round differently
// (see wasm/js/pytorch-format.js, pyGradcheck): the same size and far inside the tolerance
export const LOOSE = /maxAbsError/;

// ---- the edits, made as a student makes them ------------------------------------------------------
export const cell = (page, id, editor, i, j) => fig(page, id, editor).locator(`input[data-row="${i}"][data-col="${j}"]`);
export const EDITS = {
  async '18.1'(page) {
    await cell(page, '18.1', 'x', 1, 1).fill('-1.5');
    await fig(page, '18.1', 'batch').check();
    return { batch: true };
  },
  async '18.2'(page) {
    await sec(page, '18.2').locator('button.show-after').click();   // the other order, after a prediction (skipped)
    await fig(page, '18.2', 'predict-after').locator('button[data-act="skip"]').click();
    await fig(page, '18.2', 'mask').locator('button[data-row="0"][data-col="0"]').click();   // row 0: nothing allowed
    await cell(page, '18.2', 's', 2, 1).fill('0.75');
    await fig(page, '18.2', 'kind').getByLabel('(B, H, T, T)').check();
    await fig(page, '18.2', 'dim').getByLabel('dim 1: head').check();
    await fig(page, '18.2', 'seed').fill('7');
    return { dim: 1 };
  },
  async '18.3'(page) {
    await fig(page, '18.3', 'layout').getByLabel(/nn.Linear/).check();
    await fig(page, '18.3', 'causal').click();   // off, after a prediction (skipped)
    await fig(page, '18.3', 'predict-causal').locator('button[data-act="skip"]').click();
    await cell(page, '18.3', 'x', 2, 0).fill('0.25');
    await cell(page, '18.3', 'wk', 0, 1).fill('-0.7');   // (d, C) in this layout: row 0 is d = 0
  },
  async '18.4'(page) {
    await fig(page, '18.4', 'T').fill('5');
    await fig(page, '18.4', 'C').selectOption('8');
    await fig(page, '18.4', 'heads').selectOption('2');
    await fig(page, '18.4', 'head').selectOption('1');
    await fig(page, '18.4', 'causal').uncheck();
    await fig(page, '18.4', 'seed').fill('3');
    await slide(fig(page, '18.4', 'factor'), '4.5');
    return { factor: 4.5 };
  },
  async '18.5'(page) {
    await fig(page, '18.5', 'pos').getByLabel(/^learned/).check();
    await fig(page, '18.5', 'causal').check();
    await sec(page, '18.5').getByRole('button', { name: 'Shuffle again' }).click();
    return { pos: 'learned' };
  },
  async '18.6'(page) {
    await fig(page, '18.6', 'mode').getByLabel(/Decoder/).click();
    await fig(page, '18.6', 'predict-mode').locator('button[data-act="skip"]').click();
    await fig(page, '18.6', 'tout').fill('4');
    await fig(page, '18.6', 'heads').selectOption('1');
    await fig(page, '18.6', 'seed').fill('5');
    return { heads: 1 };
  },
  async '18.7'(page) {
    await fig(page, '18.7', 'T').fill('5');
    await fig(page, '18.7', 't').fill('1');
    await fig(page, '18.7', 'causal').click();
    await fig(page, '18.7', 'predict-causal').locator('button[data-act="skip"]').click();
    await slide(fig(page, '18.7', 'p'), '0.3');
    await fig(page, '18.7', 'seed').fill('4');
    return { causal: false };
  },
  async '18.8'(page) {
    // train a little, pause, and inspect another sentence
    await sec(page, '18.8').locator('button[data-name="start"]').click();
    await page.waitForFunction(() => Number(document.querySelector('.lab-section[data-section="18.8"] dl[data-name="stats"] dd')?.textContent) >= 30,
      null);
    await sec(page, '18.8').locator('button[data-name="pause"]').click();
    await fig(page, '18.8', 'probe').fill('a cat sat on a hat');
    await fig(page, '18.8', 't').fill('3');
    return { program: '"a cat sat on a hat", 3' };
  },
};
export const DEFAULTS = { '18.1': { batch: false }, '18.2': { dim: -1 }, '18.4': { factor: 8 }, '18.5': { pos: 'none' }, '18.6': { heads: 2 },
  '18.8': { program: '"床前明月光，疑是地上霜。", 6' } };
/** A range input set as a student drags it (the input event). */
export const slide = (locator, value) => locator.evaluate((el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, value);

/** 18.8 has no model until one is made: reset it (the untrained model) and wait for its maps. */
export async function makeModel(page) {
  await sec(page, '18.8').locator('button[data-name="reset-model"]').click();
  await page.waitForSelector('.lab-section[data-section="18.8"] [data-name="attn-1-3"]');
}

/** Open a section's panel and wait for its program (18.8 fetches the parameters first). */
export async function program(page, id) {
  const panel = sec(page, id).locator('details.pytorch-panel');
  if (!(await panel.evaluate((d) => d.open))) await panel.locator('summary').click();
  const code = panel.locator('[data-pytorch]');
  await page.waitForFunction((el) => el.textContent.length > 0, await code.elementHandle());
  return panel;
}

/** The program and its files, once the page has settled after the edits. */
export async function collect(page, id, state) {
  const panel = await program(page, id);
  // 18.8's worker answers later: wait until the program is the one for the sentence and t set
  if (state.program) {
    await page.waitForFunction(([el, text]) => el.textContent.includes(text), [await panel.locator('[data-pytorch]').elementHandle(), state.program]);
  }
  const files = {};
  for (const button of await panel.locator('button.pytorch-download').all()) {
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    files[download.suggestedFilename()] = await readFile(await download.path());
  }
  const code = await panel.locator('[data-pytorch]').textContent();
  return { code, files, shown: await PAGE[id](page, state) };
}

/**
 * Every section's view twice: at its default state on the Chinese page, then edited on the English
 * page (the panels open while the edits happen, 18.8's model made first on each). For each
 * section, once its panel holds its program, `visit({page, id, state, which, lang})` runs (which:
 * 'default' or 'edited'; state: what the test set, for PAGE and collect). A section without an
 * edit in EDITS is visited at its default only, and `note` (the test's diagnostic) says so. No
 * page errors.
 */
export async function eachView(lab, visit, note) {
  for (const [which, lang] of [['default', 'zh'], ['edited', 'en']]) {
    const { page, errors } = await lab.open(`?lang=${lang}`);
    await makeModel(page);
    if (which === 'edited') for (const id of LABS) await program(page, id);
    for (const id of LABS) {
      if (which === 'edited' && !EDITS[id]) { note(`${id}: no edit in EDITS (tests/web/pytorch-views.mjs): only its default state is run`); continue; }
      const state = which === 'default' ? DEFAULTS[id] ?? {} : { ...DEFAULTS[id], ...await EDITS[id](page) };
      await visit({ page, id, state, which, lang });
    }
    assert.deepEqual(errors, [], `${which} (${lang}): no page errors`);
    await page.close();
  }
}
