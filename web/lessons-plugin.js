// Vite plugins for the lab's content. lessons/*.md become pre-rendered HTML at build time
// (markdown-it + KaTeX), so the page ships HTML and KaTeX's CSS, not the renderers. Raw HTML in
// Markdown is disabled. The section list becomes the module virtual:lab-sections (below).
//
// A lesson file is Markdown with optional exercise blocks:
//   ::: exercise ID        the exercise's prompt
//   ::: hint               a hint
//   ::: solution           the worked answer
//   ::: wrong MID          optional, any number: the diagnosis shown when the answer matches the
//                          exercise's misconception MID (web/src/exercises.js computes its value)
//   :::                    end of the block
// The first line is the title: `# 18.1 ...`. The module exports
// {title, html, exercises: {ID: {prompt, hint, solution, wrong: {MID: html}}}}; imported as
// `<lesson>.md?notebook` it exports {title, markdown}, the lesson's Markdown without its exercises
// (a section's notebook, web/src/notebook.js, opens with it).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import katex from '@vscode/markdown-it-katex';
import { SECTIONS, lessonPath } from './src/sections/index.js';
import { LANGS } from './src/i18n.js';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).use(katex.default ?? katex, {
  throwOnError: true,
});
// Punctuation right after inline math ("$x$，", "$d$.") stays on the math's line: the formula's last
// piece (KaTeX's last .base, after which a line may break) goes in a span that does not wrap
// (style.css .katex-end), ended by a word joiner (U+2060); together they keep Chromium from breaking
// between the formula and a comma, a colon or a semicolon. The formula can still break inside, and
// the punctuation stays plain text after it (the span is in KaTeX's aria-hidden part).
const PUNCTUATION = /^[，。、；：！？）》」』,.;:!?)]/;
const LAST_BASE = '<span class="base">', CLOSE = '</span></span>';   // the last .base, then .katex-html's and .katex's ends
const inlineMath = md.renderer.rules.math_inline;
md.renderer.rules.math_inline = (tokens, idx, ...rest) => {
  const html = inlineMath(tokens, idx, ...rest), next = tokens[idx + 1];
  if (next?.type !== 'text' || !PUNCTUATION.test(next.content)) return html;
  const from = html.lastIndexOf(LAST_BASE), to = html.length - CLOSE.length;
  if (from < html.indexOf('class="katex-html"') || !html.endsWith(CLOSE)) throw new Error(`unexpected KaTeX markup: ${html.slice(0, 80)}`);
  return `${html.slice(0, from)}<span class="katex-end">${html.slice(from, to)}\u2060</span>${html.slice(to)}`;
};

const TITLE = /^# (.+)\n/;   // a lesson's first line
const EXERCISE = /^::: exercise ([\w.-]+)\n([\s\S]*?)^:::\s*$/gm;   // an exercise block

/** A lesson's title and its Markdown without the exercise blocks (for the notebooks). */
export function lessonText(source, file = 'lesson') {
  const head = TITLE.exec(source);
  if (!head) throw new Error(`${file}: the first line must be the title, '# ...'`);
  return { title: head[1].trim(), markdown: source.slice(head[0].length).replace(EXERCISE, '').replace(/\n{3,}/g, '\n\n').trim() };
}

export function renderLesson(source, file = 'lesson') {
  const exercises = {};
  const head = TITLE.exec(source);
  if (!head) throw new Error(`${file}: the first line must be the title, '# ...'`);
  const body = source.slice(head[0].length).replace(EXERCISE, (_, id, block) => {
    const parts = { prompt: '', hint: '', solution: '' };
    const wrong = {};
    let append = (line) => { parts.prompt += line; };
    for (const line of block.split('\n')) {
      const m = /^::: (hint|solution)\s*$/.exec(line), w = /^::: wrong ([\w-]+)\s*$/.exec(line);
      if (m) append = (l) => { parts[m[1]] += l; };
      else if (w) {
        if (Object.hasOwn(wrong, w[1])) throw new Error(`${file}: exercise ${id} repeats wrong ${w[1]}`);
        wrong[w[1]] = '';
        append = (l) => { wrong[w[1]] += l; };
      } else append(line + '\n');
    }
    for (const key of Object.keys(parts)) {
      if (!parts[key].trim()) throw new Error(`${file}: exercise ${id} has no ${key}`);
      parts[key] = md.render(parts[key]);
    }
    for (const key of Object.keys(wrong)) {
      if (!wrong[key].trim()) throw new Error(`${file}: exercise ${id} has an empty wrong ${key}`);
      wrong[key] = md.render(wrong[key]);
    }
    exercises[id] = { ...parts, wrong };
    return '';
  });
  return { title: head[1].trim(), html: md.render(body), exercises };
}

export default function lessonsPlugin() {
  return {
    name: 'attention-lab-lessons',
    transform(code, id) {
      if (!id.includes('/lessons/')) return null;
      if (id.endsWith('.md?notebook')) return { code: `export default ${JSON.stringify(lessonText(code, id))};`, map: null };
      if (!id.endsWith('.md') && !id.endsWith('.md?all')) return null;   // ?all: the same lesson, in the chunk of them all
      return { code: `export default ${JSON.stringify(renderLesson(code, id))};`, map: null };
    },
  };
}

// `virtual:lab-sections`: the sections of web/src/sections/index.js, in order, each with its
// lessons' titles, a loader of its controller and loaders of its lesson in each language:
//   default [{id, prefix, module, titles: {zh, en},
//     loadController: () => import(...) (a section with a controller; resolves to the controller),
//     loadLesson: {zh: () => import(...), en: () => import(...)},
//     loadLessonText: {zh, en} (a section with a controller: its lesson's ?notebook form)}]
//   allLessons: {zh: () => import(...), en}: every section's lesson in that language, {[id]: lesson}
// Each controller is a dynamic import, a chunk of its own (the widgets it shares with others in
// shared chunks), so an embedded section or an element fetches only its own section's code. Each
// lesson is a chunk of its own too (what an embed or an element fetches), and allLessons[lang] one
// chunk of them all (what the whole page fetches: one file, and some 7 KB less gzip than eight);
// vite.config.js names these chunks (docs/performance.md). With `{ combined: false }` (the
// single-file and the element builds) allLessons imports the sections' own modules instead, so no
// lesson is bundled twice. mount.js's loadSections() resolves them. A listed file that does not
// exist fails the build, naming it.
export function labSections({ combined = true } = {}) {
  const ID = 'virtual:lab-sections', RESOLVED = `\0${ID}`;
  const ALL = 'virtual:lab-lessons/';   // + lang: every section's lesson in that language
  const root = fileURLToPath(new URL('../', import.meta.url));
  return {
    name: 'attention-lab-sections',
    resolveId: (id) => (id === ID || id.startsWith(ALL) ? `\0${id}` : null),
    load(id) {
      const file = (path, query = '') => {
        if (!existsSync(root + path)) this.error(`web/src/sections/index.js lists ${path}, which does not exist`);
        this.addWatchFile(root + path);
        return JSON.stringify(root + path + query);
      };
      if (id.startsWith(`\0${ALL}`)) {
        const lang = id.slice(ALL.length + 1);
        if (!LANGS.includes(lang)) this.error(`${id.slice(1)}: no language '${lang}'`);
        return `${SECTIONS.map((s, i) => `import l${i} from ${file(lessonPath(lang, s.id), combined ? '?all' : '')};`).join('\n')}
export default { ${SECTIONS.map((s, i) => `${JSON.stringify(s.id)}: l${i}`).join(', ')} };\n`;
      }
      if (id !== RESOLVED) return null;
      const entries = SECTIONS.map((s) => {
        const titles = Object.fromEntries(LANGS.map((lang) => [lang, lessonTitle(root + lessonPath(lang, s.id))]));
        const lessons = LANGS.map((lang) => `${lang}: () => import(${file(lessonPath(lang, s.id))}).then((m) => m.default)`);
        const controller = s.module ? `, loadController: () => import(${file(`web/src/sections/${s.module}`)}).then((m) => m.default)` : '';
        const texts = s.module ? `, loadLessonText: { ${LANGS.map((lang) => `${lang}: () => import(${file(lessonPath(lang, s.id), '?notebook')}).then((m) => m.default)`).join(', ')} }` : '';
        return `{ ...${JSON.stringify({ ...s, titles })}${controller}, loadLesson: { ${lessons.join(', ')} }${texts} }`;
      });
      return `export default [\n${entries.join(',\n')}\n];
export const allLessons = { ${LANGS.map((lang) => `${lang}: () => import(${JSON.stringify(ALL + lang)}).then((m) => m.default)`).join(', ')} };\n`;
    },
  };
}

/** A lesson file's title, its first line `# ...` (renderLesson checks the rest when it is built). */
function lessonTitle(file) {
  if (!existsSync(file)) return '';
  const head = TITLE.exec(readFileSync(file, 'utf8'));
  return head ? head[1].trim() : '';
}

// KaTeX's stylesheet lists woff2, woff and ttf for every font; browsers that run WebAssembly all
// take woff2, so keep only that (it keeps the single-file build small).
export function katexWoff2Only() {
  return {
    name: 'attention-lab-katex-woff2',
    enforce: 'pre',
    transform(code, id) {
      if (!/katex(\.min)?\.css/.test(id)) return null;
      return { code: code.replace(/,\s*url\([^)]*\.(woff|ttf)\)\s*format\("(woff|truetype)"\)/g, ''), map: null };
    },
  };
}
