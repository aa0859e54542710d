// One exercise: prompt, answer boxes, a check against the core's answer, hint and solution.
import { h, nextId } from './widgets/dom.js';
import { parseCell } from './widgets/matrix-editor.js';

export function mountExercise(def, { core, t, lang, text, resources }) {
  const id = nextId('ex');
  const labelOf = (label) => (typeof label === 'string' ? label : label[lang]);
  const feedback = h('p.feedback', { role: 'status', 'aria-live': 'polite' });
  let inputs;
  if (def.choices) {
    inputs = def.choices.map((c, i) => h('input', { type: 'radio', name: id, id: `${id}-${i}`, value: String(c.value) }));
  } else {
    inputs = def.inputs.map((label, i) => h('input', { type: 'text', inputmode: 'decimal', id: `${id}-${i}`, 'aria-label': labelOf(label), autocomplete: 'off' }));
  }
  const check = () => {
    let answer;
    if (def.choices) {
      const k = inputs.findIndex((r) => r.checked);
      if (k < 0) { feedback.textContent = t('answerInvalid'); feedback.className = 'feedback wrong'; return; }
      answer = def.choices[k].value;
    } else {
      const parsed = inputs.map((inp) => parseCell(inp.value));
      parsed.forEach((p, i) => (p.error ? inputs[i].setAttribute('aria-invalid', 'true') : inputs[i].removeAttribute('aria-invalid')));
      if (parsed.some((p) => p.error)) { feedback.textContent = t('answerInvalid'); feedback.className = 'feedback wrong'; return; }
      answer = parsed.map((p) => p.value);
    }
    const r = def.check(core, answer, resources);
    feedback.textContent = r.correct ? t('correct', { expected: r.expected }) : t('incorrect');
    feedback.className = `feedback ${r.correct ? 'right' : 'wrong'}`;
  };
  const form = h('form.answer', { onsubmit: (e) => { e.preventDefault(); check(); } },
    def.choices
      ? h('fieldset.choice', {}, h('legend.visually-hidden', {}, t('check')), def.choices.map((c, i) => h('label', { for: `${id}-${i}` }, inputs[i], ' ', h('code', {}, c.label))))
      : def.inputs.map((label, i) => h('label.answer-box', { for: `${id}-${i}` }, labelOf(label), ' ', inputs[i])),
    h('button', { type: 'submit' }, t('check')));
  const prompt = h('div.prompt');
  const hint = h('div');
  const solution = h('div');
  prompt.innerHTML = text.prompt;       // build-time Markdown, raw HTML disabled
  hint.innerHTML = text.hint;
  solution.innerHTML = text.solution;
  const given = def.given ? h('p.given', {}, def.given(core, resources)) : null;
  return h('article.exercise', { id: `ex-${def.id}`, 'data-exercise': def.id }, prompt, given, form, feedback,
    h('details.hint', {}, h('summary', {}, t('hint')), hint),
    h('details.solution', {}, h('summary', {}, t('solution')), solution));
}
