// The lab in a course: page options (options.js), progress that is kept (progress.js, in the
// browser or, when a learning platform launched the lab, in the platform through SCORM: scorm.js),
// the progress view, and paper (print.css; the worksheet is worksheet.js). main.js calls
// startCourse() once, before the core loads (a platform's SCORM session starts at once), gives
// each exercise exerciseOptions(def) and, once the sections are mounted, calls attach().
import './course.css';
import './print.css';
import { readOptions } from './options.js';
import { catalogueOf, localBackend, openProgress, STORAGE_KEY } from './progress.js';
import { connectLms } from './scorm.js';
import { progressNotices, progressView, trackVisits } from './progress-view.js';

/** sections: every section ([{id, titles}]); shown: the ones on this page; params: the URL's. */
export function startCourse({ params, lang, sections, shown, exercises, win = window }) {
  const { options, rejected } = readOptions(params, sections.map((s) => s.id));
  if (options.print) return { options, rejected, notices: [] };   // the worksheet: no progress, no platform
  const catalogue = catalogueOf(sections, exercises);
  const shownIds = shown.map((s) => s.id);
  let lms = connectLms(win);
  const lmsError = lms?.error ?? null;
  if (lmsError) lms = null;
  const store = openProgress(catalogue, lms ? lms.backend : localBackend(() => win.localStorage));
  if (lms) {
    lms.follow(store, shownIds);
    // the language switch reloads the page: the platform's session stays open for the next one
    win.document.addEventListener('click', (e) => { if (e.target.closest?.('a.lang-switch')) lms.keepOpen(); }, true);
  } else {
    win.addEventListener('storage', (e) => { if (e.key === null || e.key === STORAGE_KEY) store.refresh(); });
  }
  return {
    options, rejected, store, scorm: lms?.version ?? null,
    notices: progressNotices(lang, { problem: store.problem, lmsError }),
    /** What mountExercise takes besides its definition. */
    exerciseOptions: (def) => ({
      solutions: options.solutions,
      kept: {
        saved: store.exercise(def.id),
        answer: (values) => store.answer(def.id, values),
        checked: (values, correct) => store.checked(def.id, values, correct),
        onForget: store.onForget,
      },
    }),
    /** The progress view (first in `main`, or last when one section is embedded) and the visits. */
    attach(main, elements) {
      const view = progressView(store, { lang, sections: shown });
      if (shown.length === 1) {
        main.append(view);
        store.visit(shown[0].id);
      } else {
        main.prepend(view);
        trackVisits(store, elements);
      }
    },
  };
}
