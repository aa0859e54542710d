// A matrix shown as a table whose cells are coloured by value and carry the number itself, so
// it reads without colour (colour-blind users, screen readers: each cell has a label).
// Colours: viridis for weights in [0, 1] (sequential, colour-blind safe); a purple-orange
// diverging map for signed data. NaN cells are hatched and say "NaN".
import { h, nextId, keyboardScrollable, setText, setHidden, subscripts } from './dom.js';
import { fmt, shapeText } from '../format.js';
import { axesNote, cellLabel } from './axes.js';
import { exportMenu } from './export-menu.js';
import { heatmapSvg, heatmapCsv } from './heatmap-export.js';
import { readableOn } from './contrast.js';

const VIRIDIS = ['#440154', '#482878', '#3e4989', '#31688e', '#26828e', '#1f9e89', '#35b779', '#6ece58', '#b5de2b', '#fde725'];
const PUOR = ['#2d004b', '#542788', '#8073ac', '#b2abd2', '#d8daeb', '#f7f7f7', '#fee0b6', '#fdb863', '#e08214', '#b35806', '#7f3b08'];

function hex(c) { return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)); }
function pick(stops, x) {
  const f = Math.min(1, Math.max(0, x)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const a = hex(stops[i]), b = hex(stops[i + 1]), u = f - i;
  return a.map((v, k) => Math.round(v + (b[k] - v) * u));
}

// 256-step lookup tables: background and the text colour (black or white) of higher WCAG
// contrast against it, at least 4.5:1 for every step (tests/node/contrast.test.mjs). A step is
// worked out the first time a cell needs it (all 512 at once cost about 20 ms of a phone's load).
const STOPS = { seq: VIRIDIS, div: PUOR };
const steps = { seq: new Array(256), div: new Array(256) };
function step(name, i) {
  let s = steps[name][i];
  if (!s) {
    const rgb = pick(STOPS[name], i / 255);
    s = steps[name][i] = { bg: `rgb(${rgb.join(',')})`, fg: readableOn(rgb), rgb };
  }
  return s;
}
/** The colour scales: seq (weights), div (signed data); 256 steps of {bg, fg, rgb} each. */
export const SCALES = {};
for (const name of Object.keys(STOPS)) {
  let all = null;   // every step, worked out on the first read
  Object.defineProperty(SCALES, name, { enumerable: true, get: () => (all ??= Array.from({ length: 256 }, (_, i) => step(name, i))) });
}

/** Colour of one value: weights on [0, 1], or signed data on [-m, m]. Returns {bg, fg, rgb}. */
export function colour(v, { signed, max }) {
  const x = signed ? (max > 0 ? 0.5 + v / (2 * max) : 0.5) : (max > 0 ? v / max : 0);
  return step(signed ? 'div' : 'seq', Math.max(0, Math.min(255, Math.round(x * 255))));
}
const NAN_RGB = [187, 187, 187];   // NaN cells on a canvas (#bbb)
const LARGE = 400;   // cells; past this a heatmap is drawn on a canvas and its table built on demand

/** axes: 'past', 'self' or 'cross' for an attention-shaped matrix (rows receive, columns give; see axes.js) */
export function heatmap({ t, label: initialLabel, names, name, digits = 3, weights = false, compact = false, axes: initialAxes = null, tableUpTo = LARGE, id = nextId('hm') }) {
  let label = initialLabel;   // set(rows, {label}) can change it
  let axes = initialAxes;     // and set(rows, {axes})
  let layoutKey = null;       // what the table's structure was built for
  let cellLabelOf = null;   // set(rows, {cellLabel}): the section's own wording of a cell
  const cellText = (i, j, v) => cellLabelOf?.(i, j, v) ?? cellLabel(t, axes, label, i, j, v);
  // compact: small cells without printed numbers (each cell still carries its value as a label)
  const table = h('table.matrix.heatmap', { 'aria-label': label, class: compact ? 'compact' : null });
  const labelEl = h('span.tensor-label', {}, subscripts(label));   // W_O shows as W with a subscript O
  const badge = h('span.shape-badge');
  const note = h('p.heatmap-note', { hidden: true });
  const axesLine = axesNote(t);
  // canvas mode: the picture, a readout of the cell under the pointer, and the table on request
  const canvas = h('canvas.heatmap-canvas', { role: 'img', tabindex: 0 });
  const probe = h('output.heatmap-probe', { 'aria-live': 'polite' });
  const tableHost = h('details.heatmap-table', {}, h('summary', {}, t('asTable')));
  const big = h('div.heatmap-big', { hidden: true }, canvas, probe, tableHost);
  const small = keyboardScrollable(h('div.scroll', {}, table), () => label);
  let current = null;   // {rows, opts} of the last set(), for the lazy table and the pointer readout
  // export (PNG, SVG, CSV) of what was last set: headers as the table shows them
  const view = () => {
    const { rows, opts, scale } = current;
    return { rows, digits, title: `${label} ${badge.textContent}`, axesText: axes ? axesLine.el.textContent : null,
      corner: axes ? 't \\ j' : '', rowName: (i) => opts.rowLabels?.[i] ?? String(i), colName: (j) => opts.colLabels?.[j] ?? String(j),
      colourOf: (v) => colour(v, scale) };
  };
  const menu = exportMenu({ t, label: () => label, name: () => name ?? label, ready: () => !!current, svg: () => heatmapSvg(view()), csv: () => heatmapCsv(view()) });
  const el = h('figure.tensor.heat', { id, 'data-name': name }, h('figcaption', {}, labelEl, ' ', badge), menu.el, axesLine.el, small, big, note);
  tableHost.addEventListener('toggle', () => { if (tableHost.open && current) fillTable(current.rows, current.opts, current.scale); });
  const cellAt = (e) => {
    const r = canvas.getBoundingClientRect(), rows = current.rows;
    const j = Math.floor(((e.clientX - r.left) / r.width) * rows[0].length), i = Math.floor(((e.clientY - r.top) / r.height) * rows.length);
    return rows[i]?.[j] === undefined ? null : [i, j];
  };
  const showCell = ([i, j]) => { probe.textContent = cellText(i, j, fmt(current.rows[i][j], digits)); pointed?.(i, j); };
  canvas.addEventListener('mousemove', (e) => {
    const c = current && cellAt(e);
    if (c) showCell(c);
  });
  canvas.addEventListener('click', (e) => {   // a tap
    const c = current && cellAt(e);
    if (c) showCell(c);
  });
  // the keyboard's way to the same readout: arrows (Home/End: a row's ends) move a cell cursor
  let cursor = null;   // [i, j] while the canvas has focus
  canvas.addEventListener('keydown', (e) => {
    if (!current) return;
    const R = current.rows.length, C = current.rows[0].length;
    const [i, j] = cursor ?? [0, 0];
    const to = { ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1], Home: [i, 0], End: [i, C - 1] }[e.key];
    if (!to) return;
    e.preventDefault();
    cursor = cursor ? [Math.min(R - 1, Math.max(0, to[0])), Math.min(C - 1, Math.max(0, to[1]))] : [0, 0];
    showCell(cursor);
    drawCanvas(current.rows, current.opts, current.scale);
  });
  canvas.addEventListener('blur', () => { if (cursor) { cursor = null; drawCanvas(current.rows, current.opts, current.scale); } });

  /**
   * rows: number[][]; opts: {rowMarks: {index: 'text'}, highlightRows: Set, highlightCols: Set, signed, max, names}
   */
  let small1 = null;   // drawCanvas's one-pixel-per-cell picture
  function drawCanvas(rows, opts, { signed, max }) {
    const R = rows.length, C = rows[0].length;
    const cell = Math.max(3, Math.min(12, Math.floor(512 / Math.max(R, C))));
    if (canvas.width !== C * cell) canvas.width = C * cell;
    if (canvas.height !== R * cell) canvas.height = R * cell;
    // one pixel per cell in an image, then scaled up without smoothing: a few times quicker than
    // a fillRect per cell at T = 64 (docs/performance.md)
    const pixels = new ImageData(C, R);
    for (let i = 0, p = 0; i < R; i++) {
      const row = rows[i];
      for (let j = 0; j < C; j++, p += 4) {
        const v = row[j];
        const rgb = Number.isNaN(v) ? NAN_RGB : colour(v, { signed, max }).rgb;
        pixels.data[p] = rgb[0]; pixels.data[p + 1] = rgb[1]; pixels.data[p + 2] = rgb[2]; pixels.data[p + 3] = 255;
      }
    }
    if (!small1) small1 = document.createElement('canvas');
    small1.width = C;
    small1.height = R;
    small1.getContext('2d').putImageData(pixels, 0, 0);
    const g = canvas.getContext('2d');
    g.imageSmoothingEnabled = false;
    g.drawImage(small1, 0, 0, C * cell, R * cell);
    if (opts.highlightRows?.size) {
      g.strokeStyle = '#e36209';
      g.lineWidth = 2;
      for (const i of opts.highlightRows) g.strokeRect(1, i * cell + 1, C * cell - 2, cell - 2);
    }
    drawOutlines(g, cell, R, C);
    if (cursor && cursor[0] < R && cursor[1] < C) {   // black and white, visible on every colour
      for (const [style, width] of [['#000', 3], ['#fff', 1]]) {
        g.strokeStyle = style;
        g.lineWidth = width;
        g.strokeRect(cursor[1] * cell - 1, cursor[0] * cell - 1, cell + 2, cell + 2);
      }
    }
    canvas.setAttribute('aria-label', `${label}: ${R} × ${C}. ${t('asTable')}.`);
  }

  /**
   * opts: {label, axes, names, shape, rowMarks, rowMarkValues (row -> the exact number(s) behind its mark,
   *        kept in data-value), rowMarksLabel, rowLabels, colLabels, highlightRows, highlightCols, signed, note,
   *        cellLabel(i, j, valueText): a cell's label and tooltip in the section's words}
   */
  function set(rows, opts = {}) {
    if (opts.label !== undefined && opts.label !== label) {
      label = opts.label;
      labelEl.replaceChildren(...subscripts(label));
      table.setAttribute('aria-label', label);
      layoutKey = null;   // cell labels mention it
    }
    if (opts.axes !== undefined && opts.axes !== axes) {
      axes = opts.axes;
      layoutKey = null;
    }
    axesLine.set(axes);
    cellLabelOf = opts.cellLabel ?? null;
    const flat = rows.flat().filter((v) => !Number.isNaN(v));
    const signed = opts.signed ?? (!weights && flat.some((v) => v < 0));
    // Colour scale bound: weights use [0, 1]; other data its largest magnitude (display only).
    const max = weights ? 1 : flat.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const large = rows.length * rows[0].length > tableUpTo;
    current = { rows, opts, scale: { signed, max } };
    setHidden(small, large);
    setHidden(big, !large);
    setText(badge, shapeText(opts.names ?? names, opts.shape ?? [rows.length, rows[0].length]));
    setHidden(note, !opts.note);
    setText(note, opts.note ?? '');
    if (large) {
      drawCanvas(rows, opts, current.scale);
      table.replaceChildren();
      if (tableHost.open) fillTable(rows, opts, current.scale);
      return;
    }
    fillTable(rows, opts, current.scale);
  }


  // Same shape and labels as last time: change the cells in place (no new nodes, less layout),
  // and only the cells whose value, colour or label changed (shown: what each cell shows now).
  let shown = [];
  function updateCells(rows, opts, { signed, max }) {
    const trs = table.tBodies[0].rows;
    for (let i = 0; i < rows.length; i++) {
      const tr = trs[i];
      const hl = !!opts.highlightRows?.has(i);
      if (tr.classList.contains('hl') !== hl) tr.classList.toggle('hl', hl);
      for (let j = 0; j < rows[i].length; j++) {
        const v = rows[i][j];
        const text = fmt(v, digits);
        const aria = cellText(i, j, text);
        const c = Number.isNaN(v) ? null : colour(v, { signed, max });
        const was = shown[i][j];
        if (Object.is(was.v, v) && was.aria === aria && was.bg === c?.bg) continue;
        shown[i][j] = { v, text, aria, bg: c?.bg };
        const td = tr.cells[j + 1];
        if (was.aria !== aria) {
          td.setAttribute('aria-label', aria);
          td.title = aria;
        }
        if (!c) {
          td.className = 'nan';
          td.removeAttribute('style');
          delete td.dataset.value;
          td.textContent = 'NaN';
          continue;
        }
        if (!was.bg) td.className = '';   // was NaN
        if (was.bg !== c.bg) td.style.cssText = `background: ${c.bg}; color: ${c.fg}`;
        td.dataset.value = String(v);
        const shownText = compact ? '' : text;
        if (was.text !== text || !was.bg) {
          if (td.firstChild?.nodeType === 3 && !td.firstChild.nextSibling && shownText) td.firstChild.data = shownText;   // the same text node: no new node to lay out
          else td.textContent = shownText;
        }
      }
      if (opts.rowMarks) {
        const mark = tr.cells[rows[i].length + 1], text = opts.rowMarks[i] ?? '';
        if (mark.textContent !== text) mark.textContent = text;
        markValue(mark, opts, i);
      }
    }
  }

  function fillTable(rows, opts, { signed, max }) {
    const host = rows.length * rows[0].length > tableUpTo ? tableHost : small;
    if (table.parentNode !== host) host.append(table);
    const key = JSON.stringify([rows.length, rows[0].length, opts.rowLabels, opts.colLabels, !!opts.rowMarks, opts.rowMarksLabel,
      opts.highlightCols ? [...opts.highlightCols] : null]);
    if (key === layoutKey && table.tBodies.length) { updateCells(rows, opts, { signed, max }); return; }
    layoutKey = key;
    const colName = (j) => opts.colLabels?.[j] ?? String(j), rowName = (i) => opts.rowLabels?.[i] ?? String(i);
    // header cells say something or are plain cells: the corner is 't \\ j' on an attention map
    const head = h('tr', {}, axes ? h('th.corner', { scope: 'col' }, 't \\ j') : h('td'),
      rows[0].map((_, j) => h('th', { scope: 'col', class: opts.highlightCols?.has(j) ? 'hl' : null }, colName(j))),
      opts.rowMarks ? (opts.rowMarksLabel ? h('th.rowmark', { scope: 'col' }, opts.rowMarksLabel) : h('td.rowmark')) : null);
    shown = rows.map(() => []);
    const body = rows.map((r, i) => h('tr', { class: opts.highlightRows?.has(i) ? 'hl' : null },
      h('th', { scope: 'row' }, rowName(i)),
      r.map((v, j) => {
        const text = fmt(v, digits);
        const aria = cellText(i, j, text);
        if (Number.isNaN(v)) {
          shown[i][j] = { v, text, aria };
          return h('td.nan', { 'aria-label': aria, title: aria }, 'NaN');
        }
        const c = colour(v, { signed, max });
        shown[i][j] = { v, text, aria, bg: c.bg };
        return h('td', { style: `background:${c.bg};color:${c.fg}`, 'aria-label': aria, title: aria, 'data-value': String(v) }, compact ? '' : text);
      }),
      opts.rowMarks ? markValue(h('td.rowmark', {}, opts.rowMarks[i] ?? ''), opts, i) : null));
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, body));
  }

  // the exact numbers behind a row's mark (rowMarkValues: {index: number | number[]}), space-separated
  function markValue(td, opts, i) {
    const v = opts.rowMarkValues?.[i];
    if (v === undefined) td.removeAttribute('data-value');
    else td.dataset.value = [v].flat().map(String).join(' ');
    return td;
  }

  /** Show nothing (a part the section hides): no cells, no picture, no shape; the next set() draws anew. */
  function clear() {
    current = null;
    layoutKey = null;
    shown = [];
    table.replaceChildren();
    canvas.width = canvas.height = 0;
    badge.textContent = '';
    probe.textContent = '';
    note.hidden = true;
    note.textContent = '';
  }

  /** The table cell of row i, column j (null in canvas mode or outside): for provenance to point at and outline. */
  const cell = (i, j) => (i >= 0 && j >= 0 ? table.tBodies[0]?.rows[i]?.cells[j + 1] ?? null : null);

  // Provenance hooks for canvas mode (widgets/provenance.js): the cell under the pointer or the
  // keyboard cursor is reported, and outlines are drawn over the picture (shape and number, not
  // colour alone: the pointed cell a black-and-white double frame, each input a frame in its term's
  // colour with a white rim, masked ones dashed, the term's number when the cell is large enough).
  // The marks are also listed in the canvas's data-prov-cells ("i,j,kind,term;...") for tests.
  let pointed = null;   // (i, j) => void
  let outlines = [];    // [{i, j, kind: 'target' | 'in' | 'masked', term?, colour?}]
  function drawOutlines(g, size, R, C) {
    for (const o of outlines) {
      if (o.i >= R || o.j >= C) continue;
      const x = o.j * size, y = o.i * size;
      const rims = o.kind === 'target' ? [['#000', 4], ['#fff', 2]] : [['#fff', 4], [o.colour, 2]];
      for (const [style, width] of rims) {
        g.strokeStyle = style;
        g.lineWidth = width;
        g.setLineDash(o.kind === 'masked' && style !== '#fff' ? [2, 2] : []);
        g.strokeRect(x + 1, y + 1, size - 2, size - 2);
      }
      g.setLineDash([]);
      if (o.term !== undefined && size >= 10) {
        g.fillStyle = o.colour;
        g.fillRect(x + size - 7, y, 7, 7);
        g.fillStyle = '#fff';
        g.font = '700 6px monospace';
        g.fillText(String(o.term).slice(-1), x + size - 6, y + 6);
      }
    }
  }
  const canvasMode = () => !big.hidden && !!current;
  function outline(list) {
    outlines = list;
    if (list.length) canvas.dataset.provCells = list.map((o) => [o.i, o.j, o.kind, o.term ?? ''].join(',')).join(';');
    else delete canvas.dataset.provCells;
    if (canvasMode()) drawCanvas(current.rows, current.opts, current.scale);
  }

  return { el, set, clear, cell, canvasMode, outline, onPoint: (fn) => { pointed = fn; } };
}
