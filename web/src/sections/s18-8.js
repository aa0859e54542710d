// 18.8 A two-layer character GPT: the future-character check on a real model, and training it
// live. The model lives in a Web Worker (train-worker.js) that shares the page's compiled core;
// this controller sends it requests and draws what comes back.
import TrainWorker from '../train-worker.js?worker&inline';
import { heatmap } from '../widgets/heatmap.js';
import { lineChart } from '../widgets/chart.js';
import { choice, readout, button } from '../widgets/controls.js';
import { h } from '../widgets/dom.js';
import { matrixAt } from '../tensors.js';
import { fmt, fmtErr } from '../format.js';
import { coreUrl } from '../../../wasm/js/index.js';
import { comment, header, program, say, show, pyCoreRng, pyString } from '../../../wasm/js/pytorch-format.js';

const strings = {
  zh: {
    source: '训练文本', shipped: '随实验室附带的短文（约 3 KB）', custom: '自己粘贴的文本', customLabel: '你的训练文本（至少 10 × 33 个字符，最多 200 KB）',
    seed: '随机种子', start: '开始训练', pause: '暂停', reset: '重置模型', temp: '采样温度',
    step: '步数', trainLoss: '训练损失', valLoss: '验证损失', unigram: '一元熵基线', speed: '步 / 秒', tokens: '字符 / 秒', params: '参数个数',
    chart: '损失曲线（nats）', steps: '训练步数', loss: '损失', baseline: '一元熵（只看字符频率）',
    sample: '模型续写', samplePrompt: '开头', resample: '重新采样', notStarted: '点“开始训练”。模型在后台线程里训练，页面不会卡。',
    probe: '检查用的句子', attnTitle: '第 {l} 层第 {h} 个头的注意力', futureT: '比较到位置 t（改动 t 之后的字符）',
    future: '改动未来字符后，每个位置 logits 的最大变化', prefix: '前缀 (≤ t) 最大变化', exact: '严格为 0：完整的两层模型也看不到未来。',
    leak: '前缀变了：未来的字符漏进了过去的输出。', table: '数据表', loading: '正在准备模型…',
    pyNoModel: '先点“重置模型”或“开始训练”：程序复现的是页面上已有的模型。',
    pyRunning: '训练正在进行：先暂停，程序会复现暂停时的模型。', pyFetching: '正在从训练线程取出模型参数…',
  },
  en: {
    source: 'Training text', shipped: 'the short text that ships with the lab (about 3 KB)', custom: 'your own text', customLabel: 'Your training text (at least 10 × 33 characters, at most 200 KB)',
    seed: 'Random seed', start: 'Start training', pause: 'Pause', reset: 'Reset the model', temp: 'Sampling temperature',
    step: 'step', trainLoss: 'training loss', valLoss: 'validation loss', unigram: 'unigram entropy baseline', speed: 'steps / s', tokens: 'characters / s', params: 'parameters',
    chart: 'Loss (nats)', steps: 'training steps', loss: 'loss', baseline: 'unigram entropy (letter frequencies only)',
    sample: 'The model writes', samplePrompt: 'Prompt', resample: 'Sample again', notStarted: 'Press “Start training”. The model trains in a background thread; the page stays responsive.',
    probe: 'Sentence to inspect', attnTitle: 'Layer {l}, head {h}', futureT: 'Compare up to position t (the characters after t change)',
    future: 'Largest change of the logits at each position after changing the future characters', prefix: 'max change in the prefix (≤ t)', exact: 'Exactly 0: the whole two-layer model cannot see the future either.',
    leak: 'The prefix moved: future characters leaked into earlier outputs.', table: 'Data table', loading: 'Preparing the model…',
    pyNoModel: 'Reset the model or start training first: the program reproduces a model the page has.',
    pyRunning: 'Training is running: pause it, and the program will reproduce the paused model.', pyFetching: 'Fetching the parameters from the training worker…',
  },
};

const MODEL = { C: 48, heads: 4, layers: 2, tMax: 32, batch: 8, lr: 3e-3 };
const FUTURE_SEED = 1;   // the future-character check's replacement characters

export default {
  strings,
  state: [
    { key: 'seed', type: 'int', min: 0, max: 9999, default: 1 },
    { key: 'source', type: 'enum', options: ['shipped', 'custom'], default: 'shipped' },
    { key: 'temp', type: 'number', min: 0.1, max: 2, default: 0.8 },
    { key: 'prompt', type: 'text', maxLength: 32, default: 'the ' },
    { key: 'probe', type: 'text', maxLength: 32, default: 'the cat sat on the mat' },
    { key: 't', type: 'int', min: 0, max: 30, default: 6 },
  ],
  build(ctx) {
    const { t } = ctx;
    // what the worker has told us so far
    const live = { ready: false, config: null, history: [], progress: null, sample: '', attention: null, future: null, error: null, running: false };
    let worker = null;
    let customText = '';
    const send = (msg) => worker?.postMessage(msg);

    function startWorker() {
      if (worker) return;
      worker = new TrainWorker();
      worker.onerror = (e) => { live.error = `the training worker failed: ${e.message || 'it could not start'}`; ctx.refresh(); };
      worker.onmessage = ({ data: m }) => {
        if (m.type === 'ready') { live.ready = true; reset(); return; }
        if (m.type === 'error') {
          live.error = m.message;
          if (m.request === 'reset') { live.config = null; live.running = false; }
        } else live.error = null;
        if (m.type === 'model') {
          live.config = m.config;
          live.history = m.history;
          live.progress = null;
          inspect();
          if (live.startWhenReady) { live.startWhenReady = false; live.running = true; send({ type: 'start' }); }
        }
        if (m.type === 'progress') {
          live.progress = m;
          if (m.history) live.history = m.history;
          if (m.sampleDue) { requestSample(); inspect(); }
        }
        if (m.type === 'sample') live.sample = m.text;
        if (m.type === 'attention') live.attention = m;
        if (m.type === 'future') live.future = m;
        if (m.type === 'parameters') live.params = m;
        ctx.refresh();
      };
      // A compiled module can be shared with a worker of the same origin; a page opened from disk
      // (the single-file build) has an opaque origin, so its worker gets the bytes instead.
      if (self.origin !== 'null') worker.postMessage({ type: 'init', module: ctx.coreModule });
      else {
        fetch(coreUrl()).then((r) => r.arrayBuffer()).then((bytes) => worker.postMessage({ type: 'init', bytes }, [bytes]))
          .catch((e) => { live.error = e.message; ctx.refresh(); });
      }
    }
    const options = () => ({ ...MODEL, seed: ctx.state.seed });
    const text = () => (ctx.state.source === 'custom' ? customText : ctx.resources.trainText);
    function reset() { live.running = false; live.sample = ''; send({ type: 'reset', text: text(), options: options() }); }
    function requestSample() { send({ type: 'sample', prompt: ctx.state.prompt, length: 120, temperature: ctx.state.temp, seed: live.progress?.step ?? 0 }); }
    function inspect() {
      send({ type: 'attention', text: ctx.state.probe });
      send({ type: 'future', text: ctx.state.probe, t: ctx.state.t, seed: FUTURE_SEED });
    }

    const source = choice({ name: 'source', label: t('source'), options: [{ value: 'shipped', label: t('shipped') }, { value: 'custom', label: t('custom') }],
      onChange: (v) => { ctx.set({ source: v }); if (worker) reset(); } });
    const area = h('textarea.custom-text', { rows: 5, 'aria-label': t('customLabel'), 'data-name': 'customText',
      oninput: () => { customText = area.value; } });
    const areaWrap = h('label.control.textarea', {}, t('customLabel'), area);
    const seed = ctx.integer('seed', { onChange: (v) => { ctx.set({ seed: v }); if (worker) reset(); } });
    const startBtn = button({ label: t('start'), onClick: () => {
      if (!worker) { startWorker(); live.startWhenReady = true; ctx.refresh(); return; }
      if (!live.config) { reset(); live.startWhenReady = true; return; }
      live.running = true; send({ type: 'start' }); ctx.refresh();
    } });
    startBtn.dataset.name = 'start';
    const pauseBtn = button({ label: t('pause'), onClick: () => { live.running = false; send({ type: 'pause' }); inspect(); requestSample(); ctx.refresh(); } });
    pauseBtn.dataset.name = 'pause';
    const resetBtn = button({ label: t('reset'), onClick: () => { if (!worker) startWorker(); else reset(); } });
    resetBtn.dataset.name = 'reset-model';
    const stats = readout({ name: 'stats' });
    const chart = lineChart({ label: t('chart') });
    const temp = ctx.slider('temp', { step: 0.1, format: (v) => v.toFixed(1), onChange: (v) => { ctx.set({ temp: v }); requestSample(); } });
    const prompt = h('input', { type: 'text', maxlength: 32, 'data-name': 'prompt', 'aria-label': t('samplePrompt'),
      oninput: () => { ctx.set({ prompt: prompt.value.replace(/[\u0000-\u001f]/g, '') }); } });
    const resample = button({ label: t('resample'), onClick: () => requestSample() });
    const sampleOut = h('pre.sample', { 'aria-live': 'polite', 'data-name': 'sample' });
    const probe = h('input', { type: 'text', maxlength: 32, 'data-name': 'probe', 'aria-label': t('probe'),
      oninput: () => { ctx.set({ probe: probe.value.replace(/[\u0000-\u001f]/g, '') }); inspect(); } });
    const tField = ctx.integer('t', { label: t('futureT'), onChange: (v) => { ctx.set({ t: v }); inspect(); } });
    const maps = h('div.attn-maps');
    const future = heatmap({ t, name: 'future', label: t('future'), names: ['T'], digits: 3 });
    const futureOut = readout({ name: 'future' });
    const status = h('p.note.train-status', { role: 'status' });
    ctx.lab.append(
      h('div.controls', {}, source.el, seed.el), areaWrap,
      h('div.controls', {}, startBtn, pauseBtn, resetBtn), status, stats.el, chart.el,
      h('div.controls', {}, h('label.control', {}, t('samplePrompt'), ' ', prompt), temp.el, resample), h('h4', {}, t('sample')), sampleOut,
      h('div.controls', {}, h('label.control', {}, t('probe'), ' ', probe), tField.el), future.el, futureOut.el, maps);
    const mapWidgets = new Map();

    return {
      sync(s) {
        source.set(s.source);
        areaWrap.hidden = s.source !== 'custom';
        if (prompt.value !== s.prompt) prompt.value = s.prompt;
        if (probe.value !== s.probe) probe.value = s.probe;
      },
      // Everything shown here was computed by the core in the worker; this only passes it on.
      compute() {
        if (live.error) throw new Error(live.error);
        return live;
      },
      paint(r) {
        status.textContent = !worker ? t('notStarted') : !r.config ? t('loading') : '';
        startBtn.disabled = live.running;
        pauseBtn.disabled = !live.running;
        if (r.config) {
          const p = r.progress, last = r.history.at(-1);
          stats.set([
            [t('step'), String(p?.step ?? 0)],
            [t('trainLoss'), last ? fmt(last.train, 4) : '', 'train-loss'],
            [t('valLoss'), last ? fmt(last.val, 4) : '', 'val-loss'],
            [t('unigram'), fmt(r.config.unigramEntropy, 4)],
            [t('speed'), p ? p.stepsPerSec.toFixed(1) : ''],
            [t('tokens'), p ? Math.round(p.tokensPerSec).toLocaleString() : ''],
            [t('params'), r.config.params.toLocaleString()],
          ]);
          const pts = (k) => r.history.map((e) => [e.step, e[k]]);
          if (r.history.length) {
            chart.set({ xLabel: t('steps'), yLabel: t('loss'), tableLabel: t('table'), series: [
              { name: t('trainLoss'), points: pts('train') },
              { name: t('valLoss'), points: pts('val') },
              { name: t('baseline'), points: r.history.length > 1 ? [[r.history[0].step, r.config.unigramEntropy], [r.history.at(-1).step, r.config.unigramEntropy]] : [[0, r.config.unigramEntropy]] },
            ] });
          }
        }
        sampleOut.textContent = r.sample;
        if (r.future) {
          const f = r.future.result;
          future.set([f.perPosition], { shape: [f.perPosition.length], colLabels: [...r.future.text].map((c) => (c === ' ' ? '␣' : c)),
            rowLabels: ['max |Δ|'], highlightCols: new Set(Array.from({ length: r.future.t + 1 }, (_, i) => i)) });
          const exact = f.maxPrefixChange === 0;
          futureOut.set([[t('prefix'), fmtErr(f.maxPrefixChange), 'prefix', f.maxPrefixChange], ['', t(exact ? 'exact' : 'leak'), exact ? 'good' : 'bad']]);
        }
        if (r.attention) {
          r.attention.maps.forEach((m, l) => {
            for (let hd = 0; hd < m.shape[0]; hd++) {
              const key = `${l}-${hd}`;
              if (!mapWidgets.has(key)) {
                const w = heatmap({ t, name: `attn-${key}`, label: t('attnTitle', { l, h: hd }), names: ['T', 'T'], weights: true, digits: 3, compact: true });
                mapWidgets.set(key, w);
                maps.append(w.el);
              }
              const chars = [...r.attention.text].map((c) => (c === ' ' ? '␣' : c));
              mapWidgets.get(key).set(matrixAt(m, hd), { rowLabels: chars, colLabels: chars });
            }
          });
        }
      },
      // The model on screen as PyTorch: its parameters come as a file (about 130,000 numbers), the
      // probe sentence and t as literals; the program prints the attention maps and the future check.
      pytorch() {
        const { attention: att, future, config: cfg } = live;
        if (!cfg || !att || !future) return { note: t('pyNoModel') };
        if (live.running) return { note: t('pyRunning') };
        const step = future.step;
        if (att.step !== step || att.text !== future.text || live.params?.step !== step) {
          if (live.paramsAsked !== step) { live.paramsAsked = step; send({ type: 'parameters' }); }
          return { note: t('pyFetching') };
        }
        const c = say(ctx.lang);
        const file = `attention-lab-gpt-seed${cfg.seed}-step${step}.json`;
        const params = live.params.params;
        const code = program(
          header(c(`Attention Lab 18.8: the character GPT on the page after ${step} training steps (seed ${cfg.seed}).`,
            `注意力实验室 18.8：页面上的字符级 GPT，训练 ${step} 步之后（种子 ${cfg.seed}）。`),
          [c(`It reads the model's parameters from ${file}: save it with the download button beside this program.`,
            `它从 ${file} 读取模型参数：用程序旁的下载按钮保存该文件。`),
          c('It prints the attention maps and the future-character check the page shows.', '程序打印页面上显示的注意力图和未来字符检查。')],
          { lang: ctx.lang, imports: ['import json'], torchImports: ['from torch import nn'] }),
          `with open(${pyString(file)}, encoding='utf-8') as f:
    saved = json.load(f)
cfg = saved['config']
V, C, NH, L, T_MAX = cfg['vocab'], cfg['C'], cfg['heads'], cfg['layers'], cfg['tMax']
chars = saved['chars']                                   # ${c('the vocabulary: character i has id i', '词表：第 i 个字符的 id 是 i')}`,
          `class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(C, 3 * C)                # ${c('q, k, v of every head at once', '一次算出所有头的 q、k、v')}
        self.c_proj = nn.Linear(C, C)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))   # (B, NH, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        allowed = torch.ones(T, T, dtype=torch.bool).tril()
        att = att.masked_fill(~allowed, float('-inf')).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.c_proj(y), att


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C, eps=1e-5)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(C, eps=1e-5)
        self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(approximate='tanh'), nn.Linear(4 * C, C))

    def forward(self, x):
        a, att = self.attn(self.ln_1(x))
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, att


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, C)                    # ${c('token embedding', '字符嵌入')}
        self.wpe = nn.Embedding(T_MAX, C)                # ${c('learned positions', '学习式位置')}
        self.h = nn.ModuleList([Block() for _ in range(L)])
        self.ln_f = nn.LayerNorm(C, eps=1e-5)
        self.lm_head = nn.Linear(C, V, bias=False)
        self.lm_head.weight = self.wte.weight            # ${c('the head shares the token embedding', '输出头与字符嵌入共享权重')}

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        maps = []
        for block in self.h:
            x, att = block(x)
            maps.append(att)
        return self.lm_head(self.ln_f(x)), maps`,
          [comment(c("The core keeps every parameter in one flat buffer, tensor after tensor, weights in math layout",
            '内核把全部参数按张量依次放在一个扁平数组里，权重是数学布局'),
          c('(in, out): y = x W + b. nn.Linear stores (out, in), hence the transposes.', '(in, out)：y = x W + b。nn.Linear 存的是 (out, in)，所以要转置。')),
          `flat, P, at = torch.tensor(saved['params']), {}, 0
for name, shape in [('wte', (V, C)), ('wpe', (T_MAX, C)), ('ln1w', (L, C)), ('ln1b', (L, C)),
                    ('qkvw', (L, C, 3 * C)), ('qkvb', (L, 3 * C)), ('attprojw', (L, C, C)), ('attprojb', (L, C)),
                    ('ln2w', (L, C)), ('ln2b', (L, C)), ('fcw', (L, C, 4 * C)), ('fcb', (L, 4 * C)),
                    ('fcprojw', (L, 4 * C, C)), ('fcprojb', (L, C)), ('lnfw', (C,)), ('lnfb', (C,))]:
    P[name] = flat[at:at + math.prod(shape)].view(shape)
    at += math.prod(shape)
assert at == flat.numel() and saved['step'] == ${step}
model = GPT()
with torch.no_grad():
    model.wte.weight.copy_(P['wte'])
    model.wpe.weight.copy_(P['wpe'])
    for l, b in enumerate(model.h):
        b.ln_1.weight.copy_(P['ln1w'][l])
        b.ln_1.bias.copy_(P['ln1b'][l])
        b.attn.c_attn.weight.copy_(P['qkvw'][l].T)
        b.attn.c_attn.bias.copy_(P['qkvb'][l])
        b.attn.c_proj.weight.copy_(P['attprojw'][l].T)
        b.attn.c_proj.bias.copy_(P['attprojb'][l])
        b.ln_2.weight.copy_(P['ln2w'][l])
        b.ln_2.bias.copy_(P['ln2b'][l])
        b.mlp[0].weight.copy_(P['fcw'][l].T)
        b.mlp[0].bias.copy_(P['fcb'][l])
        b.mlp[2].weight.copy_(P['fcprojw'][l].T)
        b.mlp[2].bias.copy_(P['fcprojb'][l])
    model.ln_f.weight.copy_(P['lnfw'])
    model.ln_f.bias.copy_(P['lnfb'])
model.eval()`].join('\n'),
          [`text = ${pyString(att.text)}`,
            "ids = torch.tensor([[chars.index(ch) for ch in text]])",
            'with torch.no_grad():',
            '    logits, maps = model(ids)',
            'for l, att in enumerate(maps):',
            '    for h in range(NH):',
            `        print(f'layer {l} head {h} =', att[0, h].tolist())   # ${c('(T, T): row t receives, column j gives', '(T, T)：第 t 行接收，第 j 列给出')}`].join('\n'),
          pyCoreRng({ lang: ctx.lang }),
          [comment(c(`The future-character check: every character after t = ${future.t} is replaced by a different one, drawn by`,
            `未来字符检查：t = ${future.t} 之后的每个字符都换成另一个字符，由内核的生成器`),
          c(`the core's generator (seed ${FUTURE_SEED}, ported above); the logits up to t must not move at all.`, `（种子 ${FUTURE_SEED}，上面已移植）抽取；t 及之前的 logits 必须纹丝不动。`)),
          `text, t = ${pyString(future.text)}, ${future.t}`,
          'ids = torch.tensor([[chars.index(ch) for ch in text]])',
          `rng = CoreRng(${FUTURE_SEED})`,
          'changed = ids.clone()',
          'for j in range(t + 1, ids.shape[1]):',
          '    changed[0, j] = (ids[0, j] + 1 + rng.below(V - 1)) % V',
          'with torch.no_grad():',
          '    before, _ = model(ids)',
          '    after, _ = model(changed)',
          'per_position = (after - before).abs().amax(dim=-1)[0]   # (T,)',
          show('max |change| per position', 'per_position.tolist()'),
          show('max change in the prefix (<= t)', 'per_position[:t + 1].max().item()')].join('\n'));
        const json = () => JSON.stringify({ format: 'attention-lab-gpt', step, config: { vocab: cfg.vocab, C: cfg.C, heads: cfg.heads, layers: cfg.layers,
          tMax: cfg.tMax, seed: cfg.seed, causal: cfg.causal }, chars: cfg.chars, params: Array.from(params) });
        return { code, files: [{ name: file, bytes: json }] };
      },
    };
  },
};
