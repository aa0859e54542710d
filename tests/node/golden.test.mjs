// The WASM build reproduces the native build's seeded cases (build/golden.json, written by
// attn_golden from the same table of entry points): randn bit for bit, every other number to the
// case's tolerance (1e-15; the gradchecks' finite-difference noise 1e-6, 1e-4) relative to
// max(1, |value|); and the JS API is the table's: the same functions, arguments and protocol
// numbers; and every plain function of the table has a case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../wasm/js/index.js';

const goldenPath = new URL('../../build/golden.json', import.meta.url);
const golden = JSON.parse(readFileSync(goldenPath, 'utf8'));
const core = await loadCore();

const fromJson = (v) => (v === null ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v);

function compare(got, want, path, tol) {
  if (want !== null && typeof want === 'object' && !Array.isArray(want) && 'shape' in want && 'data' in want) {
    assert.deepEqual(got.shape, want.shape, `${path}.shape`);
    assert.equal(got.data.length, want.data.length, `${path}.data.length`);
    let worst = 0;
    for (let i = 0; i < want.data.length; i++) {
      const w = fromJson(want.data[i]);
      const g = got.data[i];
      if (Number.isNaN(w)) { assert.ok(Number.isNaN(g), `${path}.data[${i}] should be NaN, got ${g}`); continue; }
      if (tol === 0) assert.ok(Object.is(g, w), `${path}.data[${i}]: ${g} !== ${w} (bit-identical expected)`);
      worst = Math.max(worst, Math.abs(g - w) / Math.max(1, Math.abs(w)));
    }
    assert.ok(worst <= tol, `${path}: max relative difference ${worst} > ${tol}`);
    for (const key of Object.keys(want)) if (key !== 'shape' && key !== 'data') compare(got[key], want[key], `${path}.${key}`, tol);
    return;
  }
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length, `${path}.length`);
    want.forEach((w, i) => compare(got[i], w, `${path}[${i}]`, tol));
    return;
  }
  if (want !== null && typeof want === 'object') {
    for (const key of Object.keys(want)) compare(got[key], want[key], `${path}.${key}`, tol);
    return;
  }
  if (typeof want === 'number' || want === null) {
    const w = fromJson(want);
    if (Number.isNaN(w)) return assert.ok(Number.isNaN(got), `${path} should be NaN`);
    assert.ok(Math.abs(got - w) <= tol * Math.max(1, Math.abs(w)), `${path}: ${got} vs native ${w}`);
    return;
  }
  assert.equal(got, want, path);
}

test('the JS API is the native table: every function, its arguments, options and documentation', () => {
  assert.deepEqual(core.describe(), golden.table.functions);
  for (const f of golden.table.functions) {
    if (f.role === 'function' || f.role === 'create') assert.equal(typeof core[f.name], 'function', f.name);
  }
  assert.equal(core.describe('softmax').doc, golden.table.functions.find((f) => f.name === 'softmax').doc);
});

test('the golden file holds the expected cases', () => {
  assert.match(golden.generator, /native/);
  assert.ok(golden.cases.length >= 30, `only ${golden.cases.length} cases`);
  const fns = new Set(golden.cases.map((c) => c.fn));
  // every plain function of the table; memoryStats measures the WASM instance (nothing native to
  // compare), the model's rows are the 'gpt' case (tests/node/gpt.test.mjs)
  for (const row of core.describe().filter((r) => r.role === 'function' && r.name !== 'memoryStats')) {
    assert.ok(fns.has(row.name), `no golden case for ${row.name} (tests/native/golden.cpp)`);
  }
});

for (const c of golden.cases.filter((g) => g.fn !== 'gpt')) {   // the GPT case: tests/node/gpt.test.mjs
  test(`WASM reproduces native: ${c.name}`, () => {
    const args = c.args.map((a) => a);
    const got = core[c.fn](...args);
    compare(got, c.result, c.fn, c.tol);
  });
}

test("multiHeadAttention's results: 'out' gives the out of every result bit for bit, and nothing else", () => {
  for (const [B, T, C, NH, causal, Tin] of [[1, 8, 16, 2, true, 0], [2, 13, 12, 3, false, 0], [2, 9, 8, 4, true, 5], [1, 37, 16, 4, true, 0]]) {
    const x = core.randn([B, T, C], 1);
    const o = { wq: core.randn([C, C], 2, 0.3), wk: core.randn([C, C], 3, 0.3), wv: core.randn([C, C], 4, 0.3), heads: NH, causal };
    if (Tin) o.memory = core.randn([B, Tin, C], 5);
    const all = core.multiHeadAttention(x, o), only = core.multiHeadAttention(x, { ...o, results: 'out' });
    assert.deepEqual(Object.keys(only), ['out']);
    assert.deepEqual(only.out.shape, all.out.shape);
    assert.ok(only.out.data.every((v, i) => Object.is(v, all.out.data[i])), `(${B}, ${T}, ${C}, ${NH}) out differs`);
    assert.deepEqual(Object.keys(core.multiHeadAttention(x, { ...o, results: 'all' })), Object.keys(all));
  }
});
