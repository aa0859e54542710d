// A matrix shown as a table whose cells are coloured by value and carry the number itself, so
// it reads without colour (colour-blind users, screen readers: each cell has a label).
// Colours: viridis for weights in [0, 1] (sequential, colour-blind safe); a purple-orange
// diverging map for signed data (heatmap-colours.js). NaN cells are hatched and say "NaN". A map
// of more than tableUpTo cells or rowsUpTo rows is drawn on a canvas (heatmap-canvas.js), its
// table (heatmap-table.js) built when it is opened.
import { h, nextId, keyboardScrollable, setText, setHidden, subscripts } from './dom.js';
import { fmt, shapeText } from '../format.js';
import { axesNote, cellLabel } from './axes.js';
import { exportMenu } from './export-menu.js';
import { heatmapSvg, heatmapCsv } from './heatmap-export.js';
import { colour } from './heatmap-colours.js';
import { heatTable } from './heatmap-table.js';
import { heatCanvas } from './heatmap-canvas.js';

// Past either of these a heatmap is drawn on a canvas and its table built on demand: cells, and
// rows (a longer table is taller than a phone's screen, and every edit lays all its rows out again)
const LARGE = 400;
const TALL = 32;

// The colour scale of one set(): signed data on [-m, m], m its largest magnitude, or weights on
// [0, 1] (display only; NaN cells take no part)
function scaleOf(rows, opts, weights) {
  const flat = rows.flat().filter((v) => !Number.isNaN(v));
  const signed = opts.signed ?? (!weights && flat.some((v) => v < 0));
  return { signed, max: weights ? 1 : flat.reduce((m, v) => Math.max(m, Math.abs(v)), 0) };
}

// what the export menu writes (PNG, SVG, CSV) of the last set(): headers as the table shows them
// (axesText: an attention map's axes line, null for another matrix; the corner says 't \\ j' with it)
function exportView({ rows, opts, scale }, { title, axesText, digits }) {
  return { rows, digits, title, axesText, corner: axesText !== null ? 't \\ j' : '',
    rowName: (i) => opts.rowLabels?.[i] ?? String(i), colName: (j) => opts.colLabels?.[j] ?? String(j), colourOf: (v) => colour(v, scale) };
}

/**
 * axes: 'past', 'self' or 'cross' for an attention-shaped matrix (rows receive, columns give; see axes.js).
 * set(rows, opts): rows number[][]; opts {label, axes, names, shape, rowMarks: {index: 'text'}, rowMarkValues
 * (row -> the exact number(s) behind its mark, kept in data-value), rowMarksLabel, rowLabels, colLabels,
 * highlightRows: Set, highlightCols: Set, signed, note, cellLabel(i, j, valueText): a cell's label and
 * tooltip in the section's words}.
 */
export function heatmap({ t, label: initialLabel, names, name, digits = 3, weights = false, compact = false, axes: initialAxes = null, tableUpTo = LARGE, rowsUpTo = TALL, id = nextId('hm') }) {
  let label = initialLabel;   // set(rows, {label}) can change it
  let axes = initialAxes;     // and set(rows, {axes})
  let cellLabelOf = null;   // set(rows, {cellLabel}): the section's own wording of a cell
  let current = null;   // {rows, opts, scale} of the last set(), for the lazy table and the pointer readout
  let pointed = null;   // provenance's hook: (i, j) => void for a cell picked on the canvas
  const cellText = (i, j, v) => cellLabelOf?.(i, j, v) ?? cellLabel(t, axes, label, i, j, v);
  // compact: small cells without printed numbers (each cell still carries its value as a label)
  const table = h('table.matrix.heatmap', { 'aria-label': label, class: compact ? 'compact' : null });
  const cells = heatTable({ table, digits, compact, cellText, axes: () => axes });
  const labelEl = h('span.tensor-label', {}, subscripts(label));   // W_O shows as W with a subscript O
  const badge = h('span.shape-badge');
  const note = h('p.heatmap-note', { hidden: true });
  const axesLine = axesNote(t);
  // canvas mode: the picture, a readout of the cell under the pointer, and the table on request
  const probe = h('output.heatmap-probe', { 'aria-live': 'polite' });
  const picture = heatCanvas({ t, label: () => label, current: () => current,
    readout: (i, j) => { probe.textContent = cellText(i, j, fmt(current.rows[i][j], digits)); pointed?.(i, j); } });
  const tableHost = h('details.heatmap-table', {}, h('summary', {}, t('asTable')));
  const big = h('div.heatmap-big', { hidden: true }, picture.canvas, probe, tableHost);
  const small = keyboardScrollable(h('div.scroll', {}, table), () => label);
  const view = () => exportView(current, { title: `${label} ${badge.textContent}`, axesText: axes ? axesLine.el.textContent : null, digits });
  const menu = exportMenu({ t, label: () => label, name: () => name ?? label, ready: () => !!current, svg: () => heatmapSvg(view()), csv: () => heatmapCsv(view()) });
  const el = h('figure.tensor.heat', { id, 'data-name': name }, h('figcaption', {}, labelEl, ' ', badge), menu.el, axesLine.el, small, big, note);
  const large = (rows) => rows.length * rows[0].length > tableUpTo || rows.length > rowsUpTo;
  const fillTable = () => {
    const host = large(current.rows) ? tableHost : small;
    if (table.parentNode !== host) host.append(table);
    cells.fill(current.rows, current.opts, current.scale);
  };
  tableHost.addEventListener('toggle', () => { if (tableHost.open && current) fillTable(); });

  function set(rows, opts = {}) {
    if (opts.label !== undefined && opts.label !== label) {
      label = opts.label;
      labelEl.replaceChildren(...subscripts(label));
      table.setAttribute('aria-label', label);
      cells.relayout();   // cell labels mention it
    }
    if (opts.axes !== undefined && opts.axes !== axes) {
      axes = opts.axes;
      cells.relayout();
    }
    axesLine.set(axes);
    cellLabelOf = opts.cellLabel ?? null;
    current = { rows, opts, scale: scaleOf(rows, opts, weights) };
    setHidden(small, large(rows));
    setHidden(big, !large(rows));
    setText(badge, shapeText(opts.names ?? names, opts.shape ?? [rows.length, rows[0].length]));
    setHidden(note, !opts.note);
    setText(note, opts.note ?? '');
    if (!large(rows)) { fillTable(); return; }
    picture.draw();
    table.replaceChildren();
    if (tableHost.open) fillTable();
  }

  /** Show nothing (a part the section hides): no cells, no picture, no shape; the next set() draws anew. */
  function clear() {
    current = null;
    cells.clear();
    picture.canvas.width = picture.canvas.height = 0;
    badge.textContent = '';
    probe.textContent = '';
    note.hidden = true;
    note.textContent = '';
  }

  /** The table cell of row i, column j (null in canvas mode or outside): for provenance to point at and outline. */
  const cell = (i, j) => (i >= 0 && j >= 0 ? table.tBodies[0]?.rows[i]?.cells[j + 1] ?? null : null);
  // Provenance hooks for canvas mode (widgets/provenance.js): the cell under the pointer or the
  // keyboard cursor is reported (onPoint), and outlines are drawn over the picture.
  const canvasMode = () => !big.hidden && !!current;
  const outline = (list) => { picture.outline(list); if (canvasMode()) picture.draw(); };

  // row i, column j is in the map shown now
  const inside = (i, j) => !!current && i >= 0 && j >= 0 && i < current.rows.length && j < current.rows[0].length;
  /**
   * What "Explain this cell" runs (widgets/check-result.js): a function that scrolls row i, column j
   * into view and focuses it, so its readout and provenance show (a table's cell, or the canvas's
   * cursor), or null for a cell outside the map.
   */
  const reveal = (i, j) => {
    if (!inside(i, j)) return null;
    return () => {   // the map may have changed since: a cell no longer there is not shown
      if (!inside(i, j)) return;
      const td = canvasMode() ? null : cell(i, j);
      (td ?? picture.canvas).scrollIntoView({ block: 'center' });
      if (td) td.focus({ preventScroll: true });
      else if (canvasMode()) picture.focusAt(i, j);
    };
  };

  return { el, set, clear, cell, reveal, canvasMode, outline, onPoint: (fn) => { pointed = fn; } };
}
