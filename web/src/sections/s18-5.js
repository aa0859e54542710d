// 18.5 Positions: shuffle the rows of X. Without positions and mask the outputs are shuffled the
// same way (equivariance, difference ~1e-16); learned or sinusoidal positions, or the causal
// mask, break it. The position table is shown, and T past T_max is an error.
import { heatmap } from '../widgets/heatmap.js';
import { button, readout } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { tensor, matrixAt } from '../tensors.js';
import { fmtErr } from '../format.js';
import { assign, header, program, say, show, pyMha, pyValue } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    x: '输入 X（每行一个位置）', pos: '位置信息', none: '无', learned: '学习式（T_max 行的表）', sinusoidal: '正弦',
    tmax: 'T_max', shuffle: '重新打乱', perm: '排列 P：第 t 行取原来的第 perm[t] 行，perm = [{perm}]',
    px: 'P X + 位置', attnPx: 'attn(P X + 位置)', pAttn: 'P · attn(X + 位置)', table: '位置表',
    diff: 'max |attn(PX) − P attn(X)|', equi: '只差浮点舍入：输出跟着输入一起重排（置换等变）。',
    broken: '差异明显：位置或遮罩让模型知道了顺序，重排不再只是把输出重排。',
  },
  en: {
    x: 'Input X (one row per position)', pos: 'Positions', none: 'none', learned: 'learned (a table of T_max rows)', sinusoidal: 'sinusoidal',
    tmax: 'T_max', shuffle: 'Shuffle again', perm: 'Permutation P: row t takes row perm[t], perm = [{perm}]',
    px: 'P X + positions', attnPx: 'attn(P X + positions)', pAttn: 'P · attn(X + positions)', table: 'Position table',
    diff: 'max |attn(PX) − P attn(X)|', equi: 'Only rounding: the outputs move with the inputs (permutation equivariance).',
    broken: 'A real difference: positions or the mask tell the model the order, so shuffling does more than move the outputs.',
  },
};

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: [[1, 0], [0, 1], [1, 1], [2, -1]], maxRows: 12, maxCols: 6 },
    { key: 'pos', type: 'enum', options: ['none', 'learned', 'sinusoidal'], default: 'none' },
    { key: 'causal', type: 'bool', default: false },
    { key: 'tmax', type: 'int', min: 1, max: 32, default: 6 },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 3 },
  ],
  build(ctx) {
    const { t } = ctx;
    const x = ctx.editor('x', { names: ['T', 'C'] });
    const pos = ctx.choice('pos');
    const causal = ctx.toggle('causal');
    const tmax = ctx.integer('tmax');
    const shuffle = button({ label: t('shuffle'), onClick: () => ctx.set({ seed: (ctx.state.seed + 1) % 10000 }) });
    const perm = h('p.shape-line.perm');
    const px = heatmap({ t, name: 'px', label: t('px'), names: ['B', 'T', 'C'] });
    const a = heatmap({ t, name: 'attnPx', label: t('attnPx'), names: ['B', 'T', 'd'] });
    const b = heatmap({ t, name: 'pAttn', label: t('pAttn'), names: ['B', 'T', 'd'] });
    const table = heatmap({ t, name: 'table', label: t('table'), names: ['T', 'C'] });
    const out = readout({ name: 'diff' });
    ctx.lab.append(h('div.controls', {}, pos.el, causal.el, tmax.el, shuffle),
      h('div.row', {}, x.el, px.el, table.el), perm, h('div.row', {}, a.el, b.el), out.el);
    return {
      sync(s) { table.el.hidden = s.pos === 'none'; },
      compute(s, core) {
        const T = s.x.length, C = s.x[0].length;
        const w = { wq: core.randn([C, C], 11), wk: core.randn([C, C], 12), wv: core.randn([C, C], 13), heads: 1 };
        const opts = { ...w, causal: s.causal, positions: s.pos, tMax: s.tmax, seed: s.seed };
        const pc = core.permutationCheck(tensor([s.x]), opts);
        const table = s.pos === 'none' ? null : core.positions(s.pos, T, C, { tMax: s.tmax, seed: s.seed });
        return { pc, table, w };
      },
      paint(r) {
        perm.textContent = t('perm', { perm: r.pc.perm.join(', ') });
        px.set(matrixAt(r.pc.permutedInput, 0), { shape: r.pc.permutedInput.shape });
        a.set(matrixAt(r.pc.outOfPermuted, 0), { shape: r.pc.outOfPermuted.shape });
        b.set(matrixAt(r.pc.permutedOut, 0), { shape: r.pc.permutedOut.shape });
        if (r.table) table.set(matrixAt(r.table));
        const equivariant = r.pc.maxDiff < 1e-12;
        out.set([[t('diff'), fmtErr(r.pc.maxDiff), 'diff', r.pc.maxDiff], ['', t(equivariant ? 'equi' : 'broken'), equivariant ? 'good' : 'bad']]);
      },
      pytorch(s, r) {
        const c = say(ctx.lang);
        const T = s.x.length, C = s.x[0].length;
        const pos = {
          none: `pos = torch.zeros(${T}, ${C})                      # ${c('no positions', '不加位置信息')}`,
          learned: assign('pos', r.table, c(`a learned table's first T rows: the core's N(0, 1) draw (seed ${s.seed}, T_max = ${s.tmax})`,
            `学习式位置表的前 T 行：内核抽取的 N(0, 1)（种子 ${s.seed}，T_max = ${s.tmax}）`)),
          sinusoidal: [`# ${c('sinusoidal: PE[t, 2i] = sin(t / 10000^(2i/C)), PE[t, 2i+1] = cos(same)', '正弦位置：PE[t, 2i] = sin(t / 10000^(2i/C))，PE[t, 2i+1] = cos(同一角度)')}`,
            `t = torch.arange(${T}).unsqueeze(1)                      # (T, 1)`,
            `i2 = torch.arange(${C}) // 2 * 2                          # ${c('2i for columns 2i and 2i+1', '第 2i 与 2i+1 列共用的 2i')}`,
            `angle = t / 10000 ** (i2 / ${C})                          # (T, C)`,
            `pos = torch.where(torch.arange(${C}) % 2 == 0, angle.sin(), angle.cos())`].join('\n'),
        }[s.pos];
        const call = (x) => `multi_head_attention(${x}, w_q, w_k, w_v, heads=1, causal=${s.causal ? 'True' : 'False'})[0]`;
        return program(
          header(c('Attention Lab 18.5: shuffle the positions; without positions or a mask, attention does not notice.', '注意力实验室 18.5：打乱位置；没有位置信息也没有遮罩时，注意力察觉不到顺序。'),
            [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')], { lang: ctx.lang }),
          pyMha(ctx.lang),
          [assign('X', tensor([s.x]), `(B, T, C) = (1, ${T}, ${C})`),
            `# ${c("one head's weights: the core's draws (seeds 11, 12, 13)", '单头的权重：内核抽取的数（种子 11、12、13）')}`,
            assign('w_q', r.w.wq), assign('w_k', r.w.wk), assign('w_v', r.w.wv), pos,
            `perm = ${pyValue(r.pc.perm, { int: true })}   # ${c(`the core's shuffle (seed ${s.seed}): row t of P X is row perm[t] of X`, `内核的打乱（种子 ${s.seed}）：P X 的第 t 行是 X 的第 perm[t] 行`)}`].join('\n'),
          ['PX = X[:, perm] + pos                        # P X + pos',
            `attn_PX = ${call('PX')}                # attn(P X + pos)`,
            `P_attn_X = ${call('X + pos')}[:, perm]    # P attn(X + pos)`].join('\n'),
          [show('P X + pos', 'PX.tolist()'), show('attn(P X + pos)', 'attn_PX.tolist()'), show('P attn(X + pos)', 'P_attn_X.tolist()'),
            show('max |attn(PX) - P attn(X)|', '(attn_PX - P_attn_X).abs().max().item()'),
            s.pos === 'none' ? null : show('position table', 'pos.tolist()')].filter(Boolean).join('\n'));
      },
    };
  },
};
