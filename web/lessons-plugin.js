// Vite plugin: lessons/*.md become pre-rendered HTML at build time (markdown-it + KaTeX), so
// the page ships HTML and KaTeX's CSS, not the renderers. Raw HTML in Markdown is disabled.
//
// A lesson file is Markdown with optional exercise blocks:
//   ::: exercise ID        the exercise's prompt
//   ::: hint               a hint
//   ::: solution           the worked answer
//   ::: wrong MID          optional, any number: the diagnosis shown when the answer matches the
//                          exercise's misconception MID (web/src/exercises.js computes its value)
//   :::                    end of the block
// The first line is the title: `# 18.1 ...`. The module exports
// {title, html, exercises: {ID: {prompt, hint, solution, wrong: {MID: html}}}}.
import MarkdownIt from 'markdown-it';
import katex from '@vscode/markdown-it-katex';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false }).use(katex.default ?? katex, {
  throwOnError: true,
});

export function renderLesson(source, file = 'lesson') {
  const exercises = {};
  const head = /^# (.+)\n/.exec(source);
  if (!head) throw new Error(`${file}: the first line must be the title, '# ...'`);
  const body = source.slice(head[0].length).replace(/^::: exercise ([\w.-]+)\n([\s\S]*?)^:::\s*$/gm, (_, id, block) => {
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
      if (!id.endsWith('.md') || !id.includes('/lessons/')) return null;
      return { code: `export default ${JSON.stringify(renderLesson(code, id))};`, map: null };
    },
  };
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
