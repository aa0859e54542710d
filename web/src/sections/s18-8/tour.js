// 18.8's tour of the trained model, predict first: a question per pattern ("Which head looks at
// the previous character?"), the student's guess among the heads (or none), then what the core
// measured on every head (model.headPatterns in the worker, asked by the training controller: the
// model now and its untrained twin) and which heads show the pattern, by the core's verdict, with
// why a character model needs it. DOM only: every number and verdict is the core's.
import { h, nextId, setText, setHidden, keyboardScrollable } from '../../widgets/dom.js';
import { fmt } from '../../format.js';
import { MODEL } from './training.js';
import { PATTERNS } from './tour-strings.js';

const HEADS = Array.from({ length: MODEL.layers }, (_, l) => Array.from({ length: MODEL.heads }, (__, hd) => ({ l, hd }))).flat();
const NONE = 'none';

/** The guess of one question: a radio per head and "none of them", Measure and Skip. */
function guessForm(t, onAnswer) {
  const id = nextId('tour');
  const legend = h('legend');
  const options = [...HEADS.map(({ l, hd }) => ({ value: `${l}-${hd}`, label: t('tourHead', { l, h: hd }) })), { value: NONE, label: t('tourNone') }];
  const radios = options.map((o, i) => h('input', { type: 'radio', name: id, id: `${id}-${i}`, value: o.value }));
  const message = h('p.predict-message', { role: 'status' });
  const form = h('form.predict-form.tour-guess', { 'data-name': 'tour-guess', onsubmit: (e) => {
    e.preventDefault();
    const k = radios.findIndex((r) => r.checked);
    if (k < 0) { setText(message, t('tourPickFirst')); return; }
    onAnswer(options[k].value);
  } },
  h('fieldset', {}, legend, h('div.tour-options', {}, options.map((o, i) => h('label.predict-option', { for: `${id}-${i}` }, radios[i], ' ', o.label)))),
  h('div.predict-actions', {},
    h('button', { type: 'submit', 'data-act': 'measure' }, t('tourMeasure')),
    h('button', { type: 'button', 'data-act': 'skip', onclick: () => onAnswer(null) }, t('tourSkip'))),
  message);
  return {
    el: form,
    /** Ask `question` (a new one starts unanswered; the same one keeps what the student picked). */
    ask(question) {
      if (legend.textContent === question) return;
      setText(legend, question);
      radios.forEach((r) => { r.checked = false; });
      setText(message, '');
    },
  };
}

/** A head's label, its entry in a measurement and whether the core found the pattern there. */
const headOf = (p, l, hd) => p.heads.find((e) => e.layer === l && e.head === hd);
const foundAt = (p, pattern, l, hd) => p.found[pattern].some((e) => e.layer === l && e.head === hd);

/** The verdict: which heads show `pattern` (the core's list), or the strongest one, and the guess against it. */
function verdictText(t, { result: p }, pattern, guess) {
  const head = (l, hd) => t('tourHead', { l, h: hd });
  const base = fmt(p.baseline[pattern], 3), factor = p.factor;
  const found = p.found[pattern];
  const list = found.map(({ layer, head: hd }) => t('tourFoundHead', { head: head(layer, hd), mean: fmt(headOf(p, layer, hd).mean[pattern], 3),
    ratio: fmt(headOf(p, layer, hd).ratio[pattern], 2) })).join(t('listSep'));
  const s = p.strongest[pattern];
  const verdict = found.length ? t('tourFound', { heads: list, base, factor })
    : t('tourNoneFound', { head: head(s.layer, s.head), mean: fmt(s.mean, 3), ratio: fmt(s.ratio, 2), base, factor });
  if (guess === null) return { verdict, pick: '', good: null };
  if (guess === NONE) return { verdict, pick: found.length ? t('tourNoneWrong', { heads: list }) : t('tourNoneRight'), good: !found.length };
  const [l, hd] = guess.split('-').map(Number);
  const shows = foundAt(p, pattern, l, hd);
  return { verdict, pick: t(shows ? 'tourPickRight' : 'tourPickWrong', { head: head(l, hd), ratio: fmt(headOf(p, l, hd).ratio[pattern], 2) }), good: shows };
}

/** A cell with the number it shows rounded, and the core's number in data-value. */
const num = (v, digits, text = fmt(v, digits)) => h('td', { 'data-value': String(v) }, text);

/** The table of one pattern: per head its mean weight untrained and now, × the uniform head with the verdict; the uniform head last. */
function patternTable(t, { result: p, untrained: u }, pattern) {
  const times = (v) => t('times', { v: fmt(v, 2) });
  const rows = HEADS.map(({ l, hd }) => {
    const now = headOf(p, l, hd), then = headOf(u, l, hd), shows = foundAt(p, pattern, l, hd);
    const ratio = times(now.ratio[pattern]);
    return h('tr', { 'data-head': `${l}-${hd}`, class: shows ? 'shows' : null }, h('th', { scope: 'row' }, t('tourHead', { l, h: hd })),
      num(then.mean[pattern], 3), num(now.mean[pattern], 3), num(now.ratio[pattern], 2, shows ? t('tourShows', { ratio }) : ratio));
  });
  const uniform = h('tr.uniform', {}, h('th', { scope: 'row' }, t('uniformHead')), num(u.baseline[pattern], 3), num(p.baseline[pattern], 3), h('td', {}, times(1)));
  return h('table.compare.tour-table', { 'data-name': 'tour-table', 'data-pattern': pattern },
    h('caption', {}, t('tourCaption', { target: t(`target_${pattern}`) })),
    h('thead', {}, h('tr', {}, ['thHead', 'thStep0', 'thNow', 'thRatio'].map((k) => h('th', { scope: 'col' }, t(k, { step: p.step }))))),
    h('tbody', {}, rows, uniform));
}

/** Every head against every pattern (× the uniform head) and its mean row entropy. */
function allTable(t, { result: p }) {
  const head = h('tr', {}, h('th', { scope: 'col' }, t('thHead')), PATTERNS.map((k) => h('th', { scope: 'col' }, t(`p_${k}`))), h('th', { scope: 'col' }, t('thEntropy')));
  const rows = HEADS.map(({ l, hd }) => {
    const e = headOf(p, l, hd);
    return h('tr', { 'data-head': `${l}-${hd}` }, h('th', { scope: 'row' }, t('tourHead', { l, h: hd })),
      PATTERNS.map((k) => num(e.ratio[k], 2, t('times', { v: fmt(e.ratio[k], 2) }))), num(e.entropy, 3));
  });
  const uniform = h('tr.uniform', {}, h('th', { scope: 'row' }, t('uniformHead')), PATTERNS.map(() => h('td', {}, t('times', { v: fmt(1, 2) }))),
    num(p.baseline.entropy, 3));
  return h('table.compare.tour-all', { 'data-name': 'tour-all' }, h('thead', {}, head), h('tbody', {}, rows, uniform));
}

/**
 * The tour of one mounted 18.8 over its training controller `train`:
 *   -> {els, paint(r)}   r: the controller's state (r.patterns: {result, untrained, step} or null)
 */
export function headTour(ctx) {
  const { t } = ctx;
  let question = PATTERNS[0], measured = null;
  const answers = new Map();   // pattern -> the guess (a head 'l-h', 'none', or null: skipped), for the measurement on screen
  const status = h('p.note.tour-status', { 'data-name': 'tour-status' }, t('tourWaiting'));
  const select = h('select', { 'data-name': 'tour-question', id: nextId('tq'), onchange: () => { question = PATTERNS[select.selectedIndex]; show(); } },
    PATTERNS.map((k) => h('option', { value: k }, t(`q_${k}`))));
  const guess = guessForm(t, (g) => { answers.set(question, g); show(); });
  const verdict = h('p.verdict', { 'data-name': 'tour-verdict' });
  const pick = h('p.verdict', { 'data-name': 'tour-pick' });
  const why = h('p.tour-why', { 'data-name': 'tour-why' });
  const def = h('p.note', { 'data-name': 'tour-def' });
  // each table scrolls sideways in its own box where the screen is narrower (and says so)
  // (the box observes its inner block, whose width is the table's)
  const table = h('div.tour-inner'), allWrap = h('div.tour-inner');
  const tableBox = keyboardScrollable(h('div.tour-table-box', {}, table), () => t('tourCaption', { target: t(`target_${question}`) }));
  const all = h('details.tour-all-box', {}, h('summary', {}, t('tourAll')), keyboardScrollable(h('div.tour-all-wrap', {}, allWrap), () => t('tourAll')));
  const result = h('div.tour-result', { 'data-name': 'tour-result', 'aria-live': 'polite', hidden: true }, verdict, pick, why, def, tableBox, all);
  const controls = h('div.controls', {}, h('label.control.select', { for: select.id }, t('tourQuestion'), ' ', select));

  function show() {
    const p = measured;
    setHidden(controls, !p);
    const answered = !!p && answers.has(question);
    setHidden(guess.el, !p || answered);
    setHidden(result, !answered);
    if (!p) return;
    if (!answered) { guess.ask(t(`q_${question}`)); return; }
    const v = verdictText(t, p, question, answers.get(question));
    setText(verdict, v.verdict);
    setText(pick, v.pick);
    setHidden(pick, !v.pick);
    pick.className = `verdict ${v.good === null ? '' : v.good ? 'good' : 'bad'}`;
    setText(why, t(`why_${question}`));
    setText(def, t('tourDef', { windows: p.result.windows, target: t(`target_${question}`), rows: p.result.rows[question],
      base: fmt(p.result.baseline[question], 3), factor: p.result.factor }));
    table.replaceChildren(patternTable(t, p, question));
    allWrap.replaceChildren(allTable(t, p));
  }

  show();   // nothing measured yet: only the status
  return {
    els: [h('h3', {}, t('tourTitle')), h('p.note', {}, t('tourIntro')), status, controls, guess.el, result],
    /** The measurement of the model on screen (a new model clears the guesses: they were about the old one). */
    paint(r) {
      const p = r.patterns;
      if (p === measured) return;
      if (!p) answers.clear();
      measured = p;
      setText(status, !p ? t('tourWaiting') : p.step === 0 ? t('tourUntrained') : t('tourMeasured', { step: p.step, windows: p.result.windows, T: p.result.T }));
      select.selectedIndex = PATTERNS.indexOf(question);
      show();
    },
  };
}
