// Mounting one section of sections/index.js: its lesson, its lab (a small controller over shared
// widgets), a status line, a reset button and its exercises.
//
// A controller module exports {strings: {zh, en}, state: [schema], errors, exercises, build(ctx) -> {sync, compute, paint}}:
//   build(ctx)             make the widgets: the state's through ctx.editor / ctx.integer / ctx.select ...
//                          (schema-widgets.js; they show the state by themselves), "predict first" cards
//                          through ctx.prediction (reset with the section), the rest directly
//   sync(state)            optional: show what else the state decides (visibility, a view of the state in
//                          another layout, which is still asked of the core); DOM only
//   compute(state, core)   every number, from the core (no DOM); throws the core's Error. A part that
//                          no first paint needs may be left null and filled by a later ctx.refresh()
//                          (18.4's variance Monte Carlo, in the first idle moment)
//   paint(result, state)   draw the result (DOM only, no math)
//   errors                 optional: which state key's widget owns a core error, by the error's argument
//                          (params.arg or params.other, e.g. 'opts.wk') or by its code: {'opts.wk': 'wk',
//                          overflow: ['x', 'wq']}; of several, the one the student changed last (a widget
//                          that is not a state key's owns errors through ctx.own(key, widget))
//   exercises              optional: the section's own exercises, in exercises.js's form without
//                          `section` (their text in the section's lessons); mounted after the lab
//   destroy()              optional: release what the view holds (a worker, a pending idle callback)
//                          when the section is removed
//   pytorch(state, result, PROGRAMS) optional: the PyTorch program of what is on screen, from
//                          PROGRAMS (pytorch-programs.js's table, fetched when the panel is first opened), for
//                          the "Show as PyTorch" panel (widgets/pytorch-panel.js); called only while it is open;
//                          the panel's notebook checks the numbers notebook-values.js takes from the result
//   check(state, result)   optional: what a student's own tensor is compared with, for the "Check my
//                          numbers" panel (widgets/check-panel.js, which documents the answer: the core's
//                          check, its inputs, what may be compared); called only while it is open
// Every change goes the same way: update state (kept inside its limits), serialize it to the URL,
// sync, compute, paint. If compute throws, nothing is painted: the last good result stays, and the
// core's error, in the page's language (messages.js), appears beside the widget that owns it, or
// in the section's status line when no visible widget does.
import { h, keyboardScrollable, carriesFiles } from './widgets/dom.js';
import { makeT } from './i18n.js';
import { errorMessage } from './messages.js';
import { defaults, fitState } from './state.js';
import { schemaWidgets } from './schema-widgets.js';
import { mountExercise } from './exercise-view.js';
import { stateToJson, stateFromJson, MAX_BYTES } from './state-file.js';
import { download } from './widgets/export-menu.js';
import { pytorchPanel } from './widgets/pytorch-panel.js';
import { lazyPanel } from './widgets/lazy-panel.js';
import { prediction } from './widgets/predict.js';
import { mathmlLater } from './mathml-later.js';

// lazy: the lab (its controller's widgets and first computation) and the exercises (their given
// values come from the core), most of a section's cost, are built only when start() is called;
// until then a placeholder holds the lab's place after the lesson. mountLab starts the sections
// in view at once and the others as the student scrolls near them or the page is idle.
// exercisesLater: a section mounted at once (not lazy) leaves its exercises out too, for the caller
// to build with buildExercises() (mountLab: an embedded section's, in the first idle moment).
export function mountSection(spec, { core, coreModule, resources, lang, lesson, exercises, state: initial, onState, exerciseOptions, lazy = false, exercisesLater = false }) {
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
  // the formulas' MathML (for screen readers) comes back after the first frame (mathml-later.js)
  const mathml = mathmlLater(el.querySelector('.lesson'));
  const slot = controller ? h('div.lab-pending', { 'aria-busy': 'true' }) : null;
  if (slot) el.append(slot);
  // the exercises, after the lab; a lazy section builds them with its lab (they cost as much as
  // a lab to build: their given values come from the core); a section without a lab (the
  // chapter's exercises) builds them at once
  let exercisesBuilt = false;
  const mountExercises = () => {
    if (exercisesBuilt) return;
    exercisesBuilt = true;
    const ex = (exercises ?? []).map((def) => mountExercise(def, { core, lang, text: lesson.exercises[def.id], resources, ...exerciseOptions?.(def) }));
    // the exercises section's own title already says "Exercises": no second heading there
    if (ex.length) el.append(h('div.exercises', {}, spec.id === 'exercises' ? null : h('h3', {}, t('exercises')), ex));
  };
  let view = null;
  const start = () => {
    if (!slot || slot.parentNode !== el) return;   // started already, or no lab
    view = mountController(slot, controller, schema, { el, spec, t, lang, core, coreModule, resources, initial, onState });
    if (lazy) mountExercises();
  };
  if (!slot || (!lazy && !exercisesLater)) mountExercises();   // a section without a lab: its exercises are what it shows
  if (!lazy) start();
  return { el, start, started: () => !slot || !slot.parentNode, buildExercises: mountExercises, destroy: () => { mathml.stop(); view?.destroy?.(); } };
}

function mountController(slot, controller, schema, { el, spec, t, lang, core, coreModule, resources, initial, onState }) {
  const lab = h('div.lab');
  const status = h('p.status', { role: 'status', 'aria-live': 'polite' });
  slot.replaceWith(lab, status);

  let state = structuredClone(initial);
  let changed = [];         // the keys of the last change, to place an error beside the control just used
  const shown = [];         // widgets built from the schema: shown the state on every run
  const widgets = new Map();   // state key -> its widget
  const predictions = [];      // ctx.prediction's: reset with the section
  const ctx = {
    t, lang, core, coreModule, resources, lab,
    /** Recompute and repaint with the same state (for results that arrive later, e.g. from a worker). */
    refresh() { run(); },
    /** Merge a patch into the state and recompute. */
    set(patch) {
      state = fitState(schema, { ...state, ...patch });
      changed = Object.keys(patch);
      onState(state);
      run();
    },
    get state() { return state; },
    /** A widget not built from the schema ({el, invalid(text)}) that owns the core's errors the
     * controller's `errors` assigns to `key`, as a schema widget owns its key's. */
    own(key, widget) { widgets.set(key, widget); return widget; },
    /** A "predict first" card (widgets/predict.js) in the section's language, reset with the section. */
    prediction(opts) { const p = prediction({ lang, ...opts }); predictions.push(p); return p; },
  };
  Object.assign(ctx, schemaWidgets(ctx, schema, (key, widget, show) => {
    shown.push(show);
    widgets.set(key, widget);
    return widget;
  }));
  const view = controller.build(ctx);
  const panel = view.pytorch ? pytorchPanel({ t, notebook: spec.loadLessonText && { id: spec.id, lang, loadLesson: spec.loadLessonText[lang] },
    load: () => import('./pytorch-programs.js').then((m) => m.PROGRAMS) }) : null;
  const checker = view.check ? lazyPanel({ className: 'check-panel', name: 'check', title: t('checkTitle'),
    load: () => import('./widgets/check-panel.js').then(({ checkPanel }) => (details) => checkPanel({ lang, core, section: el, details })),
    failed: (e) => t('panelFailed', { message: e.message }) }) : null;

  /** The visible widget that owns a core error, or undefined. */
  function ownerOf(e) {
    const keys = [e.params?.arg, e.params?.other, e.code].flatMap((k) => [].concat(controller.errors?.[k] ?? []))
      .filter((k) => widgets.get(k) && !widgets.get(k).el.closest('[hidden]'));
    return widgets.get(keys.find((k) => changed.includes(k)) ?? keys[0]);
  }

  function run() {
    for (const show of shown) show(state);
    for (const w of widgets.values()) w.invalid?.(null);
    view.sync?.(state);
    let result;
    try {
      result = view.compute(state, core);
    } catch (e) {
      const text = errorMessage(lang, e);
      const owner = ownerOf(e);
      if (owner) owner.invalid(t.sentences(text, t('cellKeep')));
      status.replaceChildren(...(owner ? [] : [h('strong', {}, t('coreError')), ' ', text]));
      status.classList.toggle('error', !owner);
      el.classList.add('has-error');
      return;
    }
    if (status.firstChild) status.replaceChildren();
    if (status.classList.contains('error')) status.classList.remove('error');   // (remove() alone writes the attribute again)
    if (el.classList.contains('has-error')) el.classList.remove('has-error');
    view.paint(result, state);
    const painted = state;
    panel?.update((programs) => view.pytorch(painted, result, programs), { state: painted, result });
    checker?.update(() => view.check(painted, result));
  }

  lab.append(h('div.section-tools', {}, stateFileTools(el, spec, schema, t, () => state, (next) => ctx.set(next)),
    h('button.reset', { type: 'button', onclick: () => { for (const p of predictions) p.reset(); ctx.set(defaults(schema)); } }, t('reset'))));
  if (panel) lab.append(panel.el);
  if (checker) lab.append(checker.el);
  run();
  return view;
}

/** Save the section's state as a JSON file; load one with a file picker or by dropping it on the
 * section (state-file.js reads it like a link). A file that cannot be read changes nothing. */
function stateFileTools(section, spec, schema, t, getState, setState) {
  const notice = h('p.state-notice', { role: 'status', hidden: true });
  const say = (text, error = false) => {
    notice.hidden = false;
    notice.textContent = text;
    notice.classList.toggle('error', error);
    notice.setAttribute('role', error ? 'alert' : 'status');
  };
  const input = h('input.state-file', { type: 'file', accept: '.json,application/json', hidden: true, 'aria-hidden': 'true', tabindex: -1 });
  async function load(file) {
    if (!file) return;
    const name = file.name.slice(0, 80);
    if (file.size > MAX_BYTES) { say(t('stateTooLarge', { file: name, max: MAX_BYTES / 1024 }), true); return; }
    const r = stateFromJson(await file.text(), spec, schema);
    if (!r.ok) {
      say(t({ broken: 'stateBroken', foreign: 'stateForeign', otherSection: 'stateOtherSection' }[r.reason],
        { file: name, message: r.message, other: r.other, id: spec.id }), true);
      return;
    }
    setState(r.state);
    say(t.sentences(t('stateLoaded', { file: name }), r.rejected.length ? t('stateRejected', { names: r.rejected.join(', ') }) : ''));
  }
  input.addEventListener('change', () => { load(input.files[0]); input.value = ''; });
  section.addEventListener('dragover', (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    section.classList.add('drop-target');
  });
  section.addEventListener('dragleave', (e) => { if (!section.contains(e.relatedTarget)) section.classList.remove('drop-target'); });
  section.addEventListener('drop', (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    section.classList.remove('drop-target');
    load(e.dataTransfer.files[0]);
  });
  const save = () => download(new Blob([stateToJson(spec.id, schema, getState())], { type: 'application/json' }),
    `attention-lab-${spec.id}-state.json`);
  return h('div.state-file-tools', {},
    h('button.save-state', { type: 'button', onclick: save }, t('saveState')),
    h('button.load-state', { type: 'button', title: t('loadStateHint'), onclick: () => input.click() }, t('loadState')),
    input, notice);
}

/** '18.3' -> 's18-3' (the section's element id and URL fragment); 'exercises' -> 'exercises'. */
export function anchorId(id) {
  return /^\d/.test(id) ? `s${id.replace('.', '-')}` : id;
}
