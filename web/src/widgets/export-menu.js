// Export of a figure: a small menu on a heatmap or a chart that saves it as PNG (a picture),
// SVG (vector, the numbers and axis labels as text) and CSV (its numbers at full precision, with
// row and column headers). The heatmap and chart widgets attach it themselves; this module knows
// nothing of either: a figure hands it
//   svg()   -> an <svg> element that stands on its own (sizes, colours and fonts inline)
//   csv()   -> rows of cells (strings or numbers); numbers are written with String(v), the
//              shortest text that reads back as the same float64 (round-trippable)
//   name()  -> the file name without extension
// The PNG is the SVG rasterised by the browser at twice its size (no second drawing code).
import { h } from './dom.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
export const FONT = 'system-ui, "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif';
export const MONO = 'ui-monospace, Menlo, Consolas, "Noto Sans Mono CJK SC", monospace';

/** An SVG element with attributes (and text). */
export function svgEl(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** One CSV field: numbers as String(v) (NaN, Infinity, -Infinity spelled out), text quoted when needed. */
function field(v) {
  const s = typeof v === 'number' ? String(v) : String(v ?? '');
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
export const toCsv = (rows) => `${rows.map((r) => r.map(field).join(',')).join('\r\n')}\r\n`;

/** A file name part from free text: letters, digits, dots and dashes. */
export const slug = (s) => String(s).normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'figure';

/** The section a figure sits in ("18.3"), read when the file is saved, or 'lab'. */
export const sectionOf = (el) => el.closest('[data-section]')?.dataset.section ?? 'lab';

/** Offer `blob` as a download named `filename`. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

const serialize = (svg) => `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}`;

/** The SVG drawn on a canvas at `scale`, as a PNG blob. */
async function rasterise(svg, scale = 2) {
  const w = Number(svg.getAttribute('width')), hh = Number(svg.getAttribute('height'));
  // a data: URL, not a blob: one (the page's Content-Security-Policy allows img-src 'self' data:)
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(serialize(svg))}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(w * scale);
  canvas.height = Math.ceil(hh * scale);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.drawImage(img, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
}

/**
 * The menu: a disclosure button (keyboard: Enter/Space opens, Escape closes) with three buttons.
 * t: the section's strings (shared keys export, exportPng, exportSvg, exportCsv, exportOf).
 * label(): the figure's current title, for the buttons' accessible names; ready(): whether it has data yet.
 */
export function exportMenu({ t, label, name, ready, svg, csv }) {
  const status = h('span.export-status', { role: 'status' });
  const save = async (kind) => {
    if (!ready()) { status.textContent = t('exportFailed', { message: t('exportEmpty') }); return; }
    const base = `attention-lab-${sectionOf(el)}-${slug(name())}`;
    try {
      if (kind === 'csv') download(new Blob([toCsv(csv())], { type: 'text/csv;charset=utf-8' }), `${base}.csv`);
      else if (kind === 'svg') download(new Blob([serialize(svg())], { type: 'image/svg+xml' }), `${base}.svg`);
      else download(await rasterise(svg()), `${base}.png`);
      status.textContent = '';
    } catch (e) {
      status.textContent = t('exportFailed', { message: e.message });
    }
    details.open = false;
    summary.focus();
  };
  const item = (kind, text) => h('button.export-item', { type: 'button', 'data-export': kind, onclick: () => save(kind) }, text);
  const summary = h('summary.export-toggle', {}, t('export'));
  const details = h('details.export-menu', {}, summary,
    h('div.export-items', {}, item('png', t('exportPng')), item('svg', t('exportSvg')), item('csv', t('exportCsv'))));
  details.addEventListener('toggle', () => {
    if (details.open) details.querySelector('button')?.focus();
  });
  details.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && details.open) { details.open = false; summary.focus(); }
  });
  const describe = () => summary.setAttribute('aria-label', t('exportOf', { label: label() }));
  summary.addEventListener('focus', describe);
  describe();
  const el = h('span.export', {}, details, status);
  return { el };
}
