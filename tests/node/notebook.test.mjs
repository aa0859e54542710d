// The notebook builder (web/src/notebook.js) without a browser: how it cuts a "Show as PyTorch"
// program (web/src/pytorch-programs.js) into cells, the file's form (nbformat 4.5, lines, ids,
// the same bytes for the same input), the lessons' ?notebook text (web/lessons-plugin.js), and one
// notebook validated and executed by nbclient (tests/node/notebook_runner.py), with its check
// passing on the lesson's own numbers and failing on a changed one. Every section's notebook from
// the page is run by tests/web/notebook.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildNotebook, notebookText, splitProgram, sourceLines } from '../../web/src/notebook.js';
import { PROGRAMS } from '../../web/src/pytorch-programs.js';
import { lessonText } from '../../web/lessons-plugin.js';
import { SECTIONS, lessonPath } from '../../web/src/sections/index.js';
import { runNotebooks } from './notebooks.mjs';

const read = (lang, id) => readFileSync(new URL(`../../${lessonPath(lang, id)}`, import.meta.url), 'utf8');
const T = (rows) => ({ shape: [rows.length, rows[0].length], data: Float64Array.from(rows.flat()) });
const lines = (t) => t.split('\n').filter((l) => l.trim());

// 18.3 and 18.6 as the page writes them, with small tensors of our own
const P183 = PROGRAMS['18.3']({ x: [[2, 0], [0, 4], [4, 2]], layout: 'math', causal: true },
  { weights: { wq: T([[0.3, 0.1], [0, 0.3]]), wk: T([[0.2, -0.3], [0.3, 0.2]]), wv: T([[1, 0], [0.5, 1]]) } }, 'en');
const x3 = { shape: [1, 2, 4], data: Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8]) };
const w4 = T([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]);
const P186 = PROGRAMS['18.6']({ mode: 'cross', heads: 2, seed: 5 }, { x: x3, memory: x3, wq: w4, wk: w4, wv: w4 }, 'zh');

test('a program is cut into setup, inputs and the rest; together they hold its lines', () => {
  for (const [code, names] of [[P183, ['X', 'W_Q', 'W_K', 'W_V']], [P186, ['x', 'memory', 'w_q', 'w_k', 'w_v']]]) {
    const s = splitProgram(code);
    assert.deepEqual(s.inputs.map((i) => i.name), names);
    assert.ok(s.setup.endsWith('torch.set_default_dtype(torch.float64)   # ' + (code === P183 ? 'float64 throughout, like the lab' : '全程 float64，与实验室一致')));
    const all = lines(code), cut = [s.setup, s.inputsText, s.program].flatMap(lines);
    assert.deepEqual([...cut].sort(), [...all].sort(), 'every line once (these programs have no part heading to copy)');
    assert.ok(!/torch\.tensor\(\[/.test(s.program), 'no literal is left in the program');
    assert.doesNotMatch(s.program, /^\n|\n$|\n\n\n\n/, 'no blank lines at its ends, at most two in a row');
  }
  // a comment that heads a part stays there and goes with the inputs too; a literal that reads a
  // name is code, not an input; a 3-D literal keeps its blank line
  const code = ['# title', 'import torch', 'torch.set_default_dtype(torch.float64)', '',
    '# part 1: the draws', 'a = torch.tensor([[[1.0]],', '', '                  [[2.0]]])   # (2, 1, 1)', 'b = a * 2', '',
    'ids = torch.tensor([[chars.index(ch) for ch in text]])', 'perm = [2, 0, 1]   # a shuffle', 'row_sums = []'].join('\n');
  const s = splitProgram(code);
  assert.deepEqual(s.inputs.map((i) => i.name), ['a', 'perm']);
  assert.equal(s.inputsText, '# part 1: the draws\na = torch.tensor([[[1.0]],\n\n                  [[2.0]]])   # (2, 1, 1)\n\nperm = [2, 0, 1]   # a shuffle');
  assert.equal(s.program, '# part 1: the draws\nb = a * 2\n\nids = torch.tensor([[chars.index(ch) for ch in text]])\nrow_sums = []');
  assert.throws(() => splitProgram('print(1)\n'), /no header/);
});

test('a notebook is nbformat 4.5 with fixed cell ids, sources as lines, and the same bytes for the same view', () => {
  assert.deepEqual(sourceLines('a\nb\n\n'), ['a\n', 'b']);
  const lesson = lessonText(read('en', '18.3'));
  const args = { id: '18.3', lang: 'en', lesson, code: P183, values: { checks: [{ label: 'Q', value: T([[0.6, 0.2]]) }] } };
  const nb = buildNotebook(args);
  assert.equal(notebookText(buildNotebook(args)), notebookText(nb));
  assert.match(notebookText(nb), /^\{\n "cells": \[\n/);
  assert.deepEqual([nb.nbformat, nb.nbformat_minor, nb.metadata.kernelspec.name, nb.metadata.language_info.name], [4, 5, 'python3', 'python']);
  assert.deepEqual(nb.cells.map((c) => c.id), ['idea', 'setup', 'inputs', 'program', 'check', 'check-my-numbers', 'check-my-numbers-inputs']);
  for (const c of nb.cells) assert.ok(c.source.every((l, i, all) => l.endsWith('\n') === (i < all.length - 1)), c.id);
  const text = (id) => nb.cells.find((c) => c.id === id).source.join('');
  assert.ok(text('idea').startsWith(`# ${lesson.title}\n\n${lesson.markdown}\n\n---\n\n`));
  assert.match(text('check'), /^check\("Q", torch\.tensor\(\[\[0\.6, 0\.2\]\]\)\)$/m);
  assert.doesNotMatch(text('check'), /check_noise|import os/, 'only what it uses');
  assert.match(text('inputs'), /^given = \{"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V\}/m);
  // files: required ones are asserted present before the inputs, optional ones guard their checks
  const needs = buildNotebook({ ...args, files: ['p.json'], values: { checks: [{ label: 'Q', value: 1, needsFiles: true }], filesOptional: true } });
  const check = needs.cells.find((c) => c.id === 'check').source.join('');
  assert.match(check, /^if os\.path\.exists\("p\.json"\):\n    check\("Q", 1\.0\)\nelse:\n    print\("Not checked \(they need p\.json\):", "Q"\)$/m);
  const required = buildNotebook({ ...args, files: ['p.json'] }).cells.find((c) => c.id === 'inputs').source.join('');
  assert.match(required, /^assert os\.path\.exists\("p\.json"\), "p\.json is not beside this notebook/m);
});

test('the lessons\' ?notebook text: the title and the Markdown with its math, no exercise', () => {
  for (const { id } of SECTIONS) {
    for (const lang of ['zh', 'en']) {
      const source = read(lang, id), t = lessonText(source);
      assert.equal(`# ${t.title}`, source.split('\n')[0]);
      assert.doesNotMatch(t.markdown, /^:::/m, `${lang}/${id}`);
      const before = source.slice(source.indexOf('\n') + 1).split(/^::: exercise/m)[0].trim();
      assert.ok(t.markdown.startsWith(before), `${lang}/${id}: the text before the exercises, as written`);
    }
  }
});

test('a notebook runs under nbclient and its check passes on the lesson\'s numbers; with one changed, it fails', async () => {
  // 18.1 on the chapter's X (lessons/en/18.1.md): Y's rows (2, 0), (1, 2), (2, 2); loop and product agree exactly
  const code = PROGRAMS['18.1']({ norm: true }, { X: { shape: [1, 3, 2], data: Float64Array.from([2, 0, 0, 4, 4, 2]) } }, 'en');
  const values = (y22) => ({ checks: [
    { label: 'row sums of A', value: { shape: [3], data: [1, 1, 1] } },
    { label: 'Y', value: { shape: [1, 3, 2], data: [2, 0, 1, 2, 2, y22] } },
    { label: 'max |loop - Y|', value: 0 }] });
  const lesson = lessonText(read('en', '18.1'));
  const ran = await runNotebooks([
    { id: 'right', notebook: notebookText(buildNotebook({ id: '18.1', lang: 'en', lesson, code, values: values(2) })) },
    { id: 'changed', notebook: notebookText(buildNotebook({ id: '18.1', lang: 'en', lesson, code, values: values(2.001) })) }]);
  assert.equal(ran.right.invalid, null);
  assert.equal(ran.right.error, null, JSON.stringify(ran.right.error));
  assert.match(ran.right.outputs.check, /^Equal to the page's numbers: 3 results\nPrinted but not on the page, not compared: A, loop, sequence 0\n$/);
  assert.match(ran.right.outputs['check-my-numbers-inputs'], /^# X: PyTorch\ntensor\(\[\[\[2\., 0\.\],\n {9}\[0\., 4\.\],\n {9}\[4\., 2\.\]\]\]\)\n# X: NumPy\narray\(\[\[\[2\., 0\.\],\n/);
  assert.match(ran.right.outputs['check-my-numbers-inputs'], /\n# X: list\n\[\[\[2\.0, 0\.0\], \[0\.0, 4\.0\], \[4\.0, 2\.0\]\]\]\n/);
  assert.deepEqual([ran.changed.error?.cell, ran.changed.error?.ename], ['check', 'AssertionError']);
  assert.equal(ran.changed.error.evalue, 'Y[0, 2, 1]: the program printed 2.0, the page has 2.001 (tolerance 1e-12)');
});
