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
//   }) -> Promise<{ sections: [{id, el}], error, destroy() }>
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
import { exercises } from './exercises.js';
import SECTIONS from 'virtual:lab-sections';   // sections/index.js with controllers and lessons
import trainText from '../../lessons/data/train.txt?raw';

export { SECTIONS };

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
  solutions = true, exerciseOptions = () => ({ solutions }), notices = [], source = 'url', signal,
} = {}) {
  const specs = sections.map((id) => SECTIONS.find((s) => s.id === id));
  const unknown = sections.find((id, i) => !specs[i]);
  if (unknown !== undefined) throw new Error(`mountLab: no section '${String(unknown).slice(0, 40)}'`);
  const t = makeT(lang, strings);
  const mounted = [];
  const handle = {
    sections: mounted,
    error: null,
    destroy() {
      for (const s of mounted.splice(0)) s.destroy?.();
      root.replaceChildren();
    },
  };
  const loading = h('p.loading', { role: 'status' }, t('loading'));
  root.replaceChildren(loading);
  let core, coreModule;
  try {
    ({ core, coreModule } = await sharedCore());
  } catch (e) {
    if (signal?.aborted) return handle;
    handle.error = e;
    loading.textContent = t('loadFailed', { message: e.message });
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
        lesson: spec.lessons[lang],
        exercises: exercises.filter((e) => e.section === spec.id),
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
  return handle;
}
