// A TypeScript user of the packed package: every call below is type-checked against the
// generated declarations, and run (scripts/test.sh, ts-consumer stage). Each call in
// mustNotCompile() carries an expect-error directive: if the declarations lost their precision
// (an `any`, a missing option name, a too-wide union), tsc reports the unused directive and the
// stage fails. That function is never called.
import { loadCore, tensor, toNested, diagnoseText, type Core, type Tensor, type CoreError, type GptModel } from 'attention-lab';

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`ts-consumer: ${what}`);
}

const core: Core = await loadCore();

// 18.1: the chapter's X, averaged by the matrix
const x: Tensor = tensor([[2, 0], [0, 4], [4, 2]]);
const avg: Tensor = core.causalAverage(x, { method: 'matrix' });
check(JSON.stringify(toNested(avg)) === '[[2,0],[1,2],[2,2]]', `causalAverage gave ${JSON.stringify(toNested(avg))}`);

// 18.2: masked softmax; maskedRows is a list of row indices
const w = core.softmax(tensor([[0, 0, 0], [0, 0, 0], [0, 0, 0]]), { mask: 'causal', maskOrder: 'before', dim: -1 });
const data: Float64Array = w.data;
const masked: number[][] = w.maskedRows;
check(data[3] === 0.5 && data[4] === 0.5 && data[5] === 0 && masked.length === 0, `softmax gave ${Array.from(data)}`);

// 18.3: multi-head attention; the result's fields are tensors
const X = core.randn([1, 4, 6], 1);
const W = () => core.randn([6, 6], 2);
const mha = core.multiHeadAttention(X, { wq: W(), wk: W(), wv: W(), heads: 3, causal: true, scale: 'head' });
const weights: Tensor = mha.weights;
check(weights.shape.join() === '1,3,4,4', `weights shape ${weights.shape}`);
// results: 'out' asks for out alone: the result has no weights (typed so), and the same out
const wq = W(), wk = W(), wv = W();
const full = core.multiHeadAttention(X, { wq, wk, wv, heads: 3, causal: true });
const only = core.multiHeadAttention(X, { wq, wk, wv, heads: 3, causal: true, results: 'out' });
const onlyOut: Tensor = only.out;
// @ts-expect-error out alone has no weights
check(only.weights === undefined && onlyOut.data.every((v, i) => Object.is(v, full.out.data[i])), 'results out');
const back = core.multiHeadAttentionBackward(X, mha.out, { wq: W(), wk: W(), wv: W(), heads: 3 });
check(back.dx.shape.join() === '1,4,6' && back.dmemory === undefined, 'backward fields');

// 18.4: a number-valued result
const stats = core.attentionStats(weights);
check(stats.entropy.shape.join() === '1,3,4', `entropy shape ${stats.entropy.shape}`);

// errors carry a code and parameters
try {
  core.matmul(tensor([[1, 2]]), tensor([[1, 2]]));
  check(false, 'matmul of (1, 2) by (1, 2) did not throw');
} catch (e) {
  const err = e as CoreError;
  check(typeof err.code === 'string' && err.message.includes('(1, 2)'), `error ${err.message}`);
}

// 18.8: a model and its methods
const model: GptModel = core.createModel('hello world, hello attention. '.repeat(4), { C: 8, heads: 2, layers: 1, tMax: 8, seed: 1 });
const step = model.trainSteps(2);
const loss: number = step.loss;
check(Number.isFinite(loss) && step.step === 2, `trainSteps gave ${JSON.stringify(step)}`);
const text: string = model.sample({ length: 5, seed: 1 });
check(typeof text === 'string', 'sample is a string');
model.dispose();

// Check my numbers: PyTorch's print of the mask applied after the softmax, named
const d = diagnoseText(core, 'softmax', { scores: tensor([[0, 0], [0, 0]]) }, 'tensor([[0.5000, 0.0000],\n        [0.5000, 0.5000]])');
const verdict: 'correct' | 'mistake' | 'unknown' | 'shape' = d.verdict;
check(verdict === 'mistake' && d.mistakes.join() === 'mask_after', `diagnose gave ${verdict} ${d.mistakes}`);
// and dropout's kept weights not divided by 1 - p (the check's options typed: weights, keep, p, training)
const dd = diagnoseText(core, 'dropout', { weights: tensor([[1, 0], [0.5, 0.5]]), keep: tensor([[1, 0], [0, 1]]), p: 0.25, training: true },
  '[[1.0, 0.0], [0.0, 0.5]]');
check(dd.verdict === 'mistake' && dd.mistakes.join() === 'no_rescale', `diagnose gave ${dd.verdict} ${dd.mistakes}`);

// the table itself
const rows = core.describe();
check(rows.some((r) => r.name === 'softmax'), 'describe lists softmax');

function mustNotCompile(): void {
  // @ts-expect-error: causalAverage has no option 'mode'
  core.causalAverage(x, { mode: 'loop' });
  // @ts-expect-error: maskOrder is 'before' or 'after'
  core.softmax(x, { maskOrder: 'later' });
  // @ts-expect-error: a tensor argument is {shape, data}, not nested arrays
  core.maxAbsDiff([[1]], x);
  // @ts-expect-error: sdpa takes q, k, v (and options)
  core.sdpa(x, x);
  // @ts-expect-error: the result of sdpa has no field 'output'
  core.sdpa(x, x, x).output;
  // @ts-expect-error: no such function
  core.attention(x);
  // @ts-expect-error: a diagnosis has no field 'ok'
  d.ok;
}
void mustNotCompile;

console.log('ts-consumer: every call type-checked and computed');
