// Step-through of a data flow: one stage at a time, with Next / Back / Play. The
// widget draws the flow (every stage with the shape of the tensor it hands on, on its arrow),
// marks the current stage, outlines the lab's figures the stage reads (dashed) and the one it
// makes (solid, with a text tag: not colour alone), and highlights the stage's formula in the
// lesson text. The section keeps the stage in its state (so it is in the URL and checked like
// every other value); this widget only shows it and asks for changes.
//
//   stepper({t, stages: [{id, label, formula, reads: [names], makes: [names], tex}], off, onChange(id), name})
//   name: the region's accessible name when a page has more than one stepper (default: the title)
//     -> {el, set(stageId), shapes({stageId: 'shape text'}), extra: element for stage-only figures, stop()}
// names are the data-name of the section's figures; tex(source) picks the lesson's display
// formula(s) of the stage from their TeX source (KaTeX keeps it in an annotation; data-tex on the formula while that waits).
import { h, setText, setHidden, setAttr, subscripts } from './dom.js';

const PLAY_MS = 1800, PLAY_MS_REDUCED = 4000;
const reduced = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

/**
 * Play: Next every PLAY_MS (more slowly under reduced motion: the same steps, and nothing moves or
 * scrolls by itself in between) until the last stage; pressed again, or stop(), it stops.
 * walk: {index() of the current stage, last index, go(i), off() while the flow is switched off}
 */
function playButton(t, walk) {
  let timer = null;
  const el = h('button.step-play', { type: 'button', 'aria-pressed': 'false', onclick: () => {
    if (timer) { stop(); return; }
    if (walk.index() === walk.last) walk.go(0);
    el.textContent = t('stepPause');
    el.setAttribute('aria-pressed', 'true');
    timer = setInterval(() => {
      if (walk.index() >= walk.last || walk.off()) { stop(); return; }
      walk.go(walk.index() + 1);
    }, reduced() ? PLAY_MS_REDUCED : PLAY_MS);
  } }, t('stepPlay'));
  function stop() {
    clearInterval(timer);
    timer = null;
    setText(el, t('stepPlay'));
    setAttr(el, 'aria-pressed', 'false');
  }
  return { el, stop };
}

/** Outline the figures of `stage` in the section's lab (dashed: read, solid: made, with a text tag) and highlight its lesson formula; no stage: none. */
function mark(root, stage, t) {
  for (const f of root.querySelectorAll('[data-stage-role]')) { f.removeAttribute('data-stage-role'); f.removeAttribute('data-stage-tag'); }
  for (const d of root.querySelectorAll('.lesson .stage-formula')) d.classList.remove('stage-formula');
  if (!stage) return;
  const tag = (name, role) => {
    const f = root.querySelector(`.lab [data-name="${name}"]`);
    if (!f) return;
    f.setAttribute('data-stage-role', role);
    f.setAttribute('data-stage-tag', t(role === 'makes' ? 'stepMakes' : 'stepReads'));   // shown by CSS above the outline
  };
  for (const n of stage.reads) tag(n, 'reads');
  for (const n of stage.makes) tag(n, 'makes');
  for (const d of root.querySelectorAll('.lesson .katex-display')) {
    // the TeX source: data-tex while the MathML waits for an idle moment (mathml-later.js)
    const tex = d.querySelector('.katex')?.dataset.tex ?? d.querySelector('annotation[encoding="application/x-tex"]')?.textContent ?? '';
    if (stage.tex(tex)) d.classList.add('stage-formula');
  }
}

/** The flow: a list item per stage, its label and the arrow with the shape it hands on. */
function flowItems(stages) {
  return stages.map((s) => h('li', { 'data-stage': s.id },
    h('span.step-name', {}, s.label), ' ', h('span.step-arrow', { 'aria-hidden': 'true' }, '⟶'), ' ', h('span.shape-badge.step-shape')));
}

export function stepper({ t, stages, off = 'off', onChange, name = null }) {
  let current = off;
  const index = () => stages.findIndex((s) => s.id === current);
  const go = (i) => onChange(stages[Math.max(0, Math.min(stages.length - 1, i))].id);
  const toggle = h('button.step-toggle', { type: 'button', 'aria-pressed': 'false',
    onclick: () => { stop(); onChange(current === off ? stages[0].id : off); } }, t('stepStart'));
  const back = h('button.step-back', { type: 'button', onclick: () => { stop(); go(index() - 1); } }, t('stepBack'));
  const next = h('button.step-next', { type: 'button', onclick: () => { stop(); go(index() + 1); } }, t('stepNext'));
  const play = playButton(t, { index, go, last: stages.length - 1, off: () => current === off });
  const { stop } = play;
  const where = h('output.step-where', { 'aria-live': 'polite' });
  const formula = h('p.step-formula');
  const items = flowItems(stages);
  const flow = h('ol.step-flow', { 'aria-label': t('stepFlow') }, items);
  const extra = h('div.row.step-extra');
  const body = h('div.step-body', { hidden: true }, h('div.step-controls', {}, back, next, play.el, where), formula, flow, extra);
  const el = h('section.stepper', { 'aria-label': name ?? t('stepTitle') }, h('div.step-head', {}, h('strong', {}, t('stepTitle')), ' ', toggle), body);

  /** The controls, the flow and the formula line for stage i (on: the flow is switched on). */
  function show(on, i) {
    const stage = stages[i];
    setHidden(body, !on);
    setText(toggle, t(on ? 'stepExit' : 'stepStart'));
    setAttr(toggle, 'aria-pressed', String(on));
    setAttr(back, 'disabled', !on || i === 0 ? '' : null);
    setAttr(next, 'disabled', !on || i === stages.length - 1 ? '' : null);
    items.forEach((li, k) => {
      setAttr(li, 'aria-current', k === i ? 'step' : null);
      if (li.classList.contains('done') !== (on && k < i)) li.classList.toggle('done', on && k < i);
    });
    setText(where, on ? t('stepWhere', { n: i + 1, total: stages.length, label: stage.label }) : '');
    if (formula.dataset.text !== (on ? stage.formula : '')) {
      formula.dataset.text = on ? stage.formula : '';
      formula.replaceChildren(...(on ? subscripts(stage.formula) : []));
    }
  }

  return {
    el, extra,
    /** Stop Play (when the section is removed). */
    stop,
    /** Show stage `id` (or the flow switched off). */
    set(id) {
      current = id;
      const on = id !== off, i = index();
      if (!on) stop();
      show(on, i);
      // the section's figures (in its lab) and its lesson text
      const root = el.closest('.lab-section');
      if (root) mark(root, on ? stages[i] : null, t);
    },
    /** The shape text on each stage's arrow: {stageId: text}, from the data the core returned. */
    shapes(byStage) {
      items.forEach((li, k) => { setText(li.querySelector('.step-shape'), byStage[stages[k].id] ?? ''); });
    },
  };
}
