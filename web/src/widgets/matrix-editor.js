// An editable matrix of numbers. Every keystroke is parsed; a cell that is empty, not a number
// or not finite is marked (aria-invalid), explained in words, and nothing is reported upward,
// so the page keeps its last valid result. Valid edits call onChange(rows) at once.
// Keyboard: arrows move between cells (left/right at the ends of the text), Enter moves down.
import { h, nextId, messageLine, setText, keyboardScrollable } from './dom.js';
import { shapeText } from '../format.js';
import { axesNote } from './axes.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Parse one cell's text: {value} or {error: 'empty' | 'nan' | 'inf'}. */
export function parseCell(text) {
  const s = text.trim().replace(/^−/, '-');
  if (s === '') return { error: 'empty' };
  if (!NUMBER.test(s)) return { error: 'nan' };
  const v = Number(s);
  return Number.isFinite(v) ? { value: v } : { error: 'inf' };
}

// The keyboard between cells: the arrows (left and right at the ends of the text), Enter down.
function navigation(table) {
  const move = (input, di, dj) => {
    const i = Number(input.dataset.row) + di, j = Number(input.dataset.col) + dj;
    const target = table.querySelector(`input[data-row="${i}"][data-col="${j}"]`);
    if (target) { target.focus(); target.select(); return true; }
    return false;
  };
  return (e) => {
    const input = e.target;
    const atStart = input.selectionStart === 0 && input.selectionEnd === 0;
    const atEnd = input.selectionStart === input.value.length;
    if (e.key === 'ArrowUp' && move(input, -1, 0)) e.preventDefault();
    else if ((e.key === 'ArrowDown' || e.key === 'Enter') && move(input, 1, 0)) e.preventDefault();
    else if (e.key === 'ArrowLeft' && atStart && move(input, 0, -1)) e.preventDefault();
    else if (e.key === 'ArrowRight' && atEnd && move(input, 0, 1)) e.preventDefault();
  };
}

// Every cell's text read into a copy of rows: {next, errors: [{i, j, kind, text}]}; a cell that is
// not a number is marked aria-invalid and described by the message line (describedBy, its id).
function readCells(inputs, rows, describedBy) {
  const errors = [];
  const next = rows.map((r) => r.slice());
  for (const input of inputs) {
    const i = Number(input.dataset.row), j = Number(input.dataset.col);
    const r = parseCell(input.value);
    if (r.error) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', describedBy);
      errors.push({ i, j, kind: r.error, text: input.value.trim() });
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
      next[i][j] = r.value;
    }
  }
  return { next, errors };
}

// The buttons that add and remove rows ({rows}) and columns ({cols}); resize(dRows, dCols) makes a button's handler.
function resizeButtons(t, { rows, cols }, resize) {
  const button = (dr, dc, act, key) => h('button', { type: 'button', onclick: resize(dr, dc), 'data-act': act }, t(key));
  return [...(rows ? [button(1, 0, 'add-row', 'addRow'), button(-1, 0, 'remove-row', 'removeRow')] : []),
    ...(cols ? [button(0, 1, 'add-col', 'addCol'), button(0, -1, 'remove-col', 'removeCol')] : [])];
}

/** axes: 'past', 'self' or 'cross' when the matrix is attention-shaped (scores): rows receive, columns give */
export function matrixEditor({ t, label, names, onChange, minRows = 1, maxRows = 12, minCols = 1, maxCols = 12,
  resizeRows = true, resizeCols = true, axes = null, name, id = nextId('m') }) {
  let rows = [[0]];
  const table = h('table.matrix.editable', { role: 'grid', 'aria-label': label });
  const badge = h('span.shape-badge');
  const message = messageLine(() => [table], 'p');   // a bad cell, or a core error about this matrix
  const resize = (dr, dc) => () => {
    const r = Math.min(maxRows, Math.max(minRows, rows.length + dr));
    const c = Math.min(maxCols, Math.max(minCols, rows[0].length + dc));
    const next = Array.from({ length: r }, (_, i) => Array.from({ length: c }, (_, j) => rows[i]?.[j] ?? 0));
    set(next);
    onChange(next);
  };
  const buttons = resizeButtons(t, { rows: resizeRows, cols: resizeCols }, resize);
  const axesLine = axesNote(t);
  axesLine.set(axes);
  const el = h('figure.tensor.editor', { id, 'data-name': name },
    h('figcaption', {}, h('span.tensor-label', {}, label), ' ', badge), axesLine.el,
    keyboardScrollable(h('div.scroll', {}, table)),
    buttons.length ? h('div.resize', {}, buttons) : null,
    message.el);

  const inputs = () => [...table.querySelectorAll('input')];

  function validate() {
    const { next, errors } = readCells(inputs(), rows, message.el.id);
    if (errors.length) {
      const e = errors[0];
      const key = e.kind === 'empty' ? 'cellEmpty' : e.kind === 'nan' ? 'cellNaN' : 'cellInf';
      // rows and columns counted from 0, as the tables label them
      invalid(t.sentences(t(key, { row: e.i, col: e.j, text: e.text.slice(0, 40) }), t('cellKeep')));
      return;
    }
    invalid(null);
    rows = next;
    onChange(next.map((r) => r.slice()));
  }

  const onKey = navigation(table);

  function build() {
    table.replaceChildren(...rows.map((r, i) => h('tr', {}, r.map((v, j) => h('td', {},
      h('input', {
        type: 'text', inputmode: 'decimal', spellcheck: 'false', autocomplete: 'off', value: String(v),
        'data-row': i, 'data-col': j, 'aria-label': `${label} ${t('row')} ${i + 1} ${t('col')} ${j + 1}`,
        oninput: validate, onkeydown: onKey,
      }))))));
  }

  /** Show these rows (from state); opts.names renames the axes in the badge (e.g. (d, C) for a transposed view).
   * Cells the user is typing in are left alone if they hold the same value. */
  function set(next, opts = {}) {
    const reshape = next.length !== rows.length || next[0].length !== rows[0].length || !table.firstChild;
    rows = next.map((r) => r.slice());
    if (reshape) build();
    else for (const input of inputs()) {
      const v = rows[input.dataset.row][input.dataset.col];
      const typed = parseCell(input.value);
      if (typed.value !== v) input.value = String(v);
      input.removeAttribute('aria-invalid');
    }
    invalid(null);
    setText(badge, shapeText(opts.names ?? names, [rows.length, rows[0].length]));
  }

  /** Explain what is wrong with this matrix beside it (null: nothing). */
  function invalid(text) {
    message.show(text);
    el.classList.toggle('invalid', !!text);
  }

  /** The cell of row i, column j (null outside): for provenance to outline. */
  const cell = (i, j) => (i >= 0 && j >= 0 ? table.rows[i]?.cells[j] ?? null : null);

  return { el, set, invalid, cell, get: () => rows.map((r) => r.slice()) };
}
