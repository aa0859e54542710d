// "Download as notebook": a Jupyter notebook (.ipynb, nbformat 4.5) of a section as it is on the
// page, built from the section's "Show as PyTorch" program (web/src/pytorch-programs.js), its
// lesson and the numbers the page shows (the core's; web/src/notebook-values.js picks them).
// Cells, each with a fixed id:
//   idea              markdown: the lesson's text (its idea and formulas, KaTeX-compatible LaTeX)
//                     and what the notebook holds, which files it reads
//   setup             the program's header (imports, float64) and `printed`, which keeps every
//                     `label = value` line the program prints for the check
//   inputs            the program's literal inputs (the state's matrices, the core's draws),
//                     moved out of it in their order, with the comments that belong to them
//   program           the rest of the program, unchanged
//   check             asserts that each printed result equals the page's number to 1e-12
//   check-my-numbers  markdown and code ("Check my numbers"): the inputs printed in the forms the
//   check-my-numbers-inputs  lab's "Check my numbers" panel reads (PyTorch, NumPy, a plain list)
//
// Pure: strings in, a plain object out (no DOM, no arithmetic on the numbers, nothing random, no
// time): the same view gives the same file byte for byte.
import { comment, pyFloat, pyString, pyTensor, say } from '../../wasm/js/pytorch-format.js';

export const TOLERANCE = 1e-12;

/** A cell's source as nbformat recommends: its lines, each but the last ending in "\n". */
export function sourceLines(text) {
  const ls = text.replace(/\n+$/, '').split('\n');
  return ls.map((l, i) => (i < ls.length - 1 ? `${l}\n` : l));
}

export const markdownCell = (id, text) => ({ cell_type: 'markdown', id, metadata: {}, source: sourceLines(text) });
export const codeCell = (id, text) => ({ cell_type: 'code', execution_count: null, id, metadata: {}, outputs: [], source: sourceLines(text) });

// ---- the program, cut into setup, inputs and the rest -------------------------------------------

const LITERAL = /^([A-Za-z_]\w*) = torch\.tensor\(/;           // assign() of pytorch-format.js
const LIST = /^([A-Za-z_]\w*) = \[[-\d.e, ]+\](\s+#.*)?$/;     // a list of numbers on one line

/** Where the `torch.tensor(...)` starting at line i closes: [line, column]. */
function literalEnd(lines, i) {
  let depth = 0;
  for (let j = i; j < lines.length; j++) {
    const line = lines[j];
    const from = j === i ? line.indexOf('torch.tensor(') : 0;
    for (let k = from; k < line.length; k++) {
      if (line[k] === '(' || line[k] === '[') depth++;
      else if (line[k] === ')' || line[k] === ']') {
        depth--;
        if (depth === 0) return [j, k];
      }
    }
  }
  throw new Error('a tensor literal of the program does not end');
}

// what a tensor literal holds: numbers, brackets, booleans, NaN and infinities, a boolean dtype
const LITERAL_PARTS = /float\('(nan|inf)'\)|True|False|dtype=torch\.bool|[-+\d.e,\s[\]]/g;

/** The statement at line i if it is a literal input: {name, end line}, or null. */
function literalAt(lines, i) {
  const line = lines[i];
  const list = LIST.exec(line);
  if (list) return { name: list[1], end: i };
  const m = LITERAL.exec(line);
  if (!m) return null;
  const [end, col] = literalEnd(lines, i);
  const body = [...lines.slice(i, end), lines[end].slice(0, col)].join('\n').slice(m[0].length);
  return body.replace(LITERAL_PARTS, '') === '' ? { name: m[1], end } : null;
}

/** The program's statements after its header: literals, comment lines, blank lines, other code. */
function items(lines) {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i], lit = literalAt(lines, i);
    if (lit) {
      out.push({ kind: 'literal', name: lit.name, text: lines.slice(i, lit.end + 1).join('\n') });
      i = lit.end;
    } else if (line === '') out.push({ kind: 'blank' });
    else out.push({ kind: /^#/.test(line) ? 'comment' : 'code', text: line });
  }
  return out;
}

/**
 * The program as setup (its header: comments, imports, float64), inputs (its literal inputs, in
 * order: [{name, text}], and the text of the inputs cell) and the rest. A stretch between blank
 * lines that holds only literals and comments moves whole; elsewhere a comment right above a
 * literal moves with it, unless it opens its stretch (the heading of a part of the program,
 * which stays and is copied).
 */
export function splitProgram(code) {
  const lines = code.replace(/\n+$/, '').split('\n');
  const head = lines.findIndex((l) => l.startsWith('torch.set_default_dtype('));
  if (head < 0) throw new Error('the program has no header');
  const rest = items(lines.slice(head + 1));
  // stretches: runs of items between blank lines
  const runs = [];
  for (const it of rest) {
    if (it.kind === 'blank' || !runs.length) runs.push([]);
    if (it.kind !== 'blank') runs.at(-1).push(it);
  }
  const inputs = [], inputText = [], kept = [];
  runs.forEach((run, r) => {
    const blank = r > 0 ? [''] : [];   // each run after the first follows a blank line
    if (!run.length) { kept.push(...blank); return; }
    const whole = run.some((it) => it.kind === 'literal') && run.every((it) => it.kind !== 'code');
    const moved = [], stay = [];
    run.forEach((it, i) => {
      if (it.kind === 'literal') {
        inputs.push({ name: it.name, text: it.text });
        moved.push(it.text);
      } else if (whole) moved.push(it.text);
      else if (it.kind === 'comment' && aboveLiteral(run, i)) {
        moved.push(it.text);
        if (opensRun(run, i)) stay.push(it.text);
      } else stay.push(it.text);
    });
    if (moved.length) inputText.push(moved.join('\n'));
    if (stay.length) kept.push(...blank, ...stay);
  });
  const program = kept.join('\n').replace(/\n{4,}/g, '\n\n\n').replace(/^\n+|\n+$/g, '');
  return { setup: lines.slice(0, head + 1).join('\n'), inputs, inputsText: inputText.join('\n\n'), program };
}
/** Item i of a run is a comment line of a block that a literal follows directly. */
function aboveLiteral(run, i) {
  let j = i;
  while (run[j]?.kind === 'comment') j++;
  return run[j]?.kind === 'literal';
}
/** Item i belongs to the comment block that starts the run. */
const opensRun = (run, i) => run.slice(0, i + 1).every((it) => it.kind === 'comment');

// ---- the cells -----------------------------------------------------------------------------------

/** The idea: the lesson (title and text, its exercises left out) and what the notebook holds. */
export function ideaCell({ id, lang, lesson, files = [], filesOptional = false }) {
  const c = say(lang);
  const holds = c(`*This notebook is section ${id} of Attention Lab as it was on the page: the inputs (the numbers set on the page and the ones the lab's core drew), the PyTorch (float64) program of "Show as PyTorch", and a last check that its results equal the numbers the page showed, to ${TOLERANCE}. Run all cells: Python 3 with PyTorch 1.13 or later (NumPy for the last cell).*`,
    `*这个笔记本是注意力实验室第 ${id} 节在页面上的样子：输入（页面上设定的数，以及实验室内核抽取的数）、“以 PyTorch 代码查看”里的 PyTorch（float64）程序，最后一格检查它算出的结果与页面显示的数字相同（误差不超过 ${TOLERANCE}）。依次运行所有格子即可：Python 3 加 PyTorch 1.13 及以上（最后一格还要 NumPy）。*`);
  const names = files.map((f) => `\`${f}\``).join(c(', ', '、'));
  const fileNote = !files.length ? null : filesOptional
    ? c(`*The program reads ${names} if it is beside this notebook (the panel's download button saves it; too large to hold here). Without it the program draws new numbers, and the check leaves out the results that depend on them.*`,
      `*如果 ${names} 在这个笔记本旁边，程序就读取它（用面板上的下载按钮保存；文件太大，不放在笔记本里）。没有它时程序重新抽取随机数，检查会略过依赖这些数的结果。*`)
    : c(`*The program reads ${names}, too large to hold here: save it with the panel's download button and put it beside this notebook (in a hosted notebook, upload it to the notebook's folder). The check compares the numbers the program prints.*`,
      `*程序要读取 ${names}（文件太大，不放在笔记本里）：用面板上的下载按钮保存它，放在这个笔记本旁边（在线笔记本服务里，把它上传到笔记本所在的文件夹）。检查比较的是程序打印的数字。*`);
  return markdownCell('idea', [`# ${lesson.title}`, lesson.markdown.trim(), '---', holds, fileNote].filter(Boolean).join('\n\n'));
}

/** The program's header, and `printed`: every `label = value` line the program prints, kept. */
export function setupCell({ lang, setup }) {
  const c = say(lang);
  return codeCell('setup', `${setup}

${comment(c('The notebook keeps every `label = value` line the program prints in `printed`, for the check at the end.',
    '程序打印的每一行 `label = value` 都记在 `printed` 里，供最后一格检查。'))}
import ast
import builtins

printed = {}


def print(*args, **kwargs):
    builtins.print(*args, **kwargs)
    if len(args) == 2 and isinstance(args[0], str) and args[0].endswith(' ='):
        printed[args[0][:-2]] = args[1]
    elif len(args) == 1 and isinstance(args[0], str) and ' = ' in args[0]:
        label, _, value = args[0].partition(' = ')
        try:
            printed[label] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            printed[label] = value`);
}

/** The inputs; files the program cannot run without are checked for first; `given` keeps the
 * inputs named for "Check my numbers" (the program may reuse a name, e.g. k in a loop). */
export function inputsCell({ lang, inputsText, given = [], files = [], filesOptional = false }) {
  const c = say(lang);
  const need = filesOptional ? [] : files.map((f) => `assert os.path.exists(${pyString(f)}), ${pyString(c(
    `${f} is not beside this notebook: save it with the download button of the page's "Show as PyTorch" panel and put it in the notebook's folder.`,
    `这个笔记本旁边没有 ${f}：用页面上“以 PyTorch 代码查看”面板的下载按钮保存它，放到笔记本所在的文件夹。`))}`);
  const parts = [inputsText ? comment(c('The inputs: the numbers of the page (edited there, or drawn by the lab\'s core), exactly.',
    '输入：页面上的数（在页面上编辑的，或由实验室内核抽取的），一位不差。'),
  c('Change one and the program computes something else, and the check at the end fails: it compares with the page.',
    '改动其中一个，程序算出的就是别的结果，最后一格的检查会失败：它比较的是页面上的数字。'))
    : comment(c(`The inputs are in ${files.join(', ')}, which the program reads.`, `输入在程序读取的 ${files.join('、')} 里。`))];
  if (need.length) parts.push(['import os', ...need].join('\n'));
  if (inputsText) parts.push(inputsText);
  if (given.length) parts.push(givenDict(lang, given));
  return codeCell('inputs', parts.join('\n\n'));
}

export const programCell = ({ program }) => codeCell('program', program);

/** A Python literal of an expected value: a number, a boolean, or a tensor {shape, data}. */
function pyExpected(v, col) {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return pyFloat(v);
  return pyTensor({ shape: v.shape, data: Float64Array.from(v.data) }, { col });
}

/**
 * The check: each of `checks` [{label, value, noise?, needsFiles?}] against what the program
 * printed as `label`. noise: finite-difference rounding noise, compared by size (both below 1e-7);
 * needsFiles: checked only when the program's optional files are beside the notebook.
 */
export function checkCell({ lang, checks, files = [] }) {
  const c = say(lang);
  const call = ({ label, value, noise }) => {
    const head = `${noise ? 'check_noise' : 'check'}(${pyString(label)}, `;
    return `${head}${pyExpected(value, head.length)})`;
  };
  const always = checks.filter((k) => !k.needsFiles).map(call);
  const withFiles = checks.filter((k) => k.needsFiles);
  const present = files.map((f) => `os.path.exists(${pyString(f)})`).join(' and ');
  const optional = !withFiles.length ? [] : [`if ${present}:`,
    ...withFiles.map((k) => call(k).replace(/^/gm, '    ')),
    'else:',
    `    print(${pyString(c(`Not checked (they need ${files.join(', ')}):`, `没有检查（需要 ${files.join('、')}）：`))}, ${pyString(withFiles.map((k) => k.label).join(', '))})`];
  const noise = !checks.some((k) => k.noise) ? '' : `


def check_noise(label, page, below=1e-7):
    ${pyString(c('Rounding noise of finite differences: PyTorch and the core round differently, so only the size is compared.',
    '有限差分的舍入噪声：PyTorch 与内核的舍入不同，所以只比较大小。'))}
    assert label in printed, ${pyString(c('the program printed no ', '程序没有打印 '))} + repr(label)
    assert abs(printed[label]) < below and abs(page) < below, f'{label}: {printed[label]!r}, {page!r}'
    checked.append(label)`;
  return codeCell('check', `${comment(c(`The page's numbers: what the lab's core (float64) computed for this state when the notebook was saved.`,
    '页面上的数字：保存笔记本时，实验室内核（float64）对这个状态算出的结果。'),
  c(`check(label, page) compares the program's printed \`label = ...\` with them: the same shape, and every entry within ${TOLERANCE} (NaN where the page has NaN).`,
    `check(label, page) 把程序打印的 \`label = ...\` 与它们比较：形状相同，每个元素相差不超过 ${TOLERANCE}（页面上是 NaN 的地方也必须是 NaN）。`))}
${withFiles.length ? 'import os\n\n' : ''}checked = []


def check(label, page, atol=${pyFloat(TOLERANCE)}):
    assert label in printed, ${pyString(c('the program printed no ', '程序没有打印 '))} + repr(label)
    got = torch.tensor(printed[label], dtype=torch.float64)
    want = torch.as_tensor(page, dtype=torch.float64)
    assert got.shape == want.shape, f${pyString(c('{label}: the program printed shape {tuple(got.shape)}, the page has {tuple(want.shape)}',
    '{label}：程序打印的形状是 {tuple(got.shape)}，页面上是 {tuple(want.shape)}'))}
    close = torch.isclose(got, want, atol=atol, rtol=0, equal_nan=True)
    if not close.all():
        at = tuple(int(i) for i in (~close).nonzero()[0])
        raise AssertionError(f${pyString(c('{label}{list(at)}: the program printed {got[at].item()!r}, the page has {want[at].item()!r} (tolerance {atol})',
    '{label}{list(at)}：程序打印的是 {got[at].item()!r}，页面上是 {want[at].item()!r}（容差 {atol}）'))})
    checked.append(label)${noise}


${[...always, ...optional].join('\n')}
print(${pyString(c('Equal to the page\'s numbers:', '与页面上的数字相同：'))}, len(checked), ${pyString(c('results', '个结果'))})
others = [label for label in printed if label not in checked]
if others:
    print(${pyString(c('Printed but not on the page, not compared:', '打印了但页面上没有显示，不比较：'))}, ', '.join(others))`);
}

const givenDict = (lang, names) => `given = {${names.map((n) => `${pyString(n)}: ${n}`).join(', ')}}   # ${say(lang)('the inputs, for "Check my numbers" at the end', '这些输入，供最后的“核对我的结果”使用')}`;

/**
 * "Check my numbers": the inputs in the forms the lab's panel reads, for the student's own code;
 * those of `given` (kept by the inputs cell), or `names` as the program leaves them.
 */
export function checkMyNumbersCells({ id, lang, names = [] }) {
  const c = say(lang);
  const text = c(`## Check my numbers

Write this section's computation yourself (PyTorch or NumPy), run it on these inputs, and paste what it prints into the "Check my numbers" panel of section ${id} in the lab: it compares your tensor with the core's and names the mistake if it is a known one. The cell below prints each input in the forms the panel reads: PyTorch's tensor (17 decimals), a NumPy array and a plain nested list (both every digit).`,
  `## 核对我的结果（Check my numbers）

自己写出本节的计算（PyTorch 或 NumPy），用这些输入运行，再把它打印的结果粘贴到实验室第 ${id} 节的“核对我的结果”面板：面板把你的张量与内核的结果比较，如果是常见的错误，会指出是哪一种。下面这一格把每个输入按面板能读的几种形式打印出来：PyTorch 的张量（17 位小数）、NumPy 数组和普通的嵌套列表（后两种一位不差）。`);
  const code = `import sys

import numpy as np
${names.length ? `\n${givenDict(lang, names)}\n` : ''}
torch.set_printoptions(precision=17, threshold=sys.maxsize, linewidth=100)   # ${c('every entry, 17 decimals', '每个元素，17 位小数')}
for name, value in given.items():
    value = torch.as_tensor(value)
    builtins.print(f'# {name}: PyTorch')
    builtins.print(repr(value))
    builtins.print(f'# {name}: NumPy')
    with np.printoptions(floatmode='unique', threshold=sys.maxsize, linewidth=100):
        builtins.print(repr(value.numpy()))
    builtins.print(f'# {name}: ${c('list', '列表')}')
    builtins.print(value.tolist())
    builtins.print()
torch.set_printoptions(profile='default')`;
  return [markdownCell('check-my-numbers', text), codeCell('check-my-numbers-inputs', code)];
}

// ---- the notebook --------------------------------------------------------------------------------

/**
 * The notebook of one section's view.
 *   id, lang      the section and the page's language
 *   lesson        {title, markdown}: the lesson in that language, its exercises left out
 *   code, files   the "Show as PyTorch" program and the names of the files it reads
 *   values        {checks, filesOptional?, inputs?} from notebook-values.js: the page's numbers
 *                 per printed label; whether the program runs without its files; the names to
 *                 print for "Check my numbers" (default: the program's literal inputs)
 */
export function buildNotebook({ id, lang, lesson, code, files = [], values }) {
  const split = splitProgram(code);
  const { checks, filesOptional = false } = values;
  const given = values.inputs ? [] : split.inputs.map((i) => i.name);
  return {
    cells: [
      ideaCell({ id, lang, lesson, files, filesOptional }),
      setupCell({ lang, setup: split.setup }),
      inputsCell({ lang, inputsText: split.inputsText, given, files, filesOptional }),
      programCell(split),
      checkCell({ lang, checks, files }),
      ...checkMyNumbersCells({ id, lang, names: values.inputs ?? [] }),
    ],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** The file's text: JSON as Jupyter writes it (indent 1, a final newline). */
export const notebookText = (nb) => `${JSON.stringify(nb, null, 1)}\n`;

/** The file's name for a section. */
export const notebookName = (id) => `attention-lab-${id}.ipynb`;
