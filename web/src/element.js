// <attention-lab>: sections of the lab inside a course page, without an iframe.
//
//   <script type="module" src="attention-lab/attention-lab.js"></script>
//   <attention-lab section="18.3" lang="en" state="s3.causal=0"></attention-lab>
//
// Attributes (all may change at run time; the element re-renders):
//   section     a section id from sections/index.js (18.1 ... 18.8, exercises), or several
//               separated by spaces; required
//   lang        zh | en; without it, the language of the nearest ancestor with a lang attribute
//               (zh-CN -> zh, en-GB -> en), else zh
//   state       the sections' state in the page URL's form (s3.causal=0&s3.x=1,0;0,1): the query of
//               a shared lab link, with or without its '?'; other parameters are ignored. The
//               element writes it back as the student edits
//   solutions   0 hides the exercises' hints and solutions (as ?solutions=0 on the page)
// Events (bubbling, composed):
//   attention-lab:state   on every edit; detail {section, state, values}: the edited section, the
//                         new `state` attribute, and that section's state as an object
//   attention-lab:ready   after every (re-)render; detail {sections, error}
//
// Each element renders into its own shadow root: the host's CSS does not reach the lab (the
// wrapper resets every inherited property) and the lab's CSS stays inside. One stylesheet object
// is shared by all elements. KaTeX's @font-face rules do not apply from inside a shadow root in
// Chromium, so they are declared once on the document. The WebAssembly core is compiled and
// instantiated once per page (mount.js); removing an element releases what it holds (18.8's
// worker). The element never reads or writes the host page's URL.
import katexCss from 'katex/dist/katex.min.css?inline';
import labCss from './style.css?inline';
import { mountLab, sharedCore, loadSections, SECTIONS } from './mount.js';
import { LANGS, makeT } from './i18n.js';
import { h } from './widgets/dom.js';

export const strings = {
  zh: {
    noSection: '<attention-lab>：缺少 section 属性。可用的值：{ids}。',
    badSection: '<attention-lab>：section="{value}" 不是实验室的小节。可用的值：{ids}。',
  },
  en: {
    noSection: '<attention-lab>: the section attribute is missing. Use one of {ids}.',
    badSection: '<attention-lab>: section="{value}" is not a section of the lab. Use one of {ids}.',
  },
};

const FONT_FACE = /@font-face\s*\{[^}]*\}/g;

// Inside the shadow root: the host box, a wrapper that starts from initial values (nothing
// inherited from the host page) and then takes the lab's theme, which style.css declares on
// :root for the page. rem would follow the host page's root font size, so the lab's rem lengths
// are taken from the wrapper's size instead (--lab-rem).
const shadowCss = `
:host { display: block; }
:host([hidden]) { display: none; }
.attention-lab { all: initial; display: block; visibility: inherit; --lab-rem: var(--attention-lab-font-size, 16px); font-size: var(--lab-rem); }
${katexCss.replace(FONT_FACE, '')}
${labCss.replace(/:root\b/g, '.attention-lab').replace(/(\d*\.?\d+)rem\b/g, 'calc($1 * var(--lab-rem))')}
.attention-lab { background: none; }
.attention-lab > .lab-section:first-of-type { margin-top: 0; }
.attention-lab > .lab-section:last-child { margin-bottom: 0; }
`;

let sheet = null;
function styles() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(shadowCss);
  }
  return sheet;
}

let fontsDeclared = false;
/** KaTeX's @font-face rules, once, on the document (where they apply to every shadow root). */
function declareFonts() {
  if (fontsDeclared) return;
  fontsDeclared = true;
  const fonts = new CSSStyleSheet();
  fonts.replaceSync(katexCss.match(FONT_FACE).join('\n'));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, fonts];
}

const ids = SECTIONS.map((s) => s.id).join(', ');

// The elements that start rendering in one turn (a course page's elements are upgraded together
// when the module arrives) fetch the core and their sections together and mount together, one
// after another in the same task: without it each element mounts as its own chunk arrives and the
// browser lays out and paints the page in between, which delays every element after the first.
// A chunk that fails to load fails only the elements that show it (mountLab says so in each); one
// that stalls holds the others back with it (they come from the same place as the core).
let batch = null;
function loadedTogether(sections, lang) {
  if (!batch) {
    const loads = [sharedCore()];
    batch = { loads, done: Promise.resolve().then(() => { batch = null; return Promise.allSettled(loads); }) };
  }
  batch.loads.push(loadSections(sections, lang));
  return batch.done;
}

/** The element's attributes, checked: {lang, sections, params, solutions, notices, problem}. */
function readAttributes(el) {
  const notices = [];
  const langAttr = el.getAttribute('lang');
  const inherited = (el.parentElement?.closest('[lang]')?.lang ?? document.documentElement.lang).toLowerCase().split('-')[0];
  let lang = LANGS.includes(inherited) ? inherited : 'zh';
  if (langAttr !== null) {
    if (LANGS.includes(langAttr)) lang = langAttr;
    else notices.push('lang');
  }
  const sectionAttr = (el.getAttribute('section') ?? '').trim();
  const sections = [...new Set(sectionAttr.split(/\s+/).filter(Boolean))];
  const unknown = sections.find((id) => !SECTIONS.some((s) => s.id === id));
  const t = makeT(lang, strings);
  let problem = null;
  if (!sections.length) problem = t('noSection', { ids });
  else if (unknown !== undefined) problem = t('badSection', { value: unknown.slice(0, 40), ids });
  const params = new URLSearchParams((el.getAttribute('state') ?? '').trim().replace(/^\?/, ''));
  const solutionsAttr = el.getAttribute('solutions');
  if (solutionsAttr !== null && solutionsAttr !== '0' && solutionsAttr !== '1') notices.push('solutions');
  return { lang, sections, params, solutions: solutionsAttr !== '0', notices, problem };
}

/** The state attribute as written back: the URL form, with , and ; left readable. */
const stateText = (params) => params.toString().replace(/%2C/gi, ',').replace(/%3B/gi, ';');

const Base = globalThis.HTMLElement ?? class {};   // importable where there is no DOM (a bundler's server render)

export class AttentionLabElement extends Base {
  static observedAttributes = ['section', 'lang', 'state', 'solutions'];

  #root;
  #lab = null;          // the mounted lab: {sections, error, destroy()}
  #abort = null;        // the render in progress
  #queued = false;
  #writing = false;     // the element is writing its own state attribute

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [styles()];
    this.#root = h('div.attention-lab');
    shadow.append(this.#root);
  }

  connectedCallback() {
    declareFonts();
    this.#queue();
  }

  disconnectedCallback() {
    this.#release();
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || this.#writing || !this.isConnected) return;
    this.#queue();
  }

  /** Several attributes set in one go render once. */
  #queue() {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      if (this.isConnected) this.#render();
    });
  }

  #release() {
    this.#abort?.abort();
    this.#abort = null;
    this.#lab?.destroy();
    this.#lab = null;
  }

  async #render() {
    this.#release();
    const abort = (this.#abort = new AbortController());
    const { lang, sections, params, solutions, notices, problem } = readAttributes(this);
    this.#root.lang = lang === 'zh' ? 'zh-CN' : 'en';
    if (problem) {
      this.#root.replaceChildren(h('p.status.error', { role: 'alert' }, problem));
      this.#emit('attention-lab:ready', { sections: [], error: problem });
      return;
    }
    const lab = await mountLab(this.#root, {
      lang, sections, params, solutions, notices, source: 'attributes', signal: abort.signal, after: loadedTogether(sections, lang),
      onState: (next, { section, state }) => {
        const text = stateText(next);
        this.#writing = true;
        try { this.setAttribute('state', text); } finally { this.#writing = false; }
        this.#emit('attention-lab:state', { section, state: text, values: structuredClone(state) });
      },
    });
    if (abort.signal.aborted) return;
    this.#lab = lab;
    this.#emit('attention-lab:ready', { sections: lab.sections.map((s) => s.id), error: lab.error?.message ?? null });
  }

  #emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

if (globalThis.customElements && !customElements.get('attention-lab')) customElements.define('attention-lab', AttentionLabElement);
