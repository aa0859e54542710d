// SVG charts (line and bar) with the data also available as a table. Series are told apart by
// dash pattern and marker shape as well as colour (Okabe-Ito palette, colour-blind safe).
//
// A chart is drawn at its container's width in CSS pixels (one SVG unit is one CSS pixel, redrawn
// when the container resizes), so its text keeps its size on a phone instead of shrinking with a
// scaled picture. The legend is HTML above the plot, never on the curves. Redrawing reuses the
// SVG nodes and builds the data table only while it is open: a chart updated many times a second
// keeps a fixed number of nodes. The SVG is an image named by the chart's label; its numbers are
// in the table, captioned with the same label (the chart's text alternative).
import { h, nextId } from './dom.js';
import { fmt } from '../format.js';
import { exportMenu, svgEl, FONT } from './export-menu.js';

const NS = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const DASHES = { solid: '', dashed: '7 4', dotted: '1.5 3.5' };
const DASH_ORDER = ['solid', 'dashed', 'dotted'];
const SHAPES = ['circle', 'square', 'triangle', 'diamond'];
const MAX_MARKERS = 8;    // markers on a long series, spread along its length
const EVERY_MARKER = 16;  // a series of up to this many points has a marker at each (one per row of its table)
const TICK_CHAR = 7.2;    // CSS px per character of a 12 px tick label, a little over a digit's width
/** The left margin that keeps the y tick labels (right-aligned at margin − 6) clear of the rotated
 * axis title at x = titleX (12 px text: about 4 px right of it), at least `min`. */
const leftMargin = (labels, titleX, min) => Math.max(min, Math.ceil(titleX + 4 + 8 + 6 + TICK_CHAR * Math.max(0, ...labels.map((l) => l.length))));
/** A tick of a log axis: its decade as a plain number (100, 1, 0.01). */
const decade = (v) => String(Number(v.toPrecision(1)));
const FALLBACK_WIDTH = 460;   // before the chart is laid out (or when it is hidden)

const s = (tag, attrs = {}) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
};
const setAttrs = (el, attrs) => { for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v)); return el; };

/** Exactly n children of `group` made by make(i), reusing the ones already there. */
function pool(group, n, make) {
  while (group.childElementCount > n) group.lastElementChild.remove();
  while (group.childElementCount < n) group.append(make(group.childElementCount));
  return [...group.children];
}

function markerPath(shape, x, y, r) {
  switch (shape) {
    case 'square': return `M${x - r},${y - r}h${2 * r}v${2 * r}h${-2 * r}z`;
    case 'triangle': return `M${x},${y - r * 1.2}L${x + r * 1.1},${y + r * 0.8}L${x - r * 1.1},${y + r * 0.8}z`;
    case 'diamond': return `M${x},${y - r * 1.3}L${x + r * 1.3},${y}L${x},${y + r * 1.3}L${x - r * 1.3},${y}z`;
    default: return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

function axisScale(values, log, zero) {
  const f = log ? Math.log10 : (v) => v;
  const vs = values.filter(Number.isFinite).map(f);
  let lo = Math.min(...vs), hi = Math.max(...vs);
  if (!vs.length) { lo = 0; hi = 1; }
  if (!log && zero) lo = Math.min(0, lo);
  if (hi === lo) { hi = lo + 1; lo -= log || zero ? 0 : 1; }
  if (!log && !zero) { const pad = (hi - lo) * 0.06; lo -= pad; hi += pad; }
  return { f, lo, hi };
}

/** Round tick values inside [lo, hi], about `count` of them (on a log axis: the decades; whole numbers if `whole`). */
function ticks({ lo, hi }, log, count, whole = false) {
  if (log) {
    const out = [];
    for (let e = Math.ceil(lo - 1e-9); e <= Math.floor(hi + 1e-9); e++) out.push(10 ** e);
    return out;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(whole ? 1 : 0, [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) ?? 10 * mag);
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

// Presentation attributes an exported SVG needs inline (the page gives them by class).
const INLINE = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'font-size', 'font-weight', 'paint-order'];

/** The chart as a standalone SVG: title, the legend drawn in SVG, then the plot with its styles inline. */
function standalone(svg, label, items, width, height) {
  const legendRows = Math.ceil(items.length / 2);
  const top = 30 + legendRows * 20;
  const out = svgEl('svg', { xmlns: NS, width, height: height + top, viewBox: `0 0 ${width} ${height + top}`, 'font-family': FONT });
  out.append(svgEl('rect', { width, height: height + top, fill: '#fff' }), svgEl('text', { x: 4, y: 18, 'font-size': 14, 'font-weight': 600, fill: '#1b1f24' }, label));
  items.forEach((it, k) => {
    const x = 4 + (k % 2) * (width / 2), y = 28 + Math.floor(k / 2) * 20;
    const sw = it.swatch();
    setAttrs(sw, { x, y });
    sw.removeAttribute('class');
    out.append(sw, svgEl('text', { x: x + 40, y: y + 11, 'font-size': 12, fill: '#1b1f24' }, it.name));
  });
  const plot = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')], to = [plot, ...plot.querySelectorAll('*')];
  from.forEach((src, i) => {
    const cs = getComputedStyle(src);
    for (const p of INLINE) if (!to[i].hasAttribute(p) && cs.getPropertyValue(p)) to[i].setAttribute(p, cs.getPropertyValue(p));
  });
  for (const a of ['class', 'role', 'aria-label', 'preserveAspectRatio']) plot.removeAttribute(a);
  setAttrs(plot, { x: 0, y: top, width, height });
  out.append(plot);
  return out;
}

/** The figure shared by both charts: caption with the export menu, HTML legend, the SVG, the data table on request.
 * csv(data) -> rows for the CSV export. */
function frame(label, name, height, id, draw, { t, csv }) {
  // the plot's box has its proportions before the first data (an empty chart takes the place of a drawn one)
  const svg = s('svg', { role: 'img', 'aria-label': label, class: 'chart', preserveAspectRatio: 'xMinYMin meet', viewBox: `0 0 ${FALLBACK_WIDTH} ${height}` });
  const legend = h('ul.chart-legend');
  const details = h('details.chart-data', { hidden: true });   // shown with the first data
  const note = h('p.chart-note', { hidden: true });
  let lastItems = [];
  const menu = exportMenu({ t, label: () => label, name: () => name ?? id, ready: () => !!last,
    svg: () => standalone(svg, label, lastItems, width || FALLBACK_WIDTH, height), csv: () => csv(last) });
  const el = h('figure.chart-figure', { id, 'data-name': name }, h('figcaption', {}, label), menu.el, legend, svg, note, details);
  // The width comes from a ResizeObserver (read once by hand for the first drawing): a redraw
  // never forces a layout of the page.
  let width = 0, last = null, legendKey = null, tableFill = null;
  const render = () => {
    width ||= Math.round(el.clientWidth) || FALLBACK_WIDTH;
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    draw(svg, width, height, last);
  };
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(([entry]) => {
      const w = Math.round(entry.contentRect.width);
      if (w > 0 && w !== width) { width = w; if (last) render(); }
    }).observe(el);
  }
  details.addEventListener('toggle', () => { if (details.open && tableFill) tableFill(); });
  return {
    el, svg,
    /** Draw `data`; `items` [{name, swatch}] for the legend; `table()` builds the data table's rows. */
    update(data, items, summary, table) {
      last = data;
      lastItems = items;
      const key = JSON.stringify(items.map((i) => [i.name, i.key]));
      if (key !== legendKey) {
        legendKey = key;
        legend.replaceChildren(...items.map((i) => h('li', {}, i.swatch(), ' ', i.name)));
      }
      render();
      tableFill = () => {
        const tb = table();
        tb.prepend(h('caption.visually-hidden', {}, label));
        details.replaceChildren(h('summary', {}, summary), tb);
      };
      details.hidden = false;
      if (details.open) tableFill();
      else if (!details.firstChild) details.replaceChildren(h('summary', {}, summary));
    },
    /** A sentence under the plot saying what it will show (before there is data), or null. */
    note(text) {
      note.hidden = !text;
      note.textContent = text ?? '';
    },
  };
}

function swatch(colour, dash, shape, fillOpacity = 1) {
  return () => {
    const sw = s('svg', { class: 'swatch', width: 34, height: 14, viewBox: '0 0 34 14', 'aria-hidden': 'true' });
    if (dash !== null) sw.append(s('line', { x1: 1, x2: 33, y1: 7, y2: 7, stroke: colour, 'stroke-width': 2.5, 'stroke-dasharray': DASHES[dash] }));
    if (shape) sw.append(s('path', { d: markerPath(shape, 17, 7, 4), fill: colour, 'fill-opacity': fillOpacity, stroke: colour }));
    return sw;
  };
}

/** A data-table cell: the number rounded, and exact in data-value (for whoever needs the digits). */
const cell = (v) => h('td', { 'data-value': String(v) }, fmt(v, 4));

// The line chart's plot for one drawing: margins m, the x values, both scales and px(x), py(y).
function lineGeometry(width, height, d) {
  const m = { l: 52, r: 14, t: 10, b: 40 };
  const xs = d.series.flatMap((se) => se.points.map((p) => p[0]));
  const ys = d.series.flatMap((se) => se.points.map((p) => p[1])).concat((d.hlines ?? []).map((l) => l.y));
  const X = axisScale(xs, d.xLog, true), Y = axisScale(ys, d.yLog, d.yZero ?? true);
  const yt = ticks(Y, d.yLog, Math.max(2, Math.floor((height - m.t - m.b) / 36)));
  const yText = yt.map((tv) => (d.yLog ? decade(tv) : fmt(tv, 2)));
  m.l = leftMargin(yText, 14, m.l);
  const px = (v) => m.l + ((X.f(v) - X.lo) / (X.hi - X.lo)) * (width - m.l - m.r);
  const py = (v) => height - m.b - ((Y.f(v) - Y.lo) / (Y.hi - Y.lo)) * (height - m.t - m.b);
  return { width, height, m, xs, X, Y, px, py, yt, yText };
}

// the grid, the ticks, both axes and their names
function drawLineAxes(parts, { width, height, m, xs, X, px, py, yt, yText }, d) {
  // x ticks on a log axis: the data's own x values (powers of two read better than decades), thinned to fit
  let xt = d.xLog ? [...new Set(xs)].sort((a, b) => a - b) : ticks(X, false, Math.max(2, Math.floor((width - m.l - m.r) / 70)), xs.every(Number.isInteger));
  if (d.xLog) { const every = Math.ceil(xt.length / Math.max(2, Math.floor((width - m.l - m.r) / 44))); xt = xt.filter((_, i) => i % every === 0); }
  const gridLines = pool(parts.grid, yt.length, () => s('line', { class: 'grid' }));
  const yLabels = pool(parts.yTicks, yt.length, () => s('text', { class: 'tick', 'text-anchor': 'end' }));
  const xLabels = pool(parts.xTicks, xt.length, () => s('text', { class: 'tick', 'text-anchor': 'middle' }));
  yt.forEach((tv, i) => {
    setAttrs(gridLines[i], { x1: m.l, x2: width - m.r, y1: py(tv), y2: py(tv) });
    setAttrs(yLabels[i], { x: m.l - 6, y: py(tv) + 4 }).textContent = yText[i];
  });
  xt.forEach((tv, i) => { setAttrs(xLabels[i], { x: px(tv), y: height - m.b + 16 }).textContent = d.xLog ? String(tv) : fmt(tv, 0); });
  const [xAxis, yAxis, xName, yName] = pool(parts.axes, 4, (i) => (i < 2 ? s('line', { class: 'axis' }) : s('text', { class: 'axis-label', 'text-anchor': 'middle' })));
  setAttrs(xAxis, { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b });
  setAttrs(yAxis, { x1: m.l, x2: m.l, y1: m.t, y2: height - m.b });
  setAttrs(xName, { x: (width + m.l) / 2, y: height - 6 }).textContent = d.xLabel;
  setAttrs(yName, { x: 14, y: (height - m.b) / 2, transform: `rotate(-90 14 ${(height - m.b) / 2})` }).textContent = d.yLabel;
}

// the reference levels across the plot, then each series' line and its markers
function drawLines(parts, { width, m, px, py }, d, styleOf) {
  const hl = d.hlines ?? [];
  pool(parts.hlines, hl.length, () => s('line', { 'stroke-width': 2 })).forEach((line, i) => {
    const st = styleOf(hl[i], d.series.length + i);
    setAttrs(line, { x1: m.l, x2: width - m.r, y1: py(hl[i].y), y2: py(hl[i].y), stroke: st.colour, 'stroke-dasharray': DASHES[st.dash] });
  });
  const lines = pool(parts.series, d.series.length, () => s('polyline', { fill: 'none', 'stroke-width': 2 }));
  const markerGroups = pool(parts.markers, d.series.length, () => s('path', { 'stroke-width': 1 }));
  d.series.forEach((se, k) => {
    const st = styleOf(se, k);
    setAttrs(lines[k], { points: se.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' '), stroke: st.colour,
      'stroke-dasharray': DASHES[st.dash] });
    const n = se.points.length;
    const pick = n <= EVERY_MARKER ? se.points : Array.from({ length: MAX_MARKERS }, (_, i) => se.points[Math.round((i * (n - 1)) / (MAX_MARKERS - 1))]);
    setAttrs(markerGroups[k], { d: pick.map(([x, y]) => markerPath(st.shape, px(x), py(y), 3.5)).join(''), fill: st.colour, stroke: st.colour });
  });
}

// the ringed points, each with its label
function drawMarks(parts, { width, height, m, px, py }, d) {
  const marks = d.marks ?? [];
  const markEls = pool(parts.marks, marks.length, () => {
    const g = s('g', { class: 'mark' });
    g.append(s('circle', { r: 7, fill: 'none', 'stroke-width': 2.5 }), s('line', { class: 'mark-leader', 'stroke-width': 1, 'stroke-dasharray': '2 3' }),
      s('text', { class: 'mark-label' }));
    return g;
  });
  marks.forEach((mk, i) => {
    const [ring, leader, text] = markEls[i].children;
    const x = px(mk.x), y = py(mk.y), colour = COLOURS[(mk.series ?? 0) % COLOURS.length];
    setAttrs(ring, { cx: x, cy: y, stroke: colour });
    // the label sits on the side with room: left of a point in the right half; under a point in the
    // upper half, and for a point in the lower half (where curves that fall towards it run, as a
    // loss does towards its best point) at the top of the plot, joined to its ring by a dotted line
    const upper = y < m.t + (height - m.t - m.b) / 2;
    const ty = upper ? y + 22 : m.t + 12;
    setAttrs(leader, upper ? { x1: x, y1: y, x2: x, y2: y, stroke: 'none' } : { x1: x, y1: ty + 4, x2: x, y2: y - 8, stroke: colour });
    setAttrs(text, { x: x > width / 2 ? x - 10 : x + 10, y: ty, 'text-anchor': x > width / 2 ? 'end' : 'start' }).textContent = mk.label;
  });
}

/**
 * Line chart: set({series: [{name, points: [[x, y]], dash?: 'solid'|'dashed'|'dotted'}],
 *   hlines?: [{name, y, dash?}], marks?: [{x, y, label, series}], xLabel, yLabel, xLog, yLog, yZero = true, tableLabel}).
 * `hlines` are reference levels across the whole plot (a baseline); `marks` ring single points
 * (for example the best validation loss) and label them.
 */
export function lineChart({ t, label, name, height = 260, id = nextId('chart') }) {
  const parts = {};
  const groups = ['grid', 'yTicks', 'xTicks', 'axes', 'hlines', 'series', 'markers', 'marks'];
  // CSV: one row per x, one column per series (empty where a series has no point), then the reference levels
  const csv = (d) => {
    const hl = d.hlines ?? [];
    const xs = [...new Set(d.series.flatMap((se) => se.points.map((p) => p[0])))].sort((a, b) => a - b);
    const byX = d.series.map((se) => new Map(se.points.map(([x, y]) => [x, y])));
    return [[d.xLabel, ...d.series.map((se) => se.name), ...hl.map((l) => l.name)],
      ...xs.map((x) => [x, ...byX.map((m) => (m.has(x) ? m.get(x) : '')), ...hl.map((l) => l.y)])];
  };
  const f = frame(label, name, height, id, draw, { t, csv });
  for (const g of groups) f.svg.append(parts[g] = s('g', { class: `chart-${g}` }));
  const styleOf = (se, k) => ({ colour: COLOURS[k % COLOURS.length], dash: se.dash ?? DASH_ORDER[k % DASH_ORDER.length], shape: SHAPES[k % SHAPES.length] });

  function draw(svg, width, height, d) {
    if (!d) return;
    const g = lineGeometry(width, height, d);
    drawLineAxes(parts, g, d);
    drawLines(parts, g, d, styleOf);
    drawMarks(parts, g, d);
  }

  function set(d) {
    const hl = d.hlines ?? [];
    const items = [...d.series, ...hl].map((se, k) => {
      const st = styleOf(se, k);
      return { name: se.name, key: st.dash, swatch: swatch(st.colour, st.dash, k < d.series.length ? st.shape : null) };
    });
    // the data table shows the CSV's rows, rounded
    f.update(d, items, d.tableLabel ?? 'data', () => {
      const [head, ...body] = csv(d);
      return h('table.matrix', {},
        h('thead', {}, h('tr', {}, head.map((name) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, body.map(([x, ...ys]) => h('tr', {}, h('th', { scope: 'row' }, String(x)), ys.map((y) => (y === '' ? h('td') : cell(y)))))));
    });
  }
  return { el: f.el, set, note: f.note };
}

/** Grouped bar chart: set({labels, series: [{name, values}], yLabel, max}) */
export function barChart({ t, label, name, height = 220, id = nextId('bars') }) {
  // CSV: one row per category, one column per series
  const csv = (d) => [['', ...d.series.map((se) => se.name)], ...d.labels.map((lb, i) => [lb, ...d.series.map((se) => se.values[i])])];
  const f = frame(label, name, height, id, draw, { t, csv });
  const styleOf = (k) => ({ colour: COLOURS[k % COLOURS.length], hollow: k % 2 === 1 });

  function draw(svg, width, height, d) {
    if (!d) return;
    const m = { l: 44, r: 8, t: 10, b: 28 };
    const yt = [0, 0.25, 0.5, 0.75, 1].map((q) => q * (d.max ?? 1));
    m.l = leftMargin(yt.map((tv) => fmt(tv, 2)), 12, m.l);
    const kids = [];
    const gw = (width - m.l - m.r) / d.labels.length;
    const bw = (gw * 0.8) / d.series.length;
    const max = d.max ?? 1;
    const py = (v) => height - m.b - (v / max) * (height - m.t - m.b);
    for (const tv of yt) {
      kids.push(s('line', { x1: m.l, x2: width - m.r, y1: py(tv), y2: py(tv), class: 'grid' }),
        s('text', { x: m.l - 6, y: py(tv) + 4, 'text-anchor': 'end', class: 'tick' }));
      kids.at(-1).textContent = fmt(tv, 2);
    }
    d.series.forEach((se, k) => {
      const st = styleOf(k);
      se.values.forEach((v, i) => {
        const x = m.l + i * gw + gw * 0.1 + k * bw;
        kids.push(s('rect', { x, y: py(v), width: Math.max(1, bw - 2), height: Math.max(0, height - m.b - py(v)), fill: st.colour,
          ...(st.hollow ? { 'fill-opacity': 0.55, stroke: st.colour, 'stroke-width': 1.5 } : {}) }));
      });
    });
    // category labels: every one if they fit, else every other (the table has them all)
    const every = gw >= 16 ? 1 : Math.ceil(16 / gw);
    d.labels.forEach((lb, i) => {
      if (i % every) return;
      const t = s('text', { x: m.l + (i + 0.5) * gw, y: height - m.b + 16, 'text-anchor': 'middle', class: 'tick' });
      t.textContent = lb;
      kids.push(t);
    });
    const yName = s('text', { x: 12, y: (height - m.b) / 2, transform: `rotate(-90 12 ${(height - m.b) / 2})`, 'text-anchor': 'middle', class: 'axis-label' });
    yName.textContent = d.yLabel;
    kids.push(s('line', { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b, class: 'axis' }), yName);
    svg.replaceChildren(...kids);
  }

  function set(d) {
    const items = d.series.map((se, k) => {
      const st = styleOf(k);
      return { name: se.name, key: k, swatch: swatch(st.colour, null, 'square', st.hollow ? 0.55 : 1) };
    });
    f.update(d, items, d.tableLabel ?? 'data', () => h('table.matrix', {},
      h('thead', {}, h('tr', {}, h('td'), d.labels.map((lb) => h('th', { scope: 'col' }, lb)))),
      h('tbody', {}, d.series.map((se) => h('tr', {}, h('th', { scope: 'row' }, se.name), se.values.map(cell))))));
  }
  return { el: f.el, set };
}
