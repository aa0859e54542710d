// The progress view: the sections on the page and their exercises (solved or not), where the
// progress is kept, and a "forget my progress" button that asks first (in the page: a confirm()
// dialog is blocked in sandboxed frames). And the visits: a section counts as visited once it
// crosses the middle of the viewport. DOM only; the data is progress.js's.
import { h, keyboardScrollable } from './widgets/dom.js';
import { makeT } from './i18n.js';
import { SOLVED, SOLVED_BEFORE, WRONG } from './progress.js';
import { anchorId } from './section.js';

export const strings = {
  zh: {
    progress: '学习进度',
    summary: '练习做对 {solved}/{total} · 已看过 {visited}/{sections} 节',
    section: '小节', seen: '看过', exercisesCol: '练习',
    visitedYes: '已看过', visitedNo: '还没看',
    solved: '做对了', solvedBefore: '做对了（之后又试了一次，那次不对）', wrong: '还不对', untried: '未作答',
    exerciseN: '第 {n} 题',
    local: '进度只保存在这个浏览器里（localStorage），不会发送到任何地方。换浏览器或用无痕窗口时从头开始。',
    memory: '这个浏览器不允许实验室在本地保存数据（无痕模式或 file:// 的设置），进度只保留到关闭页面为止。',
    lms: '进度由你的课程平台（SCORM）保存；平台会收到你的得分和完成状态。',
    forget: '清除我的进度', confirm: '清除这里保存的所有答案和检查结果？此操作不能撤销。', yes: '确定清除', cancel: '取消',
    forgotten: '进度已清除。',
    foreign: '保存的进度无法读取（不是本实验室的数据），已忽略。',
    newer: '保存的进度来自更新版本的实验室，这个版本读不了，已忽略。',
    corrupt: '保存的进度已损坏，已忽略。',
    partial: '保存的进度中有一部分与这个版本的实验室对不上，已略去。',
    lmsError: '课程平台的 SCORM 接口没有启动（错误 {code}）：进度只保存在这个浏览器里，不会报告给平台。',
  },
  en: {
    progress: 'Your progress',
    summary: '{solved} of {total} exercises solved · {visited} of {sections} sections visited',
    section: 'Section', seen: 'Visited', exercisesCol: 'Exercises',
    visitedYes: 'visited', visitedNo: 'not yet',
    solved: 'solved', solvedBefore: 'solved (a later try was not right)', wrong: 'not right yet', untried: 'not tried',
    exerciseN: 'exercise {n}',
    local: 'Kept in this browser only (localStorage): nothing is sent anywhere. Another browser or a private window starts empty.',
    memory: 'This browser does not let the lab keep data (private mode or a file:// setting), so your progress lasts until you close the page.',
    lms: 'Kept by your course platform (SCORM), which receives your score and completion status.',
    forget: 'Forget my progress', confirm: 'Forget every answer and check kept here? This cannot be undone.', yes: 'Yes, forget', cancel: 'Cancel',
    forgotten: 'Your progress was forgotten.',
    foreign: 'The saved progress could not be read (it is not this lab’s) and was ignored.',
    newer: 'The saved progress is from a newer version of the lab, which this one cannot read; it was ignored.',
    corrupt: 'The saved progress is damaged and was ignored.',
    partial: 'Part of the saved progress did not match this version of the lab and was left out.',
    lmsError: 'The course platform’s SCORM interface did not start (error {code}): your progress is kept in this browser only and is not reported.',
  },
};

// a solved exercise stays solved (data-status) after a later wrong try, which its words mention
const ICON = { [SOLVED]: '✓', [SOLVED_BEFORE]: '✓', [WRONG]: '✗', 0: '·' };
const WORD = { [SOLVED]: 'solved', [SOLVED_BEFORE]: 'solved', [WRONG]: 'wrong', 0: 'untried' };
const SAYS = { ...WORD, [SOLVED_BEFORE]: 'solvedBefore' };

/** The notices about kept progress: [text] (the store's problem reading it, the LMS not starting). */
export function progressNotices(lang, { problem, lmsError }) {
  const t = makeT(lang, strings);
  return [problem && t(problem), lmsError && t('lmsError', { code: lmsError })].filter(Boolean);
}

/** The view over `store` for these sections ([{id, titles}]). */
export function progressView(store, { lang, sections }) {
  const t = makeT(lang, strings);
  const ids = sections.map((s) => s.id);
  const summary = h('summary');
  const body = h('tbody');
  const where = h('p.progress-where');
  const said = h('p.progress-said', { role: 'status' });
  const forget = h('button.forget', { type: 'button', onclick: () => ask(true) }, t('forget'));
  const cancel = h('button', { type: 'button', onclick: () => ask(false) }, t('cancel'));
  const confirm = h('div.forget-confirm', { role: 'group', 'aria-label': t('forget'), hidden: true },
    h('p', {}, t('confirm')),
    h('button.danger', { type: 'button', onclick: () => { store.forget(); ask(false); said.textContent = t('forgotten'); } }, t('yes')),
    ' ', cancel);
  function ask(on) {
    confirm.hidden = !on;
    forget.hidden = on;
    said.textContent = '';
    (on ? cancel : forget).focus();
  }
  const table = h('table.progress-table', {},
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('section')), h('th', { scope: 'col' }, t('seen')), h('th', { scope: 'col' }, t('exercisesCol')))),
    body);
  const el = h('details.progress-view', { 'data-kept': store.kind }, summary,
    h('div.progress-body', {}, keyboardScrollable(h('div.scroll', {}, table)), where, forget, confirm, said));
  // the store tells every change (an exercise box's every keystroke among them): the view is
  // built again only when what it shows changed
  let shows = null;
  function paint() {
    const s = store.summary(ids);
    const key = JSON.stringify([s, store.kind]);
    if (key === shows) return;
    shows = key;
    summary.replaceChildren(h('strong', {}, t('progress')), ' ', h('span.progress-count', {},
      t('summary', { solved: s.solved, total: s.total, visited: s.visited, sections: s.sections.length })));
    body.replaceChildren(...sections.map((spec, i) => {
      const mine = s.exercises.filter((e) => e.section === spec.id);
      return h('tr', { 'data-section': spec.id },
        h('th', { scope: 'row' }, h('a', { href: `#${anchorId(spec.id)}` }, spec.titles[lang])),
        h('td', { class: s.sections[i].visited ? 'yes' : 'no' }, s.sections[i].visited ? `✓ ${t('visitedYes')}` : `– ${t('visitedNo')}`),
        h('td', {}, mine.map((e, k) => h('a.ex-status', { href: `#ex-${e.id}`, 'data-ex': e.id, 'data-status': WORD[e.status] },
          `${ICON[e.status]} ${mine.length > 1 ? `${t('exerciseN', { n: k + 1 })}: ` : ''}${t(SAYS[e.status])}`))));
    }));
    where.textContent = t(store.kind);
    el.dataset.kept = store.kind;
  }
  store.subscribe(paint);
  paint();
  return el;
}

/** Mark sections visited as they cross the middle of the viewport ({id: element}). */
export function trackVisits(store, elements) {
  const ids = new Map(Object.entries(elements).map(([id, el]) => [el, id]));
  const io = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      store.visit(ids.get(e.target));
      io.unobserve(e.target);
    }
  }, { rootMargin: '-45% 0px -45% 0px' });
  for (const el of ids.keys()) io.observe(el);
}
