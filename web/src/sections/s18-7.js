// 18.7 Counterexample checks in the browser: the core against a plain reference, gradcheck,
// the future probe (exactly 0 with the mask), and dropout in training vs evaluation.
import { heatmap } from '../widgets/heatmap.js';
import { readout } from '../widgets/controls.js';
import { h, keyboardScrollable, setText } from '../widgets/dom.js';
import { matrixAt, values } from '../tensors.js';
import { fmt, fmtErr } from '../format.js';
import { provenance } from '../widgets/provenance.js';

const strings = {
  zh: {
    t: '比较到位置 t（改动 t 之后的输入）', p: 'dropout 概率 p', training: '训练模式（关 = 评估）',
    ref: '与朴素参考实现比较', refErr: '输出最大误差', gc: 'gradcheck（中心差分，eps 1e−6，atol 1e−5，rtol 1e−3）',
    pass: '通过', fail: '未通过', maxErr: '对 {name} 的梯度：最大误差',
    probe: '改动未来后的输出变化 |Δout|（前 t+1 行是前缀）', prefix: '前缀 (≤ t) 最大变化', future: '未来 (> t) 最大变化',
    exact: '严格为 0：遮罩让前缀完全看不到未来。', leak: '前缀变了：没有遮罩，未来的信息漏进了过去的输出。',
    dropTrainLabel: 'dropout 后的权重（训练模式，一次采样）', dropEvalLabel: 'dropout 后的权重（评估模式：原样不变）',
    sumsTrain: '行和：这次采样 · 2000 次训练采样的平均', sumsEval: '行和：这次采样 · 2000 次评估采样的平均',
    dropEval: '评估模式：dropout 是恒等映射，什么都不改。每次采样都是原来的权重，所以每行和是 1，2000 次的平均也是 1。',
    dropZero: 'p = 0：训练模式下也没有任何位置被丢掉，每行和仍是 1。',
    dropTrain: '训练模式：单次采样的行和不再是 1，许多次的平均才接近 1。',
    predictCausal: '切换之后，改动 t 之后的输入，前缀（≤ t）的输出会怎样？', unchanged: '完全不变（严格为 0）', moves: '会变',
    gradTitle: 'gradcheck 检查的解析梯度（L = Σ Y·G）', gradNote: '把鼠标移到（或用 Tab 聚焦）一个梯度上：下面列出反向传播内核对这个数的每一步运算，以及 gradcheck 的数值差分。',
    qLabel: 'Q', kLabel: 'K', vLabel: 'V', gLabel: 'G = ∂L/∂Y（随机）', aLabel: '权重 A', dqLabel: '∂L/∂Q', dkLabel: '∂L/∂K', dvLabel: '∂L/∂V',
    chapterTitle: '本页实测与教材的数字', check: '检查', ours: '本页', theirs: '教材',
    refRow: '与参考实现的最大误差', maskedRow: '有遮罩时前缀的最大变化', unmaskedRow: '去掉遮罩后前缀的最大变化',
    checkGrad: '梯度 {name} = ∂L/∂{sym}，L = Σ Y·G，(B, T, d)', checkNote: 'q、k、v 与 G 由内核抽取（种子 {seed}）；Y = sdpa(q, k, v)，causal = {causal}。',
    checkDropout: 'dropout 后的权重，(B, T, T)', checkDropoutNote: 'A 是第 1 部分的权重；keep 是本页抽取的遮罩（种子 {seed}，1 = 保留，0 = 丢弃）；p = {p}，training = {training}。',
    chapterNote: '教材的数字来自它自己的脚本和数据：参考实现是 PyTorch 的 SDPA，5.480078 来自它的随机张量。本页用的是这里的随机 Q、K、V 和权重（种子 {seed}），参考实现是本实验室自己写的朴素版本，所以具体数值不同。能对上的是结论的类型：与参考实现只差浮点舍入（0 或 2.22e−16 这个量级），有遮罩时严格为 0，没有遮罩时明显不为 0。',
  },
  en: {
    t: 'Compare up to position t (the input after t changes)', p: 'Dropout p', training: 'Training (off = evaluation)',
    ref: 'Against a plain reference implementation', refErr: 'max output error', gc: 'gradcheck (central differences, eps 1e−6, atol 1e−5, rtol 1e−3)',
    pass: 'passed', fail: 'failed', maxErr: 'gradient for {name}: max error',
    probe: 'Output change |Δout| after changing the future (the first t+1 rows are the prefix)', prefix: 'max change in the prefix (≤ t)', future: 'max change in the future (> t)',
    exact: 'Exactly 0: the mask hides the future from the prefix completely.', leak: 'The prefix moved: without the mask, the future leaks into earlier outputs.',
    dropTrainLabel: 'Weights after dropout (training, one sample)', dropEvalLabel: 'Weights after dropout (evaluation: unchanged)',
    sumsTrain: 'row sum: this sample · mean of 2000 training samples', sumsEval: 'row sum: this sample · mean of 2000 evaluation samples',
    dropEval: 'Evaluation: dropout is the identity and changes nothing. Every sample is the weights themselves, so each row sums to 1, and so does the mean over 2000 samples.',
    dropZero: 'p = 0: even in training nothing is dropped, and every row still sums to 1.',
    dropTrain: 'Training: one sample\'s rows no longer sum to 1; only the mean over many samples comes close to 1.',
    predictCausal: 'After this switch, what happens to the outputs up to t when the input after t changes?', unchanged: 'nothing: exactly 0', moves: 'they change',
    gradTitle: 'The analytic gradients gradcheck checks (L = Σ Y·G)', gradNote: 'Hover over (or Tab to) a gradient: the panel lists every step of the backward kernel\'s arithmetic for that number, and gradcheck\'s numerical difference.',
    qLabel: 'Q', kLabel: 'K', vLabel: 'V', gLabel: 'G = ∂L/∂Y (random)', aLabel: 'Weights A', dqLabel: '∂L/∂Q', dkLabel: '∂L/∂K', dvLabel: '∂L/∂V',
    chapterTitle: 'Measured here and in the chapter', check: 'check', ours: 'this page', theirs: 'the chapter',
    refRow: 'max error against the reference', maskedRow: 'max prefix change with the mask', unmaskedRow: 'max prefix change without the mask',
    checkGrad: 'the gradient {name} = ∂L/∂{sym}, L = Σ Y·G, (B, T, d)', checkNote: 'q, k, v and G drawn by the core (seed {seed}); Y = sdpa(q, k, v), causal = {causal}.',
    checkDropout: 'the weights after dropout, (B, T, T)', checkDropoutNote: 'A: the weights of part 1; keep: this page\'s drawn mask (seed {seed}, 1 = kept, 0 = dropped); p = {p}, training = {training}.',
    chapterNote: 'The chapter\'s numbers come from its own script and data: its reference is PyTorch\'s SDPA, and 5.480078 comes from its random tensors. This page measures on its own random Q, K, V and weights (seed {seed}) against the lab\'s plain reference implementation, so the values differ. What carries over is the kind of result: rounding-level against the reference (0 or about 2.22e−16), exactly 0 with the mask, clearly not 0 without it.',
  },
};

export const SAMPLES = 2000;   // dropout samples behind the mean row sums

// the attention that gradcheck, the reference and dropout look at, and the probe's model, drawn by the core
const qkvOf = (s, core) => ({ q: core.randn([1, s.T, 2], s.seed + 10), k: core.randn([1, s.T, 2], s.seed + 11), v: core.randn([1, s.T, 2], s.seed + 12) });
const probeOf = (s, core) => ({ x: core.randn([1, s.T, 4], s.seed), wq: core.randn([4, 4], s.seed + 1, 0.5), wk: core.randn([4, 4], s.seed + 2, 0.5),
  wv: core.randn([4, 4], s.seed + 3, 0.5), heads: 2 });

/** The gradients gradcheck compares, and what they are made of. */
function gradientMaps(t) {
  const small = (name, names, extra = {}) => heatmap({ t, name, label: t(`${name}Label`), names, ...extra });
  return { q: small('q', ['B', 'T', 'd']), k: small('k', ['B', 'T', 'd']), v: small('v', ['B', 'T', 'd']), G: small('g', ['B', 'T', 'd']),
    weights: small('a', ['B', 'T', 'T'], { weights: true, axes: 'self' }),
    dq: small('dq', ['B', 'T', 'd']), dk: small('dk', ['B', 'T', 'd']), dv: small('dv', ['B', 'T', 'd']) };
}

/** Every number explains itself: the gradients by gradcheck's backward kernel, the weights, the probe and dropout by theirs, the draws by their seed. */
function explainer(ctx, gm, probe, drop) {
  const { core } = ctx;
  return provenance({ lang: ctx.lang, core, fn: 'gradcheck', inputs: (s) => ({ ...qkvOf(s, core), causal: s.causal, seed: s.seed }), sources: gm,
    targets: [
      ...['dq', 'dk', 'dv'].map((quantity) => ({ widget: gm[quantity], quantity, at: (i, j) => [0, i, j] })),
      // the weights: the core's softmax of the scores (S itself is not drawn here); the inputs: seeded draws
      { widget: gm.weights, quantity: 'weights', at: (i, j) => [0, i, j], fn: 'sdpa', inputs: (s) => ({ ...qkvOf(s, core), causal: s.causal }) },
      ...[['q', 'Q', 10], ['k', 'K', 11], ['v', 'V', 12], ['G', 'G', 0]].map(([key, sym, offset]) => ({ widget: gm[key], quantity: 'draw',
        note: (i, j, s) => [`${sym}[${i},${j}]`, 'provDraw', { seed: s.seed + offset }, true] })),
      { widget: probe, quantity: 'change', at: (i, j) => [0, i, j], fn: 'futureProbe', inputs: (s) => ({ ...probeOf(s, core), causal: s.causal, t: s.t, seed: s.seed }) },
      { widget: drop, quantity: 'out', at: (i, j) => [0, i, j], fn: 'dropout',
        inputs: (s) => { const { q, k, v } = qkvOf(s, core); return { x: core.sdpa(q, k, v, { causal: s.causal }).weights, p: s.p, training: s.training, seed: s.seed }; } },
    ] });
}

/** The chapter's figures beside this page's: a table (rows filled by paint) and its note. */
function chapterTable(t) {
  const rows = h('tbody');
  const el = h('figure.chapter-compare', { 'data-name': 'chapter' }, h('figcaption', {}, h('span.tensor-label', {}, t('chapterTitle'))),
    keyboardScrollable(h('div.scroll', {}, h('table.compare', {}, h('thead', {}, h('tr', {}, ['check', 'ours', 'theirs'].map((k) => h('th', { scope: 'col' }, t(k))))), rows))));
  return { rows, el, note: h('p.note.chapter-note') };
}

function compute(s, core) {
  const { q, k, v } = qkvOf(s, core);
  const fast = core.sdpa(q, k, v, { causal: s.causal });
  const plain = core.sdpaReference(q, k, v, { causal: s.causal });
  // the probe with and without the mask: the toggle picks the one drawn; both go beside the chapter's figures
  const { x, ...w } = probeOf(s, core);
  const probeWith = (causal) => core.futureProbe(x, { ...w, causal, t: s.t, seed: s.seed });
  // gradcheck's analytic gradients: L = sum(out * G), G = randn(out's shape, seed) as gradcheck draws it
  const G = core.randn(fast.out.shape, s.seed);
  const grads = core.sdpaBackward(q, k, v, G, { causal: s.causal });
  const masked = probeWith(true), unmasked = probeWith(false);
  const dropped = core.dropout(fast.weights, { p: s.p, training: s.training, seed: s.seed });
  // the keep mask these draws make in training (1 kept, 0 dropped), as the core's dropout of ones
  // gives it (1/(1-p) where kept): the mask the student's dropout is checked with, also in evaluation
  const kept = core.dropout({ shape: fast.weights.shape, data: new Float64Array(fast.weights.data.length).fill(1) }, { p: s.p, training: true, seed: s.seed });
  const keep = { shape: kept.shape, data: kept.data.map((v) => (v === 0 ? 0 : 1)) };
  return {
    refErr: core.maxAbsDiff(fast.out, plain.out),
    gc: core.gradcheck('sdpa', { q, k, v, causal: s.causal, seed: s.seed }),
    probe: s.causal ? masked : unmasked, masked, unmasked, dropped, keep, dropSums: core.sum(dropped, { dim: -1 }),
    mean: core.dropoutStats(fast.weights, { p: s.p, samples: SAMPLES, seed: s.seed, training: s.training }).meanRowSums,
    inputs: { q, k, v, x, ...w }, out: fast.out, weights: fast.weights, G, grads,
  };
}

/** 18.7's PyTorch program; the numbers the core drew inside its checks are asked of the core with the same seeds. */
function pytorch(ctx, s, r, PROGRAMS) {
  // the probe's new future is randn((B, T - t - 1, C), seed); gradcheck's G is randn(out's shape,
  // seed); the dropout mask is dropout() of ones, 0 or 1/(1-p) as torch's dropout scales it
  const { core } = ctx, { x } = r.inputs;
  const noise = s.training && s.p > 0
    ? core.dropout({ shape: r.weights.shape, data: new Float64Array(r.weights.data.length).fill(1) }, { p: s.p, training: true, seed: s.seed }) : null;
  return PROGRAMS['18.7'](s, { ...r.inputs, G: r.G, future: core.randn([1, s.T - s.t - 1, x.shape[2]], s.seed),
    noise, samples: SAMPLES }, ctx.lang);
}

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
    const predictCausal = ctx.prediction({ name: 'predict-causal', question: t('predictCausal'),
      options: [{ value: 'unchanged', label: t('unchanged') }, { value: 'moves', label: t('moves') }] });
    const causal = ctx.toggle('causal', { onChange: (v) => predictCausal.ask(() => ctx.set({ causal: v }), () => ctx.refresh()) });
    const seed = ctx.integer('seed');
    const p = ctx.slider('p', { step: 0.05, format: (v) => v.toFixed(2) });
    const training = ctx.toggle('training');
    const ref = readout({ className: 'ref', name: 'ref' });
    const gc = readout({ className: 'gradcheck', name: 'gradcheck' });
    const probe = heatmap({ t, name: 'probe', label: t('probe'), names: ['B', 'T', 'C'], digits: 3 });
    const probeOut = readout({ className: 'probe', name: 'probe' });
    const drop = heatmap({ t, name: 'drop', label: t('dropTrainLabel'), names: ['B', 'T', 'T'], axes: 'self' });
    const gm = gradientMaps(t);
    const prov = explainer(ctx, gm, probe, drop);
    const chapter = chapterTable(t);
    const dropNote = h('p.note.drop-note');
    ctx.lab.append(h('div.controls', {}, T.el, tt.el, causal.el, seed.el), predictCausal.el,
      h('div.row', {}, h('div.stack', {}, h('h3', {}, t('ref')), ref.el), h('div.stack', {}, h('h3', {}, t('gc')), gc.el)),
      h('h3', {}, t('gradTitle')), h('p.note', {}, t('gradNote')),
      h('div.row', {}, gm.q.el, gm.k.el, gm.v.el, gm.G.el), h('div.row', {}, gm.weights.el, gm.dq.el, gm.dk.el, gm.dv.el), prov.el,
      probe.el, probeOut.el, chapter.el, chapter.note,
      h('div.controls', {}, p.el, training.el), drop.el, dropNote);

    function paintChecks(r, s) {
      ref.set([[t('refErr'), fmtErr(r.refErr), 'diff', r.refErr]]);
      gc.set([['', r.gc.passed ? t('pass') : t('fail'), r.gc.passed ? 'good' : 'bad'],
        ...Object.entries(r.gc.inputs).map(([name, i]) => [t('maxErr', { name: name.toUpperCase() }), fmtErr(i.maxAbsError), null, i.maxAbsError])]);   // q -> Q, as the lesson writes it
      const prefixRows = new Set(Array.from({ length: s.t + 1 }, (_, i) => i));
      probe.set(matrixAt(r.probe.change, 0), { shape: r.probe.change.shape, highlightRows: prefixRows });
      const exact = r.probe.maxPrefixChange === 0;
      probeOut.set([[t('prefix'), fmtErr(r.probe.maxPrefixChange), 'prefix', r.probe.maxPrefixChange], [t('future'), fmtErr(r.probe.maxFutureChange), null, r.probe.maxFutureChange],
        ['', t(exact ? 'exact' : 'leak'), exact ? 'good' : 'bad']]);
      if (predictCausal.waiting) predictCausal.settle(exact ? 'unchanged' : 'moves');
    }

    // the chapter's figures (its section 18.7): 2.22e-16 against PyTorch's SDPA, 0 with the mask, 5.480078 without
    function paintChapter(r, s) {
      chapter.rows.replaceChildren(...[['refRow', r.refErr, fmtErr(2.22e-16)], ['maskedRow', r.masked.maxPrefixChange, '0'],
        ['unmaskedRow', r.unmasked.maxPrefixChange, '5.480078']].map(([k, ours, theirs]) =>
        h('tr', { 'data-row': k }, h('th', { scope: 'row' }, t(k)), h('td.ours', { 'data-value': String(ours) }, fmtErr(ours)), h('td.theirs', {}, theirs))));
      setText(chapter.note, t('chapterNote', { seed: s.seed }));
    }

    function paintDropout(r, s) {
      const sums = values(r.dropSums), means = values(r.mean);
      drop.set(matrixAt(r.dropped, 0), { shape: r.dropped.shape, signed: false, label: t(s.training ? 'dropTrainLabel' : 'dropEvalLabel'),
        rowMarks: Object.fromEntries(sums.map((v, i) => [i, `${fmt(v, 3)} · ${fmt(means[i], 3)}`])), rowMarksLabel: t(s.training ? 'sumsTrain' : 'sumsEval'),
        rowMarkValues: sums.map((v, i) => [v, means[i]]) });
      setText(dropNote, t(!s.training ? 'dropEval' : s.p === 0 ? 'dropZero' : 'dropTrain'));
    }

    return {
      compute,
      paint(r, s) {
        paintChecks(r, s);
        paintChapter(r, s);
        paintDropout(r, s);
        const { q, k, v } = r.inputs;
        for (const [key, m] of [['q', q], ['k', k], ['v', v], ['G', r.G], ['weights', r.weights], ['dq', r.grads.dq], ['dk', r.grads.dk], ['dv', r.grads.dv]])
          gm[key].set(matrixAt(m, 0), { shape: m.shape });
        prov.update(s);
      },
      pytorch: (s, r, programs) => pytorch(ctx, s, r, programs),
      // the gradients gradcheck checks, as the student's own backward pass gives them; and the
      // weights after the student's dropout with this page's keep mask, p and mode
      check(s, r) {
        const { q, k, v } = r.inputs;
        const py = (b) => (b ? 'True' : 'False');
        const dropout = { key: 'dropout', label: t('checkDropout'), check: 'dropout',
          inputs: { weights: r.weights, keep: r.keep, p: s.p, training: s.training }, given: { A: r.weights, keep: r.keep, p: s.p, training: s.training },
          note: t('checkDropoutNote', { seed: s.seed, p: s.p, training: py(s.training) }), reveal: (i) => drop.reveal(i[1], i[2]) };
        return { check: 'sdpaBackward', inputs: { q, k, v, gradOut: r.G, causal: s.causal },
          given: { q, k, v, G: r.G, causal: s.causal }, note: t('checkNote', { seed: s.seed, causal: py(s.causal) }),
          compare: [...['q', 'k', 'v'].map((n) => ({ key: `d${n}`, label: t('checkGrad', { name: `d${n}`, sym: n.toUpperCase() }), opts: { gradient: `d${n}` },
            reveal: (i) => gm[`d${n}`].reveal(i[1], i[2]) })), dropout] };
      },
    };
  },
};
