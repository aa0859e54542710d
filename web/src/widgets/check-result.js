// "Check my numbers": the core's diagnosis of a student's tensor (core.diagnose, docs/api.md) in
// words: the shape first, then the values with the tolerance, the mistake the tensor matches with
// the lesson's paragraph about it, the first value that differs (and the provenance of that cell,
// where the section explains it), and a heatmap of the differences.
//
// Drawing only: every number comes from the core's diagnosis or from the student's own parsed
// tensor (read at an index); nothing here compares or subtracts.
import { h } from './dom.js';
import { heatmap } from './heatmap.js';
import { fmt, fmtErr, shapeText } from '../format.js';
import { matrixAt, values } from '../tensors.js';
import { LESSON_PLACES } from './check-strings.js';

const indexText = (i) => `[${i.join(', ')}]`;
/** The row-major position of `index` in `shape`. */
const flat = (shape, index) => index.reduce((o, i, axis) => o * shape[axis] + i, 0);
/** A shape without its leading axes of length 1 (one axis at least), as the core aligns them. */
const stripOnes = (s) => { let k = 0; while (s.length - k > 1 && s[k] === 1) k++; return s.slice(k); };
/** A value as it reads: at most 7 significant digits, no padding (0.2447, not 0.244700). */
const short = (v) => (Number.isFinite(v) ? String(Number(v.toPrecision(7))).replaceAll('-', '−') : fmt(v));
const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The student's value at `index` of the core's layout: the core compared their tensor as given,
 * without leading axes of length 1 (the same order), or with its last two axes swapped back. */
function studentAt(parsed, note, expectedShape, index) {
  if (note !== 'transposed') return parsed.data[flat(expectedShape, index)];
  const mine = stripOnes(parsed.shape), kept = stripOnes(expectedShape);
  const at = index.slice(index.length - kept.length);
  [at[at.length - 2], at[at.length - 1]] = [at[at.length - 1], at[at.length - 2]];
  return parsed.data[flat(mine, at)];
}

/** What a wrong shape may be: the output's axes in another order, or its number of values. */
function shapeHints(t, mine, want) {
  const sorted = (s) => [...s].sort((a, b) => a - b);
  if (sameList(sorted(stripOnes(mine)), sorted(stripOnes(want)))) return [t('shapePermuted')];
  const count = (s) => s.reduce((a, b) => a * b, 1);
  return count(mine) === count(want) ? [t('shapeCount', { n: count(want) })] : [];
}

/** The rendered text of a lesson paragraph, formulas as they read (KaTeX's MathML copy left out). */
function readText(p) {
  const copy = p.cloneNode(true);
  for (const m of copy.querySelectorAll('.katex-mathml')) m.remove();
  return copy.textContent.replace(/\s+/g, ' ');
}

/**
 * The link to the lesson paragraph a mistake's place names: in this document when its section is
 * on the page (focused and marked when followed), else the whole lab in a new tab (an embedded
 * section), else none (a web component's host page is not the lab).
 */
function lessonLink(t, lang, root, place) {
  if (!place) return null;
  root = root();
  const lesson = root.querySelector?.(`.lab-section[data-section="${place.section}"] .lesson`);
  const paragraphs = lesson ? [...lesson.querySelectorAll(':scope > p, :scope > ol > li, :scope > ul > li')] : [];
  const n = paragraphs.findIndex((p) => readText(p).includes(place[lang]));
  if (n >= 0) {
    const p = paragraphs[n];
    if (!p.id) p.id = `${p.closest('.lab-section').id}-lesson-${n}`;
    return h('a.check-lesson', { href: `#${p.id}`, onclick: (ev) => {
      ev.preventDefault();
      p.tabIndex = -1;
      p.classList.add('check-target');
      p.addEventListener('blur', () => p.classList.remove('check-target'), { once: true });
      p.scrollIntoView({ block: 'center' });
      p.focus({ preventScroll: true });
    } }, t('lessonLink', { section: place.section }));
  }
  if (!(root instanceof Document) || !document.body.classList.contains('embed')) return h('span.check-lesson', {}, t('lessonLink', { section: place.section }));
  const url = new URL(location.href);
  url.searchParams.delete('embed');
  url.hash = `s${place.section.replace('.', '-')}`;
  return h('a.check-lesson', { href: url.href, target: '_blank', rel: 'noopener' }, t('lessonElsewhere', { section: place.section }));
}

/** root(): the document or shadow root the section is in (where the lessons are). */
export function checkResult({ t, lang, root }) {
  const verdict = h('p.check-verdict', { role: 'status', 'aria-live': 'polite' });
  const details = h('div.check-details');
  const diff = heatmap({ t, name: 'check-diff', label: t('diffLabel'), names: null, digits: 3 });
  diff.el.hidden = true;
  const el = h('div.check-result', {}, verdict, details, diff.el);
  let shown = 0;

  /** The heatmap of student − core: the 2-D slice that holds the first differing value (else the first). */
  function paintDiff(d) {
    const shape = d.diff?.shape ?? [];
    diff.el.hidden = shape.length === 0;
    if (!shape.length) { diff.clear(); return; }
    if (shape.length === 1) { diff.set([values(d.diff)], { shape, label: t('diffLabel') }); return; }
    const lead = d.firstWrong?.length ? d.firstWrong.slice(0, -2) : shape.slice(0, -2).map(() => 0);
    const label = lead.length ? t('diffSlice', { index: indexText([...lead, ':', ':']) }) : t('diffLabel');
    const rows = matrixAt(d.diff, ...lead);
    diff.set(rows, { shape: shape.slice(-2), label, signed: true,
      highlightRows: d.firstWrong?.length ? new Set([d.firstWrong.at(-2)]) : undefined });
  }

  /** The mistake's sentence and where the lesson explains it. */
  const mistakeLines = (check, ids) => ids.map((id) => h('p.check-mistake', { 'data-mistake': id },
    t(`mistake_${check}_${id}`), lang === 'zh' ? '' : ' ', lessonLink(t, lang, root, LESSON_PLACES[`${check}/${id}`])));

  /**
   * Show a diagnosis. d: core.diagnose's result; parsed: the student's tensor (parse-tensor.js);
   * check: the check's name; reveal(index): returns a function that shows the section's figure
   * cell of the core's value at index (a heatmap's reveal(i, j)), or null; source: a line saying what was checked (a file), or null.
   */
  function show(d, { parsed, check, reveal, source }) {
    const names = (ids) => ids.map((id) => t(`name_${check}_${id}`)).join(t('listSep'));
    const tried = d.candidates.filter((c) => c.id !== 'correct' && c.distinct).length;
    const shape = shapeText(null, d.shape), expected = shapeText(null, d.expected.shape);
    const aligned = d.verdict !== 'shape';
    const transposed = d.shapeNote === 'transposed';
    const valueVerdict = d.verdict === 'correct' ? t('verdictCorrect')
      : d.verdict === 'mistake' ? (d.mistakes.length === 1 ? t('verdictMistake', { name: names(d.mistakes) })
        : t('verdictMistakes', { n: d.mistakes.length, names: names(d.mistakes) }))
        : t('verdictUnknown', { n: tried });
    const head = !aligned ? t('verdictShape', { shape, expected }) : transposed ? t('verdictTransposed', { shape, expected }) : valueVerdict;
    const good = aligned && !transposed && d.verdict === 'correct';
    verdict.textContent = head;
    verdict.className = `check-verdict ${good ? 'good' : 'bad'}`;
    shown += 1;   // for tests: a new result is there once this changes
    Object.assign(el.dataset, { checked: String(shown), verdict: d.verdict, level: d.level, mistakes: d.mistakes.join(' '), shapeNote: d.shapeNote ?? '' });

    const lines = [];
    const p = (text, cls = '') => h(`p.check-line${cls}`, {}, text);
    if (source) lines.push(p(source));
    // the shape first
    if (!aligned) lines.push(...shapeHints(t, d.shape, d.expected.shape).map((s) => p(s)));
    else if (transposed) lines.push(p(t('shapeSwapped')), p(valueVerdict, d.verdict === 'correct' ? '.good' : '.bad'));
    else if (d.shapeNote === 'leading_ones') lines.push(p(t('shapeOnes', { shape, expected })));
    else lines.push(p(t('shapeOk', { shape })));
    if (aligned) {
      const max = fmtErr(d.maxDiff);
      if (d.verdict === 'correct') {
        // float32 is named as the reason only when the tensor says it is float32 (its dtype=, a .npy's
        // type): NumPy's float64 repr (8 decimals) is as close, and PyTorch prints no dtype for a
        // float64 tensor after torch.set_default_dtype(torch.float64), as the copied inputs set
        const float32 = parsed.dtype === 'float32' && parsed.dtypeStated ? 'levelFloat32' : 'levelFloat32Digits';
        lines.push(p(t({ float64: 'levelFloat64', float32, printed: 'levelPrinted' }[d.level], { max })));
        if (d.sameAsCorrect.length) lines.push(p(t('sameAsCorrect', { names: names(d.sameAsCorrect) }), '.note'));
      } else {
        if (d.verdict === 'mistake') lines.push(...mistakeLines(check, d.mistakes));
        if (Number.isFinite(d.maxDiff)) lines.push(p(t('maxDiff', { max })));
      }
      if (d.firstWrong?.length) {
        const i = d.firstWrong;
        const want = d.expected.data[flat(d.expected.shape, i)];
        const got = studentAt(parsed, d.shapeNote, d.expected.shape, i);
        const go = reveal?.(i);
        lines.push(h('p.check-line.check-first', { 'data-index': i.join(',') }, t('firstWrong', { index: indexText(i), got: short(got), want: short(want) }),
          go ? [' ', h('button.check-explain', { type: 'button', onclick: go }, t('explainCell'))] : null));
      }
      lines.push(p(t('tolerance'), '.note'));
    }
    details.replaceChildren(...lines);
    if (aligned) paintDiff(d);
    else { diff.el.hidden = true; diff.clear(); }
  }

  /** Nothing checked (the box cleared). */
  function clear() {
    verdict.textContent = '';
    verdict.className = 'check-verdict';
    details.replaceChildren();
    diff.el.hidden = true;
    diff.clear();
    for (const k of ['verdict', 'level', 'mistakes', 'shapeNote']) delete el.dataset[k];
  }

  return { el, show, clear };
}
