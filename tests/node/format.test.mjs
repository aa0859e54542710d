// How the page prints numbers (web/src/format.js): a table of values and the exact text shown.
// Minus signs are U+2212 in the mantissa and the exponent; no "e+0"; exponents only for tiny or
// huge values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fmt, fmtErr, shapeText } from '../../web/src/format.js';

const M = '\u2212';

test('fmtErr: differences and errors', () => {
  const table = [
    [0, '0'], [-0, '0'], [NaN, 'NaN'], [Infinity, '∞'], [-Infinity, `${M}∞`],
    [2.220446049250313e-16, '2.22e−16'], [-1.23e-5, `${M}1.23e${M}5`], [5.55e-17, '5.55e−17'],
    [1e-300, '1.00e−300'], [4.9e-324, '4.94e−324'],
    [2.25, '2.25'], [-2.25, `${M}2.25`], [1, '1.00'], [5.480078, '5.48'], [0.5, '0.500'],
    [0.00123, '0.00123'], [0.001, '0.00100'], [0.0009999, '1.00e−3'], [12.345, '12.3'], [123.45, '123'],
    [999.9, '1000'], [9.996, '10.0'], [0.09996, '0.100'], [123456, '123456'],
    [1e6, '1.00e6'], [-2.5e7, `${M}2.50e7`], [1.7976931348623157e308, '1.80e308'],
  ];
  for (const [v, want] of table) assert.equal(fmtErr(v), want, `fmtErr(${v})`);
});

test('fmt: cell values with a fixed number of digits', () => {
  const table = [
    [[0], '0'], [[-0], '0'], [[NaN], 'NaN'], [[-Infinity], `${M}∞`],
    [[2.25], '2.250'], [[2.25, 2], '2.25'], [[-0.5], `${M}0.500`], [[1 / 3, 6], '0.333333'],
    [[0.0004], '4.00e−4'], [[-0.0004], `${M}4.00e${M}4`], [[1.5e6], '1.50e6'], [[-1.23e-5, 4], `${M}1.230e${M}5`],
    [[0.0004, 4], '0.0004'], [[0.25, 0], '2.5e−1'], [[1, 0], '1'], [[999999.4], '999999.400'],
  ];
  for (const [[v, digits], want] of table) assert.equal(fmt(v, digits), want, `fmt(${v}, ${digits})`);
});

test('no printed number has "e+" or an ASCII minus sign', () => {
  for (let k = -320; k <= 308; k += 7) {
    for (const v of [1.234 * 10 ** k, -1.234 * 10 ** k]) {
      for (const s of [fmtErr(v), fmt(v), fmt(v, 6)]) {
        assert.doesNotMatch(s, /e\+|-/, `${v} -> ${s}`);
        const back = Number(s.replaceAll(M, '-'));
        assert.ok(Number.isFinite(back) && Math.sign(back) === Math.sign(v), `${s} reads back as ${v}`);
      }
    }
  }
});

test('shapeText', () => {
  assert.equal(shapeText(['B', 'T', 'T'], [1, 3, 3]), '(B, T, T) = (1, 3, 3)');
  assert.equal(shapeText(null, [4]), '(4)');
});

test('toNested and tensor are inverses at every rank, empty axes included; makeT falls back to the key and leaves unknown {params}', async () => {
  const { toNested, tensor } = await import('../../wasm/js/index.js');
  const { makeT } = await import('../../web/src/i18n.js');
  const data = Float64Array.from({ length: 24 }, (_, i) => i - 5.5);
  assert.equal(toNested({ shape: [], data: Float64Array.of(7) }), 7);
  assert.deepEqual(toNested({ shape: [3], data }), [-5.5, -4.5, -3.5]);
  const three = toNested({ shape: [2, 3, 4], data });
  assert.deepEqual(three[1][2], [14.5, 15.5, 16.5, 17.5]);   // offset 1·12 + 2·4 = 20: 20 - 5.5
  assert.deepEqual(tensor(three), { shape: [2, 3, 4], data });
  assert.deepEqual(toNested({ shape: [0, 3], data: new Float64Array(0) }), []);
  assert.deepEqual(toNested({ shape: [2, 0], data: new Float64Array(0) }), [[], []]);
  const t = makeT('en', { en: { hi: 'Hello {name}, {n} of {total}', plain: 'no braces', nothing: undefined } });
  assert.equal(t('hi', { name: 'Ana', n: 2 }), 'Hello Ana, 2 of {total}');
  assert.equal(t('plain'), 'no braces');
  assert.equal(t('nothing'), 'nothing');
  assert.equal(t('no such key {x}', { x: 1 }), 'no such key 1');
});
