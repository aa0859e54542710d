// Presentation of numbers the core computed (rounding for display only). Minus signs are the
// typographic "−" (U+2212), in the mantissa and in the exponent alike; exponents carry no "+"
// and no leading zeros: 2.22e−16, 1.50e6.

const MINUS = '−';

/** v in exponent form with `decimals` digits after the point: -1.234e-5 -> "−1.23e−5". */
function exponent(v, decimals) {
  const [mantissa, exp] = v.toExponential(decimals).split('e');
  const k = Number(exp);
  return `${mantissa.replace('-', MINUS)}e${k < 0 ? MINUS : ''}${Math.abs(k)}`;
}

function special(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return `${MINUS}∞`;
  if (v === 0) return '0';   // -0 too
  return null;
}

/** A number for a cell: fixed digits, NaN as "NaN", tiny non-zero and huge values in exponent form. */
export function fmt(v, digits = 3) {
  const s = special(v);
  if (s !== null) return s;
  const a = Math.abs(v);
  if (a < 10 ** -digits || a >= 1e6) return exponent(v, Math.max(1, digits - 1));
  return v.toFixed(digits).replace('-', MINUS);
}

/** A difference or error: exactly 0 stays "0"; 3 significant digits, in exponent form only when
 *  the value is tiny or huge (2.22e−16, but 2.25, not 2.25e+0). */
export function fmtErr(v) {
  const s = special(v);
  if (s !== null) return s;
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e6) return exponent(v, 2);
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(a)));
  const fixed = v.toFixed(decimals);
  // rounding can carry into a new digit (9.996 -> "10.00"): keep three significant digits
  return (Math.abs(Number(fixed)) >= 10 ** (Math.floor(Math.log10(a)) + 1) ? v.toFixed(Math.max(0, decimals - 1)) : fixed).replace('-', MINUS);
}

/** "(B, T, T) = (1, 3, 3)" */
export function shapeText(names, shape) {
  return names ? `(${names.join(', ')}) = (${shape.join(', ')})` : `(${shape.join(', ')})`;
}
