// "Show as PyTorch": for each section, the PyTorch (float64) program of the state on screen.
// program(state, data, lang) returns the program's text (or {code, files} where the program reads a
// file): the section's matrices and options as literals, the numbers the core drew (weights, inputs,
// the probe's new future, G, the dropout mask) as literals from `data`, which the section's
// controller got from the core. Its print lines read `label = value` and print what the page shows
// (the labels are fixed English, so tests can match them; the comments follow the page's language).
//
// String building only: no arithmetic on the numbers (every literal is the core's number, written
// by pytorch-format.js in digits that round-trip), no DOM.
import {
  assign, comment, header, program, say, show, pyCoreRng, pyFloat, pyGradcheck, pyMha, pyString, pyValue,
} from '../../wasm/js/pytorch-format.js';
import { gptModel, gptParameters } from './pytorch-gpt.js';

const bool = (b) => (b ? 'True' : 'False');
const start = (lang, title) => {
  const c = say(lang);
  return header(c(...title), [c('The section as it is on the page; the program prints what the page shows.',
    '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')], { lang });
};
/** The sinusoidal table (T, C) as the core builds it. */
const sinusoidal = (T, C, c) => [
  `# ${c('sinusoidal: PE[t, 2i] = sin(t / 10000^(2i/C)), PE[t, 2i+1] = cos(same)', '正弦位置：PE[t, 2i] = sin(t / 10000^(2i/C))，PE[t, 2i+1] = cos(同一角度)')}`,
  `t = torch.arange(${T}).unsqueeze(1)                      # (T, 1)`,
  `i2 = torch.arange(${C}) // 2 * 2                          # ${c('2i for columns 2i and 2i+1', '第 2i 与 2i+1 列共用的 2i')}`,
  `angle = t / 10000 ** (i2 / ${C})                          # (T, C)`,
  `pos = torch.where(torch.arange(${C}) % 2 == 0, angle.sin(), angle.cos())`].join('\n');

export const PROGRAMS = {
  /** data: {X (B, T, C)} */
  '18.1'(s, { X }, lang) {
    const c = say(lang);
    return program(
      start(lang, ['Attention Lab 18.1: averaging the past as a matrix product, Y = A X.', '注意力实验室 18.1：把“平均过去”写成矩阵乘法 Y = A X。']),
      assign('X', X, `(B, T, C) = (${X.shape.join(', ')})`),
      ['T = X.shape[1]',
        `A = torch.ones(T, T).tril()                 # ${c('row t: ones at j <= t', '第 t 行：j <= t 处为 1')}`,
        s.norm ? `A = A / A.sum(dim=-1, keepdim=True)         # ${c('each row averages the past', '每行对过去求平均')}`
          : `# ${c('not normalized: Y holds running sums', '不归一化：Y 是累加和')}`,
        `Y = A @ X                                   # ${c('(T, T) @ (B, T, C) -> (B, T, C): A broadcasts over the batch', '(T, T) @ (B, T, C) -> (B, T, C)：A 广播到每条序列')}`].join('\n'),
      s.norm ? [`# ${c('the loop: out[t] = the mean of X[0..t]', '循环版：out[t] = X[0..t] 的均值')}`,
        'loop = torch.stack([X[:, :t + 1].mean(dim=1) for t in range(T)], dim=1)'].join('\n')
        : [`# ${c('the loop: out[t] = the sum of X[0..t]', '循环版：out[t] = X[0..t] 的和')}`,
          'loop = torch.stack([X[:, :t + 1].sum(dim=1) for t in range(T)], dim=1)'].join('\n'),
      [show('A', 'A.tolist()'), show('row sums of A', 'A.sum(dim=-1).tolist()'), show('Y', 'Y.tolist()'),
        show('loop, sequence 0', 'loop[0].tolist()'), show('max |loop - Y|', '(loop - Y).abs().max().item()')].join('\n'));
  },

  /** data: {demo: the core's (B, T, T) or (B, H, T, T) scores} */
  '18.2'(s, { demo }, lang) {
    const c = say(lang);
    const maskT = { shape: [s.mask.length, s.mask[0].length], data: Uint8Array.from(s.mask.flat()) };
    const shape = s.kind === 'btt' ? '(B, T, T)' : '(B, H, T, T)';
    const last = s.dim === -1 || s.dim === demo.shape.length - 1;
    return program(
      start(lang, ['Attention Lab 18.2: the masked softmax, and which dim it normalizes.', '注意力实验室 18.2：带遮罩的 softmax，以及它沿哪一维归一化。']),
      [assign('S', { shape: [s.s.length, s.s[0].length], data: s.s.flat() }, c('scores (T, T)', '分数 (T, T)')),
        assign('allowed', maskT, c('the mask: True = allowed', '遮罩：True = 允许'))].join('\n'),
      [`# ${c('mask, then softmax (the right way): masked scores become -inf and get weight 0', '先遮罩再 softmax（正确做法）：被遮住的分数变成 -inf，权重为 0')}`,
        "before = S.masked_fill(~allowed, float('-inf')).softmax(dim=-1)",
        `# ${c('softmax, then zero the masked entries: they already took part in the denominator', '先 softmax 再清零：被清零的位置已经占了分母')}`,
        'after = S.softmax(dim=-1).masked_fill(~allowed, 0.0)'].join('\n'),
      [show('mask, then softmax', 'before.tolist()'), show('row sums, mask then softmax', 'before.sum(dim=-1).tolist()'),
        show('softmax, then zero', 'after.tolist()'), show('row sums, softmax then zero', 'after.sum(dim=-1).tolist()'),
        `${show('rows with nothing allowed', '(~allowed).all(dim=-1).nonzero().flatten().tolist()')}   # ${c('the NaN rows above', '即上面的 NaN 行')}`].join('\n'),
      [`# ${c(`which dim? scores of shape ${shape} drawn by the core (seed ${s.seed})`, `沿哪一维？形状为 ${shape} 的分数，由内核抽取（种子 ${s.seed}）`)}`,
        assign('scores', demo),
        `weights = scores.softmax(dim=${s.dim})`,
        `sources = weights.sum(dim=-1)                # ${c('what attention needs: each receiver\'s weights over the sources sum to 1', '注意力需要的：每个接收位置对所有来源的权重之和为 1')}`].join('\n'),
      [show(`softmax along dim ${s.dim}`, 'weights.tolist()'),
        show('sums over the sources (dim -1)', 'sources.tolist()'),
        last ? null : show(`sums along dim ${s.dim}`, `weights.sum(dim=${s.dim}).tolist()`),
        show('max |sum over the sources - 1|', '(sources - 1).abs().max().item()')].filter(Boolean).join('\n'));
  },

  /** data: {weights: {wq, wk, wv} as the page shows them (math (C, d) or nn.Linear (d, C) layout)} */
  '18.3'(s, { weights }, lang) {
    const c = say(lang);
    const linear = s.layout === 'linear';
    return program(
      start(lang, ['Attention Lab 18.3: Q, K and V, three projections of one X.', '注意力实验室 18.3：Q、K、V，同一个 X 的三个投影。']),
      [assign('X', { shape: [1, s.x.length, s.x[0].length], data: s.x.flat() }, `(B, T, C) = (1, ${s.x.length}, ${s.x[0].length})`),
        linear ? `# ${c('the weights as nn.Linear(C, d, bias=False) stores them: (d, C)', '权重按 nn.Linear(C, d, bias=False) 的存储方式：(d, C)')}`
          : `# ${c('the weights in math layout (C, d): Q = X W_Q', '权重为数学布局 (C, d)：Q = X W_Q')}`,
        assign('W_Q', weights.wq), assign('W_K', weights.wk), assign('W_V', weights.wv)].join('\n'),
      [linear ? `Q, K, V = (torch.nn.functional.linear(X, W) for W in (W_Q, W_K, W_V))   # ${c("nn.Linear's forward: X @ W.T", 'nn.Linear 的前向：X @ W.T')}`
        : 'Q, K, V = X @ W_Q, X @ W_K, X @ W_V          # (B, T, d)',
      'd = Q.shape[-1]',
      `S = Q @ K.transpose(-2, -1) / math.sqrt(d)   # ${c('(B, T, T), before the mask', '(B, T, T)，遮罩之前')}`,
      ...(s.causal ? ['T = X.shape[1]',
        `allowed = torch.ones(T, T, dtype=torch.bool).tril()   # ${c('causal: receiver t sees sources j <= t', '因果：接收位置 t 只看来源 j <= t')}`,
        "A = S.masked_fill(~allowed, float('-inf')).softmax(dim=-1)"]
        : [`A = S.softmax(dim=-1)                         # ${c('no mask: every position sees all the others', '不遮罩：每个位置看到所有位置')}`]),
      'Y = A @ V                                     # (B, T, d)'].join('\n'),
      ['Q', 'K', 'V', 'S', 'A', 'Y'].map((n) => show(n, `${n}.tolist()`)).join('\n'));
  },

  /** data: {inputs: {x, wq, wk, wv}, samples, dims, file: the draws' file name} */
  '18.4'(s, { inputs, samples, dims, file }, lang) {
    const c = say(lang);
    const draws = `2 × ${samples} × (${dims.join(' + ')})`;
    const scales = [['sqrt(hs)', '1 / math.sqrt(hs)'], ['sqrt(C)', '1 / math.sqrt(C)'], ['none', '1.0']];
    return program(
      header(c('Attention Lab 18.4: why divide by sqrt(hs), and which d.', '注意力实验室 18.4：为什么除以 sqrt(hs)，以及是哪个 d。'),
        [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。')],
        { lang, imports: ['import os'] }),
      pyMha(lang),
      [`# ${c(`x and the weights: the core's draws (seed ${s.seed}; weights with std 1/sqrt(C))`, `x 和权重：内核抽取的数（种子 ${s.seed}；权重的标准差为 1/sqrt(C)）`)}`,
        assign('x', inputs.x, '(B, T, C)'), assign('w_q', inputs.wq), assign('w_k', inputs.wk), assign('w_v', inputs.wv)].join('\n'),
      `C, heads, head = ${s.C}, ${s.heads}, ${s.head}                    # ${c('the page shows one head', '页面显示其中一个头')}
hs = C // heads
for name, scale in [${scales.map(([n, e]) => `(${pyString(n)}, ${e})`).join(', ')}]:
    weights = multi_head_attention(x, w_q, w_k, w_v, heads, causal=${bool(s.causal)}, scale=scale)[1][0, head]   # (T, T)
    print(f'weights, divide by {name} =', weights.tolist())
    print(f'entropy, divide by {name} =', torch.special.entr(weights).sum(dim=-1).tolist())   # ${c('natural log, 0 log 0 = 0', '自然对数，0 log 0 = 0')}
    print(f'max weight, divide by {name} =', weights.amax(dim=-1).tolist())`,
      [comment(c(`Var(q·k) against d. The page's Monte Carlo takes ${samples} samples per d from the core's own generator`,
        `Var(q·k) 随 d 的变化。页面的蒙特卡洛模拟对每个 d 取 ${samples} 个样本，用的是内核自己的随机数生成器`),
      c(`(seed ${s.seed}): ${draws} normal draws, q_c and k_c alternating. For the page's exact numbers save them`,
        `（种子 ${s.seed}）：共 ${draws} 个正态随机数，q_c 与 k_c 交替。要得到与页面完全相同的数字，`),
      c(`with the button "Download ${file}" beside this program (float64, about 16 MB). Without`,
        `请用程序旁的“下载 ${file}”按钮保存它们（float64，约 16 MB）。`),
      c('the file torch.randn draws new ones: the same variances up to Monte Carlo error (about 3 %).',
        '没有这个文件时由 torch.randn 重新抽取：方差在蒙特卡洛误差（约 3%）内相同。')),
      `samples, dims = ${samples}, ${pyValue(dims, { int: true })}`,
      `path = ${pyString(file)}`,
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
        assign('logits', { shape: [s.logits.length], data: s.logits }),
        `for label, factor in [('× 1', 1.0), (${pyString(`× ${s.factor}`)}, ${pyFloat(s.factor)})]:`,
        '    z = logits * factor',
        '    p = z.softmax(dim=-1)',
        `    jacobian = torch.autograd.functional.jacobian(lambda z: z.softmax(dim=-1), z)   # d p_i / d z_j = diag(p) - p p^T`,
        "    print(f'softmax(logits {label}) =', p.tolist())",
        "    print(f'max weight {label} =', p.max().item())",
        "    print(f'entropy {label} =', torch.special.entr(p).sum().item())",
        `    print(f'Jacobian norm {label} =', torch.linalg.norm(jacobian).item())   # ${c('Frobenius', 'Frobenius 范数')}`].join('\n'));
  },

  /** data: {w: {wq, wk, wv} (one head), perm: the core's shuffle, table: the position table or null} */
  '18.5'(s, { w, perm, table }, lang) {
    const c = say(lang);
    const T = s.x.length, C = s.x[0].length;
    const pos = {
      none: `pos = torch.zeros(${T}, ${C})                      # ${c('no positions', '不加位置信息')}`,
      learned: table && assign('pos', table, c(`a learned table's first T rows: the core's N(0, 1) draw (seed ${s.posSeed}, T_max = ${s.tmax})`,
        `学习式位置表的前 T 行：内核抽取的 N(0, 1)（种子 ${s.posSeed}，T_max = ${s.tmax}）`)),
      sinusoidal: sinusoidal(T, C, c),
    }[s.pos];
    const call = (x) => `multi_head_attention(${x}, w_q, w_k, w_v, heads=1, causal=${bool(s.causal)})[0]`;
    return program(
      start(lang, ['Attention Lab 18.5: shuffle the positions; without positions or a mask, attention does not notice.',
        '注意力实验室 18.5：打乱位置；没有位置信息也没有遮罩时，注意力察觉不到顺序。']),
      pyMha(lang),
      [assign('X', { shape: [1, T, C], data: s.x.flat() }, `(B, T, C) = (1, ${T}, ${C})`),
        `# ${c("one head's weights: the core's draws (seeds 11, 12, 13)", '单头的权重：内核抽取的数（种子 11、12、13）')}`,
        assign('w_q', w.wq), assign('w_k', w.wk), assign('w_v', w.wv), pos,
        `perm = ${pyValue(perm, { int: true })}   # ${c(`the core's shuffle (seed ${s.seed}): row t of Π X is row π(t) = perm[t] of X`, `内核的打乱（种子 ${s.seed}）：Π X 的第 t 行是 X 的第 π(t) = perm[t] 行`)}`].join('\n'),
      [`# ${c('pos is the position table P (X_t = E[x_t] + P_t); Pi stands for the permutation Π', 'pos 是位置表 P（X_t = E[x_t] + P_t）；Pi 代表置换 Π')}`,
        'PiX = X[:, perm] + pos                       # Π X + P',
        `attn_X = ${call('X + pos')}               # attn(X + P)`,
        `attn_PiX = ${call('PiX')}              # attn(Π X + P)`,
        'Pi_attn_X = attn_X[:, perm]                  # Π attn(X + P)'].join('\n'),
      [show('Π X + P', 'PiX[0].tolist()'), show('attn(X + P)', 'attn_X[0].tolist()'), show('attn(Π X + P)', 'attn_PiX[0].tolist()'),
        show('Π attn(X + P)', 'Pi_attn_X[0].tolist()'),
        show(s.pos === 'none' ? 'max |attn(Π X) - Π attn(X)|' : 'max |attn(Π X + P) - Π attn(X + P)|', '(attn_PiX - Pi_attn_X).abs().max().item()'),
        s.pos === 'none' ? null : show('position table', 'pos.tolist()')].filter(Boolean).join('\n'));
  },

  /** data: {x, memory (cross only), wq, wk, wv}: the core's draws */
  '18.6'(s, w, lang) {
    const c = say(lang);
    const cross = s.mode === 'cross';
    const kind = { bi: c('encoder: bidirectional self-attention', '编码器：双向自注意力'), causal: c('decoder: causal self-attention', '解码器：因果自注意力'),
      cross: c('cross-attention: queries from the output side, keys and values from the encoder', '交叉注意力：查询来自输出侧，键和值来自编码器') }[s.mode];
    return program(
      header(c('Attention Lab 18.6: encoder, decoder and cross-attention.', '注意力实验室 18.6：编码器、解码器与交叉注意力。'),
        [c('The section as it is on the page; the program prints what the page shows.', '本节在页面上的当前状态；程序打印的就是页面上显示的数字。'), kind], { lang }),
      pyMha(lang),
      [`# ${c(`the core's draws (seed ${s.seed}): the input${cross ? ', the encoder memory' : ''} and the weights (C, D) = (4, 4)`,
        `内核抽取的数（种子 ${s.seed}）：输入${cross ? '、编码器的 memory' : ''}以及权重 (C, D) = (4, 4)`)}`,
      assign('x', w.x, cross ? '(B, T_out, C)' : '(B, T, C)'), cross ? assign('memory', w.memory, '(B, T_in, C)') : null,
      assign('w_q', w.wq), assign('w_k', w.wk), assign('w_v', w.wv)].filter(Boolean).join('\n'),
      [`out, weights, scores, q, k, v = multi_head_attention(x, w_q, w_k, w_v, heads=${s.heads}, causal=${bool(s.mode === 'causal')}${cross ? ', memory=memory' : ''})`,
        `allowed = torch.ones(weights.shape[-2], weights.shape[-1])${s.mode === 'causal' ? '.tril()' : ''}   # ${c('the mask M: 1 = allowed', '遮罩 M：1 = 允许')}`].join('\n'),
      [show('mask M', 'allowed.tolist()'),
        `for h in range(${s.heads}):`,
        `    print(f'weights of head {h} =', weights[0, h].tolist())   # ${cross ? '(T_out, T_in)' : '(T, T)'}`].join('\n'));
  },

  /**
   * data: {q, k, v (B, T, 2), x (B, T, C), wq, wk, wv, G: gradcheck's draw, future: the probe's
   * new future (B, T - t - 1, C), noise: the dropout mask scaled (0 or 1/(1-p)) or null, samples}
   */
  '18.7'(s, d, lang) {
    const c = say(lang);
    const { T, t: tt, seed, p } = s;
    const C = d.x.shape[2];
    const mha = (x) => `multi_head_attention(${x}, w_q, w_k, w_v, heads=2, causal=causal)[0]`;
    const dropping = !!d.noise;
    return program(
      start(lang, ['Attention Lab 18.7: counterexample checks.', '注意力实验室 18.7：反例检查。']),
      pyMha(lang),
      pyCoreRng({ lang }),
      [`# ${c(`1. the attention against a reference. q, k, v (B, T, 2): the core's draws (seeds ${seed + 10}, ${seed + 11}, ${seed + 12})`,
        `1. 注意力与参考实现比较。q、k、v (B, T, 2)：内核抽取的数（种子 ${seed + 10}、${seed + 11}、${seed + 12}）`)}`,
      assign('q', d.q), assign('k', d.k), assign('v', d.v)].join('\n'),
      `def attention(q, k, v):
    S = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
${s.causal ? `    T = q.shape[1]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    A = S.masked_fill(~allowed, float('-inf')).softmax(dim=-1)` : '    A = S.softmax(dim=-1)'}
    return A @ v, A`,
      [`out, A = attention(q, k, v)
# ${c("the reference: PyTorch 2's scaled_dot_product_attention where it exists, else plain loops", '参考实现：有 scaled_dot_product_attention（PyTorch 2）时用它，否则用朴素循环')}
if hasattr(torch.nn.functional, 'scaled_dot_product_attention'):
    reference = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=${bool(s.causal)})
else:
    reference = torch.zeros_like(out)
    for t in range(${T}):
        seen = list(range(${s.causal ? 't + 1' : T}))
        scores = torch.stack([q[0, t] @ k[0, j] / math.sqrt(q.shape[-1]) for j in seen])
        reference[0, t] = (scores.softmax(dim=0).unsqueeze(1) * v[0, seen]).sum(dim=0)`,
      show('max |attention - reference|', '(out - reference).abs().max().item()')].join('\n'),
      [`# ${c(`2. gradcheck of L = sum(out * G), G (B, T, 2) the core's draw (seed ${seed})`, `2. 对 L = sum(out * G) 做 gradcheck，G (B, T, 2) 为内核抽取的数（种子 ${seed}）`)}`,
        assign('G', d.G)].join('\n'),
      pyGradcheck([['q', 'q'], ['k', 'k'], ['v', 'v']], 'attention(q, k, v)[0]', { lang }),
      [comment(c('the analytic gradients the page draws (autograd), and the weights A', '页面画出的解析梯度（autograd）和权重 A')),
        show('A', 'A[0].tolist()'), show('dL/dQ', 'analytic[0][0].tolist()'), show('dL/dK', 'analytic[1][0].tolist()'),
        show('dL/dV', 'analytic[2][0].tolist()')].join('\n'),
      [comment(c(`3. the future probe: two heads over x (B, T, C) = (1, ${T}, ${C}); the core's draws (seed ${seed}; weights ${seed + 1}, ${seed + 2}, ${seed + 3}).`,
        `3. 未来探针：两个头，输入 x (B, T, C) = (1, ${T}, ${C})；内核抽取的数（种子 ${seed}；权重 ${seed + 1}、${seed + 2}、${seed + 3}）。`),
      c('PyTorch has no such check: it is written here from the forward pass.', 'PyTorch 没有现成的这种检查：这里用前向计算自己写。')),
      assign('x', d.x), assign('w_q', d.wq), assign('w_k', d.wk), assign('w_v', d.wv),
      assign('future', d.future, c(`a different future after t = ${tt}: the core's draw (seed ${seed})`, `t = ${tt} 之后换一个未来：内核抽取的数（种子 ${seed}）`)),
      'changed = x.clone()',
      `changed[:, ${tt + 1}:] += 1 + future`,
      'for causal in (True, False):',
      `    change = (${mha('changed')} - ${mha('x')}).abs()   # (B, T, C)`,
      "    mask = 'with the mask' if causal else 'without the mask'",
      `    print(f'max change in the prefix (<= t), {mask} =', change[:, :${tt + 1}].max().item())`,
      `    if causal == ${bool(s.causal)}:                     # ${c('the one the page draws', '页面画出的那一个')}`,
      "        print('|change| =', change[0].tolist())",
      `        print('max change in the future (> t) =', change[:, ${tt + 1}:].max().item())`].join('\n'),
      [comment(c('4. dropout on the weights A of part 1', '4. 对第 1 部分的权重 A 做 dropout')),
        ...(dropping ? [assign('noise', d.noise, c(`the core's dropout mask (seed ${seed}), scaled as torch's dropout scales it: 0 or 1/(1-p)`, `内核的 dropout 遮罩（种子 ${seed}），按 torch 的 dropout 缩放：0 或 1/(1-p)`)),
          'dropped = A * noise']
          : [`dropped = torch.nn.functional.dropout(A, p=${pyFloat(p)}, training=False)   # ${c(s.training ? 'p = 0: nothing is dropped' : 'evaluation: the identity', s.training ? 'p = 0：什么也不丢' : '评估模式：恒等映射')}`]),
        show('A after dropout', 'dropped[0].tolist()'),
        show('row sums after dropout', 'dropped.sum(dim=-1)[0].tolist()'),
        ...(s.training ? [comment(c(`The mean over ${d.samples} samples: sample k is the core's dropout with seed ${seed} + k (the generator ported above):`,
          `${d.samples} 个样本的平均：第 k 个样本是内核用种子 ${seed} + k 做的 dropout（用上面移植的生成器）：`),
        c('one uniform number per entry, dropped when below p; PyTorch draws its masks from another generator.', '每个元素一个均匀随机数，小于 p 时丢弃；PyTorch 的遮罩来自另一个生成器。')),
        `p, samples = ${pyFloat(p)}, ${d.samples}`,
        'row_sums = []',
        'for k in range(samples):',
        `    rng = CoreRng(${seed} + k)`,
        '    keep = torch.tensor([rng.uniform() >= p for _ in range(A.numel())]).view(A.shape)',
        '    row_sums.append((A * (keep / (1 - p))).sum(dim=-1))',
        show(`mean row sums over ${d.samples} samples`, 'torch.stack(row_sums).mean(dim=0)[0].tolist()')]
          : [`# ${c('in evaluation every sample is A itself: the mean row sums are its row sums', '评估模式下每个样本都是 A 本身：平均行和就是它的行和')}`,
            show(`mean row sums over ${d.samples} samples`, 'A.sum(dim=-1)[0].tolist()')])].join('\n'));
  },

  /**
   * data: {config (the model's: vocab, C, heads, layers, tMax, seed, causal, chars), step,
   * attention: {text}, future: {text, t}, futureSeed, file}; the parameters come as `file`.
   */
  '18.8'(s, { config: cfg, step, attention: att, future, futureSeed, file }, lang) {
    const c = say(lang);
    return program(
      header(c(`Attention Lab 18.8: the character GPT on the page after ${step} training steps (seed ${cfg.seed}).`,
        `注意力实验室 18.8：页面上的字符级 GPT，训练 ${step} 步之后（种子 ${cfg.seed}）。`),
      [c(`It reads the model's parameters from ${file}: save it with the download button beside this program.`,
        `它从 ${file} 读取模型参数：用程序旁的下载按钮保存该文件。`),
      c('It prints the attention maps and the future-character check the page shows.', '程序打印页面上显示的注意力图和未来字符检查。')],
      { lang, imports: ['import json'], torchImports: ['from torch import nn'] }),
      `with open(${pyString(file)}, encoding='utf-8') as f:
    saved = json.load(f)
cfg = saved['config']
V, C, NH, L, T_MAX, CAUSAL = cfg['vocab'], cfg['C'], cfg['heads'], cfg['layers'], cfg['tMax'], cfg['causal']
chars = saved['chars']                                   # ${c('the vocabulary: character i has id i', '词表：第 i 个字符的 id 是 i')}`,
      gptModel(c),
      gptParameters(c, step),
      [`text = ${pyString(att.text)}`,
        'ids = torch.tensor([[chars.index(ch) for ch in text]])',
        'with torch.no_grad():',
        '    logits, maps = model(ids)',
        'for l, att in enumerate(maps):',
        '    for h in range(NH):',
        `        print(f'layer {l} head {h} =', att[0, h].tolist())   # ${c('(T, T): row t receives, column j gives', '(T, T)：第 t 行接收，第 j 列给出')}`].join('\n'),
      pyCoreRng({ lang }),
      [comment(c(`The future-character check (PyTorch has none; written here from the forward pass): every character after t = ${future.t}`,
        `未来字符检查（PyTorch 没有现成的，这里用前向计算自己写）：t = ${future.t} 之后的每个字符都换成另一个字符，`),
      c(`is replaced by a different one, drawn by the core's generator (seed ${futureSeed}, ported above); the logits up to t must not move at all.`,
        `由内核的生成器（种子 ${futureSeed}，上面已移植）抽取；t 及之前的 logits 必须纹丝不动。`)),
      `text, t = ${pyString(future.text)}, ${future.t}`,
      'ids = torch.tensor([[chars.index(ch) for ch in text]])',
      `rng = CoreRng(${futureSeed})`,
      'changed = ids.clone()',
      'for j in range(t + 1, ids.shape[1]):',
      '    changed[0, j] = (ids[0, j] + 1 + rng.below(V - 1)) % V',
      'with torch.no_grad():',
      '    before, _ = model(ids)',
      '    after, _ = model(changed)',
      'per_position = (after - before).abs().amax(dim=-1)[0]   # (T,)',
      show('max |change| per position', 'per_position.tolist()'),
      show('max change in the prefix (<= t)', 'per_position[:t + 1].max().item()')].join('\n'));
  },
};
