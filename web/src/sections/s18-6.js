// 18.6 Encoder, decoder, cross-attention: bidirectional self-attention (no mask), causal
// self-attention, or cross-attention with queries from the output side (T_out) and keys and
// values from the encoder (T_in).
import { heatmap } from '../widgets/heatmap.js';
import { h, setText, setHidden } from '../widgets/dom.js';
import { provenance, tokenLabels, TOKENS } from '../widgets/provenance.js';
import { matrixAt } from '../tensors.js';
import { shapeText } from '../format.js';

const strings = {
  zh: {
    predictMode: '切换之后，查询位置 0 会不会把权重分给第 1 列及以后的列（在自注意力里，就是它后面的位置）？', sees: '会', blind: '不会',
    mode: '注意力类型', bi: '编码器：双向自注意力', causal: '解码器：因果自注意力', cross: '交叉注意力',
    tout: 'T_out（查询，输出侧）', tin: 'T_in（键和值，编码器侧）',
    mask: '遮罩 M（1 = 允许）', weights: '第 {h} 个头的权重', shapes: '权重形状 {shape}；每个查询位置的一行分给 {tk} 个来源。',
    tinSelf: '自注意力里键和值来自同一序列，T_in = T_out。',
    checkWeights: '所有头的权重，(B, H, T_out, T_in)', checkOut: '注意力的输出，(B, T_out, C)',
    checkNote: '内核抽取的输入（种子 {seed}）；权重是数学布局 (C, C)：q = x @ w_q；memory 是编码器一侧（只有交叉注意力才有）。',
  },
  en: {
    predictMode: 'After this switch, does query position 0 give weight to column 1 or any column after it (in self-attention, the positions after 0)?', sees: 'yes', blind: 'no',
    mode: 'Kind of attention', bi: 'Encoder: bidirectional self-attention', causal: 'Decoder: causal self-attention', cross: 'Cross-attention',
    tout: 'T_out (queries, output side)', tin: 'T_in (keys and values, encoder side)',
    mask: 'Mask M (1 = allowed)', weights: 'Weights of head {h}', shapes: 'Weights shape {shape}; each query row is split over {tk} sources.',
    tinSelf: 'In self-attention keys and values come from the same sequence, so T_in = T_out.',
    checkWeights: 'the weights of every head, (B, H, T_out, T_in)', checkOut: 'the output of attention, (B, T_out, C)',
    checkNote: 'Inputs drawn by the core (seed {seed}); weights in math layout (C, C): q = x @ w_q; memory is the encoder side (cross-attention only).',
  },
};

export default {
  strings,
  state: [
    { key: 'mode', type: 'enum', options: ['bi', 'causal', 'cross'], default: 'cross' },
    { key: 'tout', type: 'int', min: 1, max: 10, default: 3 },
    { key: 'tin', type: 'int', min: 1, max: 10, default: 5 },
    { key: 'heads', type: 'enum', options: [1, 2], default: 2 },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 2 },
  ],
  build(ctx) {
    const { t } = ctx;
    const predictMode = ctx.prediction({ name: 'predict-mode', question: t('predictMode'),
      options: [{ value: 'sees', label: t('sees') }, { value: 'blind', label: t('blind') }] });
    const mode = ctx.choice('mode', { onChange: (v) => predictMode.ask(() => ctx.set({ mode: v }), () => ctx.refresh()) });
    const tout = ctx.integer('tout');
    const tin = ctx.integer('tin');
    const heads = ctx.select('heads');
    const seed = ctx.integer('seed');
    const tinNote = h('p.note');
    const mask = heatmap({ t, name: 'mask', label: t('mask'), names: ['T_out', 'T_in'], digits: 0, weights: true, axes: 'cross' });
    const maps = [0, 1].map((i) => heatmap({ t, name: `w${i}`, label: t('weights', { h: i }), names: ['B', 'H', 'T_out', 'T_in'], weights: true, axes: 'cross' }));
    // cross-attention: queries from the output (T_out), keys from the encoder (T_in); self-attention: one T
    const axesOf = (s) => (s.mode === 'cross' ? { axes: 'cross', T: ['T_out', 'T_in'] } : { axes: 'self', T: ['T', 'T'] });
    const shapes = h('p.shape-line');
    // x, the memory (cross) and the weights, drawn by the core from the seed
    const inputsOf = (s, core) => {
      const C = 4;
      const memory = s.mode === 'cross' ? core.randn([1, s.tin, C], s.seed + 100) : undefined;
      return { x: core.randn([1, s.tout, C], s.seed), wq: core.randn([C, C], s.seed + 1, 0.5), wk: core.randn([C, C], s.seed + 2, 0.5),
        wv: core.randn([C, C], s.seed + 3, 0.5), heads: s.heads, causal: s.mode === 'causal', memory };
    };
    // every weight explains itself: its scores, the mask, every exp (masked ones hatched in the mask too)
    const prov = provenance({ lang: ctx.lang, core: ctx.core, fn: 'multiHeadAttention', inputs: (s) => inputsOf(s, ctx.core),
      sources: { mask }, targets: maps.map((widget, hd) => ({ widget, quantity: 'weights', at: (i, j) => [0, hd, i, j] })) });
    ctx.lab.append(h('div.controls', {}, mode.el), predictMode.el, h('div.controls', {}, tout.el, tin.el, heads.el, seed.el), tinNote,
      h('div.row', {}, mask.el, maps[0].el, maps[1].el), prov.el, shapes);
    return {
      sync(s) {
        tout.set(s.tout, { label: t(s.mode === 'cross' ? 'tout' : 'T') });
        setHidden(tin.el, s.mode !== 'cross');
        setHidden(tinNote, s.mode === 'cross');
        setText(tinNote, t('tinSelf'));
        setHidden(maps[1].el, s.heads < 2);
      },
      compute(s, core) {
        const { x, ...opts } = inputsOf(s, core);
        const r = core.multiHeadAttention(x, opts);
        const Tk = r.weights.shape[3];
        const { memory, wq, wk, wv } = opts;
        return { r, mask: core.maskMatrix(s.tout, Tk, { causal: s.mode === 'causal' }), inputs: { x, memory, wq, wk, wv } };
      },
      paint({ r, mask: m }, s) {
        const { axes, T } = axesOf(s);
        // rows are the receiving tokens; in self-attention the columns are the same tokens
        const rowLabels = tokenLabels(TOKENS, s.tout), colLabels = s.mode === 'cross' ? undefined : rowLabels;
        mask.set(matrixAt(m), { names: T, axes, rowLabels, colLabels });
        for (let i = 0; i < s.heads; i++) maps[i].set(matrixAt(r.weights, 0, i), { shape: r.weights.shape, names: ['B', 'H', ...T], axes, rowLabels, colLabels });
        prov.update(s);
        if (predictMode.waiting) predictMode.settle(matrixAt(r.weights, 0, 0)[0].slice(1).some((v) => v > 0) ? 'sees' : 'blind');
        setText(shapes, t('shapes', { shape: shapeText(['B', 'H', ...T], r.weights.shape), tk: r.weights.shape[3] }));
      },
      pytorch: (s, r, PROGRAMS) => PROGRAMS['18.6'](s, r.inputs, ctx.lang),
      check(s, r) {
        const { x, memory, wq, wk, wv } = r.inputs, causal = s.mode === 'causal';
        return { check: 'attention', inputs: { x, wq, wk, wv, heads: s.heads, causal, memory },
          given: { x, memory, w_q: wq, w_k: wk, w_v: wv, heads: s.heads, causal }, note: t('checkNote', { seed: s.seed }),
          compare: [{ key: 'weights', label: t('checkWeights'), opts: { quantity: 'weights' }, reveal: (i) => maps[i[1]]?.reveal(i[2], i[3]) ?? null },
            { key: 'out', label: t('checkOut'), opts: { quantity: 'out' } }] };
      },
    };
  },
};
