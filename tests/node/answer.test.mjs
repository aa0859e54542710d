// Reading exercise answers (web/src/answer.js): numbers and short expressions, against values
// written out here by hand; what is not an answer is rejected with a reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnswer } from '../../web/src/answer.js';

const SQRT2 = 1.4142135623730951;

test('numbers and fractions', () => {
  const table = [
    ['0.25', 0.25], ['1/4', 0.25], ['2/8', 0.25], ['.5', 0.5], ['-1/3', -1 / 3], ['−1/3', -1 / 3], ['+3', 3],
    ['1e-5', 1e-5], ['2.5E3', 2500], ['0', 0], ['-0', -0], ['  7 ', 7], ['12.', 12],
    ['１／４', 0.25], ['０.２５', 0.25], ['½', 0.5], ['3÷4', 0.75], ['2×3', 6], ['2·3', 6], ['2 * 3', 6],
    ['1/2/2', 0.25], ['1-2-3', -4], ['1+2*3', 7], ['(1+2)*3', 9], ['2(3)', 6], ['(1)(2)', 2],
  ];
  for (const [text, want] of table) assert.equal(parseAnswer(text).value, want, text);
});

test('roots, powers, constants and functions', () => {
  const table = [
    ['√2/2', SQRT2 / 2], ['sqrt(2)/2', SQRT2 / 2], ['SQRT(2)/2', SQRT2 / 2], ['1/√2', 1 / SQRT2], ['√(1/2)', Math.sqrt(0.5)],
    ['2√2', 2 * SQRT2], ['√8', Math.sqrt(8)], ['8/√8', 8 / Math.sqrt(8)], ['√2√2', SQRT2 * SQRT2], ['sqrt 2', SQRT2],
    ['e^2', Math.E ** 2], ['e', Math.E], ['2e', 2 * Math.E], ['exp(2)', Math.exp(2)], ['exp 1', Math.E],
    ['ln 2', Math.LN2], ['log(2)', Math.LN2], ['ln2', Math.LN2], ['ln(e)', 1],
    ['sin(1)', Math.sin(1)], ['sin 1', Math.sin(1)], ['cos(1)', Math.cos(1)], ['COS 0', 1], ['2sin(1)', 2 * Math.sin(1)], ['tan(π/4)', Math.tan(Math.PI / 4)],
    ['π', Math.PI], ['pi/4', Math.PI / 4], ['2π', 2 * Math.PI], ['1/2π', Math.PI / 2],
    ['2^3', 8], ['2^-1', 0.5], ['2^−1', 0.5], ['-2^2', -4], ['(-2)^2', 4], ['2^3^2', 512], ['4^(1/2)', 2], ['2^0.5', SQRT2],
    ['1/4 + 1/2', 0.75], ['asin(1)', undefined], ['sinh(1)', undefined],
  ];
  for (const [text, want] of table) {
    const r = parseAnswer(text);
    if (want === undefined) assert.equal(r.error, 'syntax', text);
    else assert.ok(Math.abs(r.value - want) <= 1e-15 * Math.max(1, Math.abs(want)), `${text}: ${r.value} vs ${want}`);
  }
});

test('plain numbers are told apart from expressions', () => {
  for (const t of ['0.25', '-3', '−0.5', '1e-5', ' 2 ']) assert.equal(parseAnswer(t).plain, true, t);
  for (const t of ['1/4', '√2', 'e', '2^1', '(2)']) assert.equal(parseAnswer(t).plain, false, t);
});

test('what is not an answer is rejected with a reason', () => {
  const table = [
    ['', 'empty'], ['   ', 'empty'], ['abc', 'syntax'], ['1/', 'syntax'], ['(1+2', 'syntax'], ['1+2)', 'syntax'],
    ['2 3', 'syntax'], ['1..2', 'syntax'], ['NaN', 'syntax'], ['Infinity', 'syntax'], ['x', 'syntax'], ['e2', 'syntax'],
    ['√', 'syntax'], ['^2', 'syntax'], ['1,5', 'syntax'], ['<b>1</b>', 'syntax'], ['1;2', 'syntax'], ['alert(1)', 'syntax'],
    ['1/0', 'range'], ['sqrt(-1)', 'range'], ['ln 0', 'range'], ['1e999', 'range'], ['10^400', 'range'], ['0/0', 'range'],
    ['1'.repeat(201), 'syntax'], ['('.repeat(150) + '1' + ')'.repeat(150) + '+', 'syntax'],
  ];
  for (const [text, want] of table) assert.equal(parseAnswer(text).error, want, JSON.stringify(text));
});

test('deep nesting within the length limit parses', () => {
  assert.equal(parseAnswer('('.repeat(99) + '1' + ')'.repeat(99)).value, 1);
});
