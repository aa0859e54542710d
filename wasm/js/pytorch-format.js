// Writing PyTorch (float64) programs: Python literals for numbers, tensors and strings, the
// programs' common header and print lines, and the Python pieces several programs share (multi-head
// attention as the lessons write it; the core's random generator). Used by core.toPyTorch
// (pytorch.js) and by the page's "Show as PyTorch" programs (web/src/pytorch-programs.js).
//
// Formatting only: no arithmetic on the numbers. Every float is written as JS's shortest
// representation (String(x)), which float64 parses back to the same bits, so a literal in a
// program is exactly the number the core used.

/** A float literal: 2 -> "2.0", 1e-7 -> "1e-7", -0 -> "-0.0", NaN -> "float('nan')". */
export function pyFloat(v) {
  if (Number.isNaN(v)) return "float('nan')";
  if (v === Infinity) return "float('inf')";
  if (v === -Infinity) return "-float('inf')";
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

/** A string literal (JSON's escapes are Python's too). */
export const pyString = (s) => JSON.stringify(s);

/** A Python value for a plain JS value: numbers as floats unless `int`, booleans, strings, lists. */
export function pyValue(v, { int = false } = {}) {
  if (typeof v === 'number') return int ? String(v) : pyFloat(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'string') return pyString(v);
  if (v === null || v === undefined) return 'None';
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return `[${Array.from(v, (x) => pyValue(x, { int })).join(', ')}]`;
  throw new Error(`pyValue: no Python literal for ${typeof v}`);
}

const WIDTH = 100;   // innermost rows longer than this wrap

// Nested lists for a row-major tensor: the innermost rows on one line each (wrapped when long),
// the outer levels one element per line aligned under their bracket, like NumPy prints arrays.
function nested(shape, data, item, col) {
  if (shape.length === 0) return item(data[0]);
  const rec = (axis, offset, at) => {
    const n = shape[axis];
    const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
    if (axis === shape.length - 1) {
      const parts = Array.from({ length: n }, (_, i) => item(data[offset + i]));
      const lines = [];
      let line = '';
      for (const p of parts) {
        if (line && at + 1 + line.length + p.length + 2 > WIDTH) { lines.push(line); line = ''; }
        line += line ? ` ${p},` : `${p},`;
      }
      lines.push(line);
      return `[${lines.join(`\n${' '.repeat(at + 1)}`).replace(/,$/, '')}]`;
    }
    const gap = axis < shape.length - 2 ? ',\n\n' : ',\n';   // a blank line between matrices
    return `[${Array.from({ length: n }, (_, i) => rec(axis + 1, offset + i * stride, at + 1)).join(`${gap}${' '.repeat(at + 1)}`)}]`;
  };
  return rec(0, 0, col);
}

/**
 * `torch.tensor(...)` for a tensor {shape, data}; `col` is the column where the expression starts
 * (continuation lines align under the first bracket). A boolean tensor (Uint8Array data, or
 * `bool: true`) is written with True/False.
 */
export function pyTensor({ shape, data }, { col = 0, bool = data instanceof Uint8Array } = {}) {
  const start = 'torch.tensor(';
  const dtype = bool ? ', dtype=torch.bool' : '';
  return `${start}${pyNested({ shape, data }, { col: col + start.length, bool })}${dtype})`;
}

/**
 * The nested Python list of a tensor {shape, data} alone (what pyTensor wraps), starting at column
 * `col`: also a NumPy array's literal inside `np.array(...)`, and a plain list (the page's "Check
 * my numbers" copies a section's inputs in these forms).
 */
export function pyNested({ shape, data }, { col = 0, bool = data instanceof Uint8Array } = {}) {
  return nested(shape, data, bool ? (v) => (v ? 'True' : 'False') : pyFloat, col);
}

/** `name = torch.tensor(...)`, with a comment after it when given. */
export function assign(name, t, comment) {
  const lhs = `${name} = `;
  return `${lhs}${pyTensor(t, { col: lhs.length })}${comment ? `   # ${comment}` : ''}`;
}

/** A print line whose output reads `label = value` (values printed as Python lists and floats,
 *  which round-trip: the printed digits are the float64 numbers themselves). */
export const show = (label, expr) => `print(${pyString(`${label} =`)}, ${expr})`;

/** A comment block: each line prefixed with '# '. */
export const comment = (...lines) => lines.flatMap((l) => String(l).split('\n')).map((l) => (l ? `# ${l}` : '#')).join('\n');

/** A chooser for comments in the page's language: say(lang)('English', '中文'). */
export const say = (lang) => (en, zh) => (lang === 'zh' ? zh : en);

/** The first lines of every program: a comment (title and notes), imports, float64. */
export function header(title, notes = [], { lang = 'en', imports = [], torchImports = [] } = {}) {
  return [
    comment(title, ...notes),
    ['import math', ...imports].sort().join('\n'),
    ['import torch', ...torchImports].join('\n'),
    `torch.set_default_dtype(torch.float64)   # ${say(lang)('float64 throughout, like the lab', '全程 float64，与实验室一致')}`,
  ].join('\n\n');
}

/** One program from its parts: a blank line between parts, two around a top-level definition
 *  (PEP 8); empty parts are left out. */
export function program(...parts) {
  const kept = parts.filter((p) => p !== null && p !== undefined && p !== '');
  const defines = (p) => /^(def|class) /m.test(p);
  return `${kept.map((p, i) => (i === 0 ? '' : defines(p) || defines(kept[i - 1]) ? '\n\n\n' : '\n\n') + p).join('')}\n`;
}

// ---- Python shared by several programs ---------------------------------------------------------

/** Multi-head attention as the lessons write it (nanoGPT's head split), with the lab's options. */
export function pyMha(lang = 'en') {
  const c = say(lang);
  return `def multi_head_attention(x, w_q, w_k, w_v, heads, causal, scale=None, memory=None):
    """${c(`x (B, T, C); w_q, w_k, w_v (C, D) in math layout (q = x @ w_q), head h owning the columns
    h*hs ... (h+1)*hs - 1; memory (B, T_in, C): cross-attention takes keys and values from it.
    Returns out (B, T, D), weights and scores (B, NH, T, Tk), and the projections q, k, v.`,
    `x (B, T, C)；w_q、w_k、w_v 为数学布局 (C, D)（q = x @ w_q），第 h 个头占第 h*hs ... (h+1)*hs - 1 列；
    memory (B, T_in, C)：交叉注意力的键和值来自它。
    返回 out (B, T, D)、weights 与 scores (B, NH, T, Tk)，以及投影 q、k、v。`)}"""
    src = x if memory is None else memory
    B, T, C = x.shape
    Tk = src.shape[1]
    D = w_q.shape[1]
    hs = D // heads                                        # ${c("each head's width", '每个头的宽度')}
    if scale is None:
        scale = 1 / math.sqrt(hs)                          # ${c('divide by sqrt(hs), not sqrt(C)', '除以 sqrt(hs)，不是 sqrt(C)')}
    q, k, v = x @ w_q, src @ w_k, src @ w_v                # (B, T, D), (B, Tk, D), (B, Tk, D)

    def split(t):                                          # (B, T, D) -> (B, NH, T, hs)
        return t.view(B, t.shape[1], heads, hs).transpose(1, 2)

    scores = (split(q) @ split(k).transpose(-2, -1)) * scale      # (B, NH, T, Tk)
    allowed = torch.ones(T, Tk, dtype=torch.bool)
    if causal:
        allowed = allowed.tril()                           # ${c('receiver t sees sources j <= t', '接收位置 t 只看来源 j <= t')}
    weights = scores.masked_fill(~allowed, float('-inf')).softmax(dim=-1)
    out = (weights @ split(v)).transpose(1, 2).reshape(B, T, D)   # ${c('the heads side by side again', '各头的输出再并排拼回')}
    return out, weights, scores, q, k, v`;
}

/**
 * The core's random generator in Python, bit for bit: xoshiro256** seeded by splitmix64,
 * uniform() = the top 53 bits, below(n) = int(uniform() * n); with `normal`, Marsaglia's polar
 * method with the core's own logarithm (exact float64 steps, so every machine draws the same
 * numbers) and `core_randn`, the core's randn(shape, seed, std).
 */
export function pyCoreRng({ normal = false, lang = 'en' } = {}) {
  const c = say(lang);
  const lines = [`M64 = (1 << 64) - 1


class CoreRng:
    """${c("The lab core's generator (xoshiro256** seeded by splitmix64), bit for bit.", '实验室内核的随机数生成器（splitmix64 播种的 xoshiro256**），逐位一致。')}"""

    def __init__(self, seed):
        self.s = []
        x = seed
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))
        self.spare = None

    def next(self):
        s0, s1, s2, s3 = self.s
        r = (s1 * 5) & M64
        result = ((((r << 7) | (r >> 57)) & M64) * 9) & M64
        t = (s1 << 17) & M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & M64
        self.s = [s0, s1, s2, s3]
        return result

    def uniform(self):                                     # [0, 1), ${c('53 random bits', '53 个随机位')}
        return (self.next() >> 11) * 2.0 ** -53

    def below(self, n):                                    # 0 .. n-1
        return int(self.uniform() * n)`];
  if (normal) {
    lines.push(`
    def normal(self):                                      # N(0, 1): ${c("Marsaglia's polar method", 'Marsaglia 极坐标法')}
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        while True:
            u = 2.0 * self.uniform() - 1.0
            v = 2.0 * self.uniform() - 1.0
            s = u * u + v * v
            if 0.0 < s < 1.0:
                break
        f = math.sqrt(-2.0 * core_log(s) / s)
        self.spare = v * f
        return u * f


def core_log(x):
    """${c("The core's ln(x) = e ln 2 + 2 atanh(s): the same float64 steps on every machine.", '内核自己的 ln(x) = e ln 2 + 2 atanh(s)：每台机器上都是同样的 float64 运算步骤。')}"""
    m, e = math.frexp(x)
    if m < 0.70710678118654752:
        m *= 2.0
        e -= 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    term, total = s, 0.0
    for k in range(1, 26, 2):
        total += term / k
        term *= s2
    return e * 6.93147180369123816490e-01 + (2.0 * total + e * 1.90821492927058770002e-10)


def core_randn(shape, seed, std=1.0):
    """${c("The core's randn(shape, seed, std): N(0, std^2), drawn in row-major order.", '内核的 randn(shape, seed, std)：N(0, std^2)，按行优先顺序抽取。')}"""
    rng = CoreRng(seed)
    x = torch.tensor([rng.normal() for _ in range(math.prod(shape))]).view(shape)
    return x if std == 1.0 else x * std`);
  }
  return lines.join('\n');
}

/**
 * The gradient check of L = sum(f(inputs) * G) as the core does it (central differences, eps
 * 1e-6, PyTorch's atol 1e-5 and rtol 1e-3), printing per input its largest error and ratio, and
 * torch.autograd.gradcheck's verdict. inputs: [[the API's name, the program's variable]]; fExpr
 * computes the output from those variables; G is defined before, or drawn with core_randn(seed)
 * when drawG.
 */
export function pyGradcheck(inputs, fExpr, { drawG = false, lang = 'en' } = {}) {
  const c = say(lang);
  const vars = inputs.map(([, v]) => v).join(', ');
  return `${comment(c(`Analytic gradients from autograd, numeric ones by central differences, as the core takes them.
The errors printed are rounding noise of the finite differences (about 1e-10): PyTorch and the
core round their forward passes differently in the last bits, so these agree in size, not digit for digit.`,
  `解析梯度来自 autograd，数值梯度用中心差分，与内核的做法相同。
打印的误差是有限差分的舍入噪声（约 1e-10）：PyTorch 与内核前向计算的最后几位舍入不同，
所以这些误差大小相当，但数字不会逐位相同。`))}
def f(${vars}):
    return ${fExpr}


${drawG ? `G = core_randn(tuple(f(${vars}).shape), seed)
` : ''}eps, atol, rtol = 1e-6, 1e-5, 1e-3
inputs = {${inputs.map(([n, v]) => `${pyString(n)}: ${v}`).join(', ')}}
leaves = [t.clone().requires_grad_() for t in inputs.values()]
analytic = torch.autograd.grad((f(*leaves) * G).sum(), leaves)
passed = True
for (name, t), grad in zip(inputs.items(), analytic):
    max_abs_error = max_ratio = 0.0
    for i in range(t.numel()):
        args = {n: u.clone() for n, u in inputs.items()}
        args[name].view(-1)[i] = t.view(-1)[i] + eps
        plus = (f(*args.values()) * G).sum().item()
        args[name].view(-1)[i] = t.view(-1)[i] - eps
        minus = (f(*args.values()) * G).sum().item()
        numeric = (plus - minus) / (2 * eps)
        error = abs(grad.reshape(-1)[i].item() - numeric)
        max_abs_error = max(max_abs_error, error)
        max_ratio = max(max_ratio, error / (atol + rtol * abs(numeric)))
    passed = passed and max_ratio <= 1
    print(f'inputs.{name}.maxAbsError = {max_abs_error!r}')
    print(f'inputs.{name}.maxRatio = {max_ratio!r}')
    print(f'inputs.{name}.passed = {max_ratio <= 1}')
${show('passed', 'passed')}
${show('eps', 'eps')}
${show('atol', 'atol')}
${show('rtol', 'rtol')}
# ${c("PyTorch's own check, with the same tolerances:", 'PyTorch 自带的检查，容差相同：')}
${show('torch.autograd.gradcheck', 'torch.autograd.gradcheck(f, tuple(leaves), eps=eps, atol=atol, rtol=rtol)')}`;
}
