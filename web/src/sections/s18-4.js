// 18.4 Why sqrt(d): multi-head attention scaled by sqrt(hs), by sqrt(C) (the classic mistake)
// and not at all, side by side; Var(q.k) against d; softmax sharpening under a logit multiplier.
import { heatmap } from '../widgets/heatmap.js';
import { readout } from '../widgets/controls.js';
import { lineChart, barChart } from '../widgets/chart.js';
import { h } from '../widgets/dom.js';
import { tensor, matrixAt, values } from '../tensors.js';
import { fmt } from '../format.js';
import { memo } from '../memo.js';
import { assign, header, program, say, show, pyFloat, pyMha, pyValue } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    C: '模型宽度 C', head: '显示第几个头',
    head_scale: '除以 √hs（正确）', model_scale: '除以 √C（常见错误）', none_scale: '不缩放',
    stats: '熵 / 最大权重', hs: '每个头的宽度 hs = C / 头数 = {C} / {heads}；正确的缩放是 1/√hs，错误的是 1/√C。',
    chart: 'q·k 的方差随 d 增长（q、k 各分量独立，方差 1）', d: '维度 d', variance: '方差', unscaled: 'Var(q·k)', scaled: 'Var(q·k / √d)',
    logits: 'logits', factor: 'logits 乘以', sharp: 'softmax(logits × 倍数)', times1: '× 1', timesK: '× {k}',
    maxW: '最大权重', entropy: '熵', jac: 'Jacobian 的 Frobenius 范数', table: '数据表',
  },
  en: {
    C: 'Model width C', head: 'Show head',
    head_scale: 'Divide by √hs (right)', model_scale: 'Divide by √C (the classic mistake)', none_scale: 'No scaling',
    stats: 'entropy / max weight', hs: 'Head size hs = C / heads = {C} / {heads}; the right scale is 1/√hs, the mistake 1/√C.',
    chart: 'Var(q·k) grows with d (independent unit-variance components)', d: 'width d', variance: 'variance', unscaled: 'Var(q·k)', scaled: 'Var(q·k / √d)',
    logits: 'logits', factor: 'Multiply the logits by', sharp: 'softmax(logits × factor)', times1: '× 1', timesK: '× {k}',
    maxW: 'max weight', entropy: 'entropy', jac: 'Frobenius norm of the Jacobian', table: 'Data table',
  },
};

const SCALES = ['head', 'model', 'none'];
const DIMS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const SAMPLES = 2000;   // per d, in the variance Monte Carlo
// Weight init std 1/sqrt(C) (an input, like the seed), so q and k components have variance about 1.
const WSTD = { 4: 0.5, 8: 0.35355339059327373, 16: 0.25, 32: 0.1767766952966369 };

export default {
  strings,
  state: [
    { key: 'T', type: 'int', min: 2, max: 64, default: 6 },
    { key: 'C', type: 'enum', options: [4, 8, 16, 32], default: 16 },
    // heads divide C (hs = C / heads); only existing heads can be shown
    { key: 'heads', type: 'enum', options: [1, 2, 4, 8], default: 4, within: (s) => ({ options: [1, 2, 4, 8].filter((n) => s.C % n === 0) }) },
    { key: 'head', type: 'int', min: 0, max: 7, default: 0, within: (s) => ({ max: s.heads - 1 }) },
    { key: 'causal', type: 'bool', default: true },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'logits', type: 'vector', minCols: 2, maxCols: 10, default: [0.1, -0.2, 0.3, -0.2, 0.5] },
    { key: 'factor', type: 'number', min: 0.5, max: 16, default: 8 },
  ],
  build(ctx) {
    const { t } = ctx;
    const T = ctx.integer('T');
    const C = ctx.select('C');
    const heads = ctx.select('heads');
    const head = ctx.select('head');
    const causal = ctx.toggle('causal');
    const seed = ctx.integer('seed');
    const hsLine = h('p.shape-line');
    const maps = SCALES.map((sc) => heatmap({ t, name: `w-${sc}`, label: t(`${sc}_scale`), names: ['B', 'H', 'T', 'T'], weights: true, axes: 'self' }));
    const chart = lineChart({ label: t('chart') });
    const logits = ctx.editor('logits');
    const factor = ctx.slider('factor', { step: 0.5, format: (v) => `× ${v}` });
    const bars = barChart({ label: t('sharp') });
    const sharp = readout({ name: 'sharp' });
    ctx.lab.append(
      h('div.controls', {}, T.el, C.el, heads.el, head.el, causal.el, seed.el), hsLine,
      h('div.row.three', { 'data-compare': 'scales' }, maps.map((m) => m.el)),
      chart.el,
      h('div.row', {}, h('div.stack', {}, logits.el, factor.el, sharp.el), bars.el));
    // each part is recomputed only when what it depends on changes
    const attentionRuns = memo((s, core) => {
      const x = core.randn([1, s.T, s.C], s.seed);
      const std = WSTD[s.C];
      const w = { wq: core.randn([s.C, s.C], s.seed + 1, std), wk: core.randn([s.C, s.C], s.seed + 2, std), wv: core.randn([s.C, s.C], s.seed + 3, std) };
      return { inputs: { x, ...w }, runs: SCALES.map((scale) => {
        const r = core.multiHeadAttention(x, { ...w, heads: s.heads, causal: s.causal, scale });
        return { weights: r.weights, stats: core.attentionStats(r.weights) };
      }) };
    });
    const variance = memo((seed, core) => core.dotProductVariance(DIMS, { samples: SAMPLES, seed }));
    const painted = {};
    const sharpening = memo((s, core) => {
      const L = tensor(s.logits);
      return { one: core.softmaxSharpening(L, 1), k: core.softmaxSharpening(L, s.factor) };
    });
    return {
      compute(s, core) {
        const { runs, inputs } = attentionRuns([s.T, s.C, s.heads, s.causal, s.seed], s, core);
        return { runs, inputs, variance: variance(s.seed, s.seed, core), ...sharpening([s.logits, s.factor], s, core) };
      },
      paint(r, s) {
        hsLine.textContent = t('hs', { C: s.C, heads: s.heads });
        // repaint only what changed: the memoized parts come back as the same objects
        const changed = (key, value) => { if (painted[key] === value) return false; painted[key] = value; return true; };
        const headChanged = changed('head', s.head), runsChanged = changed('runs', r.runs);
        if (headChanged || runsChanged) r.runs.forEach((run, i) => {
          const ent = matrixAt(run.stats.entropy, 0)[s.head], mx = matrixAt(run.stats.maxWeight, 0)[s.head];
          maps[i].set(matrixAt(run.weights, 0, s.head), {
            shape: [1, s.heads, s.T, s.T],
            rowMarks: Object.fromEntries(ent.map((e, j) => [j, `${fmt(e, 2)} / ${fmt(mx[j], 2)}`])), rowMarksLabel: t('stats'),
            rowMarkValues: ent.map((e, j) => [e, mx[j]]),
          });
        });
        if (changed('variance', r.variance)) chart.set({ xLabel: t('d'), yLabel: t('variance'), xLog: true, yLog: true, tableLabel: t('table'),
          series: [{ name: t('unscaled'), points: r.variance.dims.map((d, i) => [d, r.variance.unscaled[i]]) },
            { name: t('scaled'), points: r.variance.dims.map((d, i) => [d, r.variance.scaled[i]]) }] });
        if (!changed('sharp', r.one)) return;
        bars.set({ labels: s.logits.map((_, i) => String(i)), yLabel: 'p', tableLabel: t('table'),
          series: [{ name: t('times1'), values: values(r.one.weights) }, { name: t('timesK', { k: s.factor }), values: values(r.k.weights) }] });
        sharp.set([
          [`${t('maxW')} ${t('times1')} → ${t('timesK', { k: s.factor })}`, `${fmt(r.one.maxWeight, 4)} → ${fmt(r.k.maxWeight, 4)}`, null, [r.one.maxWeight, r.k.maxWeight]],
          [`${t('entropy')}`, `${fmt(r.one.entropy, 4)} → ${fmt(r.k.entropy, 4)}`, null, [r.one.entropy, r.k.entropy]],
          [t('jac'), `${fmt(r.one.jacobianNorm, 4)} → ${fmt(r.k.jacobianNorm, 4)}`, 'jacobian', [r.one.jacobianNorm, r.k.jacobianNorm]],
        ]);
      },
      pytorch(s, r) {
        const c = say(ctx.lang);
        const draws = 2 * SAMPLES * DIMS.reduce((a, b) => a + b, 0);
        const file = `attention-lab-18.4-draws-seed${s.seed}.f64`;
        const scales = [['sqrt(hs)', '1 / math.sqrt(hs)'], ['sqrt(C)', '1 / math.sqrt(C)'], ['none', '1.0']];
        return {
          code: program(
            header(c('Attention Lab 18.4: why divide by sqrt(hs), and which d.', '注意力实验室 18.4：为什么除以 sqrt(hs)，以及是哪个 d。'),
              [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')],
              { lang: ctx.lang, imports: ['import os'] }),
            pyMha(ctx.lang),
            [`# ${c(`x and the weights: the core's draws (seed ${s.seed}; weights with std 1/sqrt(C))`, `x 和权重：内核抽取的数（种子 ${s.seed}；权重的标准差为 1/sqrt(C)）`)}`,
              assign('x', r.inputs.x, '(B, T, C)'), assign('w_q', r.inputs.wq), assign('w_k', r.inputs.wk), assign('w_v', r.inputs.wv)].join('\n'),
            `C, heads, head = ${s.C}, ${s.heads}, ${s.head}                    # ${c('the page shows one head', '页面显示其中一个头')}
hs = C // heads
for name, scale in [${scales.map(([n, e]) => `(${JSON.stringify(n)}, ${e})`).join(', ')}]:
    weights = multi_head_attention(x, w_q, w_k, w_v, heads, causal=${s.causal ? 'True' : 'False'}, scale=scale)[1][0, head]   # (T, T)
    print(f'weights, divide by {name} =', weights.tolist())
    print(f'entropy, divide by {name} =', torch.special.entr(weights).sum(dim=-1).tolist())   # ${c('natural log, 0 log 0 = 0', '自然对数，0 log 0 = 0')}
    print(f'max weight, divide by {name} =', weights.amax(dim=-1).tolist())`,
            [`# ${c(`Var(q·k) against d. The page's Monte Carlo takes ${SAMPLES} samples per d from the core's own generator`, `Var(q·k) 随 d 的变化。页面的蒙特卡洛模拟对每个 d 取 ${SAMPLES} 个样本，用的是内核自己的随机数生成器`)}`,
              `# ${c(`(seed ${s.seed}): ${draws.toLocaleString('en')} normal draws, q_c and k_c alternating. For the page's exact numbers save them`, `（种子 ${s.seed}）：共 ${draws.toLocaleString('en')} 个正态随机数，q_c 与 k_c 交替。要得到与页面完全相同的数字，`)}`,
              `# ${c(`with the button "Download ${file}" beside this program (${Math.round(draws * 8 / 1e6)} MB). Without`, `请用程序旁的“下载 ${file}”按钮保存它们（${Math.round(draws * 8 / 1e6)} MB）。`)}`,
              `# ${c("the file torch.randn draws new ones: the same variances up to Monte Carlo error (about 3 %).", '没有这个文件时由 torch.randn 重新抽取：方差在蒙特卡洛误差（约 3%）内相同。')}`,
              `samples, dims = ${SAMPLES}, ${pyValue(DIMS, { int: true })}`,
              `path = ${JSON.stringify(file)}`,
              'n = 2 * samples * sum(dims)',
              'draws = torch.from_file(path, size=n, dtype=torch.float64) if os.path.exists(path) else torch.randn(n)',
              'unscaled, scaled, at = [], [], 0',
              'for d in dims:',
              `    qk = draws[at:at + 2 * samples * d].view(samples, d, 2)    # ${c('sample, component, (q_c, k_c)', '样本、分量、(q_c, k_c)')}`,
              '    at += 2 * samples * d',
              `    var = (qk[..., 0] * qk[..., 1]).sum(dim=-1).var().item()  # ${c('Var(q.k) over the samples (unbiased)', '各样本 q.k 的方差（无偏）')}`,
              '    unscaled.append(var)',
              '    scaled.append(var / d)                                    # Var(q.k / sqrt(d)) = Var(q.k) / d',
              show('d', 'dims'), show('Var(q.k)', 'unscaled'), show('Var(q.k / sqrt(d))', 'scaled')].join('\n'),
            [`# ${c('softmax sharpening: the same logits times a factor', 'softmax 变尖：同一组 logits 乘以一个倍数')}`,
              assign('logits', tensor(s.logits)),
              `for label, factor in [('× 1', 1.0), (${JSON.stringify(`× ${s.factor}`)}, ${pyFloat(s.factor)})]:`,
              '    z = logits * factor',
              '    p = z.softmax(dim=-1)',
              `    jacobian = torch.autograd.functional.jacobian(lambda z: z.softmax(dim=-1), z)   # ${c('d p_i / d z_j = diag(p) - p p^T', 'd p_i / d z_j = diag(p) - p p^T')}`,
              "    print(f'softmax(logits {label}) =', p.tolist())",
              "    print(f'max weight {label} =', p.max().item())",
              "    print(f'entropy {label} =', torch.special.entr(p).sum().item())",
              `    print(f'Jacobian norm {label} =', torch.linalg.norm(jacobian).item())   # ${c('Frobenius', 'Frobenius 范数')}`].join('\n')),
          // the draws are the core's randn stream for the seed: dotProductVariance reads it in this order
          files: [{ name: file, bytes: () => { const d = ctx.core.randn([draws], s.seed).data; return new Uint8Array(d.buffer, d.byteOffset, d.byteLength); } }],
        };
      },
    };
  },
};
