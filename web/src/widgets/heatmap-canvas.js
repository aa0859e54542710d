// The heatmap drawn on a canvas (widgets/heatmap.js), for a map of more cells than its table
// shows: one pixel per cell scaled up, the highlighted rows framed, provenance's outlines, and a
// cell cursor for the keyboard. The pointer, a tap or the arrow keys (Home/End: a row's ends) pick
// a cell for readout(i, j).
import { h, setAttr } from './dom.js';
import { colour, NAN_RGB } from './heatmap-colours.js';

// Provenance's outlines (widgets/provenance.js), shape and number, not colour alone: the pointed
// cell a black-and-white double frame, each input a frame in its term's colour with a white rim,
// masked ones dashed, the term's number when the cell is large enough.
function drawOutlines(g, outlines, { w, h: ht }, R, C) {
  for (const o of outlines) {
    if (o.i >= R || o.j >= C) continue;
    const x = o.j * w, y = o.i * ht;
    const rims = o.kind === 'target' ? [['#000', 4], ['#fff', 2]] : [['#fff', 4], [o.colour, 2]];
    for (const [style, width] of rims) {
      g.strokeStyle = style;
      g.lineWidth = width;
      g.setLineDash(o.kind === 'masked' && style !== '#fff' ? [2, 2] : []);
      g.strokeRect(x + 1, y + 1, w - 2, ht - 2);
    }
    g.setLineDash([]);
    if (o.term !== undefined && Math.min(w, ht) >= 10) {
      g.fillStyle = o.colour;
      g.fillRect(x + w - 7, y, 7, 7);
      g.fillStyle = '#fff';
      g.font = '700 6px monospace';
      g.fillText(String(o.term).slice(-1), x + w - 6, y + 6);
    }
  }
}

// one pixel per cell in an image, then scaled up without smoothing: a few times quicker than a
// fillRect per cell at T = 64 (docs/performance.md)
function paintCells(canvas, small1, rows, scale, cell) {   // cell: {w, h} in pixels
  const R = rows.length, C = rows[0].length;
  const pixels = new ImageData(C, R);
  for (let i = 0, p = 0; i < R; i++) {
    const row = rows[i];
    for (let j = 0; j < C; j++, p += 4) {
      const v = row[j];
      const rgb = Number.isNaN(v) ? NAN_RGB : colour(v, scale).rgb;
      pixels.data[p] = rgb[0]; pixels.data[p + 1] = rgb[1]; pixels.data[p + 2] = rgb[2]; pixels.data[p + 3] = 255;
    }
  }
  small1.width = C;
  small1.height = R;
  small1.getContext('2d').putImageData(pixels, 0, 0);
  const g = canvas.getContext('2d');
  g.imageSmoothingEnabled = false;
  g.drawImage(small1, 0, 0, C * cell.w, R * cell.h);
  return g;
}

/** t: the page's words; label(): the map's label; current(): the last set() ({rows, opts, scale}) or null. */
export function heatCanvas({ t, label, current, readout }) {
  const canvas = h('canvas.heatmap-canvas', { role: 'img', tabindex: 0 });
  let small1 = null;    // the one-pixel-per-cell picture
  let cursor = null;    // [i, j] while the canvas has focus
  let outlines = [];    // [{i, j, kind: 'target' | 'in' | 'masked', term?, colour?}]

  /** Draw the last set(): opts.highlightRows framed, the outlines, the cursor. */
  function draw() {
    const { rows, opts, scale } = current();
    const R = rows.length, C = rows[0].length;
    // square cells that fit 512 px, 3 to 12 px a side; a map with fewer columns than rows gets
    // cells as wide as fit 512 px across, up to 32 px (a 64 × 2 strip: 32 × 8 px), so that a
    // narrow map is still a target for the pointer
    const side = Math.max(3, Math.min(12, Math.floor(512 / Math.max(R, C))));
    const cell = { w: C < R ? Math.max(side, Math.min(32, Math.floor(512 / C))) : side, h: side };
    if (canvas.width !== C * cell.w) canvas.width = C * cell.w;
    if (canvas.height !== R * cell.h) canvas.height = R * cell.h;
    if (!small1) small1 = document.createElement('canvas');
    const g = paintCells(canvas, small1, rows, scale, cell);
    if (opts.highlightRows?.size) {
      g.strokeStyle = '#e36209';
      g.lineWidth = 2;
      for (const i of opts.highlightRows) g.strokeRect(1, i * cell.h + 1, C * cell.w - 2, cell.h - 2);
    }
    drawOutlines(g, outlines, cell, R, C);
    if (cursor && cursor[0] < R && cursor[1] < C) {   // black and white, visible on every colour
      for (const [style, width] of [['#000', 3], ['#fff', 1]]) {
        g.strokeStyle = style;
        g.lineWidth = width;
        g.strokeRect(cursor[1] * cell.w - 1, cursor[0] * cell.h - 1, cell.w + 2, cell.h + 2);
      }
    }
    setAttr(canvas, 'aria-label', t('canvasLabel', { label: label(), rows: R, cols: C, asTable: t('asTable') }));
  }

  const cellAt = (e) => {
    const r = canvas.getBoundingClientRect(), rows = current().rows;
    const j = Math.floor(((e.clientX - r.left) / r.width) * rows[0].length), i = Math.floor(((e.clientY - r.top) / r.height) * rows.length);
    return rows[i]?.[j] === undefined ? null : [i, j];
  };
  const onPointer = (e) => {
    const c = current() && cellAt(e);
    if (c) readout(...c);
  };
  canvas.addEventListener('mousemove', onPointer);
  canvas.addEventListener('click', onPointer);   // a tap
  canvas.addEventListener('keydown', (e) => {
    if (!current()) return;
    const R = current().rows.length, C = current().rows[0].length;
    const [i, j] = cursor ?? [0, 0];
    const to = { ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1], Home: [i, 0], End: [i, C - 1] }[e.key];
    if (!to) return;
    e.preventDefault();
    cursor = cursor ? [Math.min(R - 1, Math.max(0, to[0])), Math.min(C - 1, Math.max(0, to[1]))] : [0, 0];
    readout(...cursor);
    draw();
  });
  canvas.addEventListener('blur', () => { if (cursor) { cursor = null; draw(); } });

  return {
    canvas,
    draw,
    /** The keyboard cursor on cell (i, j), the canvas focused (not scrolled) and the cell read out. */
    focusAt(i, j) {
      cursor = [i, j];
      canvas.focus({ preventScroll: true });
      readout(i, j);
      draw();
    },
    /** Provenance's marks, also listed in data-prov-cells ("i,j,kind,term;...") for tests; drawn at the next draw(). */
    outline(list) {
      outlines = list;
      if (list.length) canvas.dataset.provCells = list.map((o) => [o.i, o.j, o.kind, o.term ?? ''].join(',')).join(';');
      else delete canvas.dataset.provCells;
    },
  };
}
