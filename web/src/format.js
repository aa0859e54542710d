// Presentation of numbers the core computed (rounding for display only).

/** A number for a cell: fixed digits, NaN as "NaN", tiny non-zero values in exponent form. */
export function fmt(v, digits = 3) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (v === 0) return '0';   // -0 too
  const a = Math.abs(v);
  if (a < 10 ** -digits || a >= 1e6) return v.toExponential(Math.max(1, digits - 1)).replace('-', '−');
  return v.toFixed(digits).replace('-', '−');
}

/** A difference or error: exactly 0 stays "0", everything else in exponent form (2.22e−16). */
export function fmtErr(v) {
  if (Number.isNaN(v)) return 'NaN';
  if (v === 0) return '0';
  return v.toExponential(2).replace('-', '−');
}

/** "(B, T, T) = (1, 3, 3)" */
export function shapeText(names, shape) {
  return names ? `(${names.join(', ')}) = (${shape.join(', ')})` : `(${shape.join(', ')})`;
}
