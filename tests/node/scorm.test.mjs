// The SCO side (web/src/scorm.js) in Node: API discovery over fake window trees (parents, other
// origins, the opener), the values reported for a summary in both versions, SCORM time spans.
// The browser runs against a real runtime in tests/web/scorm.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findApi, reportValues, sessionTime } from '../../web/src/scorm.js';

/** A window whose parent is `parent` (itself at the top); `foreign`: reading its properties throws. */
function win({ parent = null, opener = null, api = {}, foreign = false } = {}) {
  const w = { opener };
  w.parent = parent ?? w;
  w.top = parent ? parent.top : w;
  Object.assign(w, api);
  if (!foreign) return w;
  return new Proxy(w, {
    get(target, key) {
      if (['parent', 'top', 'opener'].includes(key)) return target[key];
      throw new DOMException('Blocked a frame from accessing a cross-origin frame', 'SecurityError');
    },
  });
}

test('findApi: the window, then its parents (over other origins), then the opener', () => {
  const API = { LMSInitialize() {} }, API2004 = { Initialize() {} };
  const lms = win({ api: { API, API_1484_11: API2004 } });
  const player = win({ parent: lms });
  const course = win({ parent: player, foreign: true });   // a frame of another origin in between
  const sco = win({ parent: course });
  assert.equal(findApi(sco, 'API'), API);
  assert.equal(findApi(sco, 'API_1484_11'), API2004);
  assert.equal(findApi(win(), 'API'), null, 'a plain page has none');
  // a SCO in a pop-up window: the opener's frames
  const popup = win({ opener: player });
  assert.equal(findApi(popup, 'API'), API);
  const popupFrame = win({ parent: win({ opener: player }) });
  assert.equal(findApi(popupFrame, 'API'), API, "the top's opener");
  // an iframe on a site of another origin with no API anywhere: null, no exception
  assert.equal(findApi(win({ parent: win({ foreign: true }) }), 'API'), null);
});

const summary = (solved, total, complete) => ({ solved, total, complete });

test('reportValues: SCORM 1.2 status and score', () => {
  const r = (s, threshold = null) => reportValues('1.2', s, threshold);
  assert.deepEqual(r(summary(0, 11, false)), {
    'cmi.core.score.raw': '0', 'cmi.core.score.min': '0', 'cmi.core.score.max': '100', 'cmi.core.lesson_status': 'incomplete' });
  assert.equal(r(summary(1, 11, false))['cmi.core.score.raw'], '9.09');
  assert.equal(r(summary(2, 3, false))['cmi.core.score.raw'], '66.67');
  // without a mastery score: completed when done, passed when every exercise is solved
  assert.equal(r(summary(10, 11, true))['cmi.core.lesson_status'], 'completed');
  assert.equal(r(summary(11, 11, true))['cmi.core.lesson_status'], 'passed');
  assert.equal(r(summary(11, 11, false))['cmi.core.lesson_status'], 'passed');
  // with one (a fraction here: 1.2's mastery_score / 100): passed at it, failed only when done below it
  assert.equal(r(summary(6, 11, false), 0.5)['cmi.core.lesson_status'], 'passed');
  assert.equal(r(summary(5, 11, false), 0.5)['cmi.core.lesson_status'], 'incomplete');
  assert.equal(r(summary(5, 11, true), 0.5)['cmi.core.lesson_status'], 'failed');
});

test('reportValues: SCORM 2004 completion, success and score', () => {
  const r = (s, threshold = null) => reportValues('2004', s, threshold);
  assert.deepEqual(r(summary(1, 11, false)), {
    'cmi.score.raw': '9.09', 'cmi.score.min': '0', 'cmi.score.max': '100', 'cmi.score.scaled': '0.0909',
    'cmi.completion_status': 'incomplete', 'cmi.success_status': 'unknown' });
  assert.deepEqual([r(summary(3, 3, true))['cmi.completion_status'], r(summary(3, 3, true))['cmi.success_status'], r(summary(3, 3, true))['cmi.score.scaled']],
    ['completed', 'passed', '1']);
  assert.equal(r(summary(2, 3, true))['cmi.success_status'], 'unknown', 'no threshold from the platform: never failed');
  assert.equal(r(summary(2, 3, true), 0.8)['cmi.success_status'], 'failed');
  assert.equal(r(summary(2, 3, false), 0.6)['cmi.success_status'], 'passed');
  assert.equal(r(summary(0, 0, true))['cmi.success_status'], 'unknown', 'no exercises: nothing to pass');
});

test('sessionTime: 1.2 HHHH:MM:SS.SS and 2004 ISO 8601 durations', () => {
  const ms = ((2 * 60 + 3) * 60 + 4.5) * 1000;   // 2 h 3 min 4.5 s
  assert.equal(sessionTime('1.2', ms), '0002:03:04.50');
  assert.equal(sessionTime('2004', ms), 'PT2H3M4.50S');
  assert.equal(sessionTime('1.2', 0), '0000:00:00.00');
  assert.equal(sessionTime('2004', 59999), 'PT0H1M0.00S');
});
