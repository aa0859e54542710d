// The message tables (web/src/messages.js) against the core's own error table: one message per
// code in core.errorCodes in each language, each using only that code's parameters and never the
// function's name, the same placeholders in zh and en, every sub-table with the same keys; and
// every message rendered from made-up parameters of each kind reads as text (Chinese on the
// Chinese side), with no internal names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../wasm/js/index.js';
import { errorTables, errorMessage } from '../../web/src/messages.js';
import { LANGS } from '../../web/src/i18n.js';

const core = await loadCore();
const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('zh and en error tables: the same sub-tables, keys and placeholders', () => {
  const [first, ...rest] = LANGS;
  for (const lang of rest) {
    assert.deepEqual(Object.keys(errorTables[lang]).sort(), Object.keys(errorTables[first]).sort());
    for (const [part, table] of Object.entries(errorTables[first])) {
      assert.deepEqual(Object.keys(errorTables[lang][part]).sort(), Object.keys(table).sort(), `${part}: keys of ${lang} vs ${first}`);
      for (const [key, s] of Object.entries(table)) {
        assert.deepEqual(placeholders(errorTables[lang][part][key]), placeholders(s), `${part}.${key}: placeholders of ${lang} vs ${first}`);
      }
    }
  }
});

test('one message per core error code, using only that code\'s parameters, never the function name', () => {
  for (const lang of LANGS) {
    const { codes } = errorTables[lang];
    assert.deepEqual(Object.keys(codes).sort(), Object.keys(core.errorCodes).sort(), `${lang}: the codes of core.errorCodes`);
    for (const [code, text] of Object.entries(codes)) {
      for (const p of placeholders(text)) assert.ok(core.errorCodes[code].includes(p), `${lang}.${code}: {${p}} is not a parameter of ${code}`);
      assert.ok(!placeholders(text).includes('fn'), `${lang}.${code} names the function`);
    }
  }
});

// made-up parameters of each kind the core declares (names by what they name)
const SAMPLE = { name: 'x', text: '(C, D)', number: 3, shape: [2, 3], index: [0, 1], list: ['head', 'model'] };
const NAMES = { fn: 'multiHeadAttention', arg: 'opts.wk', other: 'x', axis: 'C', quantity: 'scores', expectedType: 'tensor', gotType: 'string', mask: 'causal' };
const samples = (code) => Object.fromEntries(core.errorCodes[code].map((p) => [p, NAMES[p] ?? SAMPLE[core.errorParams[p]]]));
const FUNCTIONS = /multiHeadAttention|permutationCheck|futureProbe|softmaxSharpening|causalAverage|matmul|sdpa|createModel|opts\.|flat index|undefined|\{|\}/;

test('every code renders from parameters of every declared kind, as text a student reads', () => {
  for (const kind of Object.values(core.errorParams)) assert.ok(kind in SAMPLE, `a sample for parameter kind ${kind}`);
  for (const code of Object.keys(core.errorCodes)) {
    const error = Object.assign(new Error('x'), { code, params: samples(code) });
    for (const lang of LANGS) {
      const text = errorMessage(lang, error);
      assert.doesNotMatch(text, FUNCTIONS, `${lang}.${code}: ${text}`);
      if (lang === 'zh') assert.match(text, /[\u4e00-\u9fff]/, `zh.${code} is Chinese: ${text}`);
    }
  }
});

test('real errors from the core render with their values, the argument as the page calls it', () => {
  const x = { shape: [1, 3, 2], data: new Float64Array(6).fill(1) };
  const w = (r, c) => ({ shape: [r, c], data: new Float64Array(r * c).fill(0.5) });
  let error;
  try { core.multiHeadAttention(x, { wq: w(2, 2), wk: w(3, 2), wv: w(2, 2), heads: 1 }); } catch (e) { error = e; }
  assert.equal(error.code, 'axis_mismatch');
  assert.equal(errorMessage('en', error), 'W_K has shape (3, 2), but its axis C must be 2, like the last axis of X (X has shape (1, 3, 2)). Change one of them so that they match.');
  assert.equal(errorMessage('zh', error), 'W_K 的形状是 (3, 2)，但它的 C 维必须是 2，与 X 的最后一维一致（X 的形状是 (1, 3, 2)）。请改动其中一个，让两者对上。');
  try { core.positions('learned', 4, 2, { tMax: 3, seed: 1 }); } catch (e) { error = e; }
  assert.match(errorMessage('zh', error), /有 T = 4 个位置，但学习式位置表只有 T_max = 3 行/);
  assert.equal(errorMessage('en', new Error('not from the core')), 'not from the core', 'an error without a code keeps its text');
});
