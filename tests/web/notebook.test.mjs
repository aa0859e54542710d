// "Download as notebook": every section's notebook, at the default state (Chinese page) and after
// the edits of tests/web/pytorch-views.mjs (English page), is downloaded from the page (its download
// event), validated against nbformat's schema and executed by nbclient on Debian's python3-torch
// (tests/node/notebook_runner.py: all of them in one process and one kernel, started while the page
// is walked, each notebook run as soon as it is downloaded). Every cell runs, the
// check cell compares every number the page shows for the program (the labels of the PyTorch test's
// PAGE readers) and passes; with one digit of an asserted number changed, the same notebook fails
// in its check cell. The files the panel offers are put beside the notebook (18.4's draws are
// optional: without them it still runs, and says which results it left out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { builtLab, sec } from './harness.mjs';
import { notebookRunner } from '../node/notebooks.mjs';
import { LABS, program, collect, eachView } from './pytorch-views.mjs';
import { VALUES } from '../../web/src/notebook-values.js';
import { parseTensor } from '../../wasm/js/parse-tensor.js';

const lab = builtLab();
const CELLS = ['idea', 'setup', 'inputs', 'program', 'check', 'check-my-numbers', 'check-my-numbers-inputs'];
const LABEL = { en: 'Download as notebook', zh: '下载为 Jupyter 笔记本' };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core (WCAG 2.1 AA and best practice, as tests/web/a11y.test.mjs runs it) over the open panels: the violations. */
async function auditPanels(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => (await window.axe.run({ include: [['details.pytorch-panel[open]']] },
    { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }))
    .violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
}

/** The section's notebook, saved with its panel's button: {name, text}. */
async function downloadNotebook(page, id) {
  const button = sec(page, id).locator('button[data-name="pytorch-notebook"]');
  const [d] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: d.suggestedFilename(), text: await readFile(await d.path(), 'utf8') };
}
const cellText = (nb, id) => nb.cells.find((c) => c.id === id).source.join('');
/** The labels the check cell compares, in order. */
const checkedLabels = (text) => [...text.matchAll(/^\s*check(?:_noise)?\(("(?:[^"\\]|\\.)*")/gm)].map((m) => JSON.parse(m[1]));
/** The names "Check my numbers" prints: the keys of `given`. */
const givenNames = (nb) => {
  const m = /^given = \{(.*)\}/m.exec(cellText(nb, 'inputs')) ?? /^given = \{(.*)\}/m.exec(cellText(nb, 'check-my-numbers-inputs'));
  return [...m[1].matchAll(/"(\w+)":/g)].map((g) => g[1]);
};

/** What "Check my numbers" printed of each input: {name: {form: text}}. */
function printedForms(out) {
  const forms = {}, heads = [...out.matchAll(/^# (\w+): (\S+)$/gm)];
  heads.forEach((m, i) => { (forms[m[1]] ??= {})[m[2]] = out.slice(m.index + m[0].length, heads[i + 1]?.index ?? out.length).trim(); });
  return forms;
}

/** The notebook with the first digit of its first asserted number of size 1e-3 or more changed: {text, label}. */
function flipped(text) {
  const nb = JSON.parse(text);
  const cell = nb.cells.find((c) => c.id === 'check');
  const src = cell.source.join('');
  const calls = src.search(/^check\(/m);
  for (const m of src.slice(calls).matchAll(/-?\d+\.\d+(?:e-?\d+)?/g)) {
    if (Math.abs(Number(m[0])) < 1e-3) continue;
    const at = calls + m.index + (m[0][0] === '-' ? 1 : 0);
    const changed = src.slice(0, at) + String((Number(src[at]) + 1) % 10) + src.slice(at + 1);
    cell.source = changed.split(/(?<=\n)/);
    const label = checkedLabels(src.slice(0, at)).at(-1);
    return { text: JSON.stringify(nb), label };
  }
  throw new Error('no asserted number to change');
}

test('each panel has "Download as notebook" beside the copy button; the file is nbformat 4.5 and the same for the same view', async () => {
  const { page, errors } = await lab.open('?lang=en');
  for (const id of LABS) {
    const tools = sec(page, id).locator('.pytorch-tools > button');
    assert.deepEqual(await tools.evaluateAll((bs) => bs.slice(0, 2).map((b) => b.dataset.name)), ['pytorch-copy', 'pytorch-notebook'], id);
    assert.equal(await sec(page, id).locator('button[data-name="pytorch-notebook"]').textContent(), LABEL.en);
  }
  // 18.8 before any model: no program, so no notebook either
  await sec(page, '18.8').locator('details.pytorch-panel summary').click();
  await page.waitForFunction(() => /once the model is built/.test(document.querySelector('.lab-section[data-section="18.8"] .pytorch-note')?.textContent ?? ''));
  assert.equal(await sec(page, '18.8').locator('button[data-name="pytorch-notebook"]').isDisabled(), true);

  const panel = await program(page, '18.3');
  const code = await panel.locator('[data-pytorch]').textContent();
  // from the keyboard: Tab from the copy button reaches it, Enter saves
  await panel.locator('button.pytorch-copy').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.name), 'pytorch-notebook');
  const [byKey] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  assert.equal(byKey.suggestedFilename(), 'attention-lab-18.3.ipynb');
  const first = await downloadNotebook(page, '18.3'), second = await downloadNotebook(page, '18.3');
  assert.equal(first.name, 'attention-lab-18.3.ipynb');
  assert.equal(second.text, first.text, 'the same view, the same file');
  await page.waitForFunction(() => document.querySelector('.lab-section[data-section="18.3"] .pytorch-status').textContent === 'Saved the notebook attention-lab-18.3.ipynb.');
  const nb = JSON.parse(first.text);
  assert.equal(nb.nbformat, 4);
  assert.equal(nb.nbformat_minor, 5);
  assert.deepEqual(nb.metadata, { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } });
  assert.deepEqual(nb.cells.map((c) => c.id), CELLS);
  assert.deepEqual(nb.cells.map((c) => c.cell_type), ['markdown', 'code', 'code', 'code', 'code', 'markdown', 'code']);
  for (const c of nb.cells) {
    assert.ok(c.source.slice(0, -1).every((l) => l.endsWith('\n')) && !c.source.at(-1).endsWith('\n'), `${c.id}: lines as nbformat keeps them`);
    if (c.cell_type === 'code') assert.deepEqual([c.execution_count, c.outputs], [null, []]);
  }
  // the idea: the lesson's title and text with its formulas, without its exercises
  const idea = cellText(nb, 'idea');
  assert.equal(idea.split('\n')[0], `# ${await sec(page, '18.3').locator('h2').textContent()}`);
  const lesson = await readFile(new URL('../../lessons/en/18.3.md', import.meta.url), 'utf8');
  assert.ok(idea.includes('$$S = \\frac{QK^\\top}{\\sqrt d}, \\qquad A = \\operatorname{softmax}(S + M), \\qquad Y = AV,$$'), 'the formula, as the lesson writes it');
  assert.ok(lesson.includes('::: exercise') && !idea.includes(':::'), 'no exercise (nor its solution)');
  // the code cells are the panel's program: each of its lines is in them, each line of the program cell is one of its
  const lines = (t) => t.split('\n').filter((l) => l.trim());
  const programLines = new Set(lines(code));
  const cells = ['setup', 'inputs', 'program'].flatMap((id) => lines(cellText(nb, id)));
  for (const l of programLines) assert.ok(cells.includes(l), `the program's line is in the notebook: ${l}`);
  for (const l of lines(cellText(nb, 'program'))) assert.ok(programLines.has(l), `the program cell holds the program's lines: ${l}`);
  assert.deepEqual(givenNames(nb), ['X', 'W_Q', 'W_K', 'W_V']);
  assert.deepEqual(await auditPanels(page), [], 'the open panels (18.3, 18.8) pass axe');
  assert.deepEqual(errors, []);
  await page.close();
  // the Chinese page: the button's label, and axe over a panel that also offers a file (18.4)
  const zh = await lab.open('?lang=zh');
  await program(zh.page, '18.4');
  assert.equal(await sec(zh.page, '18.4').locator('button[data-name="pytorch-notebook"]').textContent(), LABEL.zh);
  assert.deepEqual(await auditPanels(zh.page), [], 'zh: the open panels pass axe');
  assert.deepEqual(zh.errors, []);
  await zh.page.close();
});

test('every section\'s notebook, default and edited, validates and runs under nbclient, and its check passes; changed, it fails', async (t) => {
  for (const id of LABS.filter((i) => !VALUES[i])) t.diagnostic(`${id}: no entry in web/src/notebook-values.js: its notebook is not run`);
  const runner = notebookRunner();
  const jobs = [], runs = [], expect = {};
  const submit = (job, want) => { jobs.push(job); runs.push(runner.run(job)); expect[job.id] = want; };
  await eachView(lab, async ({ page, id, state, which, lang }) => {
    if (!VALUES[id]) return;
    const r = await collect(page, id, state);
    const button = sec(page, id).locator('button[data-name="pytorch-notebook"]');
    assert.equal(await button.textContent(), LABEL[lang]);
    const { name, text } = await downloadNotebook(page, id);
    assert.equal(name, `attention-lab-${id}.ipynb`);
    const nb = JSON.parse(text);
    const labels = checkedLabels(cellText(nb, 'check'));
    for (const label of Object.keys(r.shown)) assert.ok(labels.includes(label), `${which} ${id}: the notebook checks '${label}' (the page shows it); it checks ${labels.join(' | ')}`);
    const key = `${which} ${id}`, want = { labels, given: givenNames(nb), lang };
    submit({ id: key, notebook: text, files: r.files }, want);
    if (which === 'default') {
      const f = flipped(text);
      submit({ id: `${key}, changed`, notebook: f.text, files: r.files }, { fails: f.label });
    }
    if (which === 'default' && id === '18.4') {
      submit({ id: `${key}, without its file`, notebook: text, files: {} },
        { ...want, labels: labels.filter((l) => !l.startsWith('Var(')), skipped: labels.filter((l) => l.startsWith('Var(')) });
    }
  }, (text) => t.diagnostic(text));
  const ran = Object.fromEntries((await Promise.all(runs)).map((r) => [r.id, r]));
  const { warmup } = await runner.close();
  t.diagnostic(`${jobs.length} notebooks: the kernel's start and torch ${warmup.toFixed(1)} s, the notebooks ${jobs.reduce((a, j) => a + ran[j.id].seconds, 0).toFixed(1)} s `
    + `(${jobs.map((j) => `${j.id} ${ran[j.id].seconds.toFixed(1)}`).join(', ')})`);
  for (const job of jobs) {
    const out = ran[job.id], want = expect[job.id];
    assert.equal(out.invalid, null, `${job.id}: not a valid notebook: ${out.invalid}`);
    if (want.fails) {
      assert.equal(out.error?.cell, 'check', `${job.id}: fails in its check cell (${JSON.stringify(out.error)})`);
      assert.equal(out.error.ename, 'AssertionError');
      assert.ok(out.error.evalue.startsWith(want.fails), `${job.id}: names '${want.fails}': ${out.error.evalue}`);
      continue;
    }
    assert.equal(out.error, null, `${job.id}: a cell failed: ${JSON.stringify(out.error)}`);
    const said = out.outputs.check.split('\n');
    const equal = said.find((l) => /^(Equal to the page's numbers:|与页面上的数字相同：)/.test(l));
    assert.equal(Number(/(\d+)/.exec(equal)?.[1]), want.labels.length, `${job.id}: ${out.outputs.check}`);
    if (want.skipped) assert.ok(said.some((l) => /^(Not checked|没有检查)/.test(l) && l.endsWith(want.skipped.join(', '))), `${job.id}: says what it left out: ${out.outputs.check}`);
    // each input in the three forms, each read by the lab's parser (wasm/js/parse-tensor.js) as the
    // same tensor: the NumPy array and the list to the bit, PyTorch's 17 decimals to 1e-15
    const list = want.lang === 'zh' ? '列表' : 'list', printed = printedForms(out.outputs['check-my-numbers-inputs']);
    assert.deepEqual(Object.keys(printed), want.given, `${job.id}: prints every input`);
    for (const name of want.given) {
      const forms = printed[name];
      assert.deepEqual(Object.keys(forms), ['PyTorch', 'NumPy', list], `${job.id} ${name}`);
      assert.ok(forms.PyTorch.startsWith('tensor(') && forms.NumPy.startsWith('array(') && forms[list].startsWith('['), `${job.id} ${name}`);
      const [torch, numpy, plain] = [forms.PyTorch, forms.NumPy, forms[list]].map(parseTensor);
      assert.deepEqual(numpy.shape, plain.shape, `${job.id} ${name}: shapes`);
      assert.deepEqual(torch.shape, plain.shape, `${job.id} ${name}: shapes`);
      assert.deepEqual(Array.from(numpy.data), Array.from(plain.data), `${job.id} ${name}: NumPy and the list, bit for bit`);
      plain.data.forEach((v, i) => assert.ok(Math.abs(torch.data[i] - v) <= 1e-15 * Math.max(1, Math.abs(v)), `${job.id} ${name}[${i}]: ${torch.data[i]} against ${v}`));
    }
  }
});
