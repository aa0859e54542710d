// The lab as a SCORM SCO (Sharable Content Object), when a learning platform launches it. The
// platform's API object is found the standard way (ADL's discovery algorithm: this window, its
// parents, then the opener and its parents): API_1484_11 for SCORM 2004, API for SCORM 1.2.
// Without one, nothing here runs and the lab behaves as a plain page.
//
// What the platform receives (see docs/course-integration.md, "SCORM packages"):
//   score     raw = the percentage of this launch's exercises solved, min 0, max 100 (2004 also
//             scaled = solved / total)
//   status    complete = every section of this launch visited and every exercise checked once;
//             passed = the score reached the platform's threshold (1.2 cmi.student_data.mastery_score,
//             2004 cmi.scaled_passing_score) or, without one, every exercise solved; failed = complete
//             below a threshold the platform set. 1.2 cmi.core.lesson_status is passed | failed |
//             completed | incomplete; 2004 cmi.completion_status completed | incomplete and
//             cmi.success_status passed | failed | unknown
//   progress  cmi.suspend_data: the progress text of progress.js (ASCII, within 4,096 characters in
//             1.2 and 64,000 in 2004), read back on the next launch; exit = suspend, so it is kept
//   time      session_time, set when the page goes away
// Values are committed a moment after each change, at once when the page is hidden, and the
// session is finished (LMSFinish / Terminate) when the page goes away (pagehide).
import { LIMITS } from './progress.js';

const CALLS = {
  '1.2': { init: 'LMSInitialize', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish', error: 'LMSGetLastError' },
  2004: { init: 'Initialize', get: 'GetValue', set: 'SetValue', commit: 'Commit', finish: 'Terminate', error: 'GetLastError' },
};
const FIELDS = {
  '1.2': { suspend: 'cmi.suspend_data', exit: 'cmi.core.exit', time: 'cmi.core.session_time',
    threshold: 'cmi.student_data.mastery_score', raw: 'cmi.core.score.raw', min: 'cmi.core.score.min', max: 'cmi.core.score.max' },
  2004: { suspend: 'cmi.suspend_data', exit: 'cmi.exit', time: 'cmi.session_time',
    threshold: 'cmi.scaled_passing_score', raw: 'cmi.score.raw', min: 'cmi.score.min', max: 'cmi.score.max' },
};
const COMMIT_DELAY = 1000;   // ms after the last change

/** The platform's API object called `name`, or null: this window and up to 500 parents, then the
 * opener (of this window or of its top) and its parents. Frames of other origins are stepped over. */
export function findApi(win, name) {
  const climb = (w) => {
    for (let i = 0; w && i < 500; i++) {
      try { if (w[name]) return w[name]; } catch { /* another origin: keep climbing */ }
      let up;
      try { up = w.parent; } catch { return null; }
      if (!up || up === w) return null;
      w = up;
    }
    return null;
  };
  const opener = (w) => { try { return w.opener ?? null; } catch { return null; } };
  let top;
  try { top = win.top; } catch { top = null; }
  return climb(win) ?? (opener(win) && climb(opener(win))) ?? (top && opener(top) && climb(opener(top))) ?? null;
}

/** SCORM's time spans: 1.2 HHHH:MM:SS.SS, 2004 ISO 8601 (PT1H2M3.4S). */
export function sessionTime(version, ms) {
  const cs = Math.max(0, Math.round(ms / 10));
  const h = Math.floor(cs / 360000), m = Math.floor((cs % 360000) / 6000), s = (cs % 6000) / 100;
  if (version === '1.2') return `${String(Math.min(h, 9999)).padStart(4, '0')}:${String(m).padStart(2, '0')}:${s.toFixed(2).padStart(5, '0')}`;
  return `PT${h}H${m}M${s.toFixed(2)}S`;
}

/** The values to send for a summary (progress.js summarize) and the platform's threshold
 * (a fraction of 1, or null): {field: value} in the version's data model. */
export function reportValues(version, summary, threshold) {
  const scaled = summary.total ? summary.solved / summary.total : 0;
  const percent = Math.round(scaled * 10000) / 100;
  const passed = threshold === null ? summary.total > 0 && summary.solved === summary.total : scaled >= threshold;
  const failed = threshold !== null && summary.complete && !passed;
  const F = FIELDS[version];
  const values = { [F.raw]: String(percent), [F.min]: '0', [F.max]: '100' };
  if (version === '1.2') {
    values['cmi.core.lesson_status'] = passed ? 'passed' : failed ? 'failed' : summary.complete ? 'completed' : 'incomplete';
  } else {
    values['cmi.score.scaled'] = String(Math.round(scaled * 10000) / 10000);
    values['cmi.completion_status'] = summary.complete ? 'completed' : 'incomplete';
    values['cmi.success_status'] = passed ? 'passed' : failed ? 'failed' : 'unknown';
  }
  return values;
}

/** Connect to the platform: null when there is no SCORM API, else
 * {version, error, backend, follow(store, sectionIds), keepOpen()}. `error`: the API was found but
 * would not start (then nothing else is used; the caller keeps progress in the browser). */
export function connectLms(win) {
  for (const [version, name] of [['2004', 'API_1484_11'], ['1.2', 'API']]) {
    const api = findApi(win, name);
    if (api) return openSession(win, api, version);
  }
  return null;
}

function openSession(win, api, version) {
  const fn = CALLS[version], F = FIELDS[version];
  const call = (f, ...args) => {
    try { return String(api[fn[f]](...args)); } catch { return 'false'; }
  };
  const get = (field) => call('get', field);
  const set = (field, value) => call('set', field, value);
  const start = Date.now();
  const started = call('init', '') === 'true';
  const code = started ? null : call('error');
  // exit = suspend: the platform keeps suspend_data for the next launch. Initialize fails when this
  // SCO already initialized the session and reloaded itself (the language switch keeps the session
  // open); the session is usable if the API takes this value.
  if (set(F.exit, 'suspend') !== 'true' && !started) return { version, error: code };
  const kept = get(F.suspend);
  const t = get(F.threshold).trim();
  const threshold = t === '' || !Number.isFinite(Number(t)) ? null : Number(t) / (version === '1.2' ? 100 : 1);
  let timer = null, finished = false, keepOpen = false, store = null, shown = [];
  const sent = new Map();   // field -> the value last set: only changes are sent
  const commit = () => {
    clearTimeout(timer);
    timer = null;
    if (!finished) call('commit', '');
  };
  const report = () => {
    if (finished) return;
    for (const [field, value] of Object.entries(reportValues(version, store.summary(shown), threshold))) {
      if (sent.get(field) !== value) { set(field, value); sent.set(field, value); }
    }
    clearTimeout(timer);
    timer = setTimeout(commit, COMMIT_DELAY);
  };
  const finish = () => {
    if (finished) return;
    if (keepOpen) { commit(); return; }
    set(F.time, sessionTime(version, Date.now() - start));
    commit();
    call('finish', '');
    finished = true;
  };
  const backend = {
    kind: 'lms', shared: false, limit: LIMITS[version],
    read: () => kept,
    write(text) { if (!finished) set(F.suspend, text); },
    clear() { if (!finished) set(F.suspend, ''); },
  };
  return {
    version, error: null, backend,
    /** Report this store's progress over these sections now and after every change; finish on pagehide. */
    follow(s, sectionIds) {
      store = s;
      shown = sectionIds;
      store.subscribe(report);
      report();
      commit();
      win.addEventListener('pagehide', finish);
      win.addEventListener('visibilitychange', () => { if (win.document.visibilityState === 'hidden') commit(); });
    },
    /** The page is about to reload itself (the language switch): commit, but leave the session open. */
    keepOpen() { keepOpen = true; },
  };
}
