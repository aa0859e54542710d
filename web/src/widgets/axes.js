// Every attention-shaped matrix (scores, masks, weights) reads the same way, as the lessons say:
// row t is the position that receives (its query), column j the position that gives (its key).
// Before 18.3 has named queries and keys, 18.1 and 18.2 say the same without those words ('past').
// axesNote(t) is the line under such a matrix's caption; set('past' | 'self' | 'cross' | null).
import { h, setText, setHidden } from './dom.js';

const NOTE = { past: 'axesPast', self: 'axesSelf', cross: 'axesCross' };

export function axesNote(t) {
  const el = h('p.axes', { hidden: true });
  return {
    el,
    set(kind) {
      setHidden(el, !kind);
      setText(el, kind ? t(NOTE[kind]) : '');
    },
  };
}

/** A cell's accessible label: with axes, which position receives from which. */
export const cellLabel = (t, kind, label, row, col, value) => t(kind ? 'cellAxes' : 'cellValue', { label, row, col, value });
