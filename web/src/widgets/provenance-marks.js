// The provenance panel's marks (widgets/provenance.js): the cell pointed at and the cells it came
// from, outlined where the section shows them. A table cell carries data-prov (target, in, masked),
// its term's number in data-prov-term and its colour in --prov-c (style.css draws them); on a map
// drawn on a canvas (large T) the same marks go to the heatmap's outline() (heatmap.js draws them).

// Okabe–Ito, distinguishable with the common colour-vision deficiencies; cycled over the terms
const PALETTE = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#8c510a', '#444444'];

/** The colour of term k (counted from 0). */
export const termColour = (k) => PALETTE[k % PALETTE.length];

/** A table cell, or on a map drawn on a canvas the cell's place on it (and its table cell too when
 * the map's data table is open). */
export const cellIn = (widget, i, j) => (widget.canvasMode?.() ? { widget, i, j, td: widget.cell?.(i, j) } : widget.cell?.(i, j));

/**
 * The cell of a named input or result (a rule's ref) where the section shows it. sources: {name:
 * widget | {widget, swap() -> true when it shows the matrix transposed} | (head) => either}; 'src'
 * is the keys' and values' input, the memory when there is one.
 */
export function sourceCell(sources, name, row, col, head) {
  let s = sources[name === 'src' ? (sources.memory ? 'memory' : 'x') : name];
  if (typeof s === 'function') s = s(head ?? 0);
  const src = s?.widget ? s : s ? { widget: s } : null;
  return src ? cellIn(src.widget, ...(src.swap?.() ? [col, row] : [row, col])) : null;
}

/** The marks of one explanation: mark() each cell, draw() the canvases' outlines, clear() them all. */
export function cellMarks() {
  let marked = [];            // elements carrying highlight attributes
  let outlined = new Map();   // canvas widget -> its outlines
  function clear() {
    for (const c of marked) {
      c.removeAttribute('data-prov');
      c.removeAttribute('data-prov-term');
      c.style.removeProperty('--prov-c');
    }
    marked = [];
    for (const w of outlined.keys()) w.outline([]);
    outlined = new Map();
  }
  /** kind: 'target', 'in' or 'masked'; term: the term's index, none for a cell every term shares */
  function mark(cell, kind, term) {
    if (!cell) return;
    if (cell.widget) {   // on a canvas
      if (!outlined.has(cell.widget)) outlined.set(cell.widget, []);
      outlined.get(cell.widget).push({ i: cell.i, j: cell.j, kind, ...(term !== undefined ? { term: term + 1, colour: termColour(term) } : {}) });
      mark(cell.td, kind, term);
      return;
    }
    cell.setAttribute('data-prov', kind);
    if (term !== undefined) {
      cell.setAttribute('data-prov-term', String(term + 1));
      cell.style.setProperty('--prov-c', termColour(term));
    }
    marked.push(cell);
  }
  const draw = () => { for (const [w, list] of outlined) w.outline(list); };
  return { mark, draw, clear };
}
