// 18.6 Encoder, decoder, cross-attention: bidirectional self-attention (no mask), causal
// self-attention, or cross-attention with queries from the output side (T_out) and keys and
// values from the encoder (T_in).
import { heatmap } from '../widgets/heatmap.js';
import { h } from '../widgets/dom.js';
import { matrixAt } from '../tensors.js';
import { shapeText } from '../format.js';
import { assign, header, program, say, show, pyMha } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    mode: '注意力类型', bi: '编码器：双向自注意力', causal: '解码器：因果自注意力', cross: '交叉注意力',
    tout: 'T_out（查询，输出侧）', tin: 'T_in（键和值，编码器侧）',
    mask: '遮罩 M（1 = 允许）', weights: '第 {h} 个头的权重', shapes: '权重形状 {shape}；每个查询位置的一行分给 {tk} 个来源。',
    tinSelf: '自注意力里键和值来自同一序列，T_in = T_out。',
  },
  en: {
    mode: 'Kind of attention', bi: 'Encoder: bidirectional self-attention', causal: 'Decoder: causal self-attention', cross: 'Cross-attention',
    tout: 'T_out (queries, output side)', tin: 'T_in (keys and values, encoder side)',
    mask: 'Mask M (1 = allowed)', weights: 'Weights of head {h}', shapes: 'Weights shape {shape}; each query row is split over {tk} sources.',
    tinSelf: 'In self-attention keys and values come from the same sequence, so T_in = T_out.',
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
    const mode = ctx.choice('mode');
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
    ctx.lab.append(h('div.controls', {}, mode.el), h('div.controls', {}, tout.el, tin.el, heads.el, seed.el), tinNote,
      h('div.row', {}, mask.el, maps[0].el, maps[1].el), shapes);
    return {
      sync(s) {
        tout.set(s.tout, { label: t(s.mode === 'cross' ? 'tout' : 'T') });
        tin.el.hidden = s.mode !== 'cross';
        tinNote.hidden = s.mode === 'cross';
        tinNote.textContent = t('tinSelf');
        maps[1].el.hidden = s.heads < 2;
      },
      compute(s, core) {
        const C = 4;
        const x = core.randn([1, s.tout, C], s.seed);
        const memory = s.mode === 'cross' ? core.randn([1, s.tin, C], s.seed + 100) : undefined;
        const w = { wq: core.randn([C, C], s.seed + 1, 0.5), wk: core.randn([C, C], s.seed + 2, 0.5), wv: core.randn([C, C], s.seed + 3, 0.5) };
        const r = core.multiHeadAttention(x, { ...w, heads: s.heads, causal: s.mode === 'causal', memory });
        const Tk = r.weights.shape[3];
        return { r, mask: core.maskMatrix(s.tout, Tk, { causal: s.mode === 'causal' }), inputs: { x, memory, ...w } };
      },
      paint({ r, mask: m }, s) {
        const { axes, T } = axesOf(s);
        mask.set(matrixAt(m), { names: T, axes });
        for (let i = 0; i < s.heads; i++) maps[i].set(matrixAt(r.weights, 0, i), { shape: r.weights.shape, names: ['B', 'H', ...T], axes });
        shapes.textContent = t('shapes', { shape: shapeText(['B', 'H', ...T], r.weights.shape), tk: r.weights.shape[3] });
      },
      pytorch(s, { inputs: w }) {
        const c = say(ctx.lang);
        const cross = s.mode === 'cross';
        const kind = { bi: c('encoder: bidirectional self-attention', '编码器：双向自注意力'), causal: c('decoder: causal self-attention', '解码器：因果自注意力'),
          cross: c('cross-attention: queries from the output side, keys and values from the encoder', '交叉注意力：查询来自输出侧，键和值来自编码器') }[s.mode];
        return program(
          header(c('Attention Lab 18.6: encoder, decoder and cross-attention.', '注意力实验室 18.6：编码器、解码器与交叉注意力。'),
            [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。'), kind], { lang: ctx.lang }),
          pyMha(ctx.lang),
          [`# ${c(`the core's draws (seed ${s.seed}): the input${cross ? ', the encoder memory' : ''} and the weights (C, D) = (4, 4)`, `内核抽取的数（种子 ${s.seed}）：输入${cross ? '、编码器的 memory' : ''}以及权重 (C, D) = (4, 4)`)}`,
            assign('x', w.x, cross ? '(B, T_out, C)' : '(B, T, C)'), cross ? assign('memory', w.memory, '(B, T_in, C)') : null,
            assign('w_q', w.wq), assign('w_k', w.wk), assign('w_v', w.wv)].filter(Boolean).join('\n'),
          [`out, weights, scores, q, k, v = multi_head_attention(x, w_q, w_k, w_v, heads=${s.heads}, causal=${s.mode === 'causal' ? 'True' : 'False'}${cross ? ', memory=memory' : ''})`,
            `allowed = torch.ones(weights.shape[-2], weights.shape[-1])${s.mode === 'causal' ? '.tril()' : ''}   # ${c('the mask M: 1 = allowed', '遮罩 M：1 = 允许')}`].join('\n'),
          [show('mask M', 'allowed.tolist()'),
            `for h in range(${s.heads}):`,
            `    print(f'weights of head {h} =', weights[0, h].tolist())   # ${cross ? '(T_out, T_in)' : '(T, T)'}`].join('\n'));
      },
    };
  },
};
