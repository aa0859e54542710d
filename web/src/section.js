// Mounting one section: its lesson, its lab (a small controller over shared widgets), a status
// line, a reset button and its exercises.
//
// A controller is {prefix, lesson, strings, state: [schema], build(ctx) -> {sync, compute, paint}}:
//   sync(state)            show the state in the editors and controls (DOM only; a view of the state in
//                          another layout, such as nn.Linear's (d, C), is still asked of the core)
//   compute(state, core)   every number, from the core (no DOM); throws the core's Error
//   paint(result, state)   draw the result (DOM only, no math)
// Every change goes the same way: update state, serialize it to the URL, sync, compute, paint.
// If compute throws, nothing is painted: the last good result stays, and the status explains.
import { h } from './widgets/dom.js';
import { makeT, translateError } from './i18n.js';
import { defaults } from './state.js';
import { mountExercise } from './exercise-view.js';

export function mountSection(spec, { core, coreModule, resources, lang, lesson, exercises, state: initial, onState }) {
  const t = makeT(lang, spec.strings);
  const lab = h('div.lab');
  const status = h('p.status', { role: 'status', 'aria-live': 'polite' });
  const anchor = anchorId(spec.id);
  const headingId = `${anchor}-title`;
  const el = h('section.lab-section', { id: anchor, 'aria-labelledby': headingId, 'data-section': spec.id },
    h('h2', { id: headingId }, lesson.title),
    h('div.lesson'),
    lab,
    status);
  el.querySelector('.lesson').innerHTML = lesson.html;   // rendered at build time from our Markdown, raw HTML disabled

  let state = structuredClone(initial);
  const ctx = {
    t, lang, core, coreModule, resources, lab,
    /** Recompute and repaint with the same state (for results that arrive later, e.g. from a worker). */
    refresh() { run(); },
    /** Merge a patch into the state and recompute. */
    set(patch) {
      state = { ...state, ...patch };
      onState(state);
      run();
    },
    get state() { return state; },
  };
  const controller = spec.build(ctx);

  function run() {
    controller.sync(state);
    let result;
    try {
      result = controller.compute(state, core);
    } catch (e) {
      status.replaceChildren(h('strong', {}, t('coreError')), ' ', translateError(lang, e.message));
      status.classList.add('error');
      el.classList.add('has-error');
      return;
    }
    status.replaceChildren();
    status.classList.remove('error');
    el.classList.remove('has-error');
    controller.paint(result, state);
  }

  if (spec.state.length) {
    lab.append(h('div.section-tools', {}, h('button.reset', { type: 'button', onclick: () => ctx.set(defaults(spec.state)) }, t('reset'))));
  }
  const ex = (exercises ?? []).map((def) => mountExercise(def, { core, t, lang, text: lesson.exercises[def.id], resources }));
  if (ex.length) el.append(h('div.exercises', {}, h('h3', {}, t('exercises')), ex));
  run();
  return { el, get state() { return state; } };
}

/** '18.3' -> 's18-3' (the section's element id and URL fragment); 'exercises' -> 'exercises'. */
export function anchorId(id) {
  return /^\d/.test(id) ? `s${id.replace('.', '-')}` : id;
}
