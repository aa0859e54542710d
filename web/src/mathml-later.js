// KaTeX writes every formula twice: the picture (.katex-html, hidden from screen readers) and MathML
// for screen readers (.katex-mathml, clipped to one pixel). Chromium lays that hidden MathML out in
// full all the same, and for a lesson it costs about as much layout as everything else on the
// first frame (docs/performance.md, "What keeps it fast"). So a lesson's MathML is taken out
// before its first frame and put back in the idle moments after it, a few formulas at a time:
// the picture shows at once, and screen readers find the formulas a moment later. Each formula
// keeps its TeX source in data-tex meanwhile (the step-through finds its formulas by it).

import { whenIdle, cancelIdle } from './idle.js';

const PER_IDLE = 8;   // formulas a section puts back per idle period

/** Take the MathML out of every formula under `root` and put it back in idle periods. Returns
 * {flush(): put back at once whatever is still out (before printing, say), stop(): put nothing
 * more back (the section is gone)}. */
export function mathmlLater(root) {
  const held = [];
  for (const span of root.querySelectorAll('.katex-mathml')) {
    if (!span.firstChild) continue;
    const katex = span.closest('.katex');
    const tex = span.querySelector('annotation[encoding="application/x-tex"]')?.textContent;
    if (katex && tex !== undefined) katex.dataset.tex = tex;
    held.push([span, [...span.childNodes]]);
    span.replaceChildren();
  }
  let id = null;
  const putBack = (n) => {
    for (const [span, nodes] of held.splice(0, n)) span.replaceChildren(...nodes);
  };
  const step = () => {
    id = null;
    putBack(PER_IDLE);
    if (held.length) id = whenIdle(step);
  };
  const flush = () => putBack(held.length);
  if (held.length) {
    id = whenIdle(step);
    addEventListener('beforeprint', flush, { once: true });
  }
  return {
    flush,
    stop() {
      if (id !== null) cancelIdle(id);
      id = null;
      held.length = 0;
      removeEventListener('beforeprint', flush);
    },
  };
}
