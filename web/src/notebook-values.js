// The numbers a section's notebook checks (web/src/notebook.js): for each label its "Show as
// PyTorch" program prints (web/src/pytorch-programs.js), the number the page shows for it, taken
// from the section's result as its controller got it from the core (the same numbers its paint()
// draws). VALUES[id](state, result) -> {checks: [{label, value, noise?, needsFiles?}],
// filesOptional?, inputs?}; a value is a number, a boolean or a tensor {shape, data}.
//
// Indexing only: slices of the core's tensors, rows placed where the page places them, no
// arithmetic on the numbers.
import { SAMPLES as DROPOUT_SAMPLES } from './sections/s18-7.js';

/** The sub-tensor at leading indices `lead` of t (a view of its data). */
function at(t, ...lead) {
  let offset = 0, size = t.data.length;
  lead.forEach((i, axis) => { size /= t.shape[axis]; offset += i * size; });
  return { shape: t.shape.slice(lead.length), data: t.data.subarray(offset, offset + size) };
}
/** A plain array of numbers as a vector. */
const vector = (a) => ({ shape: [a.length], data: Float64Array.from(a) });
/** t without its axis 1 of size 1 (one head: (B, 1, T, T) -> (B, T, T)). */
const oneHead = (t) => ({ shape: [t.shape[0], ...t.shape.slice(2)], data: t.data });
const list = (entries) => entries.filter(Boolean).map(([label, value, more]) => ({ label, value, ...more }));

export const VALUES = {
  '18.1': (s, r) => ({ checks: list([['A', r.A], ['row sums of A', r.rowSums], ['Y', r.Y], ['loop, sequence 0', at(r.loop, 0)],
    ['max |loop - Y|', r.diff]]) }),

  '18.2'(s, r) {
    const last = s.dim === -1 || s.dim === r.demo.shape.length - 1;
    return { checks: list([['mask, then softmax', r.before], ['row sums, mask then softmax', r.beforeSums],
      ['softmax, then zero', r.after], ['row sums, softmax then zero', r.afterSums],
      ['rows with nothing allowed', vector(r.before.maskedRows.flat())],
      [`softmax along dim ${s.dim}`, r.w], ['sums over the sources (dim -1)', r.lastSums],
      last ? null : [`sums along dim ${s.dim}`, r.wSums], ['max |sum over the sources - 1|', r.lastOff]]) };
  },

  // one head: the program's (B, T, T) scores and weights
  '18.3': (s, r) => ({ checks: list([['Q', r.q], ['K', r.k], ['V', r.v], ['S', oneHead(r.scores)], ['A', oneHead(r.weights)], ['Y', r.out]]) }),

  // the runs in the program's order of scales; the Monte Carlo's variances need its draws (a file)
  '18.4'(s, r) {
    const runs = ['sqrt(hs)', 'sqrt(C)', 'none'].flatMap((name, i) => {
      const run = r.runs[i];
      return [[`weights, divide by ${name}`, at(run.weights, 0, s.head)], [`entropy, divide by ${name}`, at(run.stats.entropy, 0, s.head)],
        [`max weight, divide by ${name}`, at(run.stats.maxWeight, 0, s.head)]];
    });
    const sharp = [['× 1', r.one], [`× ${s.factor}`, r.k]].flatMap(([k, x]) => [[`softmax(logits ${k})`, x.weights],
      [`max weight ${k}`, x.maxWeight], [`entropy ${k}`, x.entropy], [`Jacobian norm ${k}`, x.jacobianNorm]]);
    return { filesOptional: true,
      // the variance is null in the moment between the section's mount and its Monte Carlo (s18-4.js)
      checks: list([...runs, ...(r.variance ? [['d', vector(r.variance.dims)],
        ['Var(q.k)', vector(r.variance.unscaled), { needsFiles: true }], ['Var(q.k / sqrt(d))', vector(r.variance.scaled), { needsFiles: true }]] : []),
        ...sharp]) };
  },

  '18.5'(s, r) {
    // attn(X + P) itself: row π(t) of it is row t of Π attn(X + P), as the page places it
    const shuffled = at(r.pc.permutedOut, 0), [T, D] = shuffled.shape, rows = new Float64Array(T * D);
    r.pc.perm.forEach((p, i) => rows.set(at(shuffled, i).data, p * D));
    return { checks: list([['Π X + P', at(r.pc.permutedInput, 0)], ['attn(X + P)', { shape: [T, D], data: rows }],
      ['attn(Π X + P)', at(r.pc.outOfPermuted, 0)], ['Π attn(X + P)', shuffled],
      [s.pos === 'none' ? 'max |attn(Π X) - Π attn(X)|' : 'max |attn(Π X + P) - Π attn(X + P)|', r.pc.maxDiff],
      s.pos === 'none' ? null : ['position table', r.table]]) };
  },

  '18.6': (s, r) => ({ checks: list([['mask M', r.mask],
    ...Array.from({ length: s.heads }, (_, h) => [`weights of head ${h}`, at(r.r.weights, 0, h)])]) }),

  '18.7': (s, r) => ({ checks: list([['max |attention - reference|', r.refErr], ['passed', r.gc.passed],
    ...['q', 'k', 'v'].map((n) => [`inputs.${n}.maxAbsError`, r.gc.inputs[n].maxAbsError, { noise: true }]),
    ['A', at(r.weights, 0)], ['dL/dQ', at(r.grads.dq, 0)], ['dL/dK', at(r.grads.dk, 0)], ['dL/dV', at(r.grads.dv, 0)],
    ['|change|', at(r.probe.change, 0)], ['max change in the future (> t)', r.probe.maxFutureChange],
    ['max change in the prefix (<= t), with the mask', r.masked.maxPrefixChange],
    ['max change in the prefix (<= t), without the mask', r.unmasked.maxPrefixChange],
    ['A after dropout', at(r.dropped, 0)], ['row sums after dropout', at(r.dropSums, 0)],
    [`mean row sums over ${DROPOUT_SAMPLES} samples`, at(r.mean, 0)]]) }),

  // the model's maps and its future check, as the worker sent them; the sentence's ids to print
  '18.8'(s, { train: { config: cfg, attention: att, future } }) {
    const maps = Array.from({ length: cfg.layers }, (_, l) => Array.from({ length: cfg.heads }, (__, h) => [`layer ${l} head ${h}`, at(att.maps[l], h)])).flat();
    return { inputs: ['ids'], checks: list([...maps, ['max |change| per position', vector(future.result.perPosition)],
      ['max change in the prefix (<= t)', future.result.maxPrefixChange]]) };
  },
};
