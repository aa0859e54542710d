// A section added exactly as docs/architecture.md ("Adding a section") says, on a throwaway copy of
// the repository: 18.9, with a controller of its own that declares one exercise
// (web/src/sections/s18-9.js), its lessons in both languages, and one line in the copy's
// web/src/sections/index.js; no other file of the copy differs from the repository's. The copy's
// page and single file are built with vite (the WASM module is the one already built), and in
// headless Chromium 18.9 is in the contents, mounted and computing with the core, shown alone by
// ?embed=18.9, its exercise checked and kept in the progress record, in a one-section SCORM package
// that a platform (scorm-again) launches and scores, and on the worksheet with its answer key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync, strFromU8 } from 'fflate';
import { serve, launch, openPage, sec, fig, heatmapValues, labMounted } from './harness.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
// what the build of the page reads: the page and its lessons, the JS API with the built WASM
// module, the build's configuration and the two scripts it runs after vite
const COPIED = ['web', 'lessons', 'wasm/js', 'vite.config.js', 'package.json', 'scripts/csp.mjs', 'scripts/scorm.mjs'];

// ---- the new section: its three files and its line ------------------------------------------------
const CONTROLLER = `// 18.9 (a test fixture) The causal softmax of a score matrix: A = softmax(S + M).
import { heatmap } from '../widgets/heatmap.js';
import { h } from '../widgets/dom.js';
import { tensor, matrixAt } from '../tensors.js';

const strings = {
  zh: { s: '分数 S', causal: '因果掩码', a: '权重 A = softmax(S + M)' },
  en: { s: 'Scores S', causal: 'Causal mask', a: 'Weights A = softmax(S + M)' },
};
const zeros = (n) => tensor(Array.from({ length: n }, () => Array(n).fill(0)));
const weights = (core, s, causal) => core.softmax(s, causal ? { mask: 'causal' } : {});

export default {
  strings,
  state: [
    { key: 's', type: 'matrix', default: [[0, 1, 2], [2, 0, 1], [1, 2, 0]], maxRows: 6, maxCols: 6 },
    { key: 'causal', type: 'bool', default: true },
  ],
  exercises: [
    {
      id: 'ex-18.9-row', inputs: ['A[1, 0]'],
      expected: (core) => [weights(core, zeros(3), true).data[3]],
      misconceptions: [{ id: 'no-mask', value: (core) => [weights(core, zeros(3), false).data[3]] }],
    },
  ],
  build(ctx) {
    const { t } = ctx;
    const s = ctx.editor('s', { names: ['T', 'T'] });
    const causal = ctx.toggle('causal');
    const a = heatmap({ t, name: 'a', label: t('a'), names: ['T', 'T'], weights: true, axes: 'self' });
    ctx.lab.append(h('div.controls', {}, causal.el), s.el, a.el);
    return {
      compute: (st, core) => ({ A: weights(core, tensor(st.s), st.causal) }),
      paint(r) { a.set(matrixAt(r.A)); },
    };
  },
};
`;
const lesson = (title, body, exercise) => `# 18.9 ${title}

${body}

$$A = \\mathrm{softmax}(S + M)$$

${exercise}
`;
const EN = lesson('A fixture: the causal softmax', `A section that exists only in a test, added as any new section is: its
controller, its two lessons and one line in the list of sections. Each row $t$ of the weights $A$ is
a softmax of row $t$ of the scores $S$, with the future masked: the mask $M$ adds $-\\infty$ to
every score of a position $j > t$, so those weights are exactly 0 and each row still sums to 1.`, `::: exercise ex-18.9-row
With $S$ all zeros ($3 \\times 3$) and the causal mask, what is $A[1, 0]$?
::: hint
Row 1 sees positions 0 and 1, with equal scores.
::: solution
Two equal scores share the weight: $A[1, 0] = 1/2$.
::: wrong no-mask
That is the weight without the mask, spread over three positions; the mask leaves row 1 two.
:::`);
const ZH = lesson('测试用的小节：因果 softmax', `这一节只存在于测试之中，加入的方式和任何新的小节一样：它自己的控制器、
两份讲解和小节列表里的一行。权重 $A$ 的第 $t$ 行是分数 $S$ 第 $t$ 行的 softmax，未来的位置被掩码遮住：
掩码 $M$ 给每个 $j > t$ 的分数加上 $-\\infty$，所以这些权重恰好是 0，每一行的和仍然是 1。
学生可以改动分数矩阵、打开或关闭掩码，看权重怎样随之变化；下面的练习问的是全零分数时第 1 行的权重。`, `::: exercise ex-18.9-row
$S$ 全为 0（$3 \\times 3$），使用因果掩码时，$A[1, 0]$ 是多少？
::: hint
第 1 行只看得到位置 0 和 1，两者分数相同。
::: solution
两个相同的分数平分权重：$A[1, 0] = 1/2$。
::: wrong no-mask
这是不加掩码时的权重，分给了三个位置；掩码之后第 1 行只剩两个。
:::`);
const FILES = { 'web/src/sections/s18-9.js': CONTROLLER, 'lessons/en/18.9.md': EN, 'lessons/zh/18.9.md': ZH };
const LINE = "  { id: '18.9', prefix: 's9', module: 's18-9.js' },";
const S = [[0, 1, 2], [2, 0, 1], [1, 2, 0]];   // the controller's default scores
/** The causal softmax of S, computed here. */
const causalSoftmax = (M) => M.map((row, i) => {
  const e = row.slice(0, i + 1).map((v) => Math.exp(v - Math.max(...row.slice(0, i + 1))));
  const z = e.reduce((x, y) => x + y, 0);
  return row.map((_, j) => (j <= i ? e[j] / z : 0));
});

// ---- the copy and its build ------------------------------------------------------------------------
let work, server, lms, chrome;
const times = {};
const timed = async (name, fn) => {
  const t0 = process.hrtime.bigint();
  const r = await fn();
  times[name] = Number(process.hrtime.bigint() - t0) / 1e9;
  return r;
};

/** The list with the new section's line after 18.8's (before the chapter's exercises). */
function addLine(list) {
  const lines = list.split('\n');
  const at = lines.findIndex((l) => l.includes("id: '18.8'"));
  lines.splice(at + 1, 0, LINE);
  return lines.join('\n');
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'attention-lab-fixture-'));
  await timed('copy', () => {
    for (const path of COPIED) cpSync(join(ROOT, path), join(work, path), { recursive: true });
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(work, 'node_modules'));
    for (const [path, text] of Object.entries(FILES)) writeFileSync(join(work, path), text);
    const list = join(work, 'web/src/sections/index.js');
    writeFileSync(list, addLine(readFileSync(list, 'utf8')));
  });
  // the page and the single file (scripts/build.sh's web part, less the web component): vite reads
  // its configuration natively (no bundled copy written into node_modules)
  const vite = (...args) => run(process.execPath, [join(work, 'node_modules/vite/bin/vite.js'), 'build', '--configLoader', 'native', '--logLevel', 'warn', ...args], { cwd: work });
  await timed('build', async () => {
    await vite();
    await vite('--mode', 'single');
    copyFileSync(join(work, 'build/single/index.html'), join(work, 'dist/attention-lab.html'));
    await run(process.execPath, ['scripts/csp.mjs', 'dist/index.html', 'dist/attention-lab.html'], { cwd: work });
    // an instructor's package of 18.9 alone (the copy's scripts/scorm.mjs reads the copy's list)
    await run(process.execPath, ['scripts/scorm.mjs', '--scorm', '1.2', '--section', '18.9', '--lang', 'en', '--out', 'dist/lab-18.9.zip'], { cwd: work });
  });
  // a platform's page beside the package, unpacked
  const files = unzipSync(new Uint8Array(readFileSync(join(work, 'dist/lab-18.9.zip'))));
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(work, 'lms/sco', path)), { recursive: true });
    writeFileSync(join(work, 'lms/sco', path), bytes);
  }
  copyFileSync(join(ROOT, 'node_modules/scorm-again/dist/scorm-again.js'), join(work, 'lms/scorm-again.js'));
  writeFileSync(join(work, 'lms/host.html'), HOST);
  server = await serve(join(work, 'dist'));
  lms = await serve(join(work, 'lms'));
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.close();
  lms?.close();
  if (work) rmSync(work, { recursive: true, force: true });
  console.log(`fixture 18.9: ${Object.entries(times).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(', ')}`);
});

const open = async (query) => {
  const r = await openPage(chrome.browser, server.url + query);
  await r.page.waitForSelector('.lab-section[data-section="18.9"]');
  await labMounted(r.page);
  return r;
};
const ex = (page) => page.locator('article[data-exercise="ex-18.9-row"]');
async function answer(page, text) {
  await ex(page).locator('input[type="text"]').fill(text);
  await ex(page).locator('button[type="submit"]').click();
  return ex(page).locator('.feedback').textContent();
}

test('the copy differs from the repository by the section\'s three files and one line of the list', () => {
  const listed = (dir) => readdirSync(dir, { recursive: true }).filter((f) => !/(^|\/)(gen|data)(\/|$)/.test(f)).sort();
  for (const dir of ['web', 'lessons']) {
    const added = listed(join(work, dir)).filter((f) => !listed(join(ROOT, dir)).includes(f)).map((f) => `${dir}/${f}`);
    assert.deepEqual(added.sort(), Object.keys(FILES).filter((f) => f.startsWith(`${dir}/`)).sort(), dir);
    for (const f of listed(join(ROOT, dir)).filter((x) => /\.(js|md|html|css)$/.test(x) && x !== 'src/sections/index.js')) {
      assert.ok(readFileSync(join(work, dir, f)).equals(readFileSync(join(ROOT, dir, f))), `${dir}/${f} unchanged`);
    }
  }
  const before = readFileSync(join(ROOT, 'web/src/sections/index.js'), 'utf8').split('\n');
  const now = readFileSync(join(work, 'web/src/sections/index.js'), 'utf8').split('\n');
  assert.equal(now.length, before.length + 1);
  assert.deepEqual(now.filter((l) => l !== LINE), before, 'the list, plus one line');
  assert.ok(SECTIONS.every((s) => s.id !== '18.9'), 'the repository has no 18.9 of its own');
});

test('18.9 is in the contents, mounted with its lesson, lab and exercise, and computes with the core', async () => {
  for (const [lang, title] of [['en', '18.9 A fixture: the causal softmax'], ['zh', '18.9 测试用的小节：因果 softmax']]) {
    const { page, errors } = await open(`?lang=${lang}`);
    const toc = await page.locator('nav.toc a').evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.textContent]));
    assert.equal(toc.length, SECTIONS.length + 1);
    const at = SECTIONS.findIndex((s) => s.id === '18.8') + 1;
    assert.deepEqual(toc[at], ['#s18-9', title], `${lang}: after 18.8 in the contents`);
    assert.equal(await sec(page, '18.9').locator('h2').textContent(), title);
    assert.ok((await sec(page, '18.9').locator('.lesson .katex').count()) > 0, 'the lesson with its math');
    assert.deepEqual(await sec(page, '18.9').evaluate((el) => [...el.children].map((c) => c.className.split(' ')[0] || c.tagName.toLowerCase())),
      ['h2', 'lesson', 'lab', 'status', 'exercises']);
    const A = await heatmapValues(fig(page, '18.9', 'a'));
    const want = causalSoftmax(S).flat();
    assert.ok(A.flat().every((v, k) => Math.abs(v - want[k]) <= 1e-15), JSON.stringify(A));
    // an edit goes the way of every section's: state, URL, compute, paint
    await fig(page, '18.9', 'causal').uncheck();
    const unmasked = await heatmapValues(fig(page, '18.9', 'a'));
    assert.ok(unmasked[0][2] > 0.5, 'without the mask row 0 sees the future');
    assert.equal(await page.locator('.lab-section.has-error').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  }
});

test('?embed=18.9 shows it alone, with its state from the URL', async () => {
  const { page, errors } = await open('?lang=en&embed=18.9&s9.s=0,0;0,0');
  assert.equal(await page.locator('.lab-section').count(), 1);
  assert.deepEqual(await heatmapValues(fig(page, '18.9', 'a')), [[1, 0], [0.5, 0.5]]);
  assert.equal(await page.locator('nav.toc').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('its exercise: the core checks an answer, diagnoses the misconception, and the progress keeps it', async () => {
  const { page, errors } = await open('?lang=en');
  assert.match(await answer(page, '1/3'), /^Not yet/);
  assert.equal(await ex(page).locator('.diagnosis').getAttribute('data-misconception'), 'no-mask');
  assert.match(await answer(page, '0.5'), /^Correct/);
  // kept under the section's prefix (progress.js): s9, solved, "0.5"
  const kept = await page.evaluate(() => localStorage.getItem('attention-lab.progress'));
  assert.match(kept, /^AL2\|[^|]*\|(.*;)?s9:2:0\.5(;|$)/);
  await page.locator('details.progress-view > summary').click();
  assert.equal(await page.locator('a.ex-status[data-ex="ex-18.9-row"]').count(), 1, 'in the progress view');
  await page.reload();
  await labMounted(page);
  assert.equal(await ex(page).locator('input').inputValue(), '0.5');
  assert.match(await ex(page).locator('.feedback').textContent(), /You solved this before/);
  assert.deepEqual(errors, []);
  await page.close();
});

const HOST = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>LMS</title>
<script src="scorm-again.js"></script>
<body style="margin:0"><iframe id="sco" style="width:1280px;height:900px;border:0"></iframe>
<script>
  window.launch = (src) => {
    window.API = new Scorm12API({ logLevel: 5 });
    document.getElementById('sco').src = src;
  };
  window.value = (field) => field.split('.').slice(1).reduce((o, k) => o?.[k], window.API.cmi);
</script>`;

test('a SCORM package of 18.9 alone: its manifest, launched by a platform, scored and kept', async () => {
  const manifest = readFileSync(join(work, 'lms/sco/imsmanifest.xml'), 'utf8');
  assert.match(manifest, /<title>Attention Lab · 注意力实验室 18\.9<\/title>/);
  assert.match(manifest, /<item identifier="attention-lab-scorm12-18-9-item" identifierref="attention-lab-scorm12-18-9-sco" parameters="\?embed=18\.9&amp;lang=en">/);
  const { page, errors } = await openPage(chrome.browser, `${lms.url}host.html`);
  await page.evaluate((src) => window.launch(src), `${lms.url}sco/attention-lab.html?embed=18.9&lang=en`);
  const frame = page.frameLocator('#sco');
  await frame.locator('.progress-view').waitFor();
  const item = frame.locator('article[data-exercise="ex-18.9-row"]');
  await item.locator('input').fill('1/2');
  await item.locator('button[type="submit"]').click();
  await page.waitForFunction(() => window.value('cmi.core.score.raw') === '100');
  assert.equal(await page.evaluate(() => window.value('cmi.core.lesson_status')), 'passed', 'its one exercise solved, no pass mark');
  assert.match(await page.evaluate(() => window.value('cmi.suspend_data')), /^AL2\|s9\|s9:2:1\/2$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the worksheet prints 18.9 with its inputs, its exercise and the key the core computes', async () => {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?print=worksheet&lang=en&key=1&s9.s=1,2;3,4`);
  await page.waitForSelector('.worksheet');
  const shown = await page.locator('.ws-section').evaluateAll((s) => s.map((e) => e.dataset.section));
  assert.deepEqual(shown, [...SECTIONS.map((s) => s.id)].toSpliced(SECTIONS.findIndex((s) => s.id === '18.8') + 1, 0, '18.9'), 'in page order');
  const ws = page.locator('.ws-section[data-section="18.9"]');
  assert.deepEqual(await ws.locator('figure.ws-matrix tr').evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))), [['1', '2'], ['3', '4']]);
  assert.equal(await ws.locator('.ws-exercise[data-exercise="ex-18.9-row"] .ws-label').textContent(), 'A[1, 0]');
  assert.equal(await page.locator('.ws-key-item[data-exercise="ex-18.9-row"] .ws-answer').textContent(), 'Answer: A[1, 0] = 0.5000');
  assert.deepEqual(errors, []);
  await page.close();
});
