// Mounting the lab into a root element. The page (every section, state in the URL), the embed
// (?embed=18.3, one section, state in the URL) and the <attention-lab> element (its sections,
// state in its attributes) all go through mountLab(); they differ only in the options:
//
//   mountLab(root, {
//     lang,          'zh' | 'en'
//     sections,      ids from sections/index.js, in the order to show (default: every section)
//     params,        URLSearchParams with the sections' state (s3.x=..., see state.js): read at
//                    mount (invalid values fall back to defaults and are named in a notice),
//                    updated in place on every edit
//     onState(params, {section, state}),
//                    the state sink, called after every edit (the page writes the URL, the
//                    element its `state` attribute)
//     solutions,     false: the exercises show no hints, solutions or diagnoses of wrong answers
//                    (default true)
//     exerciseOptions(def),
//                    what each exercise's mountExercise takes besides its definition (the page
//                    passes course.js's: solutions and the kept progress); default {solutions}
//     notices,       names the caller rejected already (lang, embed ...), shown in the same notice
//     source,        'url' | 'attributes': what the notice calls the rejected names' origin
//     signal,        an AbortSignal: aborted before the core arrives, nothing is mounted
//     lazy,          true: only the sections in or near the viewport build their labs and
//                    exercises before the promise resolves; the others build theirs as the
//                    student scrolls near them or, one at a time, when the page is idle (the
//                    page's time to interactive; default false); a link to an exercise not
//                    built yet builds its section first. `mounted` resolves once every lab (and
//                    its exercises) is built.
//     exercisesWhenIdle, the sections mounted at once build their exercises in the first idle
//                    moment after (an embedded section; default false); `mounted` waits for them
//     after,         a promise that never rejects: the sections are mounted once it has settled too
//                    (the <attention-lab> elements of one page mount together, element.js)
//   }) -> Promise<{ sections: [{id, el}], error, mounted: Promise, destroy() }>
//
// The root's children are replaced: a loading line, then the notice and the sections. A core
// that fails to load, or a section that fails to build, becomes a message in its place (error is
// then set); the promise rejects only for an id that is not a section (callers check ids against
// SECTIONS). destroy() releases what the sections hold (the 18.8 training worker) and empties
// the root.
import { compileCore, loadCore } from '../../wasm/js/index.js';
import { h } from './widgets/dom.js';
import { makeT } from './i18n.js';
import { readSection, writeSection } from './state.js';
import { mountSection } from './section.js';
import { exercisesOf } from './exercises.js';
import SECTIONS, { allLessons } from 'virtual:lab-sections';   // sections/index.js with titles and loaders of controllers and lessons
import trainText from '../../lessons/data/train.txt?raw';

export { SECTIONS };

import { loadController, part } from './chunks.js';
import { whenIdle, cancelIdle } from './idle.js';

const loaded = new Map();   // 'id lang' -> the promise of that section, loaded

/** The sections with these ids, each with its controller (or null), without lessons. */
export function loadControllers(ids) {
  return Promise.all(ids.map((id) => {
    const spec = SECTIONS.find((s) => s.id === id);
    return loadController(spec).then((controller) => ({ ...spec, controller }));
  }));
}

/** The exercises of the lab, in page order, as far as they are known once the controllers of
 * `ids` are loaded: exercises.js's of every section and the exercises those controllers declare. */
export async function loadExercises(ids) {
  const withControllers = new Map((await loadControllers(ids)).map((s) => [s.id, s]));
  return exercisesOf(SECTIONS.map((s) => withControllers.get(s.id) ?? { ...s, controller: null }));
}

/** The sections with these ids, each with its controller (or null) and its lesson in `lang`
 * (chunks loaded once per page): [{id, prefix, titles, controller, lessons: {[lang]}}]. Every
 * section's lesson comes from the one chunk of them all (the whole page, the worksheet), fewer from
 * each one's own chunk (an embed, an element). Rejects if a chunk cannot be loaded (the error's
 * `part` is true). */
export function loadSections(ids, lang) {
  const every = SECTIONS.every((s) => ids.includes(s.id));
  let all = null;   // the promise of every lesson in lang, when they come together
  return Promise.all(ids.map((id) => {
    const key = `${id} ${lang}`;
    if (!loaded.has(key)) {
      const spec = SECTIONS.find((s) => s.id === id);
      const lesson = every ? (all ??= allLessons[lang]()).then((lessons) => lessons[id]) : spec.loadLesson[lang]();
      const p = Promise.all([loadController(spec), lesson.catch(part)])
        .then(([controller, lesson]) => ({ ...spec, controller, lessons: { [lang]: lesson } }));
      p.catch(() => loaded.delete(key));   // tried again next time
      loaded.set(key, p);
    }
    return loaded.get(key);
  }));
}

export const strings = {
  zh: {
    attrNotice: '元素属性中的部分值无效，已改用默认值：{names}',
    sectionFailed: '第 {id} 节无法显示：{message}',
  },
  en: {
    attrNotice: 'Some attribute values were not valid and were reset to defaults: {names}',
    sectionFailed: 'Section {id} could not be shown: {message}',
  },
};

let shared = null;

/** The core, compiled and instantiated once per page however many mounts ask; the compiled
 * module is what the 18.8 training worker receives. A failed load is tried again next time. */
export function sharedCore() {
  if (!shared) {
    shared = (async () => {
      const coreModule = await compileCore();
      return { core: await loadCore({ module: coreModule }), coreModule };
    })();
    shared.catch(() => { shared = null; });
  }
  return shared;
}

export async function mountLab(root, {
  lang = 'zh', sections = SECTIONS.map((s) => s.id), params = new URLSearchParams(), onState = () => {},
  solutions = true, exerciseOptions = () => ({ solutions }), notices = [], source = 'url', signal, lazy = false, exercisesWhenIdle = false, after,
} = {}) {
  let specs = sections.map((id) => SECTIONS.find((s) => s.id === id));
  const unknown = sections.find((id, i) => !specs[i]);
  if (unknown !== undefined) throw new Error(`mountLab: no section '${String(unknown).slice(0, 40)}'`);
  const t = makeT(lang, strings);
  const mounted = [];
  let stopLazy = () => {};
  const handle = {
    sections: mounted,
    error: null,
    mounted: Promise.resolve(),
    destroy() {
      stopLazy();
      for (const s of mounted.splice(0)) s.destroy?.();
      root.replaceChildren();
    },
  };
  const loading = h('p.loading', { role: 'status' }, t('loading'));
  root.replaceChildren(loading);
  let core, coreModule;
  try {
    // the core and the sections' chunks arrive together
    [{ core, coreModule }, specs] = await Promise.all([sharedCore(), loadSections(sections, lang), after]);
  } catch (e) {
    if (signal?.aborted) return handle;
    handle.error = e;
    loading.textContent = t(e.part ? 'partFailed' : 'loadFailed', { message: e.message });
    loading.classList.add('error');
    return handle;
  }
  if (signal?.aborted) return handle;
  loading.remove();
  const rejected = [...notices];
  for (const spec of specs) {
    const schema = spec.controller?.state ?? [];
    const read = readSection(spec.prefix, schema, params);
    rejected.push(...read.rejected);
    try {
      const section = mountSection(spec, {
        core, coreModule, lang, state: read.state, resources: { trainText }, exerciseOptions,
        lesson: spec.lessons[lang], lazy, exercisesLater: exercisesWhenIdle && !lazy,
        exercises: exercisesOf([spec]),
        onState(state) {
          writeSection(spec.prefix, schema, state, params);
          onState(params, { section: spec.id, state });
        },
      });
      mounted.push({ id: spec.id, ...section });
      root.append(section.el);
    } catch (e) {
      handle.error ??= e;
      root.append(h('p.status.error', { role: 'alert', 'data-section': spec.id }, t('sectionFailed', { id: spec.id, message: e.message })));
    }
  }
  if (rejected.length) {
    const names = [...new Set(rejected)].map((n) => n.slice(0, 40)).join(', ');
    root.prepend(h('p.notice', { role: 'status' }, t(source === 'attributes' ? 'attrNotice' : 'urlNotice', { names })));
  }
  if (lazy) ({ mounted: handle.mounted, stop: stopLazy } = startLabs(mounted, { t, handle, exercises: exercisesOf(specs) }));
  else if (exercisesWhenIdle) ({ mounted: handle.mounted, stop: stopLazy } = buildExercisesWhenIdle(mounted, { t, handle }));
  return handle;
}

// The exercises of sections mounted at once (exercisesWhenIdle: an embedded section's), built in
// the first idle moment after the labs: their given values come from the core (18.8's build a
// model), and no first paint needs them. Sooner if the page is printed, a link to an exercise
// (the progress view's) is clicked, so that the link finds it, or the hash changes to one (a
// course page that points its iframe at an exercise), which is then scrolled to.
function buildExercisesWhenIdle(sections, { t, handle }) {
  let done;
  const mounted = new Promise((r) => { done = r; });
  const unfollow = followExerciseLinks(() => { build(); return true; });
  const finish = () => {
    cancelIdle(timer);
    removeEventListener('beforeprint', build);
    unfollow();
    done();
  };
  function build() {
    for (const s of sections) {
      try {
        s.buildExercises();
      } catch (e) {
        handle.error ??= e;
        s.el.append(h('p.status.error', { role: 'alert', 'data-section': s.id }, t('sectionFailed', { id: s.id, message: e.message })));
      }
    }
    finish();
  }
  const timer = whenIdle(build);
  addEventListener('beforeprint', build);
  return { mounted, stop: finish };
}

// Links to exercises ('#ex-...'): a click on one (its handlers run before the browser follows it),
// or the hash changed to one (typed, or a course page pointing its iframe at it). build(hash)
// makes the exercise exist and says whether it did something; a changed hash is then scrolled to.
// Returns the function that stops following them.
function followExerciseLinks(build) {
  const onLink = (e) => { const a = e.target.closest?.('a[href^="#ex-"]'); if (a) build(a.getAttribute('href')); };
  const onHash = () => {
    const hash = decodeURIComponent(location.hash);
    if (hash.startsWith('#ex-') && build(hash)) document.getElementById(hash.slice(1))?.scrollIntoView();
  };
  document.addEventListener('click', onLink, true);
  addEventListener('hashchange', onHash);
  return () => { document.removeEventListener('click', onLink, true); removeEventListener('hashchange', onHash); };
}

// The lazy sections' labs: those in or within a screen of the viewport now, the others when the
// student scrolls near them (IntersectionObserver) or the page is idle, one per idle period, in
// page order; all of them before printing. A lab that fails to build becomes a message in its place.
function startLabs(sections, { t, handle, exercises }) {
  let stopped = false, timer = 0;
  const waiting = sections.filter((s) => !s.started());
  let done;
  const mounted = new Promise((r) => { done = r; });
  const start = (s) => {
    if (!waiting.includes(s)) return;
    waiting.splice(waiting.indexOf(s), 1);
    io?.unobserve(s.el);
    try {
      s.start();
    } catch (e) {
      handle.error ??= e;
      s.el.replaceWith(h('p.status.error', { role: 'alert', 'data-section': s.id }, t('sectionFailed', { id: s.id, message: e.message })));
    }
    if (!waiting.length) finish();
  };
  const finish = () => {
    io?.disconnect();
    removeEventListener('beforeprint', all);
    unfollow();
    cancelIdle(timer);
    done();
  };
  const all = () => { for (const s of [...waiting]) start(s); };
  // A link to an exercise whose section is not built yet (the progress table's, or one typed into
  // the address bar): the section is built at once, so that the link finds it. A click's handlers
  // run before the browser follows the link; a changed hash scrolls here.
  const buildFor = (hash) => {
    const def = exercises.find((x) => `#ex-${x.id}` === hash);
    const s = def && waiting.find((w) => w.id === def.section);
    if (s) start(s);
    return !!s;
  };
  const unfollow = followExerciseLinks(buildFor);
  const io = typeof IntersectionObserver === 'function'
    ? new IntersectionObserver((entries) => {
      for (const e of entries) if (e.isIntersecting) start(sections.find((s) => s.el === e.target));
    }, { rootMargin: '100% 0px' })
    : null;
  const near = (el) => { const r = el.getBoundingClientRect(); return r.bottom > -innerHeight && r.top < 2 * innerHeight; };
  // every position is read before any lab is built: reading one after building another would lay
  // out the page again each time (a forced layout per section)
  for (const s of waiting.filter((w) => !io || near(w.el))) start(s);
  for (const s of waiting) io.observe(s.el);
  addEventListener('beforeprint', all);
  const next = () => {
    if (stopped || !waiting.length) return;
    start(waiting[0]);
    timer = whenIdle(next);
  };
  if (waiting.length) timer = whenIdle(next);
  else finish();
  return { mounted, stop: () => { stopped = true; finish(); } };
}
