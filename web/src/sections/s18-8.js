// 18.8 A two-layer character GPT: the future-character check on a real model, training it live,
// and a step-through of one block on the sentence (state keys stage, layer, head; widgets/stepper.js)
// with the activations the model's own forward pass computed (model.blockTrace in the worker).
// The model lives in a Web Worker (train-worker.js, protocol in train-protocol.js) that
// shares the page's compiled core; this controller sends it requests and draws what comes back.
// The default text is a real corpus (lessons/data/, loaded only when 18.8 needs it).
import TrainWorker from '../train-worker.js?worker&inline';
import { REQUESTS, REPLIES, EVAL_EVERY, EVAL_BATCHES, message, dispatcher } from '../train-protocol.js';
import { LossHistory } from '../loss-history.js';
import { heatmap } from '../widgets/heatmap.js';
import { stepper } from '../widgets/stepper.js';
import { provenance } from '../widgets/provenance.js';
import { lineChart } from '../widgets/chart.js';
import { button } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { matrixAt, tensor } from '../tensors.js';
import { fmt, fmtErr, shapeText } from '../format.js';
import { coreUrl } from '../../../wasm/js/index.js';
import { PROGRAMS } from '../pytorch-programs.js';

// The corpus of each page language (see lessons/data/README.txt), as separate chunks.
const CORPUS = {
  zh: () => import('../../../lessons/data/poems.zh.txt?raw'),
  en: () => import('../../../lessons/data/speeches.en.txt?raw'),
};
// The default model: chosen so that on a 2-core laptop the validation loss on the corpus is below
// the unigram baseline within the first minute and still falling after 3 minutes (docs/performance.md, bench/train.mjs).
export const MODEL = { C: 48, heads: 4, layers: 2, tMax: 32, batch: 4, lr: 3e-3 };
// What the sentence and prompt fields start with, per text (each readable by its model).
const EXAMPLES = {
  corpus: { zh: { probe: '床前明月光，疑是地上霜。', prompt: '春风' }, en: { probe: 'the state of the union', prompt: 'the ' } },
  shipped: { probe: 'the cat sat on the mat', prompt: 'the ' },
};
const SAMPLE_LENGTH = 120;
const FUTURE_SEED = 1;   // the future-character check's replacement characters

const strings = {
  zh: {
    blockTitle: '一个块，逐步查看', layer: '层', head: '头（Q、K、V、S、A 这几步）',
    traceWaiting: '模型建好后，这里显示所选层在这句话上的每一步。',
    blockProv: '在 S 或 A 的格子上停留（或点按、用 Tab 聚焦）：旁边的面板列出内核算出这个数所用的每一个数，参与计算的格子会被描边。',
    b_x: '块的输入 x', b_ln1: 'h = LN₁(x)', b_q: '头 {h} 的 Q', b_k: '头 {h} 的 K', b_v: '头 {h} 的 V',
    b_qk: '头 {h}：未缩放的 Q Kᵀ', b_s: '头 {h}：S = Q Kᵀ / √hs（遮罩前）', b_mask: '哪些位置可以看：1 = 允许（M 里是 0），0 = 屏蔽（M 里是 −∞）',
    b_a: '头 {h}：A = softmax(S + M)', b_y: 'Y：各头的 A V 并排', b_proj: '输出投影 Y W_O + b_O', b_res: "x′ = x + 投影（残差）",
    b_ln2: "LN₂(x′)", b_fc: 'MLP 第一层 LN₂(x′) W₁ + b₁', b_gelu: 'GELU', b_fcproj: 'MLP 第二层 GELU(·) W₂ + b₂', b_out: "块的输出 x′ + MLP（下一层的输入）",
    st_x: '输入 x', st_ln1: 'LayerNorm 1', st_qkv: 'Q, K, V（每个头）', st_qk: 'Q Kᵀ', st_scaled: '÷ √hs', st_mask: '+ 遮罩 M', st_a: 'softmax → A',
    st_y: 'Y = A V（各头拼接）', st_proj: '输出投影', st_res1: '残差 x + ·', st_ln2: 'LayerNorm 2', st_fc: 'MLP：线性', st_gelu: 'MLP：GELU', st_fcproj: 'MLP：线性', st_out: '残差 x′ + ·',
    fb_x: 'x：每一行是一个字的向量（第 0 层是字嵌入加位置嵌入，之后是上一层的输出），形状 (T, C)',
    fb_ln1: 'LN₁(x)：每一行减去自己的均值、除以 √(方差 + 1e-5)，再乘增益 w、加偏置 b',
    fb_qkv: '[Q | K | V] = LN₁(x) W_qkv + b：一次线性变换得到 3C 列，每个头取各自的 hs = C / NH 列',
    fb_qk: '(Q Kᵀ)[t, j] = q_t · k_j：所选头里查询 t 与键 j 的点积', fb_scaled: 'S = Q Kᵀ / √hs：除以一个头的宽度 hs 的平方根，不是 √C',
    fb_mask: 'S + M：j ≤ t 时 M[t, j] = 0，j > t 时为 −∞（关掉因果遮罩则全为 0）',
    fb_a: 'A = softmax(S + M)：每行和为 1，被屏蔽的位置权重严格为 0',
    fb_y: 'Y = A V：每个头得到 hs 列，NH 个头并排成 C 列', fb_proj: 'Y W_O + b_O：把各头的结果混合回宽度 C',
    fb_res1: "x′ = x + Y W_O + b_O：注意力的结果加回块的输入", fb_ln2: "LN₂(x′)：同样的归一化，参数是另一组",
    fb_fc: 'LN₂(x′) W₁ + b₁：每个位置单独变换，宽度 4C', fb_gelu: 'GELU(u) = ½ u (1 + tanh(√(2/π) (u + 0.044715 u³)))，逐个元素',
    fb_fcproj: 'GELU(·) W₂ + b₂：回到宽度 C', fb_out: "x′ + MLP：块的输出，也就是下一层（或最后的 LayerNorm）的输入",
    source: '训练文本', corpus: '唐诗与宋诗（约 1.7 MB，简体）', shipped: '实验室附带的英文短文（约 3 KB）', custom: '自己粘贴的文本',
    customLabel: '你的训练文本（至少 10 × 33 个字符，最多 4 MB）',
    seed: '随机种子', causal: '因果遮罩（位置 t 只看 ≤ t 的位置）', start: '开始训练', pause: '暂停', resetModel: '重置模型（回到未训练的权重）', temp: '采样温度',
    step: '步数', time: '训练时间', trainLoss: '训练损失', valLoss: '验证损失', best: '最低验证损失', atStep: '第 {step} 步', evalEvery: '两种损失每 {every} 步评估一次（各用 {batches} 批数据），在评估之间保持不变。', unigram: '一元熵基线', speed: '步 / 秒', tokens: '字符 / 秒',
    params: '参数个数', vocab: '字符表大小 V',
    chart: '损失曲线（nats）', steps: '训练步数', loss: '损失',
    trainSeries: '训练损失（实线）', valSeries: '验证损失（虚线）', baselineSeries: '一元熵基线（点线）',
    bestMark: '最低验证 {v}（第 {step} 步）',
    chartWaiting: '开始训练后，这里画出三条线：训练集上的损失（实线）、模型没训练过的验证文本上的损失（虚线）和只看字符频率的一元熵基线（点线）。圆圈标出验证损失最低的一点。',
    sample: '模型续写', samplePrompt: '开头', resample: '重新采样', notStarted: '点“开始训练”。模型在后台线程里训练，页面不会卡。', workerFailed: '训练线程没能启动：{message}',
    sampleWaiting: '训练开始后，模型每隔一段时间从这个开头续写一段文字。',
    probe: '检查用的句子', attnTitle: '第 {l} 层第 {h} 个头', futureT: '比较到位置 t（改动 t 之后的字符）',
    attnAxes: '注意力图：两条轴上都是句子里的字；每行加起来等于 1。在格子上停留（或点按、用 Tab 聚焦后按方向键）：提示告诉你哪个字看哪个字、权重多少，这一层下面的面板列出内核怎样算出这个权重：这一行的分数和遮罩、最大值、每一个 exp、分母。',
    attends: '“{a}”看“{b}”：{v}',
    future: '改动未来字符后，每个位置 logits 的最大变化', prefix: '前缀 (≤ t) 最大变化', exact: '严格为 0：完整的两层模型也看不到未来。',
    leak: '前缀变了：没有遮罩，未来的字符漏进了前面位置的输出。',
    futureWaiting: '模型建好后（训练之前就可以），这里显示句子每个位置的 logits 在改动 t 之后的字符时最多变了多少。位置 0 到 t 必须严格为 0。',
    tClamped: '这句话有 {n} 个字符，t 最大是 {max}，所以按 t = {max} 比较。',
    unreadable: '模型读不了 {chars}：它们不在训练文本的 {V} 个字符里，已略去。',
    mapped: '按模型认识的字符读：{pairs}。', tooShort: '句子至少要有 2 个模型认识的字符。',
    shortNote: '这段英文短文只有约 3 KB。训练约一千步后，验证损失不再下降、转而上升，而训练损失继续下降：模型在背诵训练文本，这就是过拟合。圆圈标出验证损失最低的时刻。',
    noMaskNote: '遮罩关掉了：每个位置都能看到后面的字符，包括它要预测的下一个。训练损失会迅速降到很低，但这是抄答案，下面的检查会失败。',
    customWaiting: '粘贴文本后点“开始训练”或“重置模型”，模型就按这段文本重建。',
    pyNoModel: '模型建好、页面显示出注意力图和未来字符检查之后，这里才有程序：它复现的是页面上的模型。',
    pyRunning: '训练正在进行：先点“暂停”，程序会复现暂停时的模型。', pyFetching: '正在从训练线程取出模型参数…', loading: '正在准备模型…', loadingText: '正在载入训练文本…', table: '数据表',
  },
  en: {
    blockTitle: 'One block, step by step', layer: 'Layer', head: 'Head (for the Q, K, V, S and A steps)',
    traceWaiting: 'Once the model is built, each step of the chosen layer on the sentence appears here.',
    blockProv: 'Hover over (or tap, or Tab to) a cell of S or A: a panel beside it lists every number the core used to compute it, and the cells it came from are outlined.',
    b_x: 'Block input x', b_ln1: 'h = LN₁(x)', b_q: 'Q of head {h}', b_k: 'K of head {h}', b_v: 'V of head {h}',
    b_qk: 'Head {h}: unscaled Q Kᵀ', b_s: 'Head {h}: S = Q Kᵀ / √hs (before the mask)', b_mask: 'Which positions may be seen: 1 = allowed (M is 0 there), 0 = blocked (M is −∞ there)',
    b_a: 'Head {h}: A = softmax(S + M)', b_y: 'Y: every head’s A V side by side', b_proj: 'Output projection Y W_O + b_O', b_res: "x′ = x + projection (residual)",
    b_ln2: "LN₂(x′)", b_fc: 'MLP, first layer LN₂(x′) W₁ + b₁', b_gelu: 'GELU', b_fcproj: 'MLP, second layer GELU(·) W₂ + b₂', b_out: "Block output x′ + MLP (the next layer’s input)",
    st_x: 'input x', st_ln1: 'LayerNorm 1', st_qkv: 'Q, K, V (per head)', st_qk: 'Q Kᵀ', st_scaled: '÷ √hs', st_mask: '+ mask M', st_a: 'softmax → A',
    st_y: 'Y = A V (heads concatenated)', st_proj: 'output projection', st_res1: 'residual x + ·', st_ln2: 'LayerNorm 2', st_fc: 'MLP: linear', st_gelu: 'MLP: GELU', st_fcproj: 'MLP: linear', st_out: 'residual x′ + ·',
    fb_x: 'x: one row per character (in layer 0 the character embedding plus the position embedding, later the previous layer’s output), shape (T, C)',
    fb_ln1: 'LN₁(x): each row minus its own mean, divided by √(variance + 1e-5), times the gain w, plus the bias b',
    fb_qkv: '[Q | K | V] = LN₁(x) W_qkv + b: one linear map to 3C columns; each head takes its own hs = C / NH of them',
    fb_qk: '(Q Kᵀ)[t, j] = q_t · k_j: query t against key j in the chosen head', fb_scaled: 'S = Q Kᵀ / √hs: divided by the square root of one head’s width hs, not √C',
    fb_mask: 'S + M: M[t, j] = 0 for j ≤ t and −∞ for j > t (with the causal mask off, all 0)',
    fb_a: 'A = softmax(S + M): each row sums to 1, blocked positions get exactly 0',
    fb_y: 'Y = A V: each head gives hs columns; the NH heads side by side make C', fb_proj: 'Y W_O + b_O: mixes the heads’ results back into width C',
    fb_res1: "x′ = x + Y W_O + b_O: attention’s result is added back to the block’s input", fb_ln2: "LN₂(x′): the same normalisation with its own parameters",
    fb_fc: 'LN₂(x′) W₁ + b₁: each position on its own, width 4C', fb_gelu: 'GELU(u) = ½ u (1 + tanh(√(2/π) (u + 0.044715 u³))), element by element',
    fb_fcproj: 'GELU(·) W₂ + b₂: back to width C', fb_out: "x′ + MLP: the block’s output, the input of the next layer (or of the final LayerNorm)",
    source: 'Training text', corpus: 'State of the Union addresses, 1982–2021 (about 1.3 MB)', shipped: 'the short text that ships with the lab (about 3 KB)', custom: 'your own text',
    customLabel: 'Your training text (at least 10 × 33 characters, at most 4 MB)',
    seed: 'Random seed', causal: 'Causal mask (position t sees only positions ≤ t)', start: 'Start training', pause: 'Pause', resetModel: 'Reset the model (back to untrained weights)', temp: 'Sampling temperature',
    step: 'step', time: 'training time', trainLoss: 'training loss', valLoss: 'validation loss', best: 'best validation loss', atStep: 'step {step}', evalEvery: 'Both losses are evaluated every {every} steps (on {batches} batches each) and stay the same in between.', unigram: 'unigram entropy baseline', speed: 'steps / s', tokens: 'characters / s',
    params: 'parameters', vocab: 'vocabulary size V',
    chart: 'Loss (nats)', steps: 'training steps', loss: 'loss',
    trainSeries: 'training loss (solid)', valSeries: 'validation loss (dashed)', baselineSeries: 'unigram baseline (dotted)',
    bestMark: 'best validation {v} (step {step})',
    chartWaiting: 'When training runs, three lines appear here: the loss on the training text (solid), the loss on held-out validation text the model never trains on (dashed), and the unigram baseline of a model that knows only character frequencies (dotted). A ring marks the lowest validation loss.',
    sample: 'The model writes', samplePrompt: 'Prompt', resample: 'Sample again', notStarted: 'Press “Start training”. The model trains in a background thread; the page stays responsive.', workerFailed: 'The training thread could not start: {message}',
    sampleWaiting: 'Once training runs, the model continues this prompt every so often.',
    probe: 'Sentence to inspect', attnTitle: 'Layer {l}, head {h}', futureT: 'Compare up to position t (the characters after t change)',
    attnAxes: 'Attention maps, with the sentence on both axes; each row sums to 1. Hover a cell (or tap it, or Tab to a map and use the arrow keys) to read which character attends to which, and how much; a panel below that layer shows how the core computed the weight: the row\'s scores with the mask, their maximum, every exp and the denominator.',
    attends: "'{a}' attends to '{b}': {v}",
    future: 'Largest change of the logits at each position after changing the future characters', prefix: 'max change in the prefix (≤ t)', exact: 'Exactly 0: the whole two-layer model cannot see the future either.',
    leak: 'The prefix moved: without the mask, future characters leak into earlier outputs.',
    futureWaiting: 'Once the model is built (before any training), this row shows how much the logits at each position of the sentence change when the characters after t are replaced. Positions 0 to t must read exactly 0.',
    tClamped: 'The sentence has {n} characters, so t can be at most {max}; the check uses t = {max}.',
    unreadable: 'The model cannot read {chars}: not among the {V} characters of its training text; left out.',
    mapped: 'Read as characters the model knows: {pairs}.', tooShort: 'The sentence needs at least 2 characters the model knows.',
    shortNote: 'This text is only about 3 KB. After about a thousand steps the validation loss stops falling and climbs again while the training loss keeps falling: the model is memorizing its training text. That is overfitting; the ring marks the best validation point.',
    noMaskNote: 'The mask is off: every position sees the characters after it, including the very one it must predict. The training loss drops fast, but by copying the answer; the check below fails.',
    customWaiting: 'Paste your text, then press “Start training” or “Reset the model” to build the model on it.',
    pyNoModel: 'The program appears once the model is built and the page shows its attention maps and future check: it reproduces the model on the page.',
    pyRunning: 'Training is running: press “Pause”, and the program will reproduce the paused model.', pyFetching: 'Fetching the parameters from the training worker…', loading: 'Preparing the model…', loadingText: 'Loading the training text…', table: 'Data table',
  },
};

// Characters a student may type that the text spells differently (ASCII vs full-width punctuation).
const ALTERNATIVES = { ',': '，', '.': '。', '?': '？', '!': '！', ';': '；', ':': '：', '(': '（', ')': '）' };
for (const [a, b] of Object.entries({ ...ALTERNATIVES })) ALTERNATIVES[b] = a;
const shown = (c) => (c === ' ' ? '␣' : c === '\n' ? '↵' : c);

/** The part of `text` the model can read: other case or width where that is known, the rest left out. */
export function readable(text, vocab) {
  const out = [], mapped = new Map(), missing = new Set();
  for (const c of text) {
    const alt = vocab.has(c) ? c : [c.toLowerCase(), c.toUpperCase(), ALTERNATIVES[c]].find((a) => a && vocab.has(a));
    if (alt) out.push(alt);
    else missing.add(c);
    if (alt && alt !== c) mapped.set(c, alt);
  }
  return { text: out.join(''), mapped, missing };
}

// The step-through of one block: the figures (data-name) each stage reads and makes, and its formula
// in the lesson (TeX source). Every tensor is from the model's forward pass (model.blockTrace).
const LESSON_IN = (tex) => tex.includes('W_{qkv}'), LESSON_ATTN = (tex) => tex.includes('softmax'), LESSON_MLP = (tex) => tex.includes('GELU');
const STAGES = [
  { id: 'x', reads: [], makes: ['b-x'], tex: LESSON_IN },
  { id: 'ln1', reads: ['b-x'], makes: ['b-ln1'], tex: LESSON_IN },
  { id: 'qkv', reads: ['b-ln1'], makes: ['b-q', 'b-k', 'b-v'], tex: LESSON_IN },
  { id: 'qk', reads: ['b-q', 'b-k'], makes: ['b-qk'], tex: LESSON_ATTN },
  { id: 'scaled', reads: ['b-qk'], makes: ['b-s'], tex: LESSON_ATTN },
  { id: 'mask', reads: ['b-s'], makes: ['b-mask'], tex: LESSON_ATTN },
  { id: 'a', reads: ['b-s', 'b-mask'], makes: ['b-a'], tex: LESSON_ATTN },
  { id: 'y', reads: ['b-a', 'b-v'], makes: ['b-y'], tex: LESSON_ATTN },
  { id: 'proj', reads: ['b-y'], makes: ['b-proj'], tex: LESSON_ATTN },
  { id: 'res1', reads: ['b-x', 'b-proj'], makes: ['b-res'], tex: LESSON_ATTN },
  { id: 'ln2', reads: ['b-res'], makes: ['b-ln2'], tex: LESSON_MLP },
  { id: 'fc', reads: ['b-ln2'], makes: ['b-fc'], tex: LESSON_MLP },
  { id: 'gelu', reads: ['b-fc'], makes: ['b-gelu'], tex: LESSON_MLP },
  { id: 'fcproj', reads: ['b-gelu'], makes: ['b-fcproj'], tex: LESSON_MLP },
  { id: 'out', reads: ['b-res', 'b-fcproj'], makes: ['b-out'], tex: LESSON_MLP },
];

export default {
  strings,
  state: [
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'source', type: 'enum', options: ['corpus', 'shipped', 'custom'], default: 'corpus' },
    { key: 'causal', type: 'bool', default: true },
    { key: 'temp', type: 'number', min: 0.1, max: 2, default: 0.8 },
    { key: 'prompt', type: 'text', maxLength: 32, default: '' },   // '' : the text's example
    { key: 'probe', type: 'text', maxLength: 32, default: '' },    // '' : the text's example
    { key: 't', type: 'int', min: 0, max: 30, default: 6 },
    { key: 'stage', type: 'enum', options: ['off', ...STAGES.map((st) => st.id)], default: 'off', worksheet: false },   // a view, not an input
    { key: 'layer', type: 'int', min: 0, max: MODEL.layers - 1, default: 0, worksheet: false },   // the step-through's view
    { key: 'head', type: 'int', min: 0, max: MODEL.heads - 1, default: 0, worksheet: false },
  ],
  build(ctx) {
    const { t, lang } = ctx;
    const history = new LossHistory();
    // what the worker has told us so far; `v` counts changes so paint() redraws only what changed
    const live = { config: null, vocab: null, progress: null, sample: '', attention: null, future: null, trace: null, error: null,
      ready: false, running: false, wantRun: false, pending: 0, loadingText: false, v: { history: 0, sample: 0, attention: 0, future: 0, trace: 0, mapTrace: 0 } };
    const painted = {};
    let worker = null, customText = '', builtCustom = null, modelKey = null;
    const texts = {};   // corpus text once loaded
    const send = (type, fields) => worker.postMessage(message(REQUESTS, type, fields));
    const example = (key) => (ctx.state.source === 'corpus' ? EXAMPLES.corpus[lang] : EXAMPLES.shipped)[key];

    const onReply = dispatcher(REPLIES, {
      ready() { live.ready = true; ensureModel(ctx.state.source !== 'custom' || live.wantRun); },
      model(m) {
        if (--live.pending > 0) return;   // a newer reset is on its way
        live.error = null;
        live.config = m.config;
        live.vocab = new Set(m.config.chars);
        history.clear();
        history.add(m.point);
        live.v.history += 1;
        live.progress = null;
        live.sample = '';
        live.v.sample += 1;
        live.trace = null;
        live.v.trace += 1;
        live.attention = null;
        mapTraces.clear();
        models += 1;
        inspect();
        if (live.wantRun) { live.running = true; send('start', { until: null }); }
      },
      progress(m) {
        if (live.pending) return;   // from the model being replaced
        live.progress = m;
        if (m.point) { history.add(m.point); live.v.history += 1; }
        if (m.due) { requestSample(); inspect(); }
      },
      paused() {
        // The worker's acknowledgement of "pause", or of reaching a `start`'s `until`. The page's state
        // changed when it sent "pause", and its own `start` asks for no `until`, so nothing to do:
        // acting here would stop the page's Start pressed while a Pause was still on its way.
      },
      sample(m) { live.sample = m.text; live.v.sample += 1; },
      attention(m) { live.attention = m; live.v.attention += 1; mapTraces.clear(); },
      future(m) { live.future = m; live.v.future += 1; },
      trace(m) {
        // the step-through's layer, and (the same reply can serve both) a layer of the maps on screen
        if (m.layer === ctx.state.layer) { live.trace = m; live.v.trace += 1; }
        if (onMaps(m)) { mapTraces.set(m.layer, m); live.v.mapTrace += 1; }
      },
      parameters(m) { live.params = { ...m, config: live.config }; },
      error(m) {
        live.error = Object.assign(new Error(m.message), m.code ? { code: m.code, params: m.params } : {});   // rendered by messages.js
        if (m.request === 'reset') { live.pending = Math.max(0, live.pending - 1); live.config = null; live.running = false; }
      },
    });

    function startWorker() {
      if (worker) return;
      worker = new TrainWorker();
      worker.onerror = (e) => { live.error = new Error(t('workerFailed', { message: e.message || '' })); ctx.refresh(); };
      worker.onmessage = ({ data }) => {
        if (data.type !== 'error' && data.type !== 'progress' && data.type !== 'paused') live.error = null;
        onReply(data);
        ctx.refresh();
      };
      // A compiled module can be shared with a worker of the same origin; a page opened from disk
      // (the single-file build) has an opaque origin, so its worker gets the bytes instead.
      if (self.origin !== 'null') send('init', { module: ctx.coreModule, bytes: null });
      else {
        fetch(coreUrl()).then((r) => r.arrayBuffer()).then((bytes) => worker.postMessage(message(REQUESTS, 'init', { module: null, bytes }), [bytes]))
          .catch((e) => { live.error = e; ctx.refresh(); });
      }
    }

    async function text(source) {
      if (source === 'custom') return customText;
      if (source === 'shipped') return ctx.resources.trainText;
      if (!texts[lang]) {
        live.loadingText = true;
        ctx.refresh();
        try {
          texts[lang] = (await CORPUS[lang]()).default;
        } finally {
          live.loadingText = false;
        }
      }
      return texts[lang];
    }

    const keyOf = (s) => JSON.stringify([s.source, s.seed, s.causal]);
    /**
     * Build the model for the current text, seed and mask: again if `force`, else only if one of
     * them changed (your own text is built only on request: Start or Reset).
     */
    async function ensureModel(force = false) {
      startWorker();
      const s = ctx.state, key = keyOf(s);
      if (!live.ready) { if (s.source === 'corpus') text('corpus').catch(() => {}); return; }   // `ready` calls again
      if (!force && (key === modelKey || s.source === 'custom')) return;
      modelKey = key;
      live.running = false;
      live.pending += 1;
      try {
        const body = await text(s.source);
        if (key !== modelKey) { live.pending -= 1; return; }   // superseded while loading
        builtCustom = s.source === 'custom' ? body : null;
        send('reset', { text: body, options: { ...MODEL, seed: s.seed, causal: s.causal } });
      } catch (e) {
        live.pending -= 1;
        live.error = e;
        ctx.refresh();
      }
    }

    function requestSample() {
      if (!live.vocab) return;
      const p = readable(ctx.state.prompt || example('prompt'), live.vocab).text;
      send('sample', { prompt: p, length: SAMPLE_LENGTH, temperature: ctx.state.temp, seed: live.progress?.step ?? 0 });
    }
    /** The sentence as the model reads it, and the t it is checked at. */
    function probeText() {
      const r = readable(ctx.state.probe || example('probe'), live.vocab);
      r.text = [...r.text].slice(0, MODEL.tMax).join('');
      const n = [...r.text].length;
      return { ...r, n, t: Math.max(0, Math.min(ctx.state.t, n - 2)) };
    }
    function inspect() {
      if (!live.vocab) return;
      const p = probeText();
      if (p.n < 2) return;
      send('attention', { text: p.text });
      send('future', { text: p.text, t: p.t, seed: FUTURE_SEED });
      requestTrace();
    }
    /** The step-through's block on the sentence, asked of the worker only while the step-through is on. */
    let traceAsked = null, models = 0;
    function requestTrace() {
      if (!live.vocab || ctx.state.stage === 'off') return;
      const p = probeText(), key = JSON.stringify([p.text, ctx.state.layer, models, live.progress?.step ?? 0]);
      if (p.n < 1 || key === traceAsked) return;
      traceAsked = key;
      send('trace', { text: p.text, layer: ctx.state.layer });
    }
    // The small maps explain themselves with the same kernel: a map's layer traced on the maps' own
    // sentence by the model that drew them (asked when a cell of that layer is pointed at, kept until
    // the maps are drawn again; a trace of a model that trained on since is not theirs and is dropped).
    const mapTraces = new Map();   // layer -> trace reply for the maps on screen
    let mapsAsked = new Set();     // the layers asked for the maps on screen
    let mapsAskedFor = null;
    const onMaps = (m) => !!live.attention && m.text === live.attention.text && m.step === live.attention.step && !live.pending;
    function mapTrace(l) {
      if (mapTraces.has(l)) return mapTraces.get(l).trace;
      if (mapsAskedFor !== live.attention) { mapsAskedFor = live.attention; mapsAsked = new Set(); }
      if (live.attention && !mapsAsked.has(l)) { mapsAsked.add(l); send('trace', { text: live.attention.text, layer: l }); }
      throw new Error(`layer ${l}'s trace is on its way`);   // the panel follows when it arrives (paint)
    }

    const source = ctx.choice('source');
    const area = h('textarea.custom-text', { rows: 5, 'aria-label': t('customLabel'), 'data-name': 'customText',
      oninput: () => { customText = area.value; } });
    const areaWrap = h('label.control.textarea', {}, t('customLabel'), area);
    const seed = ctx.integer('seed');
    const causal = ctx.toggle('causal', { onChange: (v) => { ctx.set({ causal: v }); ensureModel(); } });
    const startBtn = button({ label: t('start'), onClick: () => {
      live.wantRun = true;
      const stale = !live.config || (ctx.state.source === 'custom' && customText !== builtCustom);
      if (!stale && !live.pending) { live.running = true; send('start', { until: null }); }
      else if (!live.pending) ensureModel(true);   // the model arrives, then starts
      ctx.refresh();
    } });
    startBtn.dataset.name = 'start';
    const pauseBtn = button({ label: t('pause'), onClick: () => { live.wantRun = false; live.running = false; send('pause'); inspect(); requestSample(); ctx.refresh(); } });
    pauseBtn.dataset.name = 'pause';
    const resetBtn = button({ label: t('resetModel'), onClick: () => { live.wantRun = false; ensureModel(true); ctx.refresh(); } });
    resetBtn.dataset.name = 'reset-model';
    const statKeys = ['step', 'time', 'trainLoss', 'valLoss', 'best', 'unigram', 'speed', 'tokens', 'params', 'vocab'];
    const statClass = { trainLoss: 'train-loss', valLoss: 'val-loss', best: 'best-loss' };
    const statValues = Object.fromEntries(statKeys.map((k) => [k, h('dd', { class: statClass[k] ?? k })]));
    const stats = h('dl.readout.train-stats', { 'data-name': 'stats' }, statKeys.flatMap((k) => [h('dt', {}, t(k)), statValues[k]]));
    const chart = lineChart({ t, name: 'loss', label: t('chart') });
    const notes = h('p.note.train-note', { 'data-name': 'train-note' });
    const temp = ctx.slider('temp', { step: 0.1, format: (v) => v.toFixed(1), onChange: (v) => { ctx.set({ temp: v }); requestSample(); } });
    const prompt = h('input', { type: 'text', maxlength: 32, 'data-name': 'prompt', 'aria-label': t('samplePrompt'),
      oninput: () => { ctx.set({ prompt: prompt.value.replace(/[\u0000-\u001f]/g, '') }); } });
    const resample = button({ label: t('resample'), onClick: () => requestSample() });
    const sampleOut = h('pre.sample', { 'aria-live': 'polite', 'data-name': 'sample' });
    const probe = h('input', { type: 'text', maxlength: 32, 'data-name': 'probe', 'aria-label': t('probe'),
      oninput: () => { ctx.set({ probe: probe.value.replace(/[\u0000-\u001f]/g, '') }); inspect(); } });
    const probeNote = h('p.note.probe-note', { 'data-name': 'probe-note', 'aria-live': 'polite' });
    const tField = ctx.integer('t', { label: t('futureT'), onChange: (v) => { ctx.set({ t: v }); inspect(); } });
    const future = heatmap({ t, name: 'future', label: t('future'), names: ['T'], digits: 3 });
    const futureOut = h('dl.readout', { 'data-name': 'future' });
    const verdict = h('p.verdict', { 'data-name': 'verdict' });
    const futureWaiting = h('p.note.waiting', { 'data-name': 'future-waiting' }, t('futureWaiting'));
    // the maps of every layer and head, a row per layer (the explanation opens below the row pointed at)
    const mapWidgets = new Map();
    const maps = h('div.attn-maps', {}, Array.from({ length: MODEL.layers }, (_, l) => h('div.row.attn-layer', {},
      Array.from({ length: MODEL.heads }, (_, hd) => {
        const w = heatmap({ t, name: `attn-${l}-${hd}`, label: t('attnTitle', { l, h: hd }), names: ['T', 'T'], weights: true, digits: 3, compact: true,
          axes: 'self', tableUpTo: MODEL.tMax * MODEL.tMax });
        w.el.hidden = true;   // until the model has drawn it
        mapWidgets.set(`${l}-${hd}`, { w, l, hd });
        return w.el;
      }))));
    const status = h('p.note.train-status', { role: 'status' });
    // the step-through of one block: every figure a stage reads or makes, shown while its stage is current
    const T2 = MODEL.tMax * MODEL.tMax;   // T x T figures stay tables (cells to point at) up to T = tMax
    const fig = (key, names, o = {}) => heatmap({ t, name: `b-${key}`, label: t(`b_${key}`, { h: 0 }), names, ...o });
    const block = {
      x: fig('x', ['T', 'C']), ln1: fig('ln1', ['T', 'C']), q: fig('q', ['T', 'hs']), k: fig('k', ['T', 'hs']), v: fig('v', ['T', 'hs']),
      qk: fig('qk', ['T', 'T'], { axes: 'self', tableUpTo: T2 }), s: fig('s', ['T', 'T'], { axes: 'self', tableUpTo: T2 }),
      mask: fig('mask', ['T', 'T'], { axes: 'self', weights: true, digits: 0, tableUpTo: T2 }),
      a: fig('a', ['T', 'T'], { axes: 'self', weights: true, tableUpTo: T2 }),
      y: fig('y', ['T', 'C']), proj: fig('proj', ['T', 'C']), res: fig('res', ['T', 'C']), ln2: fig('ln2', ['T', 'C']),
      fc: fig('fc', ['T', '4C']), gelu: fig('gelu', ['T', '4C']), fcproj: fig('fcproj', ['T', 'C']), out: fig('out', ['T', 'C']),
    };
    const layerField = ctx.integer('layer', { onChange: (v) => { ctx.set({ layer: v }); requestTrace(); } });
    const headField = ctx.integer('head');
    const steps = stepper({ t, stages: STAGES.map((st) => ({ ...st, label: t(`st_${st.id}`), formula: t(`fb_${st.id}`) })),
      onChange: (stage) => ctx.set({ stage }), name: t('blockTitle') });   // 18.3 has the other stepper
    const traceWaiting = h('p.note.waiting', { 'data-name': 'trace-waiting' }, t('traceWaiting'));
    steps.extra.append(traceWaiting, ...Object.values(block).map((w) => w.el));
    // pointing at a cell of A (or S) explains it with the core's arithmetic: the lab's sdpa on the
    // traced head's q and k, which is the kernel the model's attention runs (the same bits)
    const headOf = (tr, name, hd) => tensor(matrixAt(tr[name], hd));
    const prov = provenance({ lang, core: ctx.core, fn: 'sdpa',
      inputs: (st) => { const tr = live.trace.trace; return { q: headOf(tr, 'q', st.head), k: headOf(tr, 'k', st.head), v: headOf(tr, 'v', st.head), causal: live.config.causal }; },
      sources: { q: block.q, k: block.k, v: block.v, scores: block.s, mask: block.mask, weights: block.a },
      targets: [{ quantity: 'weights', widget: block.a, at: (i, j) => [i, j] }, { quantity: 'scores', widget: block.s, at: (i, j) => [i, j] },
        // A[t, j] of a small map: its layer's trace, its head (only the map itself is drawn of its inputs)
        ...[...mapWidgets.values()].map(({ w, l, hd }) => ({ quantity: 'weights', widget: w, at: (i, j) => [i, j], sources: { weights: w },
          inputs: () => { const tr = mapTrace(l); return { q: headOf(tr, 'q', hd), k: headOf(tr, 'k', hd), v: headOf(tr, 'v', hd), causal: live.config.causal }; } })),
        // the mask's map shows 1 where M is 0 (allowed) and 0 where M is −∞
        { quantity: 'mask', widget: block.mask, note: (i, j, st, shown) => [`M[${i},${j}] = ${shown === 0 ? '−∞' : '0'}`, 'provMaskCell'] }],
      plain: Object.entries(block).filter(([key]) => !['a', 's', 'mask'].includes(key)).map(([, w]) => w),
      scale: (e) => ({ sym: '· 1/√hs', num: `· 1/√${e.terms.length}` }) });
    const provNote = h('p.note.block-prov', {}, t('blockProv'));
    steps.extra.append(provNote, prov.el);
    ctx.lab.append(
      h('div.controls', {}, source.el, seed.el, causal.el), areaWrap,
      h('div.controls', {}, startBtn, pauseBtn, resetBtn), status, notes, stats, h('p.note.eval-every', {}, t('evalEvery', { every: EVAL_EVERY, batches: EVAL_BATCHES })), chart.el,
      h('div.controls', {}, h('label.control', {}, t('samplePrompt'), ' ', prompt), temp.el, resample), h('h3', {}, t('sample')), sampleOut,
      h('div.controls', {}, h('label.control', {}, t('probe'), ' ', probe), tField.el), probeNote,
      futureWaiting, future.el, futureOut, verdict, h('p.note.attn-axes', {}, t('attnAxes')), maps,
      h('h3', {}, t('blockTitle')), h('div.controls', {}, layerField.el, headField.el), steps.el);
    // the panel moves below the map pointed at; show it there whatever the step-through's stage
    for (const ev of ['mouseover', 'click', 'focusin']) maps.addEventListener(ev, () => showStage(ctx.state));
    chart.note(t('chartWaiting'));
    // Build the model (not train it) once the student scrolls near 18.8: the chart, the check and the
    // maps then show the untrained model instead of empty boxes. The corpus loads only then.
    if (typeof IntersectionObserver === 'function') {
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); ensureModel(); }
      }, { rootMargin: '200px' });
      io.observe(ctx.lab);
    }

    function paintChart(config) {
      const pts = history.points();
      const series = (k) => pts.map((p) => [p.step, p[k]]);
      const best = history.best;
      chart.set({ xLabel: t('steps'), yLabel: t('loss'), tableLabel: t('table'), yZero: false, series: [
        { name: t('trainSeries'), points: series('train'), dash: 'solid' },
        { name: t('valSeries'), points: series('val'), dash: 'dashed' },
      ], hlines: [{ name: t('baselineSeries'), y: config.unigramEntropy, dash: 'dotted' }],
      marks: history.count > 1 ? [{ x: best.step, y: best.val, series: 1, label: t('bestMark', { v: fmt(best.val, 3), step: best.step }) }] : [] });
      chart.note(history.count > 1 ? null : t('chartWaiting'));
    }

    function paintProbe(r) {
      const p = probeText();
      const lines = [];
      if (p.missing.size) lines.push(t('unreadable', { chars: [...p.missing].map((c) => `“${shown(c)}”`).join(' '), V: r.config.vocab }));
      if (p.mapped.size) lines.push(t('mapped', { pairs: [...p.mapped].map(([a, b]) => `${shown(a)} → ${shown(b)}`).join(', ') }));
      if (p.n < 2) lines.push(t('tooShort'));
      else if (p.t !== ctx.state.t) lines.push(t('tClamped', { n: p.n, max: p.t }));
      probeNote.textContent = lines.join(' ');
      probeNote.classList.toggle('bad', p.missing.size > 0 || p.n < 2);
    }

    return {
      destroy() { steps.stop(); worker?.terminate(); worker = null; live.running = false; },
      sync(s) {
        steps.set(s.stage);
        showStage(s);
        requestTrace();
        // the text, seed or mask changed (a control, or the section's reset): rebuild the model
        if (live.ready && keyOf(s) !== modelKey && s.source !== 'custom') queueMicrotask(() => ensureModel());
        areaWrap.hidden = s.source !== 'custom';
        const shownPrompt = s.prompt || example('prompt'), shownProbe = s.probe || example('probe');
        if (prompt.value !== shownPrompt && document.activeElement !== prompt) prompt.value = shownPrompt;
        if (probe.value !== shownProbe && document.activeElement !== probe) probe.value = shownProbe;
      },
      // Everything shown here was computed by the core in the worker; this only passes it on.
      compute(s, c) {
        if (live.error) throw live.error;
        // the step-through also shows the chosen head's Q Kᵀ before the scale (the lab's sdpa with
        // scale 'none', as in 18.3) and the mask M, both from the core
        const tr = live.trace?.trace;
        if (s.stage !== 'off' && tr) {
          const key = `${live.v.trace} ${s.head}`;
          if (live.block?.key !== key) {
            const T = tr.scores.shape[1];
            live.block = { key, unscaled: c.sdpa(headOf(tr, 'q', s.head), headOf(tr, 'k', s.head), headOf(tr, 'v', s.head), { scale: 'none' }).scores,
              mask: c.maskMatrix(T, T, { causal: live.config.causal }) };
          }
        }
        return live;
      },
      paint(r, s) {
        status.textContent = live.loadingText ? t('loadingText') : !worker ? t('notStarted') : r.pending || (!r.config && s.source !== 'custom') ? t('loading')
          : s.source === 'custom' && customText !== builtCustom ? t('customWaiting') : '';
        startBtn.disabled = r.running;
        pauseBtn.disabled = !r.running;
        notes.textContent = [s.source === 'shipped' ? t('shortNote') : '', s.causal ? '' : t('noMaskNote')].filter(Boolean).join(' ');
        notes.hidden = !notes.textContent;
        if (!r.config) return;
        const p = r.progress, last = history.last, best = history.best;
        const values = {
          step: String(p?.step ?? 0), time: `${Math.round(p?.seconds ?? 0)} s`, trainLoss: fmt(last.train, 4), valLoss: fmt(last.val, 4),
          best: history.count > 1 ? `${fmt(best.val, 4)} (${t('atStep', { step: best.step })})` : '', unigram: fmt(r.config.unigramEntropy, 4),
          speed: p ? p.stepsPerSec.toFixed(1) : '', tokens: p ? Math.round(p.tokensPerSec).toLocaleString() : '',
          params: r.config.params.toLocaleString(), vocab: String(r.config.vocab),
        };
        for (const k of statKeys) if (statValues[k].textContent !== values[k]) statValues[k].textContent = values[k];
        // the rest only when it changed: samples, maps and the check arrive far less often than the loss
        const configChanged = painted.config !== r.config;
        const changed = (key) => { const c = configChanged || painted[key] !== r.v[key]; painted[key] = r.v[key]; return c; };
        if (changed('history')) paintChart(r.config);
        if (changed('sample')) sampleOut.textContent = r.sample || t('sampleWaiting');
        const probeKey = JSON.stringify([s.probe, s.t, r.v.future]);
        if (painted.probe !== probeKey || configChanged) { painted.probe = probeKey; paintProbe(r); }
        if (changed('future') && r.future) {
          const f = r.future.result;
          futureWaiting.hidden = true;
          future.set([f.perPosition], { shape: [f.perPosition.length], colLabels: [...r.future.text].map(shown),
            rowLabels: ['max |Δ|'], highlightCols: new Set(Array.from({ length: r.future.t + 1 }, (_, i) => i)) });
          const exact = f.maxPrefixChange === 0;
          futureOut.replaceChildren(h('dt', {}, t('prefix')), h('dd.prefix', { 'data-value': String(f.maxPrefixChange) }, fmtErr(f.maxPrefixChange)));
          verdict.textContent = t(exact ? 'exact' : 'leak');
          verdict.className = `verdict ${exact ? 'good' : 'bad'}`;
        }
        let explain = changed('mapTrace');
        if (changed('attention') && r.attention) { paintMaps(r.attention); explain = true; }
        if (s.stage !== 'off' && r.trace && r.block && painted.block !== r.block.key) {
          painted.block = r.block.key;
          paintBlock(r.trace, r.block, s.head);
          explain = true;
        }
        if (explain) prov.update(s);   // the panel follows the numbers on screen (and may move to them)
        showStage(s);
        painted.config = r.config;
      },
      // The model on screen as PyTorch: its parameters (about 100,000 numbers) as a file, asked of the
      // worker when the program is wanted; the sentence and t as literals.
      pytorch() {
        const { attention: att, future: fut, config: cfg } = live;
        if (!cfg || !att || !fut || live.pending) return { note: t('pyNoModel') };
        if (live.running) return { note: t('pyRunning') };
        const step = fut.step;
        if (att.step !== step || live.params?.step !== step || live.params.config !== cfg) {
          if (live.asked?.config !== cfg || live.asked.step !== step) { live.asked = { config: cfg, step }; send('parameters'); }
          return { note: t('pyFetching') };
        }
        const file = `attention-lab-gpt-seed${cfg.seed}-step${step}.json`;
        const { params } = live.params;
        return { code: PROGRAMS['18.8'](ctx.state, { config: cfg, step, attention: att, future: fut, futureSeed: FUTURE_SEED, file }, lang),
          files: [{ name: file, bytes: () => JSON.stringify({ format: 'attention-lab-gpt', step, chars: cfg.chars, params: Array.from(params),
            config: { vocab: cfg.vocab, C: cfg.C, heads: cfg.heads, layers: cfg.layers, tMax: cfg.tMax, seed: cfg.seed, causal: cfg.causal } }) }] };
      },
    };

    /** The figures the current stage reads and makes, and nothing else of the block. */
    function showStage(s) {
      const stage = STAGES.find((st) => st.id === s.stage), names = stage ? [...stage.reads, ...stage.makes] : [];
      for (const [key, w] of Object.entries(block)) w.el.hidden = !live.trace || !names.includes(`b-${key}`);
      traceWaiting.hidden = !stage || !!live.trace;
      // the explanation only where a cell of S or A can be pointed at, or below a small map
      provNote.hidden = !live.trace || !names.some((n) => n === 'b-s' || n === 'b-a');
      prov.el.hidden = provNote.hidden && !maps.contains(prov.el);
    }

    function paintBlock({ text: sentence, trace: tr }, { unscaled, mask }, hd) {
      const chars = [...sentence].map(shown);
      const T = chars.length;
      const rows = (w, m, o = {}) => w.set(m, { rowLabels: chars, ...o });
      const tt = { shape: [T, T], colLabels: chars };
      for (const key of ['x', 'ln1', 'y', 'proj', 'res', 'ln2', 'fc', 'gelu', 'fcproj', 'out']) {
        const name = { x: 'input', y: 'heads', res: 'residual' }[key] ?? key;
        rows(block[key], matrixAt(tr[name]), { shape: tr[name].shape });
      }
      for (const key of ['q', 'k', 'v']) rows(block[key], matrixAt(tr[key], hd), { shape: tr[key].shape.slice(1), label: t(`b_${key}`, { h: hd }) });
      rows(block.qk, matrixAt(unscaled), { ...tt, label: t('b_qk', { h: hd }) });
      rows(block.s, matrixAt(tr.scores, hd), { ...tt, label: t('b_s', { h: hd }) });
      rows(block.mask, matrixAt(mask), tt);
      rows(block.a, matrixAt(tr.weights, hd), { ...tt, label: t('b_a', { h: hd }) });
      // on each stage's arrow, the shape of the tensor it hands on, read from the arrays the core returned
      const sh = shapeText, cT = ['T', 'C'];
      steps.shapes({ x: sh(cT, tr.input.shape), ln1: sh(cT, tr.ln1.shape), qkv: sh(['NH', 'T', 'hs'], tr.q.shape),
        qk: sh(['T', 'T'], unscaled.shape), scaled: sh(['T', 'T'], tr.scores.shape.slice(1)), mask: sh(['T', 'T'], mask.shape),
        a: sh(['T', 'T'], tr.weights.shape.slice(1)), y: sh(cT, tr.heads.shape), proj: sh(cT, tr.proj.shape), res1: sh(cT, tr.residual.shape),
        ln2: sh(cT, tr.ln2.shape), fc: sh(['T', '4C'], tr.fc.shape), gelu: sh(['T', '4C'], tr.gelu.shape), fcproj: sh(cT, tr.fcproj.shape),
        out: sh(cT, tr.out.shape) });
    }

    function paintMaps(a) {
      const chars = [...a.text].map(shown);
      for (const { w, l, hd } of mapWidgets.values()) {
        w.el.hidden = false;
        w.set(matrixAt(a.maps[l], hd), { rowLabels: chars, colLabels: chars,
          cellLabel: (i, j, v) => t('attends', { a: chars[i], b: chars[j], v }) });
      }
    }
  },
};
