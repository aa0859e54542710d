// Reading tensors the core returned: slices for display (indexing only, no arithmetic).
import { tensor, toNested } from '../../wasm/js/index.js';

export { tensor, toNested };

/** The 2-D matrix at the given leading indices of t, as nested rows. */
export function matrixAt(t, ...lead) {
  let nested = toNested(t);
  for (const i of lead) nested = nested[i];
  return nested;
}

/** A flat Float64Array as a plain array (for a vector result). */
export const values = (t) => Array.from(t.data);
