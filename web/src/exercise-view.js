// One exercise: prompt, answer boxes, a check against the core's answer (with the diagnosis of a
// known misconception), hint and solution. Answers are numbers or short expressions (answer.js).
// Optional: `kept` keeps the answers and the last check (progress.js, through course.js):
// {saved: {status, answer} | null, answer(values), checked(values, correct), onForget(fn)};
// `solutions: false` leaves out hints, solutions and diagnoses (options.js).
import { h, nextId, setAttr } from './widgets/dom.js';
import { makeT } from './i18n.js';
import { parseAnswer } from './answer.js';
import { check } from './exercises.js';
import { fmt } from './format.js';
import { MAX_ANSWER, SOLVED, SOLVED_BEFORE } from './progress.js';

export const strings = {
  zh: {
    answerHelp: '可以填数字或简单算式：1/4、0.25、−1/3、√2/2 或 sqrt(2)/2、2^−3、e^2、ln 2、sin 1、π/4。',
    answerEmpty: '“{label}”还是空的：请填入答案。',
    answerSyntax: '“{label}”里的“{text}”读不懂：请填数字或算式，例如 1/4、0.25、√2/2。',
    answerRange: '“{label}”里的“{text}”不是一个有限的实数（例如除以 0、负数开方）。',
    readAs: '你的答案读作 {values}。',
    correctWithin: '正确！内核算出的是 {expected}；你的 {answered} 与它相差不到 {tolerance}，在这道题允许的误差之内。',
    boxesOff: '还不对的是：{labels}（其余输入框是对的）。',
    wrongKnown: '还不对。',
    solvedBefore: '✓ 你之前已经做对了（答案保存在这里）。',
    solvedThenWrong: '✓ 你之前已经做对了。这里保存的是之后的一次尝试，那一次不对。',
    laterTry: '这道题你之前已经做对了，仍然算作做对；这一次的答案不对。',
    incorrectNoHint: '还不对。再想想。',
  },
  en: {
    answerHelp: 'Numbers or short expressions: 1/4, 0.25, −1/3, √2/2 or sqrt(2)/2, 2^−3, e^2, ln 2, sin 1, π/4.',
    answerEmpty: '“{label}” is empty: enter your answer.',
    answerSyntax: '“{label}”: could not read “{text}”. Enter a number or an expression such as 1/4, 0.25 or √2/2.',
    answerRange: '“{label}”: “{text}” is not a finite real number (a division by 0, the root of a negative number, ...).',
    readAs: 'Your answer reads as {values}.',
    correctWithin: 'Correct! The core computes {expected}; your {answered} is within {tolerance} of it, the tolerance of this exercise.',
    boxesOff: 'Not right yet: {labels} (the other boxes are right).',
    wrongKnown: 'Not yet.',
    solvedBefore: '✓ You solved this before (your answer is kept here).',
    solvedThenWrong: '✓ You solved this before. The answer kept here is a later try, which was not right.',
    laterTry: 'You solved this exercise before, and it stays solved; this later try is not right.',
    incorrectNoHint: 'Not yet. Think again.',
  },
};

/** What a check says: right (and, when accepted within the tolerance, what was accepted and
 * against what), or not yet, with the boxes not right yet when others are, and the diagnosis of a
 * known misconception. -> {kind: 'right' | 'wrong', nodes} */
function verdict(r, { t, text, solutions, labels, sep }) {
  if (r.correct) {
    const words = r.exact === false ? t('correctWithin', { expected: r.expected, answered: r.answered, tolerance: r.tolerance })
      : t('correct', { expected: r.expected });
    return { kind: 'right', nodes: [h('p', {}, words)] };
  }
  const off = (r.boxes ?? []).flatMap((ok, i) => (ok ? [] : [`“${labels[i]}”`]));
  const boxes = solutions && off.length && off.length < r.boxes.length ? h('p.boxes-off', {}, t('boxesOff', { labels: off.join(sep) })) : null;
  const diagnosis = solutions && r.misconception && text.wrong?.[r.misconception];
  if (!diagnosis) return { kind: 'wrong', nodes: [h('p', {}, t(solutions ? 'incorrect' : 'incorrectNoHint')), boxes] };   // no hint to open without solutions
  const d = h('div.diagnosis', { 'data-misconception': r.misconception });
  d.innerHTML = diagnosis;   // build-time Markdown, raw HTML disabled
  return { kind: 'wrong', nodes: [h('p', {}, t('wrongKnown')), boxes, d] };
}

/** solutions: false leaves out the hint, the solution and the diagnosis of a wrong answer (a graded
 * session); kept: the progress store's hooks for this exercise (course.js), or null. */
export function mountExercise(def, { core, lang, text, resources, solutions = true, kept = null }) {
  const t = makeT(lang, strings);
  const id = nextId('ex');
  const labelOf = (label) => (typeof label === 'string' ? label : label[lang]);
  const feedback = h('div.feedback', { role: 'status', 'aria-live': 'polite' });
  const say = (kind, ...children) => { feedback.replaceChildren(...children.filter(Boolean)); feedback.className = `feedback ${kind}`; };
  const help = def.choices ? null : h('p.answer-help', { id: `${id}-help` }, t('answerHelp'));
  let inputs;
  if (def.choices) {
    inputs = def.choices.map((c, i) => h('input', { type: 'radio', name: id, id: `${id}-${i}`, value: String(c.value) }));
  } else {
    inputs = def.inputs.map((label, i) => h('input', { type: 'text', id: `${id}-${i}`, 'aria-label': labelOf(label),
      'aria-describedby': help.id, autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', maxlength: MAX_ANSWER }));
  }
  const values = () => (def.choices ? [inputs.find((r) => r.checked)?.value ?? ''] : inputs.map((inp) => inp.value));
  const read = () => {
    const parsed = inputs.map((inp) => parseAnswer(inp.value));
    parsed.forEach((p, i) => (p.error ? inputs[i].setAttribute('aria-invalid', 'true') : inputs[i].removeAttribute('aria-invalid')));
    const bad = parsed.findIndex((p) => p.error);
    if (bad >= 0) {
      const key = { empty: 'answerEmpty', syntax: 'answerSyntax', range: 'answerRange' }[parsed[bad].error];
      say('wrong', h('p', {}, t(key, { label: labelOf(def.inputs[bad]), text: inputs[bad].value.trim().slice(0, 40) })));
      inputs[bad].focus();
      return null;
    }
    return parsed;
  };
  const onCheck = () => {
    let answer, readAs = null;
    if (def.choices) {
      const k = inputs.findIndex((r) => r.checked);
      if (k < 0) { say('wrong', h('p', {}, t('answerInvalid'))); return; }
      answer = def.choices[k].value;
    } else {
      const parsed = read();
      if (!parsed) return;
      answer = parsed.map((p) => p.value);
      // an expression is shown as the number it was read as, so the student sees what was checked
      if (parsed.some((p) => !p.plain)) readAs = h('p.read-as', {}, t('readAs', { values: parsed.map((p) => fmt(p.value, 4)).join(', ') }));
    }
    const r = check(def, core, answer, resources);
    const status = kept?.checked(values(), r.correct);
    // several boxes: the ones not right yet are marked (with solutions on)
    if (!def.choices && solutions) inputs.forEach((inp, i) => setAttr(inp, 'aria-invalid', r.boxes && !r.correct && !r.boxes[i] ? 'true' : null));
    const v = verdict(r, { t, text, solutions, labels: def.inputs?.map(labelOf), sep: lang === 'zh' ? '、' : ', ' });
    say(v.kind, ...v.nodes, readAs, status === SOLVED_BEFORE ? h('p.later-try', {}, t('laterTry')) : null);
  };
  const form = h('form.answer', { onsubmit: (e) => { e.preventDefault(); onCheck(); }, oninput: () => kept?.answer(values()) },
    def.choices
      ? h('fieldset.choice', {}, h('legend.visually-hidden', {}, t('check')), def.choices.map((c, i) => h('label', { for: `${id}-${i}` }, inputs[i], h('code', {}, c.label))))
      : def.inputs.map((label, i) => h('label.answer-box', { for: `${id}-${i}` }, labelOf(label), ' ', inputs[i])),
    h('button', { type: 'submit' }, t('check')));
  const prompt = h('div.prompt');
  const hint = h('div');
  const solution = h('div');
  prompt.innerHTML = text.prompt;       // build-time Markdown, raw HTML disabled
  hint.innerHTML = text.hint;
  solution.innerHTML = text.solution;
  const given = def.given ? h('p.given', {}, def.given(core, resources)) : null;
  if (kept?.saved) {
    if (def.choices) inputs.forEach((r) => { r.checked = r.value === kept.saved.answer[0]; });
    else inputs.forEach((inp, i) => { inp.value = kept.saved.answer[i] ?? ''; });
    if (kept.saved.status === SOLVED) say('right', h('p', {}, t('solvedBefore')));
    if (kept.saved.status === SOLVED_BEFORE) say('right', h('p', {}, t('solvedThenWrong')));
  }
  kept?.onForget(() => { form.reset(); say(''); });
  return h('article.exercise', { id: `ex-${def.id}`, 'data-exercise': def.id }, prompt, given, form, help, feedback,
    solutions && h('details.hint', {}, h('summary', {}, t('hint')), hint),
    solutions && h('details.solution', {}, h('summary', {}, t('solution')), solution));
}
