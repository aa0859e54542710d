// A heatmap's export (widgets/export-menu.js): the SVG is the same grid the page shows, one
// rectangle per cell in the page's colour with the page's rounded number as text, the row and
// column headers, the title with the shape, and the axes line; the CSV holds the values the core
// returned, unrounded, with the same headers.
import { fmt } from '../format.js';
import { svgEl, FONT, MONO } from './export-menu.js';

/**
 * view: {rows, title, axesText, rowName(i), colName(j), corner, digits, colourOf(v) -> {bg, fg}}
 */
export function heatmapSvg({ rows, title, axesText, rowName, colName, corner, digits, colourOf }) {
  const R = rows.length, C = rows[0].length;
  const texts = rows.flat().map((v) => fmt(v, digits));
  const longest = Math.max(...texts.map((s) => s.length), ...rows[0].map((_, j) => String(colName(j)).length));
  const cw = Math.max(28, 7.6 * longest + 12), ch = 24;
  const head = Math.max(34, 7.6 * Math.max(...rows.map((_, i) => String(rowName(i)).length), String(corner).length) + 14);
  const top = axesText ? 58 : 40;
  const width = Math.ceil(Math.max(head + C * cw + 8, 8 * Math.max(title.length, (axesText ?? '').length * 0.9)));
  const height = top + ch * (R + 1) + 8;
  const svg = svgEl('svg', { xmlns: 'http://www.w3.org/2000/svg', width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': FONT });
  svg.append(svgEl('rect', { width, height, fill: '#fff' }),
    svgEl('text', { x: 4, y: 18, 'font-size': 14, 'font-weight': 600, fill: '#1b1f24' }, title));
  if (axesText) svg.append(svgEl('text', { x: 4, y: 38, 'font-size': 11, fill: '#57606a' }, axesText));
  const y0 = top, x0 = head;
  const grid = svgEl('g', { 'font-family': MONO, 'font-size': 12 });
  grid.append(svgEl('text', { x: 4, y: y0 + ch - 8, fill: '#57606a' }, corner));
  for (let j = 0; j < C; j++) grid.append(svgEl('text', { x: x0 + (j + 0.5) * cw, y: y0 + ch - 8, 'text-anchor': 'middle', fill: '#57606a' }, colName(j)));
  rows.forEach((row, i) => {
    const y = y0 + ch * (i + 1);
    grid.append(svgEl('text', { x: head - 8, y: y + ch - 8, 'text-anchor': 'end', fill: '#57606a' }, rowName(i)));
    row.forEach((v, j) => {
      const { bg, fg } = Number.isNaN(v) ? { bg: '#dddddd', fg: '#a40e26' } : colourOf(v);
      grid.append(svgEl('rect', { x: x0 + j * cw, y, width: cw - 1, height: ch - 1, fill: bg }),
        svgEl('text', { x: x0 + (j + 1) * cw - 6, y: y + ch - 8, 'text-anchor': 'end', fill: fg, 'data-value': String(v) }, texts[i * C + j]));
    });
  });
  svg.append(grid);
  return svg;
}

/** The CSV's rows: a header row (corner, column names) and one row per matrix row (name, values). */
export function heatmapCsv({ rows, rowName, colName, corner }) {
  return [[corner, ...rows[0].map((_, j) => colName(j))], ...rows.map((r, i) => [rowName(i), ...r])];
}
