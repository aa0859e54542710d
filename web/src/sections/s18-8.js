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
  },
};

const MODEL = { C: 48, heads: 4, layers: 2, tMax: 32, batch: 8, lr: 3e-3 };

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
      send({ type: 'future', text: ctx.state.probe, t: ctx.state.t, seed: 1 });
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
    const chart = lineChart({ name: 'loss', label: t('chart') });
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
      h('div.controls', {}, h('label.control', {}, t('samplePrompt'), ' ', prompt), temp.el, resample), h('h3', {}, t('sample')), sampleOut,
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
          futureOut.set([[t('prefix'), fmtErr(f.maxPrefixChange), 'prefix'], ['', t(exact ? 'exact' : 'leak'), exact ? 'good' : 'bad']]);
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
    };
  },
};
