// SVG charts (line and bar) with the data also available as a table. Series are told apart by
// dash pattern and marker shape as well as colour (Okabe-Ito palette, colour-blind safe). The SVG
// is an image named by the chart's label; its numbers are in a table (captioned with the same
// label) under a disclosure, built when it is opened and kept current while it is open.
import { h, nextId } from './dom.js';
import { fmt } from '../format.js';

const NS = 'http://www.w3.org/2000/svg';
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9'];
const DASHES = ['', '6 4', '2 3', '8 3 2 3'];
/** The disclosure under a chart: summary text, and a table built from the last data when open. */
function dataTable(label) {
  const summary = h('summary');
  const details = h('details.chart-data', { hidden: true }, summary);   // shown with the first data
  let build = null;
  const fill = () => { if (details.open && build) details.replaceChildren(summary, build()); };
  details.addEventListener('toggle', fill);
  return {
    el: details,
    /** text: the summary; rows() -> [thead row, ...tbody rows] of the table */
    set(text, rows) {
      summary.textContent = text;
      details.hidden = false;
      build = () => { const [head, ...body] = rows(); return h('table.matrix', {}, h('caption.visually-hidden', {}, label), h('thead', {}, head), h('tbody', {}, body)); };
      fill();
    },
  };
}

const s = (tag, attrs = {}, ...kids) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...kids);
  return el;
};

function axisScale(values, log) {
  const f = log ? Math.log10 : (v) => v;
  const vs = values.map(f);
  let lo = Math.min(...vs), hi = Math.max(...vs);
  if (!log) lo = Math.min(0, lo);
  if (hi === lo) hi = lo + 1;
  return { f, lo, hi };
}

function ticks({ lo, hi }, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++) out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 4 || 1));
  const n = Math.ceil((hi - lo) / step) > 8 ? step * 2 : step;
  const out = [];
  for (let v = Math.ceil(lo / n) * n; v <= hi + 1e-12; v += n) out.push(Number(v.toPrecision(6)));
  return out;
}

/** Line chart: set({series: [{name, points: [[x, y]]}], xLabel, yLabel, xLog, yLog}) */
export function lineChart({ label, name, width = 460, height = 260, id = nextId('chart') }) {
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'chart' });
  const table = dataTable(label);
  const el = h('figure.chart-figure', { id, 'data-name': name }, h('figcaption', {}, label), svg, table.el);
  const m = { l: 56, r: 12, t: 12, b: 40 };

  function set({ series, xLabel, yLabel, xLog = false, yLog = false, tableLabel = 'data' }) {
    const xs = series.flatMap((se) => se.points.map((p) => p[0]));
    const ys = series.flatMap((se) => se.points.map((p) => p[1]));
    const X = axisScale(xs, xLog), Y = axisScale(ys, yLog);
    const px = (v) => m.l + ((X.f(v) - X.lo) / (X.hi - X.lo)) * (width - m.l - m.r);
    const py = (v) => height - m.b - ((Y.f(v) - Y.lo) / (Y.hi - Y.lo)) * (height - m.t - m.b);
    const kids = [];
    for (const tv of ticks(Y, yLog)) {
      if (Y.f(tv) < Y.lo - 1e-9 || Y.f(tv) > Y.hi + 1e-9) continue;
      kids.push(s('line', { x1: m.l, x2: width - m.r, y1: py(tv), y2: py(tv), class: 'grid' }),
        s('text', { x: m.l - 6, y: py(tv) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(tv, 2)));
    }
    // x ticks: the data's own x values on a log axis (powers of two read better than decades)
    for (const tv of xLog ? [...new Set(xs)] : ticks(X, false)) {
      if (X.f(tv) < X.lo - 1e-9 || X.f(tv) > X.hi + 1e-9) continue;
      kids.push(s('text', { x: px(tv), y: height - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, xLog ? String(tv) : fmt(tv, 0)));
    }
    kids.push(s('line', { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b, class: 'axis' }),
      s('line', { x1: m.l, x2: m.l, y1: m.t, y2: height - m.b, class: 'axis' }),
      s('text', { x: (width + m.l) / 2, y: height - 6, 'text-anchor': 'middle', class: 'axis-label' }, xLabel),
      s('text', { x: 14, y: (height - m.b) / 2, transform: `rotate(-90 14 ${(height - m.b) / 2})`, 'text-anchor': 'middle', class: 'axis-label' }, yLabel));
    series.forEach((se, k) => {
      const c = COLOURS[k % COLOURS.length];
      kids.push(s('polyline', { points: se.points.map(([x, y]) => `${px(x)},${py(y)}`).join(' '), fill: 'none', stroke: c,
        'stroke-width': 2, 'stroke-dasharray': DASHES[k % DASHES.length] }));
      for (const [x, y] of se.points) {
        kids.push(k % 2 === 0 ? s('circle', { cx: px(x), cy: py(y), r: 3.5, fill: c })
          : s('rect', { x: px(x) - 3.5, y: py(y) - 3.5, width: 7, height: 7, fill: c }));
      }
      const ly = m.t + 14 + 16 * k;
      kids.push(s('line', { x1: m.l + 12, x2: m.l + 36, y1: ly, y2: ly, stroke: c, 'stroke-width': 2, 'stroke-dasharray': DASHES[k % DASHES.length] }),
        s('text', { x: m.l + 42, y: ly + 4, class: 'legend' }, se.name));
    });
    svg.replaceChildren(...kids);
    const xsSorted = [...new Set(xs)];
    table.set(tableLabel, () => [h('tr', {}, h('th', { scope: 'col' }, xLabel), series.map((se) => h('th', { scope: 'col' }, se.name))),
      ...xsSorted.map((x) => h('tr', {}, h('th', { scope: 'row' }, String(x)),
        series.map((se) => h('td', {}, fmt(se.points.find((p) => p[0] === x)?.[1] ?? NaN, 4)))))]);
  }
  return { el, set };
}

/** Grouped bar chart: set({labels, series: [{name, values}], yLabel, max}) */
export function barChart({ label, name, width = 460, height = 220, id = nextId('bars') }) {
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label, class: 'chart' });
  const table = dataTable(label);
  const el = h('figure.chart-figure', { id, 'data-name': name }, h('figcaption', {}, label), svg, table.el);
  const m = { l: 44, r: 8, t: 30, b: 28 };
  function set({ labels, series, yLabel, max = 1, tableLabel = 'data' }) {
    const kids = [];
    const gw = (width - m.l - m.r) / labels.length;
    const bw = (gw * 0.8) / series.length;
    const py = (v) => height - m.b - (v / max) * (height - m.t - m.b);
    for (const tv of [0, 0.25, 0.5, 0.75, 1].map((f) => f * max)) {
      kids.push(s('line', { x1: m.l, x2: width - m.r, y1: py(tv), y2: py(tv), class: 'grid' }),
        s('text', { x: m.l - 6, y: py(tv) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(tv, 2)));
    }
    series.forEach((se, k) => {
      const c = COLOURS[k % COLOURS.length];
      se.values.forEach((v, i) => {
        const x = m.l + i * gw + gw * 0.1 + k * bw;
        kids.push(s('rect', { x, y: py(v), width: bw - 2, height: Math.max(0, height - m.b - py(v)), fill: c,
          ...(k % 2 ? { 'fill-opacity': 0.55, stroke: c, 'stroke-width': 1.5 } : {}) }));
      });
      kids.push(s('rect', { x: m.l + 8 + 150 * k, y: 8, width: 12, height: 12, fill: c, ...(k % 2 ? { 'fill-opacity': 0.55, stroke: c } : {}) }),
        s('text', { x: m.l + 26 + 150 * k, y: 18, class: 'legend' }, se.name));
    });
    labels.forEach((lb, i) => kids.push(s('text', { x: m.l + (i + 0.5) * gw, y: height - m.b + 16, 'text-anchor': 'middle', class: 'tick' }, lb)));
    kids.push(s('line', { x1: m.l, x2: width - m.r, y1: height - m.b, y2: height - m.b, class: 'axis' }),
      s('text', { x: 12, y: (height - m.b) / 2, transform: `rotate(-90 12 ${(height - m.b) / 2})`, 'text-anchor': 'middle', class: 'axis-label' }, yLabel));
    svg.replaceChildren(...kids);
    table.set(tableLabel, () => [h('tr', {}, h('td'), labels.map((lb) => h('th', { scope: 'col' }, lb))),
      ...series.map((se) => h('tr', {}, h('th', { scope: 'row' }, se.name), se.values.map((v) => h('td', {}, fmt(v, 4)))))]);
  }
  return { el, set };
}
