// The worksheet (?print=worksheet): the exercises of the chosen sections laid out for paper, A4 or
// Letter (print.css), each section with the lab's inputs in the current state (from the URL), each
// exercise with boxes to write in, and, with key=1, an answer key on its own page: the answers
// computed by the core as the page's checks compute them, with the worked solutions.
// `solutions=0` leaves the key out. DOM only: every number comes from the core or the URL.
import { h } from './widgets/dom.js';
import { makeT } from './i18n.js';
import { readSection } from './state.js';
import { check } from './exercises.js';
import { fmt } from './format.js';
import { anchorId } from './section.js';

export const strings = {
  zh: {
    worksheet: '练习单', name: '姓名', date: '日期', print: '打印',
    how: '答案可以写数字或简单算式（1/4、√2/2、e^2）。写出计算过程。',
    inputs: '实验室中的设置', open: '在实验室中打开这些设置：',
    exercise: '练习 {n}', work: '计算过程', choose: '选一项：',
    key: '答案', answer: '答案：', liveAnswer: '从你自己训练的模型上读出（实验室里 18.8 的“这些头学到了什么？”），每个模型不同。',
    on: '开', off: '关',
  },
  en: {
    worksheet: 'Worksheet', name: 'Name', date: 'Date', print: 'Print',
    how: 'Answers may be numbers or short expressions (1/4, √2/2, e^2). Show your working.',
    inputs: 'The lab’s settings', open: 'Open these settings in the lab: ',
    exercise: 'Exercise {n}', work: 'Working', choose: 'Choose one:',
    key: 'Answer key', answer: 'Answer: ', liveAnswer: 'read off the student’s own trained model (18.8’s “What did the heads learn?” in the lab): it differs from model to model.',
    on: 'on', off: 'off',
  },
};

const num = (v) => String(v).replace('-', '−');

/** A matrix, vector or mask of the state as a small table. */
function valueTable(label, rows) {
  return h('figure.ws-matrix', {}, h('figcaption', {}, label),
    h('table', {}, h('tbody', {}, rows.map((r) => h('tr', {}, r.map((v) => h('td', {}, num(v))))))));
}

/** The section's inputs in this state: matrices as tables, the rest as "label: value". */
function stateBlock(spec, state, { lang, t }) {
  const schema = spec.controller?.state ?? [];
  if (!schema.length) return null;
  const tt = makeT(lang, spec.controller.strings);
  const tables = [], settings = [];
  for (const e of schema) {
    if (e.worksheet === false) continue;   // a way of looking (18.3's step-through stage), not an input of the exercises
    const v = state[e.key];
    if (e.type === 'matrix' || e.type === 'mask') tables.push(valueTable(tt(e.key), v));
    else if (e.type === 'vector') tables.push(valueTable(tt(e.key), [v]));
    else {
      const shown = e.type === 'bool' ? t(v ? 'on' : 'off') : e.type === 'enum' ? tt(String(v)) : e.type === 'text' ? `“${v}”` : num(v);
      settings.push(h('div', {}, h('dt', {}, tt(e.key)), h('dd', {}, shown)));
    }
  }
  return h('div.ws-state', {}, h('h3', {}, t('inputs')),
    tables.length ? h('div.ws-tables', {}, tables) : null,
    settings.length ? h('dl.ws-settings', {}, settings) : null);
}

/** The page's address for this state without the worksheet's own parameters, at the section. */
function labUrl(params, spec) {
  const url = new URL(location.href);
  const p = new URLSearchParams(params);
  for (const k of ['print', 'sections', 'key', 'paper', 'embed']) p.delete(k);
  url.search = p.toString();
  url.hash = anchorId(spec.id);
  return url.href;
}

/** The right answer as the page's check computes it: the numbers, or the right choice's label. */
function answerText(def, core, resources, labelOf, t) {
  if (def.live) return t('liveAnswer');   // read off the student's own trained model: no key on paper
  if (def.choices) return def.choices.find((c) => check(def, core, c.value, resources).correct).label;
  const want = def.expected(core, resources);
  const show = (v) => (Math.abs(v - Math.round(v)) < 1e-9 ? String(Math.round(v)) : fmt(v, 4));   // shapes and whole answers as integers
  return def.inputs.map((label, i) => `${labelOf(label)} = ${show(want[i])}`).join(',  ');
}

/** The worksheet element. sections: [{id, prefix, controller, lessons}]; options: options.js's. */
export function renderWorksheet({ core, lang, sections, exercises, params, options, resources }) {
  const t = makeT(lang, strings);
  const labelOf = (label) => (typeof label === 'string' ? label : label[lang]);
  const chosen = options.sections ? sections.filter((s) => options.sections.includes(s.id)) : sections;
  const rejected = [];
  const keyItems = [];
  let n = 0;
  const body = chosen.map((spec) => {
    const lesson = spec.lessons[lang];
    const { state, rejected: bad } = readSection(spec.prefix, spec.controller?.state ?? [], params);
    rejected.push(...bad);
    const items = exercises.filter((e) => e.section === spec.id).map((def) => {
      const text = lesson.exercises[def.id];
      const title = t('exercise', { n: ++n });
      const prompt = h('div.ws-prompt');
      prompt.innerHTML = text.prompt;   // build-time Markdown, raw HTML disabled
      const given = def.given ? h('p.given', {}, def.given(core, resources)) : null;
      const answers = def.choices
        ? h('div.ws-choices', {}, h('span', {}, t('choose')), def.choices.map((c) => h('span.ws-choice', {}, h('span.ws-tick', { 'aria-hidden': 'true' }), h('code', {}, c.label))))
        : h('div.ws-boxes', {}, def.inputs.map((label) => h('div.ws-box', {}, h('span.ws-label', {}, labelOf(label)), h('span.ws-blank'))));
      if (options.key && options.solutions) {
        const solution = h('div.ws-solution');
        solution.innerHTML = text.solution;
        keyItems.push(h('div.ws-key-item', { 'data-exercise': def.id }, h('h3', {}, `${title} · ${lesson.title}`),
          h('p.ws-answer', {}, h('strong', {}, t('answer')), answerText(def, core, resources, labelOf, t)), solution));
      }
      return h('div.ws-exercise', { 'data-exercise': def.id }, h('h3', {}, title), prompt, given,
        h('div.ws-work', {}, h('span', {}, t('work'))), answers);
    });
    const stateEl = stateBlock(spec, state, { lang, t });
    if (stateEl) stateEl.append(h('p.ws-url', {}, t('open'), h('span', {}, labUrl(params, spec))));
    return h('section.ws-section', { 'data-section': spec.id }, h('h2', {}, lesson.title), stateEl, items);
  });
  const el = h('article.worksheet', { 'data-paper': options.paper ?? 'any' },
    h('div.ws-tools', {}, h('button', { type: 'button', onclick: () => window.print() }, t('print'))),
    h('header.ws-head', {},
      h('h1', {}, `${makeT(lang)('title')} · ${t('worksheet')}`),
      h('div.ws-name', {}, h('span', {}, `${t('name')}:`), h('span.ws-line'), h('span', {}, `${t('date')}:`), h('span.ws-line.short')),
      h('p.ws-how', {}, t('how'))),
    body,
    keyItems.length ? h('section.ws-key', {}, h('h2', {}, t('key')), keyItems) : null);
  if (options.paper) el.prepend(h('style', {}, `@page { size: ${options.paper === 'a4' ? 'A4' : 'letter'}; }`));
  return { el, rejected };
}
