// KaTeX writes every formula twice: the picture (.katex-html, hidden from screen readers) and MathML
// for screen readers (.katex-mathml, clipped to one pixel). Chromium lays that hidden MathML out in
// full all the same, and for a lesson it costs about as much layout as everything else on the
// first frame (docs/performance.md, "What keeps it fast"). So a lesson's MathML is taken out
// before its first frame and put back in the idle moments after it, a few formulas at a time:
// the picture shows at once, and screen readers find the formulas a moment later.

import { whenIdle } from './idle.js';

const PER_IDLE = 8;   // formulas put back per idle period: each batch's layout stays one short frame

/** Take the MathML out of every formula under `root` and put it back in idle periods. Returns
 * flush(), which puts back at once whatever is still out (before printing, say). */
export function mathmlLater(root) {
  const held = [];
  for (const span of root.querySelectorAll('.katex-mathml')) {
    if (!span.firstChild) continue;
    held.push([span, [...span.childNodes]]);
    span.replaceChildren();
  }
  const putBack = (n) => {
    for (const [span, nodes] of held.splice(0, n)) span.replaceChildren(...nodes);
  };
  const step = () => {
    putBack(PER_IDLE);
    if (held.length) whenIdle(step);
  };
  if (held.length) whenIdle(step);
  return { flush: () => putBack(held.length), pending: () => held.length };
}
