// 18.7 Counterexample checks in the browser: the core against a plain reference, gradcheck,
// the future probe (exactly 0 with the mask), and dropout in training vs evaluation.
import { heatmap } from '../widgets/heatmap.js';
import { readout } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { matrixAt, values } from '../tensors.js';
import { fmt, fmtErr } from '../format.js';

const strings = {
  zh: {
    t: '比较到位置 t（改动 t 之后的输入）', p: 'dropout 概率 p', training: '训练模式（关 = 评估）',
    ref: '与朴素参考实现比较', refErr: '输出最大误差', gc: 'gradcheck（中心差分，eps 1e-6，atol 1e-5，rtol 1e-3）',
    pass: '通过', fail: '未通过', maxErr: '{name} 最大误差',
    probe: '改动未来后的输出变化 |Δout|（前 t+1 行是前缀）', prefix: '前缀 (≤ t) 最大变化', future: '未来 (> t) 最大变化',
    exact: '严格为 0：遮罩让前缀完全看不到未来。', leak: '前缀变了：没有遮罩，未来的信息漏进了过去的输出。',
    drop: 'dropout 后的权重', mean: '2000 次采样的平均行和',
    dropEval: '评估模式：dropout 什么都不改，每行和仍是 1。', dropTrain: '训练模式：单次采样的行和不再是 1，许多次的平均才回到 1。',
  },
  en: {
    t: 'Compare up to position t (the input after t changes)', p: 'Dropout p', training: 'Training (off = evaluation)',
    ref: 'Against a plain reference implementation', refErr: 'max output error', gc: 'gradcheck (central differences, eps 1e-6, atol 1e-5, rtol 1e-3)',
    pass: 'passed', fail: 'failed', maxErr: '{name} max error',
    probe: 'Output change |Δout| after changing the future (the first t+1 rows are the prefix)', prefix: 'max change in the prefix (≤ t)', future: 'max change in the future (> t)',
    exact: 'Exactly 0: the mask hides the future from the prefix completely.', leak: 'The prefix moved: without the mask, the future leaks into earlier outputs.',
    drop: 'Weights after dropout', mean: 'mean row sum over 2000 samples',
    dropEval: 'Evaluation: dropout changes nothing, rows still sum to 1.', dropTrain: 'Training: one sample\'s rows no longer sum to 1; only the mean over many samples does.',
  },
};

export default {
  strings,
  state: [
    { key: 'T', type: 'int', min: 2, max: 10, default: 6 },
    { key: 't', type: 'int', min: 0, max: 8, default: 2, within: (s) => ({ max: s.T - 2 }) },   // the future is t+1 .. T-1
    { key: 'causal', type: 'bool', default: true },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'p', type: 'number', min: 0, max: 0.9, default: 0.5 },
    { key: 'training', type: 'bool', default: true },
  ],
  build(ctx) {
    const { t } = ctx;
    const T = ctx.integer('T');
    const tt = ctx.integer('t');
    const causal = ctx.toggle('causal');
    const seed = ctx.integer('seed');
    const p = ctx.slider('p', { step: 0.05, format: (v) => v.toFixed(2) });
    const training = ctx.toggle('training');
    const ref = readout({ className: 'ref', name: 'ref' });
    const gc = readout({ className: 'gradcheck', name: 'gradcheck' });
    const probe = heatmap({ t, name: 'probe', label: t('probe'), names: ['B', 'T', 'C'], digits: 3 });
    const probeOut = readout({ className: 'probe', name: 'probe' });
    const drop = heatmap({ t, name: 'drop', label: t('drop'), names: ['B', 'T', 'T'], axes: 'self' });
    const dropNote = h('p.note');
    ctx.lab.append(h('div.controls', {}, T.el, tt.el, causal.el, seed.el),
      h('div.row', {}, h('div.stack', {}, h('h3', {}, t('ref')), ref.el), h('div.stack', {}, h('h3', {}, t('gc')), gc.el)),
      probe.el, probeOut.el,
      h('div.controls', {}, p.el, training.el), drop.el, dropNote);
    return {
      compute(s, core) {
        const C = 4;
        const q = core.randn([1, s.T, 2], s.seed + 10), k = core.randn([1, s.T, 2], s.seed + 11), v = core.randn([1, s.T, 2], s.seed + 12);
        const fast = core.sdpa(q, k, v, { causal: s.causal });
        const plain = core.sdpaReference(q, k, v, { causal: s.causal });
        const w = { wq: core.randn([C, C], s.seed + 1, 0.5), wk: core.randn([C, C], s.seed + 2, 0.5), wv: core.randn([C, C], s.seed + 3, 0.5), heads: 2 };
        const probe = core.futureProbe(core.randn([1, s.T, C], s.seed), { ...w, causal: s.causal, t: s.t, seed: s.seed });
        const dropped = core.dropout(fast.weights, { p: s.p, training: s.training, seed: s.seed });
        return {
          refErr: core.maxAbsDiff(fast.out, plain.out),
          gc: core.gradcheck('sdpa', { q, k, v, causal: s.causal, seed: s.seed }),
          probe, dropped, dropSums: core.sum(dropped, { dim: -1 }),
          mean: core.dropoutStats(fast.weights, { p: s.p, samples: 2000, seed: s.seed }).meanRowSums,
        };
      },
      paint(r, s) {
        ref.set([[t('refErr'), fmtErr(r.refErr), 'diff']]);
        gc.set([['', r.gc.passed ? t('pass') : t('fail'), r.gc.passed ? 'good' : 'bad'],
          ...Object.entries(r.gc.inputs).map(([name, i]) => [t('maxErr', { name }), fmtErr(i.maxAbsError)])]);
        const prefixRows = new Set(Array.from({ length: s.t + 1 }, (_, i) => i));
        probe.set(matrixAt(r.probe.change, 0), { shape: r.probe.change.shape, highlightRows: prefixRows });
        const exact = r.probe.maxPrefixChange === 0;
        probeOut.set([[t('prefix'), fmtErr(r.probe.maxPrefixChange), 'prefix'], [t('future'), fmtErr(r.probe.maxFutureChange)],
          ['', t(exact ? 'exact' : 'leak'), exact ? 'good' : 'bad']]);
        const sums = values(r.dropSums), means = values(r.mean);
        drop.set(matrixAt(r.dropped, 0), { shape: r.dropped.shape, signed: false,
          rowMarks: Object.fromEntries(sums.map((v, i) => [i, `${fmt(v, 3)} (${t('mean')}: ${fmt(means[i], 3)})`])), rowMarksLabel: t('rowSum') });
        dropNote.textContent = t(s.training && s.p > 0 ? 'dropTrain' : 'dropEval');
      },
    };
  },
};
