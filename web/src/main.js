// The lab page: header (title, language, contents) and the sections of sections/index.js, mounted
// by mountLab() (mount.js) with the state in the URL; `?embed=18.3` shows one section alone,
// sized for an iframe, and tells the parent page its height; `?solutions=0` hides the exercises'
// hints, solutions and diagnoses.
import './page-early.js';   // first: starts fetching the shown sections' code
import 'katex/dist/katex.min.css';
import './style.css';
import { h } from './widgets/dom.js';
import { LANGS, makeT } from './i18n.js';
import { anchorId } from './section.js';
import { mountLab, sharedCore, loadSections, loadExercises, SECTIONS } from './mount.js';
import { startCourse } from './course.js';
import { exercisesOf } from './exercises.js';
import trainText from '../../lessons/data/train.txt?raw';

const app = document.getElementById('app');
const params = new URLSearchParams(location.search);
const lang = LANGS.includes(params.get('lang')) ? params.get('lang') : 'zh';
const embedId = params.get('embed');
const embedded = SECTIONS.find((s) => s.id === embedId);
const t = makeT(lang);
const notices = [];
if (params.has('lang') && !LANGS.includes(params.get('lang'))) notices.push('lang');
if (params.has('embed') && !embedded) notices.push('embed');
const shown = embedded ? [embedded] : SECTIONS;
// the lab in a course (course.js): page options, progress that is kept, a learning platform (SCORM),
// paper; started in main() once the shown sections' controllers (their exercises) have arrived
let course;

document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
document.title = t('title');

// An edit's state reaches the URL once the edits pause for URL_QUIET ms: replaceState costs about
// 8 ms of the main thread here (30 ms with the CPU slowed 4x, bench/profile-page.mjs), too much to
// pay on every keystroke or slider step. Leaving or hiding the page writes what is still due.
// While a write is due, <html> carries data-url-due (a script or a test waits for it to go).
const URL_QUIET = 250;
let urlTimer = 0;
function writeUrl() {
  clearTimeout(urlTimer);
  urlTimer = 0;
  const url = new URL(location.href);
  url.search = params.toString();
  history.replaceState(null, '', url);
  delete document.documentElement.dataset.urlDue;
}
function writeUrlSoon() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(writeUrl, URL_QUIET);
  document.documentElement.dataset.urlDue = '';
}
addEventListener('pagehide', () => { if (urlTimer) writeUrl(); });
addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden' && urlTimer) writeUrl(); });

function header() {
  const other = lang === 'zh' ? 'en' : 'zh';
  const switchUrl = new URL(location.href);
  const p = new URLSearchParams(params);
  p.set('lang', other);
  switchUrl.search = p.toString();
  return h('header.site', {},
    h('div.brand', {}, h('h1', {}, t('title')), h('p.subtitle', {}, t('subtitle'))),
    // its name is its visible text (the other language's name, in that language) and then what it does
    h('a.lang-switch', { href: switchUrl.href, hreflang: other, 'data-lang': other,
      onclick: (e) => { e.preventDefault(); params.set('lang', other); writeUrl(); location.reload(); } },
    h('span', { lang: other === 'zh' ? 'zh-CN' : 'en' }, t('lang')), h('span.visually-hidden', {}, ` (${t('langLabel')})`)));
}

function toc() {
  return h('nav.toc', { 'aria-label': t('contents') }, h('h2', {}, t('contents')), h('ol', {},
    SECTIONS.map((s) => h('li', {}, h('a', { href: `#${anchorId(s.id)}` }, s.titles[lang])))));
}

async function main() {
  // the core and the shown sections' lessons start downloading at once, beside the controllers'
  // (mountLab and the worksheet take them from there; a failure is reported where they are awaited)
  sharedCore();
  loadSections(shown.map((s) => s.id), lang).catch(() => {});
  let exercises;
  try {
    exercises = await loadExercises(shown.map((s) => s.id));
  } catch (e) {
    app.append(h('main', {}, h('p.loading.error', { role: 'status' }, t(e.part ? 'partFailed' : 'loadFailed', { message: e.message }))));
    return;
  }
  course = startCourse({ params, lang, sections: SECTIONS, shown, exercises });
  notices.push(...course.rejected);
  if (course.options.print) { worksheet(); return; }
  if (embedded) document.body.classList.add('embed');
  else app.append(header(), toc());
  const root = h('main');
  app.append(root);
  const lab = await mountLab(root, {
    lang, params, notices, onState: writeUrlSoon,
    sections: embedded ? [embedded.id] : SECTIONS.map((s) => s.id),
    exerciseOptions: course.exerciseOptions,
    // the whole page builds the labs in view first (docs/performance.md); an anchor in the URL
    // scrolls to its section once everything above it has its final height
    lazy: !embedded && !location.hash,
    // an embedded section's exercises come in the first idle moment after its lab (a link to one
    // in the URL needs it at once)
    exercisesWhenIdle: !!embedded && !location.hash,
  });
  // an embedded section's document has its title heading too (inside main: all content in landmarks)
  if (embedded) root.prepend(h('h1.visually-hidden', {}, t('title')));
  if (!lab.sections.length) return;
  course.attach(root, Object.fromEntries(lab.sections.map((s) => [s.id, s.el])));
  for (const text of course.notices) root.prepend(h('p.notice', { role: 'status' }, text));
  performance.mark('attention-lab:interactive');   // the sections in view mounted and answering input
  lab.mounted.then(() => performance.mark('attention-lab:mounted'));   // every section's lab and exercises built
  if (embedded) reportHeight();
  else if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
}

// ?print=worksheet: the chosen sections' exercises laid out for paper instead of the lab.
async function worksheet() {
  // on the root as well, for its background: a `:root:has(body.worksheet-mode)` rule made Chromium
  // search the whole document for the class after every change the lab page made to its DOM
  document.documentElement.classList.add('worksheet-mode');
  document.body.classList.add('worksheet-mode');
  const loading = h('p.loading', { role: 'status' }, t('loading'));
  const root = h('main', {}, loading);
  app.append(root);
  let core, sections, renderWorksheet;
  try {
    // the worksheet's code is a chunk of its own: only ?print=worksheet fetches it
    [{ core }, sections, { renderWorksheet }] = await Promise.all([sharedCore(), loadSections(SECTIONS.map((s) => s.id), lang),
      import('./worksheet.js').catch((e) => { throw Object.assign(e, { part: true }); })]);
  } catch (e) {
    loading.textContent = t(e.part ? 'partFailed' : 'loadFailed', { message: e.message });
    loading.classList.add('error');
    return;
  }
  loading.remove();
  const sheet = renderWorksheet({ core, lang, sections, exercises: exercisesOf(sections), params, options: course.options, resources: { trainText } });
  root.append(sheet.el);
  notices.push(...sheet.rejected);
  if (notices.length) {
    root.prepend(h('p.notice', { role: 'status' }, t('urlNotice', { names: [...new Set(notices)].map((n) => n.slice(0, 40)).join(', ') })));
  }
}

// Embedding: post only our height, to whichever page embeds us; accept nothing back.
function reportHeight() {
  if (window.parent === window) return;
  const send = () => window.parent.postMessage({ type: 'attention-lab:height', section: embedded.id,
    height: Math.ceil(document.documentElement.scrollHeight) }, '*');
  new ResizeObserver(send).observe(document.body);
  send();
}

main();
