// Every attention-shaped matrix (scores, masks, weights) reads the same way, as the lessons say:
// row t is the position that receives (its query), column j the position that gives (its key).
// axesNote(t) is the line under such a matrix's caption; set('self' | 'cross' | null).
import { h } from './dom.js';

const NOTE = { self: 'axesSelf', cross: 'axesCross' };

export function axesNote(t) {
  const el = h('p.axes', { hidden: true });
  return {
    el,
    set(kind) {
      el.hidden = !kind;
      el.textContent = kind ? t(NOTE[kind]) : '';
    },
  };
}

/** A cell's accessible label: with axes, which position receives from which. */
export const cellLabel = (t, kind, label, row, col, value) => t(kind ? 'cellAxes' : 'cellValue', { label, row, col, value });
