// "Predict first": before a change the lesson is about (mask before/after, √hs vs √C, causal on
// or off) the page asks the student what will happen. Optional: one click skips. After the
// change the section reports what the core computed (settle), and the card says whether the
// prediction held. It asks once per page visit; after that the control acts at once.
//
//   const p = prediction({ lang, question, options: [{value, label}] });
//   control onChange: p.ask(() => ctx.set(...), revert)   revert: show the control's old value again
//   paint: if (p.waiting) p.settle(outcome)                outcome: the value of the option that happened
//   the section's reset: p.reset()                        (a section makes its predictions with ctx.prediction, which does it)
import { h, nextId } from './dom.js';
import { makeT } from '../i18n.js';

export const strings = {
  zh: {
    predictTitle: '先预测一下',
    predictGo: '预测好了，切换',
    predictSkip: '跳过，直接切换',
    predictPick: '先选一个预测，或者点“跳过”。',
    predictRight: '和你的预测一致：{actual}',
    predictWrong: '和你的预测不同：你选的是“{guess}”，内核算出的结果是：{actual}',
  },
  en: {
    predictTitle: 'Predict first',
    predictGo: 'Switch and compare',
    predictSkip: 'Skip, just switch',
    predictPick: 'Pick a prediction first, or skip.',
    predictRight: 'As you predicted: {actual}',
    predictWrong: 'Not what you predicted. You chose “{guess}”; the core computed: {actual}',
  },
};

export function prediction({ lang, question, options, name }) {
  const t = makeT(lang, strings);
  const id = nextId('pr');
  let asked = false, guess = null, waiting = false, pending = null;
  const radios = options.map((o, i) => h('input', { type: 'radio', name: id, id: `${id}-${i}`, value: String(i) }));
  const message = h('p.predict-message', { role: 'status', 'aria-live': 'polite' });
  const form = h('form.predict-form', { onsubmit: (e) => { e.preventDefault(); go(); } },
    h('fieldset', {}, h('legend', {}, h('strong', {}, t('predictTitle')), ' ', question),
      options.map((o, i) => h('label.predict-option', { for: `${id}-${i}` }, radios[i], ' ', o.label))),
    h('div.predict-actions', {},
      h('button', { type: 'submit', 'data-act': 'predict' }, t('predictGo')),
      h('button', { type: 'button', 'data-act': 'skip', onclick: () => run(null) }, t('predictSkip'))));
  const el = h('div.predict', { id, 'data-name': name, hidden: true }, form, message);

  function run(choice) {
    const apply = pending;
    pending = null;
    guess = choice;
    waiting = choice !== null;
    form.hidden = true;
    message.textContent = '';
    el.hidden = !waiting;
    apply();
  }
  function go() {
    const k = radios.findIndex((r) => r.checked);
    if (k < 0) { message.textContent = t('predictPick'); return; }
    run(k);
  }

  return {
    el,
    /** Before a change: the first time, show the question and hold the change until the student
     * predicts or skips (revert shows the control's old value meanwhile); after that, apply at once. */
    ask(apply, revert) {
      if (pending) { revert?.(); radios[0].focus(); return; }   // still waiting for a prediction or a skip
      if (asked) {   // the verdict was about the switch the student predicted: a later change retires it
        message.textContent = '';
        el.hidden = true;
        apply();
        return;
      }
      asked = true;
      pending = apply;
      revert?.();
      el.hidden = false;
      form.hidden = false;
      radios[0].focus();
    },
    /** After the change: the outcome the core computed (an option's value); says whether the prediction held. */
    settle(outcome) {
      if (!waiting) return;
      waiting = false;
      const k = options.findIndex((o) => o.value === outcome);
      const actual = options[k]?.label ?? String(outcome);
      message.textContent = k === guess ? t('predictRight', { actual }) : t('predictWrong', { guess: options[guess].label, actual });
      message.className = `predict-message ${k === guess ? 'good' : 'bad'}`;
    },
    /** Back to the start (the section's reset): no question, no verdict; the next change asks again. */
    reset() {
      asked = false;
      pending = null;
      waiting = false;
      message.textContent = '';
      form.reset();
      el.hidden = true;
    },
    get waiting() { return waiting; },
    get open() { return pending !== null; },
  };
}
