// "Check my numbers": a section's inputs as text for the student's own program, in the forms the
// panel reads back (wasm/js/parse-tensor.js): PyTorch, NumPy or plain nested lists. The numbers are
// written by pytorch-format.js, as in the "Show as PyTorch" programs: every float in its shortest
// round-trip digits, so the student's program starts from exactly the page's numbers.
//
// String building only: no arithmetic on the numbers, no DOM.
import { assign, comment, pyNested, pyValue } from '../../wasm/js/pytorch-format.js';

export const FORMS = ['pytorch', 'numpy', 'list'];

const HEADS = {
  pytorch: 'import torch\n\ntorch.set_default_dtype(torch.float64)',
  numpy: 'import numpy as np',
  list: '',
};

const isTensor = (v) => typeof v === 'object' && v !== null && Array.isArray(v.shape) && ArrayBuffer.isView(v.data);

/** One input as a Python assignment: a tensor in `form`, a number or a flag as a plain value. */
function line(name, v, form) {
  if (!isTensor(v)) return `${name} = ${pyValue(v, { int: Number.isInteger(v) })}`;
  if (form === 'pytorch') return assign(name, v);
  const lhs = `${name} = `;
  if (form === 'numpy') return `${lhs}np.array(${pyNested(v, { col: lhs.length + 'np.array('.length })})`;
  return `${lhs}${pyNested(v, { col: lhs.length })}`;
}

/**
 * The inputs {name: tensor | number | boolean} as a Python snippet in `form` ('pytorch', 'numpy'
 * or 'list'), after `note` (lines of comment, e.g. which layout the weights are in).
 */
export function inputsText(given, form, note = '') {
  if (!FORMS.includes(form)) throw new Error(`inputsText: no form ${form}`);
  const lines = Object.entries(given).filter(([, v]) => v !== undefined && v !== null).map(([name, v]) => line(name, v, form));
  return `${[note ? comment(note) : '', HEADS[form], lines.join('\n')].filter(Boolean).join('\n\n')}\n`;
}
