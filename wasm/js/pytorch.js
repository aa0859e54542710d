// core.toPyTorch(fnName, args): a short PyTorch (float64) program that reproduces one call of
// the JS API. The program holds the call's tensors as literals, does the call's math with PyTorch
// ("@", masked_fill, softmax, autograd), and prints every field of the result as
// `name = value` (the API's own names; `result` for a plain tensor or number), in digits that
// round-trip float64. Where the core draws random numbers (randn, learned positions, the
// permutation, dropout, the future probe, gradcheck's G, the variance Monte Carlo), the program
// carries the core's generator ported to Python, so it draws the same numbers.
//
// JS only: nothing here calls the core. It formats the arguments it is given, read by
// pytorch-args.js, which checks only what writing a program needs (the function, the argument
// count, tensor shapes against their data, option names); the values themselves are the core's to
// check when the call is made.
import {
  pyFloat, pyValue, assign, show, header, program, comment, pyMha, pyCoreRng, pyGradcheck,
} from './pytorch-format.js';
import { fail, tensorArg, optionsArg, number, whole, scaleExpr, MHA_DEFAULTS, mhaArgs } from './pytorch-args.js';

// ---- Python pieces several programs share ------------------------------------------------------

/** Literals for the weights (and memory) and the call `multi_head_attention(x, ...)`. */
function mhaSetup(m) {
  const lines = [
    comment('weights in math layout (C, D): q = x @ w_q; head h owns columns h*hs ... (h+1)*hs - 1'),
    assign('w_q', m.wq), assign('w_k', m.wk), assign('w_v', m.wv),
  ];
  if (m.memory) lines.push(assign('memory', m.memory, 'cross-attention: keys and values come from here'));
  return lines.join('\n');
}
const mhaCall = (m, x = 'x') => `multi_head_attention(${x}, w_q, w_k, w_v, heads=${m.heads}, causal=${m.causal ? 'True' : 'False'}`
  + `${m.scale ? `, scale=${m.scale}` : ''}${m.memory ? ', memory=memory' : ''})`;

/** `allowed` (Tq, Tk): the causal mask (j <= i, top-left aligned) or all True. */
const allowedLine = (Tq, Tk, causal) => (causal
  ? `allowed = torch.ones(${Tq}, ${Tk}, dtype=torch.bool).tril()   # causal: receiver i sees sources j <= i`
  : `allowed = torch.ones(${Tq}, ${Tk}, dtype=torch.bool)`);

/** Sinusoidal positions (T, C) as the core builds them. */
const sinusoidalLines = (T, C) => [
  `t = torch.arange(${T}).unsqueeze(1)                      # (T, 1)`,
  `i2 = torch.arange(${C}) // 2 * 2                          # 2i for columns 2i and 2i+1`,
  `angle = t / 10000 ** (i2 / ${C})                          # (T, C)`,
  `pos = torch.where(torch.arange(${C}) % 2 == 0, angle.sin(), angle.cos())`,
].join('\n');

// ---- one generator per API function: (args) -> program text ------------------------------------
const G = {
  randn(fn, [shape, seed = 0, std = 1]) {
    if (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 1)) fail(fn, 'shape must be a list of whole numbers >= 1');
    return program(header(`core.randn([${shape.join(', ')}], ${seed}, ${std}) in PyTorch.`,
      ["torch.randn draws other numbers: the core's generator, ported to Python, draws the core's."]),
    pyCoreRng({ normal: true }),
    `x = core_randn((${shape.join(', ')},), ${whole(fn, 'seed', seed)}, ${pyFloat(number(fn, 'std', std))})`,
    show('result', 'x.tolist()'));
  },

  causalAverage(fn, [x, opts]) {
    const t = tensorArg(fn, 'x', x);
    const { method } = optionsArg(fn, opts, { method: 'matrix' });
    if (t.shape.length < 2 || t.shape.length > 3) fail(fn, 'x must be (T, C) or (B, T, C)');
    const T = t.shape.at(-2);
    const body = {
      loop: [comment('out[t] = the mean of x[0..t]'),
        `out = torch.stack([x[..., :t + 1, :].mean(dim=-2) for t in range(${T})], dim=-2)`],
      matrix: [comment('A: row t averages rows 0..t; out = A @ x'),
        `A = torch.ones(${T}, ${T}).tril()`, 'A = A / A.sum(dim=-1, keepdim=True)', 'out = A @ x'],
      softmax: [comment('the same A as a softmax of zero scores with the future masked'),
        `scores = torch.zeros(${T}, ${T}).masked_fill(~torch.ones(${T}, ${T}, dtype=torch.bool).tril(), float('-inf'))`,
        'A = scores.softmax(dim=-1)', 'out = A @ x'],
    }[method] ?? fail(fn, `opts.method must be 'loop', 'matrix' or 'softmax', got ${String(method)}`);
    return program(header(`core.causalAverage(x, {method: '${method}'}) in PyTorch.`), assign('x', t), body.join('\n'), show('result', 'out.tolist()'));
  },

  averagingMatrix(fn, [T, opts]) {
    const { normalize } = optionsArg(fn, opts, { normalize: true });
    whole(fn, 'T', T);
    return program(header(`core.averagingMatrix(${T}, {normalize: ${!!normalize}}) in PyTorch.`),
      [`A = torch.ones(${T}, ${T}).tril()`, normalize ? 'A = A / A.sum(dim=-1, keepdim=True)   # each row averages the past' : '# not normalized: running sums'].join('\n'),
      show('result', 'A.tolist()'));
  },

  maxAbsDiff(fn, [a, b]) {
    return program(header('core.maxAbsDiff(a, b) in PyTorch.'), assign('a', tensorArg(fn, 'a', a)), assign('b', tensorArg(fn, 'b', b)),
      show('result', '(a - b).abs().max().item()'));
  },

  sum(fn, [x, opts]) {
    const { dim } = optionsArg(fn, opts, { dim: -1 });
    return program(header(`core.sum(x, {dim: ${dim}}) in PyTorch.`), assign('x', tensorArg(fn, 'x', x)),
      show('result', `x.sum(dim=${number(fn, 'opts.dim', dim)}).tolist()`));
  },

  matmul(fn, [a, b]) {
    return program(header('core.matmul(a, b) in PyTorch (a 2-D operand broadcasts over the other\'s leading axes).'),
      assign('a', tensorArg(fn, 'a', a)), assign('b', tensorArg(fn, 'b', b)), show('result', '(a @ b).tolist()'));
  },

  maskMatrix(fn, [Tq, Tk, opts]) {
    const { causal } = optionsArg(fn, opts, { causal: true });
    whole(fn, 'Tq', Tq); whole(fn, 'Tk', Tk);
    return program(header(`core.maskMatrix(${Tq}, ${Tk}, {causal: ${!!causal}}) in PyTorch: 1 = allowed, 0 = masked.`),
      allowedLine(Tq, Tk, causal), show('result', 'allowed.double().tolist()'));
  },

  softmax(fn, [scores, opts]) {
    const s = tensorArg(fn, 'scores', scores);
    const o = optionsArg(fn, opts, { dim: -1, mask: 'none', maskOrder: 'before' });
    const dim = number(fn, 'opts.dim', o.dim);
    const [Tq, Tk] = s.shape.length >= 2 ? s.shape.slice(-2) : [1, s.shape[0]];
    const lines = [assign('scores', s)];
    if (o.mask === 'causal') lines.push(`allowed = torch.ones(${Tq}, ${Tk}, dtype=torch.bool).tril()   # j <= i on the last two axes`);
    else if (o.mask !== 'none') lines.push(assign('allowed', tensorArg(fn, 'opts.mask', o.mask, { bool: true }), 'the mask: True = allowed'));
    lines.push(`allowed = ${o.mask === 'none' ? '' : 'allowed & '}(scores != float('-inf'))   # -inf scores count as masked`);
    if (o.maskOrder === 'before') {
      lines.push(comment('mask first (-inf), then softmax: a row with nothing allowed has no denominator (NaN)'),
        `weights = scores.masked_fill(~allowed, float('-inf')).softmax(dim=${dim})`);
    } else if (o.maskOrder === 'after') {
      lines.push(comment('softmax first, then zero the masked entries: the rest no longer sums to 1'),
        `weights = scores.softmax(dim=${dim}).masked_fill(~allowed, 0.0)`);
      if (s.data.some((v) => v === -Infinity)) {
        lines.push(`weights = torch.where((scores != float('-inf')).any(dim=${dim}, keepdim=True), weights, torch.tensor(float('nan')))   # only -inf: no softmax at all`);
      }
    } else fail(fn, `opts.maskOrder must be 'before' or 'after', got ${String(o.maskOrder)}`);
    lines.push(`masked_rows = (~allowed.expand_as(scores)).all(dim=${dim}).nonzero().tolist()   # rows with nothing allowed`);
    return program(header(`core.softmax(scores, {dim: ${dim}, mask: ${typeof o.mask === 'string' ? `'${o.mask}'` : 'tensor'}, maskOrder: '${o.maskOrder}'}) in PyTorch.`),
      lines.join('\n'), [show('result', 'weights.tolist()'), show('maskedRows', 'masked_rows')].join('\n'));
  },

  sdpa(fn, args, { reference = false, backward = false } = {}) {
    const [q, k, v] = ['q', 'k', 'v'].map((n, i) => tensorArg(fn, n, args[i]));
    const gradOut = backward ? tensorArg(fn, 'gradOut', args[3]) : null;
    const o = optionsArg(fn, args[backward ? 4 : 3], { causal: false, scale: 'head' });
    const scale = scaleExpr(fn, o.scale) ?? `1 / math.sqrt(${q.shape.at(-1)})`;
    const [Tq, Tk] = [q.shape.at(-2), k.shape.at(-2)];
    const def = `def attention(q, k, v):
    scores = (q @ k.transpose(-2, -1)) * ${scale}      # (..., Tq, Tk), before the mask
    ${allowedLine(Tq, Tk, o.causal)}
    weights = scores.masked_fill(~allowed, float('-inf')).softmax(dim=-1)
    return weights @ v, weights, scores`;
    const title = reference ? 'core.sdpaReference(q, k, v, opts) in PyTorch: the same attention, here the reference.'
      : `core.${fn}(q, k, v${backward ? ', gradOut' : ''}, {causal: ${!!o.causal}, scale: ${typeof o.scale === 'number' ? o.scale : `'${o.scale}'`}}) in PyTorch.`;
    const inputs = [assign('q', q), assign('k', k), assign('v', v)];
    if (!backward) {
      return program(header(title), inputs.join('\n'), def, 'out, weights, scores = attention(q, k, v)',
        ['out', 'weights', 'scores'].map((n) => show(n, `${n}.tolist()`)).join('\n'));
    }
    return program(header(title), [...inputs, assign('grad_out', gradOut)].join('\n'), def,
      ['q.requires_grad_()', 'k.requires_grad_()', 'v.requires_grad_()', 'out, _, _ = attention(q, k, v)',
        'out.backward(grad_out)                # dL/dout = grad_out'].join('\n'),
      ['dq', 'dk', 'dv'].map((n) => show(n, `${n.slice(1)}.grad.tolist()`)).join('\n'));
  },

  sdpaBackward(fn, args) { return G.sdpa(fn, args, { backward: true }); },
  sdpaReference(fn, args) { return G.sdpa(fn, args, { reference: true }); },

  linearWeightToMath(fn, [w]) {
    return program(header('core.linearWeightToMath(w) in PyTorch: nn.Linear stores W as (d, C); the math layout is (C, d).'),
      assign('w', tensorArg(fn, 'w', w)), show('result', 'w.T.tolist()'));
  },
  mathWeightToLinear(fn, [w]) {
    return program(header('core.mathWeightToLinear(w) in PyTorch: the math layout (C, d) as nn.Linear stores it, (d, C).'),
      assign('w', tensorArg(fn, 'w', w)), show('result', 'w.T.tolist()'));
  },

  multiHeadAttention(fn, [x, opts]) {
    const { results, ...o } = optionsArg(fn, opts, { ...MHA_DEFAULTS, results: 'all' });
    if (results !== 'all' && results !== 'out') fail(fn, "opts.results must be 'all' or 'out'");
    const m = mhaArgs(fn, o);
    const shown = results === 'out' ? ['out'] : ['out', 'weights', 'scores', 'q', 'k', 'v'];   // out alone: the core returns {out}
    return program(header('core.multiHeadAttention(x, opts) in PyTorch.'), pyMha(), assign('x', tensorArg(fn, 'x', x)), mhaSetup(m),
      `out, weights, scores, q, k, v = ${mhaCall(m)}`,
      shown.map((n) => show(n, `${n}.tolist()`)).join('\n'));
  },

  multiHeadAttentionBackward(fn, [x, gradOut, opts]) {
    const m = mhaArgs(fn, optionsArg(fn, opts, MHA_DEFAULTS));
    const leaves = ['x', 'w_q', 'w_k', 'w_v', ...(m.memory ? ['memory'] : [])];
    return program(header('core.multiHeadAttentionBackward(x, gradOut, opts) in PyTorch (autograd).'), pyMha(),
      [assign('x', tensorArg(fn, 'x', x)), mhaSetup(m), assign('grad_out', tensorArg(fn, 'gradOut', gradOut))].join('\n'),
      [...leaves.map((n) => `${n}.requires_grad_()`), `out = ${mhaCall(m)}[0]`, 'out.backward(grad_out)                # dL/dout = grad_out'].join('\n'),
      leaves.map((n) => show(`d${n.replace('_', '')}`, `${n}.grad.tolist()`)).join('\n'));
  },

  attentionStats(fn, [weights]) {
    return program(header('core.attentionStats(weights) in PyTorch: per row, the entropy (natural log, 0 log 0 = 0) and the largest weight.'),
      assign('weights', tensorArg(fn, 'weights', weights)),
      [show('entropy', 'torch.special.entr(weights).sum(dim=-1).tolist()'), show('maxWeight', 'weights.amax(dim=-1).tolist()')].join('\n'));
  },

  dotProductVariance(fn, [dims, opts]) {
    if (!Array.isArray(dims) || !dims.every((d) => Number.isInteger(d) && d >= 1)) fail(fn, 'dims must be a list of whole numbers >= 1');
    const { samples, seed } = optionsArg(fn, opts, { samples: 2000, seed: 0 });
    return program(header(`core.dotProductVariance([${dims.join(', ')}], {samples: ${samples}, seed: ${seed}}) in PyTorch.`,
      ["Var(q.k) for q, k ~ N(0, I_d): the draws come from the core's generator (ported below) in the core's order,",
        'so the estimate is the core\'s; torch.randn would give another estimate of the same variance.',
        `(Plain Python draws about 300,000 normals a second: ${2 * samples * dims.reduce((a, b) => a + b, 0)} here.)`]),
    pyCoreRng({ normal: true }),
    `rng = CoreRng(${whole(fn, 'opts.seed', seed)})
samples = ${whole(fn, 'opts.samples', samples)}
dims, unscaled, scaled = ${pyValue(dims, { int: true })}, [], []
for d in dims:
    qk = torch.tensor([rng.normal() for _ in range(samples * d * 2)]).view(samples, d, 2)   # q_c, k_c, q_c+1, ...
    dots = (qk[..., 0] * qk[..., 1]).sum(dim=-1)          # q . k, one per sample
    var = dots.var().item()                               # unbiased (divides by samples - 1)
    unscaled.append(var)
    scaled.append(var / d)                                # Var(q.k / sqrt(d)) = Var(q.k) / d`,
    [show('dims', '[float(d) for d in dims]'), show('unscaled', 'unscaled'), show('scaled', 'scaled')].join('\n'));
  },

  softmaxSharpening(fn, [logits, factor = 8]) {
    const l = tensorArg(fn, 'logits', logits);
    return program(header(`core.softmaxSharpening(logits, ${factor}) in PyTorch.`), assign('logits', l),
      [`z = logits * ${pyFloat(number(fn, 'factor', factor))}`,
        'weights = z.softmax(dim=-1)',
        'jacobian = torch.autograd.functional.jacobian(lambda z: z.softmax(dim=-1), z)   # d p_i / d z_j = diag(p) - p p^T'].join('\n'),
      [show('weights', 'weights.tolist()'), show('jacobian', 'jacobian.tolist()'),
        `${show('jacobianNorm', 'torch.linalg.norm(jacobian).item()')}   # Frobenius`,
        show('entropy', 'torch.special.entr(weights).sum().item()'), show('maxWeight', 'weights.max().item()')].join('\n'));
  },

  positions(fn, [kind, T, C, opts]) {
    const { tMax, seed } = optionsArg(fn, opts, { tMax: 64, seed: 0 });
    whole(fn, 'T', T); whole(fn, 'C', C);
    if (kind === 'learned') {
      return program(header(`core.positions('learned', ${T}, ${C}, {tMax: ${tMax}, seed: ${seed}}) in PyTorch.`,
        ["A learned table is a parameter: here its initial values, the core's N(0, 1) draw (the generator ported below)."]),
      pyCoreRng({ normal: true }),
      `table = core_randn((${whole(fn, 'opts.tMax', tMax)}, ${C}), ${whole(fn, 'opts.seed', seed)})   # (tMax, C)\npos = table[:${T}]                                  # rows 0 .. T-1`,
      show('result', 'pos.tolist()'));
    }
    if (kind !== 'sinusoidal') fail(fn, `kind must be 'learned' or 'sinusoidal', got ${String(kind)}`);
    return program(header(`core.positions('sinusoidal', ${T}, ${C}) in PyTorch: PE[t, 2i] = sin(t / 10000^(2i/C)), PE[t, 2i+1] = cos(same).`),
      sinusoidalLines(T, C), show('result', 'pos.tolist()'));
  },

  permutationCheck(fn, [x, opts]) {
    const o = optionsArg(fn, opts, { ...MHA_DEFAULTS, positions: 'none', tMax: 64, seed: 0, positionSeed: 0 });
    if (o.memory !== undefined) fail(fn, 'the permutation check is for self-attention: no memory');
    const m = mhaArgs(fn, o);
    const xt = tensorArg(fn, 'x', x);
    if (xt.shape.length !== 3) fail(fn, 'x must be (B, T, C)');
    const [, T, C] = xt.shape;
    const seed = whole(fn, 'opts.seed', o.seed);
    const pos = {
      none: `pos = torch.zeros(${T}, ${C})`,
      learned: `pos = core_randn((${whole(fn, 'opts.tMax', o.tMax)}, ${C}), ${whole(fn, 'opts.positionSeed', o.positionSeed)})[:${T}]   # the learned table's first T rows`,
      sinusoidal: sinusoidalLines(T, C),
    }[o.positions] ?? fail(fn, `opts.positions must be 'none', 'learned' or 'sinusoidal', got ${String(o.positions)}`);
    return program(header('core.permutationCheck(x, opts) in PyTorch: max |attn(P x + pos) - P attn(x + pos)|.'),
      pyMha(), pyCoreRng({ normal: o.positions === 'learned' }), assign('x', xt), mhaSetup(m),
      `rng = CoreRng(${seed})
perm = list(range(${T}))
while perm == sorted(perm) and len(perm) >= 2:            # never the identity: drawn again, as the core does
    perm = list(range(${T}))
    for i in range(${T} - 1, 0, -1):                     # Fisher-Yates, as the core shuffles
        j = rng.below(i + 1)
        perm[i], perm[j] = perm[j], perm[i]
${pos}
permuted_input = x[:, perm] + pos                         # row t of P x is row perm[t] of x
out_of_permuted = ${mhaCall(m, 'permuted_input')}[0]
permuted_out = ${mhaCall(m, 'x + pos')}[0][:, perm]
max_diff = (out_of_permuted - permuted_out).abs().max().item()`,
      [show('maxDiff', 'max_diff'), show('perm', 'perm'), show('permutedInput', 'permuted_input.tolist()'),
        show('outOfPermuted', 'out_of_permuted.tolist()'), show('permutedOut', 'permuted_out.tolist()')].join('\n'));
  },

  gradcheck(fn, [kind, opts]) {
    if (kind === 'sdpa') {
      const o = optionsArg(fn, opts, { q: undefined, k: undefined, v: undefined, causal: false, scale: 'head', seed: 0 });
      const [q, k, v] = ['q', 'k', 'v'].map((n) => (o[n] === undefined ? fail(fn, `opts.${n} is required`) : tensorArg(fn, `opts.${n}`, o[n])));
      const scale = scaleExpr(fn, o.scale) ?? `1 / math.sqrt(${q.shape.at(-1)})`;
      return program(header("core.gradcheck('sdpa', opts) in PyTorch."), pyCoreRng({ normal: true }),
        [assign('q', q), assign('k', k), assign('v', v), `seed = ${whole(fn, 'opts.seed', o.seed)}`].join('\n'),
        `def attention(q, k, v):
    scores = (q @ k.transpose(-2, -1)) * ${scale}
    ${allowedLine(q.shape.at(-2), k.shape.at(-2), o.causal)}
    return scores.masked_fill(~allowed, float('-inf')).softmax(dim=-1) @ v`,
        comment("G is drawn by the core from the seed (the generator ported above)."),
        pyGradcheck([['q', 'q'], ['k', 'k'], ['v', 'v']], 'attention(q, k, v)', { drawG: true }));
    }
    if (kind !== 'mha') fail(fn, `kind must be 'sdpa' or 'mha', got ${String(kind)}`);
    const o = optionsArg(fn, opts, { ...MHA_DEFAULTS, x: undefined, seed: 0 });
    if (o.x === undefined) fail(fn, 'opts.x is required');
    const m = mhaArgs(fn, o);
    const inputs = [['x', 'x'], ['wq', 'w_q'], ['wk', 'w_k'], ['wv', 'w_v'], ...(m.memory ? [['memory', 'memory']] : [])];
    const call = `${mhaCall(m)}[0]`;
    return program(header("core.gradcheck('mha', opts) in PyTorch."), pyMha(), pyCoreRng({ normal: true }),
      [assign('x', tensorArg(fn, 'opts.x', o.x)), mhaSetup(m), `seed = ${whole(fn, 'opts.seed', o.seed)}`].join('\n'),
      comment("G is drawn by the core from the seed (the generator ported above)."),
      pyGradcheck(inputs, call, { drawG: true }));
  },

  futureProbe(fn, [x, opts]) {
    const o = optionsArg(fn, opts, { ...MHA_DEFAULTS, t: undefined, seed: 0 });
    if (o.memory !== undefined) fail(fn, 'the future probe is for self-attention: no memory');
    if (o.t === undefined) fail(fn, 'opts.t is required');
    const m = mhaArgs(fn, o);
    const xt = tensorArg(fn, 'x', x);
    if (xt.shape.length !== 3) fail(fn, 'x must be (B, T, C)');
    const [B, T, C] = xt.shape;
    const t = whole(fn, 'opts.t', o.t);
    return program(header(`core.futureProbe(x, {..., t: ${t}}) in PyTorch: change the input after position t, compare the outputs.`),
      pyMha(), pyCoreRng({ normal: true }), assign('x', xt), mhaSetup(m),
      `out = ${mhaCall(m)}[0]
changed = x.clone()
changed[:, ${t + 1}:] += 1 + core_randn((${B}, ${T - t - 1}, ${C}), ${whole(fn, 'opts.seed', o.seed)})   # a different future, the core's draw
change = (${mhaCall(m, 'changed')}[0] - out).abs()      # (B, T, D)`,
      [show('maxPrefixChange', `change[:, :${t + 1}].max().item()`), show('maxFutureChange', `change[:, ${t + 1}:].max().item()`),
        show('change', 'change.tolist()')].join('\n'));
  },

  dropout(fn, [x, opts]) {
    const { p, training, seed } = optionsArg(fn, opts, { p: 0.1, training: true, seed: 0 });
    const xt = tensorArg(fn, 'x', x);
    if (!training || p === 0) {
      return program(header(`core.dropout(x, {p: ${p}, training: ${!!training}}) in PyTorch: the identity${training ? ' (p = 0)' : ' in evaluation'}.`),
        assign('x', xt), `out = torch.nn.functional.dropout(x, p=${pyFloat(number(fn, 'opts.p', p))}, training=False)`, show('result', 'out.tolist()'));
    }
    return program(header(`core.dropout(x, {p: ${p}, training: true, seed: ${seed}}) in PyTorch.`,
      ["The core draws one uniform number per entry (its generator, ported below) and drops the entry when it",
        'is below p; the kept ones are scaled by 1 / (1 - p), as torch.nn.functional.dropout scales them.']),
    pyCoreRng(), assign('x', xt),
    `p = ${pyFloat(number(fn, 'opts.p', p))}
rng = CoreRng(${whole(fn, 'opts.seed', seed)})
keep = torch.tensor([rng.uniform() >= p for _ in range(x.numel())]).view(x.shape)
out = x * (keep / (1 - p))`, show('result', 'out.tolist()'));
  },

  dropoutStats(fn, [weights, opts]) {
    const { p, samples, seed, training } = optionsArg(fn, opts, { p: 0.1, samples: 1000, seed: 0, training: true });
    const w = tensorArg(fn, 'weights', weights);
    if (!training) {
      return program(header(`core.dropoutStats(weights, {p: ${p}, samples: ${samples}, training: false}) in PyTorch: in evaluation dropout is the identity, every sample is the weights.`),
        assign('weights', w), 'row_sums = weights.sum(dim=-1)',
        [show('sampleRowSums', 'row_sums.tolist()'), show('meanRowSums', 'row_sums.tolist()')].join('\n'));
    }
    return program(header(`core.dropoutStats(weights, {p: ${p}, samples: ${samples}, seed: ${seed}}) in PyTorch.`,
      ['Sample k is the core\'s dropout with seed + k (its generator, ported below): one uniform per entry,',
        'dropped below p, kept ones scaled by 1 / (1 - p).']),
    pyCoreRng(), assign('weights', w),
    `p, samples, seed = ${pyFloat(number(fn, 'opts.p', p))}, ${whole(fn, 'opts.samples', samples)}, ${whole(fn, 'opts.seed', seed)}
row_sums = []
for k in range(samples):
    rng = CoreRng(seed + k)
    keep = torch.tensor([rng.uniform() >= p for _ in range(weights.numel())]).view(weights.shape)
    row_sums.append((weights * (keep / (1 - p))).sum(dim=-1))
row_sums = torch.stack(row_sums)                           # (samples, ...)`,
    [show('sampleRowSums', 'row_sums[0].tolist()'), show('meanRowSums', 'row_sums.mean(dim=0).tolist()')].join('\n'));
  },
};

/** The functions toPyTorch covers (the API's functions with a PyTorch meaning). */
export const PYTORCH_FUNCTIONS = Object.freeze(Object.keys(G));

/**
 * A PyTorch (float64) program that reproduces `core[fnName](...args)` and prints each field of
 * its result as `name = value`. Throws an Error for a function it does not cover or arguments it
 * cannot write down.
 */
export function toPyTorch(fnName, args = []) {
  if (!Object.hasOwn(G, fnName)) {
    throw new Error(`toPyTorch: no PyTorch program for '${String(fnName).slice(0, 40)}'; covered: ${PYTORCH_FUNCTIONS.join(', ')}`
      + ' (the GPT has its own: the 18.8 panel of the page, with the parameters to download)');
  }
  if (!Array.isArray(args)) throw new Error(`toPyTorch('${fnName}'): args must be the array of the call's arguments`);
  return G[fnName](fnName, args);
}
