// The lab page: header (title, language, contents) and the sections of sections/index.js, each
// mounted from its controller. State lives in the URL (see state.js); `?embed=18.3` shows one
// section alone, sized for an iframe, and tells the parent page its height.
import 'katex/dist/katex.min.css';
import './style.css';
import { compileCore, loadCore } from '../../wasm/js/index.js';
import { h } from './widgets/dom.js';
import { LANGS, makeT } from './i18n.js';
import { readSection, writeSection } from './state.js';
import { mountSection, anchorId } from './section.js';
import { exercises } from './exercises.js';
import SECTIONS from 'virtual:lab-sections';   // sections/index.js with controllers and lessons
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

document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
document.title = t('title');

function writeUrl() {
  const url = new URL(location.href);
  url.search = params.toString();
  history.replaceState(null, '', url);
}

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
    SECTIONS.map((s) => h('li', {}, h('a', { href: `#${anchorId(s.id)}` }, s.lessons[lang].title)))));
}

async function main() {
  const loading = h('p.loading', { role: 'status' }, t('loading'));
  if (embedded) {
    document.body.classList.add('embed');
    app.append(h('h1.visually-hidden', {}, t('title')));   // the frame's document has a title heading too
  } else app.append(header(), toc());
  const main = h('main', {}, loading);
  app.append(main);
  let core, coreModule;
  try {
    coreModule = await compileCore();   // compiled once: the page and the training worker share it
    core = await loadCore({ module: coreModule });
  } catch (e) {
    loading.textContent = t('loadFailed', { message: e.message });
    loading.classList.add('error');
    return;
  }
  loading.remove();
  for (const spec of embedded ? [embedded] : SECTIONS) {
    const schema = spec.controller?.state ?? [];
    const { state, rejected } = readSection(spec.prefix, schema, params);
    notices.push(...rejected);
    const section = mountSection(spec, {
      core, coreModule, lang, state, resources: { trainText },
      lesson: spec.lessons[lang],
      exercises: exercises.filter((e) => e.section === spec.id),
      onState(next) { writeSection(spec.prefix, schema, next, params); writeUrl(); },
    });
    main.append(section.el);
  }
  performance.mark('attention-lab:interactive');   // every section mounted and answering input
  if (notices.length) {
    main.prepend(h('p.notice', { role: 'status' }, t('urlNotice', { names: [...new Set(notices)].map((n) => n.slice(0, 40)).join(', ') })));
  }
  if (embedded) reportHeight();
  else if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
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
