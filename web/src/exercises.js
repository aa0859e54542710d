// The exercises' logic: what the student enters and how the core checks it. Their text (prompt,
// hint, solution, and one diagnosis per misconception, `::: wrong ID`) is in lessons/{zh,en}/*.md
// under the same ids. An input's label is a string (notation, the same in both languages) or {zh, en}.
// The list below holds 18.1-18.8's and the chapter's; a section's controller may declare its own
// (its `exercises`, in the same form, without `section`): exercisesOf() puts them together.
//
// A typed exercise declares
//   expected(core, res)         the right answer, computed by the core (res: the page's resources, {trainText})
//   misconceptions: [{id, value(core, res)}]
//                               wrong answers a student plausibly reaches, each computed by the core
//                               as the mistaken computation (the same call with the other scale, the
//                               other mask order, ...); an answer matching one gets its diagnosis
//   tolerance                   how close counts as equal: the precision a person types (5e-3), or
//                               0 where the answer is exact (shapes, 0)
//   unmet: [{id, when(core, res)}]
//                               optional: conditions under which the exercise cannot be answered yet
//                               (the model on the page has not learned what it asks about); the
//                               first that holds is the diagnosis, whatever the answer
//   live                        true: the answer is read off the model on the page (res.model, set by
//                               18.8's controller: {patterns()}, the core's last measurement of its
//                               heads, model.headPatterns), so a worksheet has no key for it
// A choice exercise has its own check(core, value) -> {correct, expected, misconception}.
import { tensor } from '../../wasm/js/index.js';
import { fmt } from './format.js';

const TYPED = 5e-3;
// a value as the feedback prints it: whole numbers (a shape, a count) as they are, others to 4 decimals
const one = (x) => (Number.isInteger(x) ? String(x).replace('-', '−') : fmt(x, 4));
const show = (xs) => (xs.length === 1 ? one(xs[0]) : `(${xs.map(one).join(', ')})`);
const close = (core, answer, expected, tol) => core.maxAbsDiff(tensor(answer), tensor(expected)) <= tol;

/**
 * The check of a typed exercise: right, a known misconception, or just wrong ->
 * {correct, expected, misconception, answered, tolerance, exact, boxes}: `answered` the answer as
 * printed; `exact` whether it prints as the core's value (else it was accepted within `tolerance`, as text);
 * `boxes` for several boxes, whether each is right on its own.
 */
export function checkTyped(def, core, answer, res) {
  const tol = def.tolerance ?? TYPED;
  // nothing to check against yet: no box is right or wrong, the condition is the diagnosis
  const unmet = (def.unmet ?? []).find((u) => u.when(core, res));
  if (unmet) return { correct: false, expected: null, answered: show(answer), tolerance: String(tol), exact: false, misconception: unmet.id, boxes: null };
  const want = def.expected(core, res);
  const out = { expected: show(want), answered: show(answer), tolerance: String(tol), exact: show(answer) === show(want), misconception: null,
    boxes: answer.length > 1 ? answer.map((a, i) => close(core, [a], [want[i]], tol)) : null };
  if (close(core, answer, want, tol)) return { ...out, correct: true };
  const miss = (def.misconceptions ?? []).find((m) => close(core, answer, m.value(core, res), tol));
  return { ...out, correct: false, misconception: miss?.id ?? null };
}

/** Run an exercise's check: typed answers (numbers) or a choice. */
export function check(def, core, answer, res) {
  return def.choices ? def.check(core, answer, res) : checkTyped(def, core, answer, res);
}

// 18.1: the chapter's X and the plain lower-triangular ones (running sums) or the averaging matrix
const X181_ROWS = [[2, 0], [0, 4], [4, 2]];   // 18.1's default X, the chapter's
const X181 = () => tensor(X181_ROWS);
const row2 = (y) => Array.from(y.data.slice(4, 6));
// 18.2: scores all 0, T = 4, causal mask; the sums of each row
const rowSums182 = (core, maskOrder) => core.sum(core.softmax(tensor(Array.from({ length: 4 }, () => [0, 0, 0, 0])), { mask: 'causal', maskOrder }), { dim: -1 }).data;
// 18.3: one query and one key of width d = 2
const score183 = (core, scale) => [core.sdpa(tensor([[1, 2]]), tensor([[3, -1]]), tensor([[1]]), { scale }).scores.data[0]];
// 18.4: C = 64, 8 heads, x = ones and identity projections, so every head's query and key are all ones (hs = 8)
function score184(core, scale) {
  const C = 64;
  const eye = tensor(Array.from({ length: C }, (_, i) => Array.from({ length: C }, (__, j) => (i === j ? 1 : 0))));
  const r = core.multiHeadAttention(tensor([[Array(C).fill(1)]]), { wq: eye, wk: eye, wv: eye, heads: 8, scale });
  return [r.scores.data[0]];   // (B, NH, T, T) = (1, 8, 1, 1): head 0
}
// 18.6: cross-attention of 2 sequences, T_out queries against T_in encoder positions
function crossShape(core, { heads = 4, tout = 3, tin = 7 } = {}) {
  const w = { wq: core.randn([4, 8], 1), wk: core.randn([4, 8], 2), wv: core.randn([4, 8], 3), heads };
  return core.multiHeadAttention(core.randn([2, tout, 4], 4), { ...w, memory: core.randn([2, tin, 4], 5) }).weights.shape;
}
// 18.8: what the core reads off a training text whatever the model's size (the smallest one says
// it): its vocabulary size V and the unigram entropy of its training split, in nats
function textFacts(core, text) {
  const model = core.createModel(text, { C: 4, heads: 1, layers: 1, tMax: 2, seed: 1 });
  const { vocab, unigramEntropy } = model.config;
  model.dispose();
  return { vocab, unigramEntropy };
}
// 18.8: the head that puts the most weight on the previous character, by the core's measurement of
// the model on the page: [layer, head, its mean weight (or its ratio to the uniform head)]
function strongest(model, key) {
  const s = model.patterns().strongest.previous;
  return [s.layer, s.head, s[key]];
}
// chapter exercise 1: scores [0, ln 2, 0] over values 2, 4, 10
function chapter1(core, scores) {
  const w = core.softmax(tensor(scores));
  const y = core.sdpa(tensor([[1]]), tensor(scores.map((s) => [s])), tensor([[2], [4], [10]]), { scale: 'none' }).out;
  return [...w.data, y.data[0]];
}
// chapter exercise 3: Q = K, causal mask; V and V + c with c = (1, -2)
const Q3 = [[1, 0], [0, 1], [1, 1]];
const chapter3 = (core, v) => row2(core.sdpa(tensor(Q3), tensor(Q3), tensor(v), { causal: true }).out);
const V3 = [[1, 0], [0, 1], [3, -3]], V3_SHIFTED = [[2, -2], [1, -1], [4, -5]];

export const exercises = [
  {
    id: 'ex-18.1-cumsum', section: '18.1', inputs: ['Y[2, 0]', 'Y[2, 1]'],
    // the section's default X (the chapter's), shown with the exercise: the student may have edited the lab's
    given: () => `X = ${X181_ROWS.map((r) => `(${r.join(', ')})`).join(', ')}`,
    expected: (core) => row2(core.matmul(core.averagingMatrix(3, { normalize: false }), X181())),
    misconceptions: [
      { id: 'average', value: (core) => row2(core.matmul(core.averagingMatrix(3, { normalize: true }), X181())) },
      { id: 'own-row', value: () => row2(X181()) },
    ],
  },
  {
    id: 'ex-18.2-after', section: '18.2', inputs: [{ zh: '第 1 行的和', en: 'sum of row 1' }],
    expected: (core) => [rowSums182(core, 'after')[1]],
    misconceptions: [
      { id: 'mask-before', value: (core) => [rowSums182(core, 'before')[1]] },
      { id: 'row-0', value: (core) => [rowSums182(core, 'after')[0]] },
    ],
  },
  {
    id: 'ex-18.3-score', section: '18.3', inputs: ['S[0, 0]'],
    expected: (core) => score183(core, 'head'),
    misconceptions: [
      { id: 'unscaled', value: (core) => score183(core, 'none') },
      { id: 'by-d', value: (core) => score183(core, 1 / 2) },   // divided by d = 2 instead of √2
    ],
  },
  {
    id: 'ex-18.4-head', section: '18.4', inputs: [{ zh: '分数', en: 'score' }],
    expected: (core) => score184(core, 'head'),
    misconceptions: [
      { id: 'sqrt-c', value: (core) => score184(core, 'model') },
      { id: 'unscaled', value: (core) => score184(core, 'none') },
    ],
  },
  {
    id: 'ex-18.5-sin', section: '18.5', inputs: ['PE[1, 0]', 'PE[1, 1]'],
    expected: (core) => Array.from(core.positions('sinusoidal', 2, 4).data.slice(4, 6)),
    misconceptions: [
      { id: 'swapped', value: (core) => Array.from(core.positions('sinusoidal', 2, 4).data.slice(4, 6)).reverse() },
      { id: 'position-0', value: (core) => Array.from(core.positions('sinusoidal', 2, 4).data.slice(0, 2)) },
    ],
  },
  {
    id: 'ex-18.6-shape', section: '18.6', inputs: ['B', 'H', 'T_out', 'T_in'], tolerance: 0,
    expected: (core) => crossShape(core),
    misconceptions: [
      { id: 'swapped', value: (core) => crossShape(core, { tout: 7, tin: 3 }) },
      { id: 'no-heads', value: (core) => crossShape(core, { heads: 1 }) },
    ],
  },
  {
    id: 'ex-18.7-eval', section: '18.7', inputs: ['max |Δ|'], tolerance: 0,
    expected(core) {
      const w = core.softmax(core.randn([5, 5], 3), { mask: 'causal' });
      return [core.maxAbsDiff(core.dropout(w, { p: 0.5, training: false, seed: 1 }), w)];
    },
  },
  {
    // ln V is the answer; the loss measured on the random initial weights is within a few hundredths of it
    id: 'ex-18.8-init', section: '18.8', inputs: [{ zh: '损失（nats）', en: 'loss (nats)' }], tolerance: 0.05,
    given: (core, { trainText }) => `V = ${textFacts(core, trainText).vocab}`,
    expected(core, { trainText }) {
      // the loss the core measures on a freshly initialised model, on fixed batches
      const model = core.createModel(trainText, { C: 48, heads: 4, tMax: 32, seed: 1 });
      const measured = model.evaluate(4).train;
      model.dispose();
      return [measured];
    },
    misconceptions: [
      // the page's baseline: the loss of a model that knows how often each character occurs
      { id: 'unigram', value: (core, { trainText }) => [textFacts(core, trainText).unigramEntropy] },
    ],
  },
  {
    // read off the tour of the model on the page: its strongest previous-character head, as the core
    // measured it (layer, head, mean weight); the measurement is the one on screen
    id: 'ex-18.8-previous', section: '18.8', live: true,
    inputs: [{ zh: '层', en: 'layer' }, { zh: '头', en: 'head' }, { zh: '平均权重', en: 'mean weight' }],
    unmet: [{ id: 'untrained', when: (core, { model }) => !model?.patterns()?.found.previous.length }],
    expected: (core, { model }) => strongest(model, 'mean'),
    misconceptions: [
      { id: 'ratio', value: (core, { model }) => strongest(model, 'ratio') },   // × the uniform head instead of the weight
    ],
  },
  // The chapter's three exercises.
  {
    id: 'ex-chapter-1', section: 'exercises', inputs: ['w₀', 'w₁', 'w₂', 'y'],
    expected: (core) => chapter1(core, [0, Math.log(2), 0]),
    misconceptions: [
      { id: 'uniform', value: (core) => chapter1(core, [0, 0, 0]) },   // the same call with the scores left out
    ],
  },
  {
    id: 'ex-chapter-2', section: 'exercises',
    choices: [{ value: 0, label: 'dim=0' }, { value: 1, label: 'dim=1' }, { value: -1, label: 'dim=-1' }],
    check(core, dim) {
      // The core checks the choice: under the causal mask, do the sources of every receiver (the
      // last axis) sum to 1? If not, the axis that does sum to 1 (without the mask, which would
      // leave cells of other axes with nothing allowed, NaN) names the mistake.
      const scores = core.randn([2, 4, 4], 7);
      const sumsToOne = (w, axis) => {
        const sums = core.sum(w, { dim: axis });
        return sums.data.every((v) => !Number.isNaN(v)) &&
          core.maxAbsDiff(sums, { shape: sums.shape, data: new Float64Array(sums.data.length).fill(1) }) <= 1e-12;
      };
      const correct = sumsToOne(core.softmax(scores, { dim, mask: 'causal' }), -1);
      const unmasked = core.softmax(scores, { dim });
      const misconception = correct ? null : sumsToOne(unmasked, 1) ? 'receivers' : sumsToOne(unmasked, 0) ? 'batch' : null;
      return { correct, expected: 'dim=-1', misconception };
    },
  },
  {
    id: 'ex-chapter-3', section: 'exercises', inputs: ['Y[2, 0]', 'Y[2, 1]'],
    given: (core) => `Y[2] = ${show(chapter3(core, V3))}`,
    expected: (core) => chapter3(core, V3_SHIFTED),   // V plus c = (1, -2) in every row
    misconceptions: [
      { id: 'unchanged', value: (core) => chapter3(core, V3) },
    ],
  },
];

/** Every exercise of these sections (each with its `controller`, or null), in page order: a
 * section's entries of the list above, then those its controller declares. */
export function exercisesOf(sections) {
  return sections.flatMap((s) => [...exercises.filter((e) => e.section === s.id),
    ...(s.controller?.exercises ?? []).map((e) => ({ ...e, section: s.id }))]);
}
