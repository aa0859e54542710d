// Mounting one section of sections/index.js: its lesson, its lab (a small controller over shared
// widgets), a status line, a reset button and its exercises.
//
// A controller module exports {strings: {zh, en}, state: [schema], build(ctx) -> {sync, compute, paint}}:
//   build(ctx)             make the widgets: the state's through ctx.editor / ctx.integer / ctx.select ...
//                          (schema-widgets.js; they show the state by themselves), the rest directly
//   sync(state)            optional: show what else the state decides (visibility, a view of the state in
//                          another layout, which is still asked of the core); DOM only
//   compute(state, core)   every number, from the core (no DOM); throws the core's Error
//   paint(result, state)   draw the result (DOM only, no math)
// Every change goes the same way: update state (kept inside its limits), serialize it to the URL,
// sync, compute, paint. If compute throws, nothing is painted: the last good result stays, and the
// status explains.
import { h, keyboardScrollable } from './widgets/dom.js';
import { makeT, translateError } from './i18n.js';
import { defaults, fitState } from './state.js';
import { schemaWidgets } from './schema-widgets.js';
import { mountExercise } from './exercise-view.js';

export function mountSection(spec, { core, coreModule, resources, lang, lesson, exercises, state: initial, onState }) {
  const { controller } = spec;
  const schema = controller?.state ?? [];
  const t = makeT(lang, controller?.strings);
  const anchor = anchorId(spec.id);
  const headingId = `${anchor}-title`;
  const el = h('section.lab-section', { id: anchor, 'aria-labelledby': headingId, 'data-section': spec.id },
    h('h2', { id: headingId }, lesson.title),
    h('div.lesson'));
  el.querySelector('.lesson').innerHTML = lesson.html;   // rendered at build time from our Markdown, raw HTML disabled
  for (const wide of el.querySelectorAll('.lesson .katex-display, .lesson pre')) keyboardScrollable(wide);   // they scroll on a phone
  if (controller) mountLab(el, controller, schema, { t, lang, core, coreModule, resources, initial, onState });
  const ex = (exercises ?? []).map((def) => mountExercise(def, { core, t, lang, text: lesson.exercises[def.id], resources }));
  if (ex.length) el.append(h('div.exercises', {}, h('h3', {}, t('exercises')), ex));
  return { el };
}

function mountLab(el, controller, schema, { t, lang, core, coreModule, resources, initial, onState }) {
  const lab = h('div.lab');
  const status = h('p.status', { role: 'status', 'aria-live': 'polite' });
  el.append(lab, status);

  let state = structuredClone(initial);
  const shown = [];   // widgets built from the schema: shown the state on every run
  const ctx = {
    t, lang, core, coreModule, resources, lab,
    /** Recompute and repaint with the same state (for results that arrive later, e.g. from a worker). */
    refresh() { run(); },
    /** Merge a patch into the state and recompute. */
    set(patch) {
      state = fitState(schema, { ...state, ...patch });
      onState(state);
      run();
    },
    get state() { return state; },
  };
  Object.assign(ctx, schemaWidgets(ctx, schema, (key, widget, show) => { shown.push(show); return widget; }));
  const view = controller.build(ctx);

  function run() {
    for (const show of shown) show(state);
    view.sync?.(state);
    let result;
    try {
      result = view.compute(state, core);
    } catch (e) {
      status.replaceChildren(h('strong', {}, t('coreError')), ' ', translateError(lang, e.message));
      status.classList.add('error');
      el.classList.add('has-error');
      return;
    }
    status.replaceChildren();
    status.classList.remove('error');
    el.classList.remove('has-error');
    view.paint(result, state);
  }

  lab.append(h('div.section-tools', {}, h('button.reset', { type: 'button', onclick: () => ctx.set(defaults(schema)) }, t('reset'))));
  run();
}

/** '18.3' -> 's18-3' (the section's element id and URL fragment); 'exercises' -> 'exercises'. */
export function anchorId(id) {
  return /^\d/.test(id) ? `s${id.replace('.', '-')}` : id;
}
