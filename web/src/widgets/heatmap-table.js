// The heatmap's table (widgets/heatmap.js): one cell per value, coloured by it, with its number
// (none when compact) and its label, under column headers and beside row headers and an optional
// column of row marks. With the same layout as last time (shape, headers, marks) fill() changes the
// cells in place (no new nodes, less layout), and only those whose value, colour or label changed.
import { h } from './dom.js';
import { fmt } from '../format.js';
import { colour } from './heatmap-colours.js';

// the exact numbers behind a row's mark (rowMarkValues: {index: number | number[]}), space-separated
function markValue(td, opts, i) {
  const v = opts.rowMarkValues?.[i];
  if (v === undefined) td.removeAttribute('data-value');
  else td.dataset.value = [v].flat().map(String).join(' ');
  return td;
}

// one cell changed in place: was is what it showed, now {v, text, aria} what it shows, c its
// colour (null: NaN)
function updateCell(td, was, now, c, compact) {
  if (was.aria !== now.aria) {
    td.setAttribute('aria-label', now.aria);
    if (td.hasAttribute('title')) td.title = now.aria;   // a cell hovered before keeps its tooltip true
  }
  if (!c) {
    td.className = 'nan';
    td.removeAttribute('style');
    delete td.dataset.value;
    td.textContent = 'NaN';
    return;
  }
  if (!was.bg) td.className = '';   // was NaN
  if (was.bg !== c.bg) td.style.cssText = `background: ${c.bg}; color: ${c.fg}`;
  if (!Object.is(was.v, now.v)) td.dataset.value = String(now.v);
  const shownText = compact ? '' : now.text;
  if (was.text !== now.text || !was.bg) {
    if (td.firstChild?.nodeType === 3 && !td.firstChild.nextSibling && shownText) td.firstChild.data = shownText;   // the same text node: no new node to lay out
    else td.textContent = shownText;
  }
}

/** table: the <table>; cellText(i, j, valueText): a cell's label; axes(): an attention map's axes (its corner says 't \ j'). */
export function heatTable({ table, digits, compact, cellText, axes }) {
  let layoutKey = null;   // what the table's structure was built for
  let shown = [];         // what each cell shows now: {v, text, aria, bg}
  // a cell's tooltip is its label, given when the pointer comes over it: an edit that changes
  // hundreds of labels writes each once (aria-label), not twice
  table.addEventListener('pointerover', (e) => {
    const td = e.target.closest?.('td[aria-label]');
    if (td && !td.hasAttribute('title')) td.title = td.getAttribute('aria-label');
  });

  function update(rows, opts, scale) {
    const trs = table.tBodies[0].rows;
    for (let i = 0; i < rows.length; i++) {
      const tr = trs[i];
      const hl = !!opts.highlightRows?.has(i);
      if (tr.classList.contains('hl') !== hl) tr.classList.toggle('hl', hl);
      for (let j = 0; j < rows[i].length; j++) {
        const v = rows[i][j];
        const text = fmt(v, digits);
        const aria = cellText(i, j, text);
        const c = Number.isNaN(v) ? null : colour(v, scale);
        const was = shown[i][j];
        if (Object.is(was.v, v) && was.aria === aria && was.bg === c?.bg) continue;
        shown[i][j] = { v, text, aria, bg: c?.bg };
        updateCell(tr.cells[j + 1], was, shown[i][j], c, compact);
      }
      if (opts.rowMarks) {
        const mark = tr.cells[rows[i].length + 1], text = opts.rowMarks[i] ?? '';
        if (mark.textContent !== text) mark.textContent = text;
        markValue(mark, opts, i);
      }
    }
  }

  function build(rows, opts, scale) {
    const colName = (j) => opts.colLabels?.[j] ?? String(j), rowName = (i) => opts.rowLabels?.[i] ?? String(i);
    // header cells say something or are plain cells: the corner is 't \\ j' on an attention map
    const head = h('tr', {}, axes() ? h('th.corner', { scope: 'col' }, 't \\ j') : h('td'),
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
          return h('td.nan', { 'aria-label': aria }, 'NaN');
        }
        const c = colour(v, scale);
        shown[i][j] = { v, text, aria, bg: c.bg };
        return h('td', { style: `background:${c.bg};color:${c.fg}`, 'aria-label': aria, 'data-value': String(v) }, compact ? '' : text);
      }),
      opts.rowMarks ? markValue(h('td.rowmark', {}, opts.rowMarks[i] ?? ''), opts, i) : null));
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, body));
  }

  return {
    /** rows: number[][]; opts as heatmap's set(); scale: {signed, max} */
    fill(rows, opts, scale) {
      const key = JSON.stringify([rows.length, rows[0].length, opts.rowLabels, opts.colLabels, !!opts.rowMarks, opts.rowMarksLabel,
        opts.highlightCols ? [...opts.highlightCols] : null]);
      if (key === layoutKey && table.tBodies.length) { update(rows, opts, scale); return; }
      layoutKey = key;
      build(rows, opts, scale);
    },
    /** The cells' labels change (the map's label or axes): the next fill() builds anew. */
    relayout() { layoutKey = null; },
    clear() {
      layoutKey = null;
      shown = [];
      table.replaceChildren();
    },
  };
}
