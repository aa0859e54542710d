// How a reader points at a cell for the provenance panel (widgets/provenance.js): the pointer, a
// tap or keyboard focus on an explained figure's table cells (one tab stop per table, the arrow
// keys move, Escape leaves), and a map drawn on a canvas through its own onPoint hook (heatmap.js).
import { setAttr } from './dom.js';

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// a body cell's [row, column] in its figure's numbers (null for a header or a row's mark)
function cellPos(td) {
  const tr = td?.closest('tbody tr');
  if (!tr || td.tagName !== 'TD' || td.classList.contains('rowmark')) return null;
  return [tr.sectionRowIndex, td.cellIndex - 1];
}

function listen(target, { point, leave }) {
  target.widget.onPoint?.((i, j) => point(target, i, j));   // a map drawn on a canvas: pointer, tap, arrow keys
  const table = target.widget.el.querySelector('table');
  if (!table) return;
  table.classList.add('prov-source');
  const onPoint = (ev) => {
    const p = cellPos(ev.target.closest('td'));
    if (p) point(target, p[0], p[1]);
  };
  table.addEventListener('mouseover', onPoint);
  table.addEventListener('click', onPoint);
  table.addEventListener('focusin', onPoint);
  table.addEventListener('keydown', (ev) => {
    const p = cellPos(ev.target.closest('td'));
    if (!p) return;
    const d = ARROWS[ev.key];
    if (ev.key === 'Escape') { leave(); return; }
    const next = d && target.widget.cell?.(p[0] + d[0], p[1] + d[1]);
    if (next) { ev.preventDefault(); next.focus(); }
  });
}

/**
 * point(target, i, j) when a cell of a target is pointed at; leave() on Escape, and when a cell of a
 * plain figure (nothing to explain) is pointed at while pointing() says a cell is shown.
 */
export function pointAt(targets, plain, { point, leave, pointing }) {
  for (const target of targets) listen(target, { point, leave });
  for (const w of plain) {
    const clearOn = (ev) => { if (pointing() && ev.target.closest?.('tbody td')) leave(); };
    for (const type of ['mouseover', 'click', 'focusin']) w.el.addEventListener(type, clearOn);
  }
}

/** The targets' cells focusable after a paint: the first of each table in the tab order, the rest by the arrows. */
export function tabStops(targets) {
  for (const target of targets) {
    const cells = target.widget.el.querySelectorAll('tbody td:not(.rowmark)');
    cells.forEach((td, n) => setAttr(td, 'tabindex', n === 0 ? '0' : '-1'));
  }
}
