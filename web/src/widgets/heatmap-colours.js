// The heatmap's colour scales (widgets/heatmap.js): viridis for weights in [0, 1] (sequential,
// colour-blind safe); a purple-orange diverging map for signed data. Each step carries the text
// colour (black or white) that contrasts more with it.
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
/** A NaN cell's colour on a canvas (#bbb; a table cell is hatched). */
export const NAN_RGB = [187, 187, 187];
