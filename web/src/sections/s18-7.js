// 18.7 Counterexample checks in the browser: the core against a plain reference, gradcheck,
// the future probe (exactly 0 with the mask), and dropout in training vs evaluation.
import { heatmap } from '../widgets/heatmap.js';
import { readout } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { matrixAt, values } from '../tensors.js';
import { fmt, fmtErr } from '../format.js';
import { assign, comment, header, program, say, show, pyCoreRng, pyFloat, pyGradcheck, pyMha } from '../../../wasm/js/pytorch-format.js';

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

const SAMPLES = 2000;   // dropout samples behind the mean row sums

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
      h('div.row', {}, h('div.stack', {}, h('h4', {}, t('ref')), ref.el), h('div.stack', {}, h('h4', {}, t('gc')), gc.el)),
      probe.el, probeOut.el,
      h('div.controls', {}, p.el, training.el), drop.el, dropNote);
    return {
      compute(s, core) {
        const C = 4;
        const q = core.randn([1, s.T, 2], s.seed + 10), k = core.randn([1, s.T, 2], s.seed + 11), v = core.randn([1, s.T, 2], s.seed + 12);
        const fast = core.sdpa(q, k, v, { causal: s.causal });
        const plain = core.sdpaReference(q, k, v, { causal: s.causal });
        const w = { wq: core.randn([C, C], s.seed + 1, 0.5), wk: core.randn([C, C], s.seed + 2, 0.5), wv: core.randn([C, C], s.seed + 3, 0.5), heads: 2 };
        const x = core.randn([1, s.T, C], s.seed);
        const probe = core.futureProbe(x, { ...w, causal: s.causal, t: s.t, seed: s.seed });
        const dropped = core.dropout(fast.weights, { p: s.p, training: s.training, seed: s.seed });
        return {
          refErr: core.maxAbsDiff(fast.out, plain.out),
          gc: core.gradcheck('sdpa', { q, k, v, causal: s.causal, seed: s.seed }),
          probe, dropped, dropSums: core.sum(dropped, { dim: -1 }),
          mean: core.dropoutStats(fast.weights, { p: s.p, samples: SAMPLES, seed: s.seed }).meanRowSums,
          inputs: { q, k, v, x, ...w }, out: fast.out, weights: fast.weights,
        };
      },
      paint(r, s) {
        ref.set([[t('refErr'), fmtErr(r.refErr), 'diff', r.refErr]]);
        gc.set([['', r.gc.passed ? t('pass') : t('fail'), r.gc.passed ? 'good' : 'bad'],
          ...Object.entries(r.gc.inputs).map(([name, i]) => [t('maxErr', { name }), fmtErr(i.maxAbsError), null, i.maxAbsError])]);
        const prefixRows = new Set(Array.from({ length: s.t + 1 }, (_, i) => i));
        probe.set(matrixAt(r.probe.change, 0), { shape: r.probe.change.shape, highlightRows: prefixRows });
        const exact = r.probe.maxPrefixChange === 0;
        probeOut.set([[t('prefix'), fmtErr(r.probe.maxPrefixChange), 'prefix', r.probe.maxPrefixChange], [t('future'), fmtErr(r.probe.maxFutureChange), null, r.probe.maxFutureChange],
          ['', t(exact ? 'exact' : 'leak'), exact ? 'good' : 'bad']]);
        const sums = values(r.dropSums), means = values(r.mean);
        drop.set(matrixAt(r.dropped, 0), { shape: r.dropped.shape, signed: false,
          rowMarks: Object.fromEntries(sums.map((v, i) => [i, `${fmt(v, 3)} (${t('mean')}: ${fmt(means[i], 3)})`])), rowMarksLabel: t('rowSum'),
          rowMarkValues: sums.map((v, i) => [v, means[i]]) });
        dropNote.textContent = t(s.training && s.p > 0 ? 'dropTrain' : 'dropEval');
      },
      pytorch(s, r) {
        const c = say(ctx.lang);
        const { core } = ctx;
        const { T, t: tt, seed, p } = s;
        const C = r.inputs.x.shape[2];
        const causalPy = s.causal ? 'True' : 'False';
        // the numbers the core drew inside its checks, asked of the core with the same seeds:
        // the probe's new future is randn((B, T-t-1, C), seed); gradcheck's G is randn(out's shape,
        // seed); the dropout mask is dropout() of ones, 0 or 1/(1-p) as torch's dropout scales it
        const future = core.randn([1, T - tt - 1, C], seed);
        const G = core.randn(r.out.shape, seed);
        const dropping = s.training && p > 0;
        const mask = dropping ? core.dropout({ shape: r.weights.shape, data: new Float64Array(r.weights.data.length).fill(1) }, { p, training: true, seed }) : null;
        const mha = (x) => `multi_head_attention(${x}, w_q, w_k, w_v, heads=2, causal=${causalPy})[0]`;
        return program(
          header(c('Attention Lab 18.7: counterexample checks.', '注意力实验室 18.7：反例检查。'),
            [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')], { lang: ctx.lang }),
          pyMha(ctx.lang),
          pyCoreRng({ lang: ctx.lang }),
          [`# ${c(`1. the attention against a reference. q, k, v (B, T, 2): the core's draws (seeds ${seed + 10}, ${seed + 11}, ${seed + 12})`,
            `1. 注意力与参考实现比较。q、k、v (B, T, 2)：内核抽取的数（种子 ${seed + 10}、${seed + 11}、${seed + 12}）`)}`,
          assign('q', r.inputs.q), assign('k', r.inputs.k), assign('v', r.inputs.v)].join('\n'),
          `def attention(q, k, v):
    S = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
${s.causal ? `    T = q.shape[1]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    A = S.masked_fill(~allowed, float('-inf')).softmax(dim=-1)` : '    A = S.softmax(dim=-1)'}
    return A @ v, A`,
          [`out, A = attention(q, k, v)
# ${c("the reference: PyTorch 2's scaled_dot_product_attention where it exists, else plain loops", '参考实现：有 scaled_dot_product_attention（PyTorch 2）时用它，否则用朴素循环')}
if hasattr(torch.nn.functional, 'scaled_dot_product_attention'):
    reference = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=${causalPy})
else:
    reference = torch.zeros_like(out)
    for t in range(${T}):
        seen = list(range(${s.causal ? 't + 1' : T}))
        scores = torch.stack([q[0, t] @ k[0, j] / math.sqrt(q.shape[-1]) for j in seen])
        reference[0, t] = (scores.softmax(dim=0).unsqueeze(1) * v[0, seen]).sum(dim=0)`,
          show('max |attention - reference|', '(out - reference).abs().max().item()')].join('\n'),
          [`# ${c('2. gradcheck of L = sum(out * G), G (B, T, 2) the core\'s draw (seed ' + seed + ')', '2. 对 L = sum(out * G) 做 gradcheck，G (B, T, 2) 为内核抽取的数（种子 ' + seed + '）')}`,
            assign('G', G)].join('\n'),
          pyGradcheck([['q', 'q'], ['k', 'k'], ['v', 'v']], 'attention(q, k, v)[0]', { lang: ctx.lang }),
          [`# ${c(`3. the future probe: two heads over x (B, T, C) = (1, ${T}, ${C}); the core's draws (seeds ${seed}; weights ${seed + 1}, ${seed + 2}, ${seed + 3})`,
            `3. 未来探针：两个头，输入 x (B, T, C) = (1, ${T}, ${C})；内核抽取的数（种子 ${seed}；权重 ${seed + 1}、${seed + 2}、${seed + 3}）`)}`,
          assign('x', r.inputs.x), assign('w_q', r.inputs.wq), assign('w_k', r.inputs.wk), assign('w_v', r.inputs.wv),
          assign('future', future, c(`a different future after t = ${tt}: the core's draw (seed ${seed})`, `t = ${tt} 之后换一个未来：内核抽取的数（种子 ${seed}）`)),
          `out_x = ${mha('x')}`,
          'changed = x.clone()',
          `changed[:, ${tt + 1}:] += 1 + future`,
          `change = (${mha('changed')} - out_x).abs()   # (B, T, C)`,
          show('|change|', 'change[0].tolist()'),
          show('max change in the prefix (<= t)', `change[:, :${tt + 1}].max().item()`),
          show('max change in the future (> t)', `change[:, ${tt + 1}:].max().item()`)].join('\n'),
          [comment(c('4. dropout on the weights A of part 1', '4. 对第 1 部分的权重 A 做 dropout')),
            ...(dropping ? [assign('noise', mask, c(`the core's dropout mask (seed ${seed}), scaled as torch's dropout scales it: 0 or 1/(1-p)`, `内核的 dropout 遮罩（种子 ${seed}），按 torch 的 dropout 缩放：0 或 1/(1-p)`)),
              'dropped = A * noise']
              : [`dropped = torch.nn.functional.dropout(A, p=${pyFloat(p)}, training=False)   # ${c(s.training ? 'p = 0: nothing is dropped' : 'evaluation: the identity', s.training ? 'p = 0：什么也不丢' : '评估模式：恒等映射')}`]),
            show('A after dropout', 'dropped[0].tolist()'),
            show('row sums after dropout', 'dropped.sum(dim=-1)[0].tolist()'),
            comment(c(`The mean over ${SAMPLES} samples: sample k is the core's dropout with seed ${seed} + k (the generator ported above):`,
              `${SAMPLES} 个样本的平均：第 k 个样本是内核用种子 ${seed} + k 做的 dropout（用上面移植的生成器）：`),
            c('one uniform number per entry, dropped when below p.', '每个元素一个均匀随机数，小于 p 时丢弃。')),
            `p, samples = ${pyFloat(p)}, ${SAMPLES}`,
            'row_sums = []',
            'for k in range(samples):',
            `    rng = CoreRng(${seed} + k)`,
            '    keep = torch.tensor([rng.uniform() >= p for _ in range(A.numel())]).view(A.shape)',
            '    row_sums.append((A * (keep / (1 - p))).sum(dim=-1))',
            show(`mean row sums over ${SAMPLES} samples`, 'torch.stack(row_sums).mean(dim=0)[0].tolist()')].join('\n'));
      },
    };
  },
};
