// The exercises' logic: what the student enters and how the core checks it. given(core, res) and
// check(core, answer, res) get the page's resources ({trainText}) as their last argument. An input's
// label is a string (notation, the same in both languages) or {zh, en}. Their text (prompt,
// hint, solution) is in lessons/{zh,en}/*.md under the same ids. Typed answers are compared
// with the core's numbers at the precision a person types (5e-3); exact answers exactly.
import { tensor } from '../../wasm/js/index.js';
import { fmt } from './format.js';

const TYPED = 5e-3;
const close = (core, answer, expected, tol = TYPED) => core.maxAbsDiff(tensor(answer), tensor(expected)) <= tol;
const show = (xs) => (xs.length === 1 ? fmt(xs[0], 4) : `(${xs.map((x) => fmt(x, 4)).join(', ')})`);

export const exercises = [
  {
    id: 'ex-18.1-cumsum', section: '18.1', inputs: ['Y[2, 0]', 'Y[2, 1]'],
    check(core, answer) {
      const X = tensor([[2, 0], [0, 4], [4, 2]]);
      const y = core.matmul(core.averagingMatrix(3, { normalize: false }), X);
      const expected = Array.from(y.data.slice(4, 6));
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.2-after', section: '18.2', inputs: [{ zh: '第 1 行的和', en: 'sum of row 1' }],
    check(core, answer) {
      const zeros = tensor([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]);
      const w = core.softmax(zeros, { mask: 'causal', maskOrder: 'after' });
      const expected = [core.sum(w, { dim: -1 }).data[1]];
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.3-score', section: '18.3', inputs: ['S[0, 0]'],
    check(core, answer) {
      const r = core.sdpa(tensor([[1, 2]]), tensor([[3, -1]]), tensor([[1]]));
      const expected = [r.scores.data[0]];
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.4-head', section: '18.4', inputs: [{ zh: '分数', en: 'score' }],
    check(core, answer) {
      const ones = tensor([[1, 1, 1, 1, 1, 1, 1, 1]]);   // one query and one key of a head with hs = 8
      const expected = [core.sdpa(ones, ones, tensor([[1]])).scores.data[0]];
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.5-sin', section: '18.5', inputs: ['PE[1, 0]', 'PE[1, 1]'],
    check(core, answer) {
      const pe = core.positions('sinusoidal', 2, 4);
      const expected = Array.from(pe.data.slice(4, 6));
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.6-shape', section: '18.6', inputs: ['B', 'H', 'T_out', 'T_in'],
    check(core, answer) {
      const w = { wq: core.randn([4, 8], 1), wk: core.randn([4, 8], 2), wv: core.randn([4, 8], 3), heads: 4 };
      const r = core.multiHeadAttention(core.randn([2, 3, 4], 4), { ...w, memory: core.randn([2, 7, 4], 5) });
      const expected = r.weights.shape;
      return { correct: close(core, answer, expected, 0), expected: `(${expected.join(', ')})` };
    },
  },
  {
    id: 'ex-18.7-eval', section: '18.7', inputs: ['max |Δ|'],
    check(core, answer) {
      const w = core.softmax(core.randn([5, 5], 3), { mask: 'causal' });
      const expected = [core.maxAbsDiff(core.dropout(w, { p: 0.5, training: false, seed: 1 }), w)];
      return { correct: close(core, answer, expected, 0), expected: show(expected) };
    },
  },
  {
    id: 'ex-18.8-init', section: '18.8', inputs: [{ zh: '损失（nats）', en: 'loss (nats)' }],
    given(core, { trainText }) {
      const model = core.createModel(trainText, { C: 48, heads: 4, tMax: 32, seed: 1 });
      const V = model.config.vocab;
      model.dispose();
      return `V = ${V}`;
    },
    check(core, answer, { trainText }) {
      // the loss the core measures on a freshly initialised model, on fixed batches
      const model = core.createModel(trainText, { C: 48, heads: 4, tMax: 32, seed: 1 });
      const measured = model.evaluate(4).train;
      model.dispose();
      return { correct: Math.abs(answer[0] - measured) <= 0.05, expected: fmt(measured, 4) };
    },
  },
  // The chapter's three exercises.
  {
    id: 'ex-chapter-1', section: 'exercises', inputs: ['w₀', 'w₁', 'w₂', 'y'],
    check(core, answer) {
      const w = core.softmax(tensor([0, Math.log(2), 0]));
      const y = core.sdpa(tensor([[1]]), tensor([[0], [Math.log(2)], [0]]), tensor([[2], [4], [10]]), { scale: 'none' }).out;
      const expected = [...w.data, y.data[0]];
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
  {
    id: 'ex-chapter-2', section: 'exercises',
    choices: [{ value: 0, label: 'dim=0' }, { value: 1, label: 'dim=1' }, { value: -1, label: 'dim=-1' }],
    check(core, dim) {
      // The core checks the choice: under the causal mask, do the sources of every receiver sum to 1?
      const w = core.softmax(core.randn([2, 4, 4], 7), { dim, mask: 'causal' });
      const sums = core.sum(w, { dim: -1 });
      const ones = { shape: sums.shape, data: new Float64Array(sums.data.length).fill(1) };
      return { correct: core.maxAbsDiff(sums, ones) <= 1e-12, expected: 'dim=-1' };
    },
  },
  {
    id: 'ex-chapter-3', section: 'exercises', inputs: ['Y[2, 0]', 'Y[2, 1]'],
    given(core) {
      const q = tensor([[1, 0], [0, 1], [1, 1]]);
      const y = core.sdpa(q, q, tensor([[1, 0], [0, 1], [3, -3]]), { causal: true }).out;
      return `Y[2] = ${show(Array.from(y.data.slice(4, 6)))}`;
    },
    check(core, answer) {
      const q = tensor([[1, 0], [0, 1], [1, 1]]), k = tensor([[1, 0], [0, 1], [1, 1]]);
      const vShifted = tensor([[2, -2], [1, -1], [4, -5]]);   // V = [[1, 0], [0, 1], [3, -3]] plus c = (1, -2)
      const y = core.sdpa(q, k, vShifted, { causal: true }).out;
      const expected = Array.from(y.data.slice(4, 6));
      return { correct: close(core, answer, expected), expected: show(expected) };
    },
  },
];
