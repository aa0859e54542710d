// The heatmap's printed numbers are readable on their own cell colour (WCAG 2.1 AA, 1.4.3: 4.5:1
// for normal text), for every step of every colour scale and for any value, measured here with an
// independent transcription of WCAG's relative luminance and contrast ratio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SCALES, colour } from '../../web/src/widgets/heatmap-colours.js';
import { contrastRatio, readableOn } from '../../web/src/widgets/contrast.js';

// WCAG 2.x, "relative luminance" and "contrast ratio" (the definitions, written out again)
function lum(css) {
  const m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(css) ?? /^#([\da-f])([\da-f])([\da-f])$/i.exec(css);
  const [R, G, B] = m[0].startsWith('#') ? m.slice(1).map((x) => parseInt(x + x, 16)) : m.slice(1).map(Number);
  const lin = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(R) + 0.7152 * lin(G) + 0.0722 * lin(B);
}
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };

test('the reference and the page agree on known contrast ratios', () => {
  assert.equal(ratio('#fff', '#000'), 21);
  assert.equal(Math.round(ratio('rgb(119,119,119)', '#fff') * 100) / 100, 4.48);   // #777 on white just fails AA
  assert.equal(Math.round(ratio('rgb(118,118,118)', '#fff') * 100) / 100, 4.54);   // #767676 just passes
  for (const rgb of [[119, 119, 119], [253, 231, 37], [68, 1, 84], [247, 247, 247], [10, 11, 12]]) {
    assert.ok(Math.abs(contrastRatio(rgb, [255, 255, 255]) - ratio(`rgb(${rgb.join(',')})`, '#fff')) < 1e-12, rgb.join(','));
  }
  assert.equal(readableOn([68, 1, 84]), '#fff');      // viridis' dark end
  assert.equal(readableOn([253, 231, 37]), '#000');   // and its bright end
});

test('every step of every heatmap scale: the printed number reaches 4.5:1 against its cell', () => {
  for (const [name, steps] of Object.entries(SCALES)) {
    assert.equal(steps.length, 256, name);
    let worst = Infinity;
    for (const [i, { bg, fg }] of steps.entries()) {
      const r = ratio(bg, fg);
      assert.ok(r >= 4.5, `${name} step ${i}: ${fg} on ${bg} is ${r.toFixed(2)}:1`);
      // the other choice would not be better
      assert.ok(r >= ratio(bg, fg === '#000' ? '#fff' : '#000'), `${name} step ${i}`);
      worst = Math.min(worst, r);
    }
    assert.ok(worst < 6, `${name}: the scale crosses the hard middle (worst ${worst.toFixed(2)}:1), so the choice matters`);
  }
});

test('any value, weights on [0, 1] and signed data on [-m, m], gets a readable text colour', () => {
  const cases = [];
  for (let k = 0; k <= 1000; k++) cases.push([k / 1000, { signed: false, max: 1 }]);
  for (let k = -1000; k <= 1000; k++) cases.push([k * 0.0037, { signed: true, max: 3.7 }]);
  cases.push([0.5, { signed: false, max: 1 }], [5, { signed: false, max: 0 }], [-2, { signed: true, max: 0 }], [9, { signed: false, max: 1 }]);
  for (const [v, scale] of cases) {
    const { bg, fg } = colour(v, scale);
    assert.ok(ratio(bg, fg) >= 4.5, `${v} on ${JSON.stringify(scale)}: ${fg} on ${bg}`);
  }
  // the 0.5 cells of a weight matrix (viridis' teal), which printed white at 3.9:1 before
  const half = colour(0.5, { signed: false, max: 1 });
  assert.equal(half.fg, '#000');
  assert.ok(ratio(half.bg, half.fg) >= 4.5);
});
