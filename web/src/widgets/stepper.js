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
// formula(s) of the stage from their TeX source (KaTeX keeps it in an annotation).
import { h, setText, setHidden, setAttr, subscripts } from './dom.js';

const PLAY_MS = 1800, PLAY_MS_REDUCED = 4000;

export function stepper({ t, stages, off = 'off', onChange, name = null }) {
  let current = off, timer = null;
  const index = () => stages.findIndex((s) => s.id === current);
  const go = (i) => onChange(stages[Math.max(0, Math.min(stages.length - 1, i))].id);
  const stop = () => {
    clearInterval(timer);
    timer = null;
    setText(play, t('stepPlay'));
    setAttr(play, 'aria-pressed', 'false');
  };
  const reduced = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

  const toggle = h('button.step-toggle', { type: 'button', 'aria-pressed': 'false',
    onclick: () => { stop(); onChange(current === off ? stages[0].id : off); } }, t('stepStart'));
  const back = h('button.step-back', { type: 'button', onclick: () => { stop(); go(index() - 1); } }, t('stepBack'));
  const next = h('button.step-next', { type: 'button', onclick: () => { stop(); go(index() + 1); } }, t('stepNext'));
  const play = h('button.step-play', { type: 'button', 'aria-pressed': 'false', onclick: () => {
    if (timer) { stop(); return; }
    if (index() === stages.length - 1) go(0);
    play.textContent = t('stepPause');
    play.setAttribute('aria-pressed', 'true');
    // reduced motion: the same steps, at a slower pace (nothing moves or scrolls by itself in between)
    timer = setInterval(() => {
      if (index() >= stages.length - 1 || current === off) { stop(); return; }
      go(index() + 1);
    }, reduced() ? PLAY_MS_REDUCED : PLAY_MS);
  } }, t('stepPlay'));
  const where = h('output.step-where', { 'aria-live': 'polite' });
  const formula = h('p.step-formula');
  const items = stages.map((s) => h('li', { 'data-stage': s.id },
    h('span.step-name', {}, s.label), ' ', h('span.step-arrow', { 'aria-hidden': 'true' }, '⟶'), ' ', h('span.shape-badge.step-shape')));
  const flow = h('ol.step-flow', { 'aria-label': t('stepFlow') }, items);
  const extra = h('div.row.step-extra');
  const body = h('div.step-body', { hidden: true }, h('div.step-controls', {}, back, next, play, where), formula, flow, extra);
  const el = h('section.stepper', { 'aria-label': name ?? t('stepTitle') }, h('div.step-head', {}, h('strong', {}, t('stepTitle')), ' ', toggle), body);

  const section = () => el.closest('.lab-section');
  function mark(stage) {
    const root = section();
    if (!root) return;
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
      const tex = d.querySelector('annotation[encoding="application/x-tex"]')?.textContent ?? '';
      if (stage.tex(tex)) d.classList.add('stage-formula');
    }
  }

  return {
    el, extra,
    /** Stop Play (when the section is removed). */
    stop,
    /** Show stage `id` (or the flow switched off). */
    set(id) {
      current = id;
      const on = id !== off, i = index(), stage = stages[i];
      if (!on) stop();
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
      // the section's figures (in its lab) and its lesson text
      mark(on ? stage : null);
    },
    /** The shape text on each stage's arrow: {stageId: text}, from the data the core returned. */
    shapes(byStage) {
      items.forEach((li, k) => { setText(li.querySelector('.step-shape'), byStage[stages[k].id] ?? ''); });
    },
  };
}

