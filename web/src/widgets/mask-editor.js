// A boolean (Tq, Tk) mask as a grid of toggle buttons: pressed = allowed (1), not = masked (0).
// Keyboard: Tab reaches the grid, arrows move, Space/Enter toggles.
import { h, messageLine, keyboardScrollable } from './dom.js';
import { shapeText } from '../format.js';
import { axesNote } from './axes.js';

export function maskEditor({ t, label, name, onChange }) {
  let rows = [[1]];
  const grid = h('table.matrix.mask', { role: 'grid', 'aria-label': label });
  const badge = h('span.shape-badge');
  const axesLine = axesNote(t);
  axesLine.set('self');   // a mask says which source j each receiver t may see
  const message = messageLine(() => [grid], 'p');
  const el = h('figure.tensor.mask-editor', { 'data-name': name }, h('figcaption', {}, h('span.tensor-label', {}, label), ' ', badge),
    axesLine.el, keyboardScrollable(h('div.scroll', {}, grid)), message.el);

  // a button's name starts with what it shows (1 or 0), then which cell it is
  const buttonLabel = (i, j, v) => `${v ? 1 : 0}: ${label} ${t('row')} ${i} ${t('col')} ${j}`;
  const focusAt = (i, j) => grid.querySelector(`button[data-row="${i}"][data-col="${j}"]`)?.focus();
  function build() {
    grid.replaceChildren(...rows.map((r, i) => h('tr', {}, r.map((v, j) => h('td', {}, h('button', {
      type: 'button', 'data-row': i, 'data-col': j, 'aria-pressed': v ? 'true' : 'false',
      'aria-label': buttonLabel(i, j, v),
      onclick: () => {
        const next = rows.map((rr) => rr.slice());
        next[i][j] = next[i][j] ? 0 : 1;
        onChange(next);
      },
      onkeydown: (e) => {
        const d = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
        if (d) { e.preventDefault(); focusAt(i + d[0], j + d[1]); }
      },
    }, v ? '1' : '0'))))));
  }
  return {
    el,
    set(next) {
      const same = next.length === rows.length && next[0].length === rows[0].length && grid.firstChild;
      rows = next.map((r) => r.slice());
      if (!same) build();
      else for (const b of grid.querySelectorAll('button')) {
        const v = rows[b.dataset.row][b.dataset.col];
        b.setAttribute('aria-pressed', v ? 'true' : 'false');
        b.setAttribute('aria-label', buttonLabel(b.dataset.row, b.dataset.col, v));
        b.textContent = v ? '1' : '0';
      }
      badge.textContent = shapeText(['T', 'T'], [rows.length, rows[0].length]);
    },
    invalid: message.show,
    /** The cell of row i, column j (null outside): for provenance to outline. */
    cell: (i, j) => (i >= 0 && j >= 0 ? grid.rows[i]?.cells[j] ?? null : null),
  };
}
