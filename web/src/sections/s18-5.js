// 18.5 Positions: shuffle the rows of X. Without positions and mask the outputs are shuffled the
// same way (equivariance, difference ~1e-16); learned or sinusoidal positions, or the causal
// mask, break it. The position table is shown, and T past T_max is an error.
// The core never draws the identity as the shuffle (T >= 2), and the learned table has its own
// seed, so "Shuffle again" draws a new permutation and keeps the table.
import { heatmap } from '../widgets/heatmap.js';
import { button, readout } from '../widgets/controls.js';
import { h, setText } from '../widgets/dom.js';
import { tensor, matrixAt } from '../tensors.js';
import { fmtErr } from '../format.js';
import { provenance } from '../widgets/provenance.js';

const strings = {
  zh: {
    x: '输入 X（每行一个位置）', pos: '位置信息', none: '无', learned: '学习式（T_max 行的表）', sinusoidal: '正弦',
    tmax: 'T_max', shuffle: '重新打乱', perm: '置换 Π：Π X 的第 t 行是 X 的第 π(t) 行，π = [{perm}]',
    px: 'Π X + P', attnPx: 'attn(Π X + P)', pAttn: 'Π · attn(X + P)', table: '位置表 P（第 t 行是 P_t）', posSeed: '位置表的随机种子',
    attnX: 'attn(X + P)（不打乱）', compared: '下面的差异比较的是其中两个结果：先算再重排的 Π · attn(X + P)，和先重排再算的 attn(Π X + P)。P 是位置表（X_t = E[x_t] + P_t；正弦是 P 的一种选法）；选“位置信息：无”时 P = 0。',
    oneRow: '只有一个位置，没有可以打乱的东西。',
    diff: 'max |attn(Π X) − Π attn(X)|', diffPos: 'max |attn(Π X + P) − Π attn(X + P)|', equi: '只差浮点舍入：输出跟着输入一起重排（置换等变）。',
    broken: '差异明显：位置或遮罩让模型知道了顺序，重排不再只是把输出重排。',
    checkPos: 'attn(X + P)：X 加上位置表后的注意力输出（不打乱），(B, T, d)', checkNone: 'attn(X)：X 的注意力输出（不打乱），(B, T, d)',
    checkNote: '一个头，权重由内核抽取，数学布局 (C, C)：q = X @ w_q；causal = {causal}。',
  },
  en: {
    x: 'Input X (one row per position)', pos: 'Positions', none: 'none', learned: 'learned (a table of T_max rows)', sinusoidal: 'sinusoidal',
    tmax: 'T_max', shuffle: 'Shuffle again', perm: 'Permutation Π: row t of Π X is row π(t) of X, π = [{perm}]',
    px: 'Π X + P', attnPx: 'attn(Π X + P)', pAttn: 'Π · attn(X + P)', table: 'Position table P (row t is P_t)', posSeed: 'Seed of the position table',
    attnX: 'attn(X + P), not shuffled', compared: 'The difference below compares two of these: compute, then shuffle, Π · attn(X + P), against shuffle, then compute, attn(Π X + P). P is the position table (X_t = E[x_t] + P_t; the sinusoid is one choice of P); with no positions chosen, P = 0.',
    oneRow: 'With one position there is nothing to shuffle.',
    diff: 'max |attn(Π X) − Π attn(X)|', diffPos: 'max |attn(Π X + P) − Π attn(X + P)|', equi: 'Only rounding: the outputs move with the inputs (permutation equivariance).',
    broken: 'A real difference: positions or the mask tell the model the order, so shuffling does more than move the outputs.',
    checkPos: 'attn(X + P): attention of X plus the position table (not shuffled), (B, T, d)', checkNone: 'attn(X): attention of X (not shuffled), (B, T, d)',
    checkNote: 'One head; weights drawn by the core, math layout (C, C): q = X @ w_q; causal = {causal}.',
  },
};

export default {
  strings,
  state: [
    { key: 'x', type: 'matrix', default: [[1, 0], [0, 1], [1, 1], [2, -1]], maxRows: 12, maxCols: 6 },
    { key: 'pos', type: 'enum', options: ['none', 'learned', 'sinusoidal'], default: 'none' },
    { key: 'causal', type: 'bool', default: false },
    { key: 'tmax', type: 'int', min: 1, max: 32, default: 6 },
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 3 },          // the permutation
    { key: 'posSeed', type: 'int', min: 0, max: 9999, default: 1 },       // the learned position table
  ],
  errors: { x: 'x', position_past_table: ['tmax', 'x'], overflow: 'x' },
  build(ctx) {
    const { t } = ctx;
    const x = ctx.editor('x', { names: ['T', 'C'] });
    const pos = ctx.choice('pos');
    const causal = ctx.toggle('causal');
    const tmax = ctx.integer('tmax');
    const shuffle = button({ label: t('shuffle'), onClick: () => ctx.set({ seed: (ctx.state.seed + 1) % 10000 }) });
    const posSeed = ctx.integer('posSeed');
    const perm = h('p.shape-line.perm');
    const unshuffled = heatmap({ t, name: 'attnX', label: t('attnX'), names: ['B', 'T', 'd'] });
    const compared = h('p.note', {}, t('compared'));
    const px = heatmap({ t, name: 'px', label: t('px'), names: ['B', 'T', 'C'] });
    const a = heatmap({ t, name: 'attnPx', label: t('attnPx'), names: ['B', 'T', 'd'] });
    const b = heatmap({ t, name: 'pAttn', label: t('pAttn'), names: ['B', 'T', 'd'] });
    const table = heatmap({ t, name: 'table', label: t('table'), names: ['T', 'C'] });
    const out = readout({ name: 'diff' });
    // the attention's weights, drawn by the core (one head, C x C)
    const weightsOf = (C, core) => ({ wq: core.randn([C, C], 11), wk: core.randn([C, C], 12), wv: core.randn([C, C], 13), heads: 1 });
    const checkOpts = (s, core) => ({ ...weightsOf(s.x[0].length, core), causal: s.causal, positions: s.pos, tMax: s.tmax, seed: s.seed, positionSeed: s.posSeed });
    // every number explains itself: a table cell its sine or its draw, Π X + P its two addends, the
    // outputs their sums over the input rows, Π · attn the row of attn(X + P) it was moved from
    const prov = provenance({ lang: ctx.lang, core: ctx.core, fn: 'permutationCheck', inputs: (s) => ({ x: tensor([s.x]), ...checkOpts(s, ctx.core) }),
      sources: { x, pe: table, px, attnX: unshuffled },
      targets: [
        { widget: px, quantity: 'permutedInput', at: (i, j) => [0, i, j] },
        { widget: table, quantity: 'out', at: (i, j) => [i, j], fn: 'positions', when: (s) => s.pos !== 'none',
          inputs: (s) => ({ kind: s.pos, T: s.x.length, C: s.x[0].length, tMax: s.tmax, seed: s.posSeed }) },
        { widget: unshuffled, quantity: 'out', at: (i, j) => [0, i, j] },
        { widget: b, quantity: 'permutedOut', at: (i, j) => [0, i, j] },
        { widget: a, quantity: 'outOfPermuted', at: (i, j) => [0, i, j] },
      ] });
    ctx.lab.append(h('div.controls', {}, pos.el, causal.el, tmax.el, posSeed.el, shuffle),
      h('div.row', {}, x.el, px.el, table.el), perm, h('div.row', {}, unshuffled.el, b.el, a.el), prov.el, compared, out.el);
    return {
      sync(s) { table.el.hidden = s.pos === 'none'; posSeed.el.hidden = s.pos !== 'learned'; },
      compute(s, core) {
        const T = s.x.length, C = s.x[0].length;
        const w = weightsOf(C, core);
        const pc = core.permutationCheck(tensor([s.x]), checkOpts(s, core));
        const table = s.pos === 'none' ? null : core.positions(s.pos, T, C, { tMax: s.tmax, seed: s.posSeed });
        return { pc, table, w };
      },
      paint(r, s) {
        setText(perm, t('perm', { perm: r.pc.perm.join(', ') }));
        px.set(matrixAt(r.pc.permutedInput, 0), { shape: r.pc.permutedInput.shape });
        a.set(matrixAt(r.pc.outOfPermuted, 0), { shape: r.pc.outOfPermuted.shape });
        b.set(matrixAt(r.pc.permutedOut, 0), { shape: r.pc.permutedOut.shape });
        // attn(X + P) itself: row π(t) of it is row t of Π · attn(X + P) (placing rows, no arithmetic)
        const shuffled = matrixAt(r.pc.permutedOut, 0), rows = [];
        r.pc.perm.forEach((p, i) => { rows[p] = shuffled[i]; });
        unshuffled.set(rows, { shape: r.pc.permutedOut.shape });
        if (r.table) table.set(matrixAt(r.table));
        else table.clear();   // hidden without positions
        const equivariant = r.pc.maxDiff < 1e-12;
        const verdict = r.pc.perm.length < 2 ? ['', t('oneRow')] : ['', t(equivariant ? 'equi' : 'broken'), equivariant ? 'good' : 'bad'];
        out.set([[t(s.pos === 'none' ? 'diff' : 'diffPos'), fmtErr(r.pc.maxDiff), 'diff', r.pc.maxDiff], verdict]);
        prov.update(s);
      },
      pytorch: (s, r, PROGRAMS) => PROGRAMS['18.5'](s, { w: r.w, perm: r.pc.perm, table: r.table }, ctx.lang),
      // attention of X + P, not shuffled (with no positions, of X: the check of attention itself)
      check(s, r) {
        const X = tensor([s.x]), { wq, wk, wv } = r.w, pos = r.table ?? undefined;
        return { check: pos ? 'positions' : 'attention', inputs: { x: X, wq, wk, wv, heads: 1, causal: s.causal, pos },
          given: { X, w_q: wq, w_k: wk, w_v: wv, pos, causal: s.causal }, note: t('checkNote', { causal: s.causal ? 'True' : 'False' }),
          compare: [{ key: 'out', label: t(pos ? 'checkPos' : 'checkNone'), reveal: (i) => unshuffled.reveal(i[1], i[2]) }] };
      },
    };
  },
};
