// "Check my numbers" in the page (widgets/check-panel.js): for each section's check, the inputs
// are copied from the panel itself (its PyTorch form), programs written here the way a student
// writes them run on those inputs in Debian's PyTorch (all in one Python process, as
// tests/node/diagnose.test.mjs does), and what each prints is pasted into the section's panel: the
// right program's output says it matches, each mistake's names exactly that mistake in the page's
// language, and the right program in float32 matches and says float32. Sections alternate between
// zh and en; 18.2 runs at 390 px. Then, on 18.1: a transposed answer, a wrong shape, text that
// cannot be read (the last result stays), a .npy file, a real paste, the section's inputs edited
// under a kept answer, the first differing cell's provenance, and the lesson's paragraph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { builtLab, sec } from './harness.mjs';
import { MHA, runPrograms } from '../node/pytorch.mjs';
import { makeModel } from './pytorch-views.mjs';
import { strings, LESSON_PLACES } from '../../web/src/widgets/check-strings.js';
import { strings as strings88 } from '../../web/src/sections/s18-8/strings.js';
import { loadCore } from '../../wasm/js/index.js';

const lab = builtLab();
const core = await loadCore();
const fill = (s, params) => s.replace(/\{(\w+)\}/g, (_, k) => String(params[k]));

const byC = 'scale=lambda hs, C: 1 / math.sqrt(C)', byHs = 'scale=lambda hs, C: 1 / hs', none = 'scale=lambda hs, C: 1.0';

// Each section's check: the page (query, language, width), the quantity compared, the Python run
// after the inputs copied from the panel, and the programs by what they should be named ('correct'
// or a mistake's id); `more` compares another quantity on the same page, with a check, inputs
// (copied from the panel once it is chosen) and setup of its own where it names them.
const SECTIONS = [
  // the default X's running means (2, 0, 1) are exact in float32: nothing for float32 to round
  { id: '18.1', lang: 'zh', check: 'causalAverage', compare: 'y', float32: 'float64', setup: 'T, C = X.shape[-2], X.shape[-1]',
    programs: {
      correct: 'w = torch.tril(torch.ones(T, T)); w = w / w.sum(1, keepdim=True); y = w @ X',
      sums_not_means: 'y = torch.tril(torch.ones(T, T)) @ X',
      sees_future: 'y = X.mean(-2, keepdim=True).expand_as(X)',
      misses_itself: 'w = torch.tril(torch.ones(T, T), diagonal=-1); w = w / w.sum(1, keepdim=True); y = w @ X',
      over_channels: 'w = torch.tril(torch.ones(C, C)); w = w / w.sum(1, keepdim=True); y = X @ w.T',
    } },
  { id: '18.2', lang: 'en', width: 390, check: 'softmax', compare: 'weights', setup: 'T = S.shape[-1]\nm = torch.tril(torch.ones(T, T, dtype=torch.bool))',
    programs: {
      correct: "y = S.masked_fill(~m, float('-inf')).softmax(-1)",
      mask_after: 'y = S.softmax(-1).masked_fill(~m, 0.0)',
      no_mask: 'y = torch.softmax(S, dim=-1)',
      softmax_over_queries: "y = S.masked_fill(~m, float('-inf')).softmax(dim=0)",
      sees_one_future: "y = S.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=1), float('-inf')).softmax(-1)",
      misses_itself: "y = S.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1), float('-inf')).softmax(-1)",
    } },
  { id: '18.3', lang: 'zh', check: 'attention', compare: 'out', setup: MHA,
    programs: {
      correct: 'y = mha(X, W_Q, W_K, W_V, 1, causal=causal)[0]',
      scale_head_size: `y = mha(X, W_Q, W_K, W_V, 1, ${byHs})[0]`,
      no_scale: `y = mha(X, W_Q, W_K, W_V, 1, ${none})[0]`,
      mask_after: "y = mha(X, W_Q, W_K, W_V, 1, mask_way='after')[0]",
      no_mask: 'y = mha(X, W_Q, W_K, W_V, 1, causal=False)[0]',
      sees_one_future: 'y = mha(X, W_Q, W_K, W_V, 1, shift=1)[0]',
      misses_itself: 'y = mha(X, W_Q, W_K, W_V, 1, shift=-1)[0]',
      softmax_over_queries: 'y = mha(X, W_Q, W_K, W_V, 1, dim=-2)[0]',
      weights_transposed: 'y = mha(X, W_Q, W_K, W_V, 1, transpose=True)[0]',
    },
    more: { compare: 'weights', programs: { correct: 'y = mha(X, W_Q, W_K, W_V, 1)[1]', no_mask: 'y = mha(X, W_Q, W_K, W_V, 1, causal=False)[1]' } } },
  // at the default C = 16 and 4 heads, √C = hs: dividing by √C or by hs is the same mistake here,
  // and the panel names both; with 2 heads (below) they part
  { id: '18.4', lang: 'en', check: 'attention', compare: 'weights', setup: MHA,
    same: { scale_model: ['scale_model', 'scale_head_size'], scale_head_size: ['scale_model', 'scale_head_size'] },
    programs: {
      correct: 'y = mha(x, w_q, w_k, w_v, heads, causal=causal)[1]',
      scale_model: `y = mha(x, w_q, w_k, w_v, heads, ${byC})[1]`,
      scale_head_size: `y = mha(x, w_q, w_k, w_v, heads, ${byHs})[1]`,
      no_scale: `y = mha(x, w_q, w_k, w_v, heads, ${none})[1]`,
      mask_after: "y = mha(x, w_q, w_k, w_v, heads, mask_way='after')[1]",
      no_mask: 'y = mha(x, w_q, w_k, w_v, heads, causal=False)[1]',
      sees_one_future: 'y = mha(x, w_q, w_k, w_v, heads, shift=1)[1]',
      misses_itself: 'y = mha(x, w_q, w_k, w_v, heads, shift=-1)[1]',
      softmax_over_queries: 'y = mha(x, w_q, w_k, w_v, heads, dim=-2)[1]',
      weights_transposed: 'y = mha(x, w_q, w_k, w_v, heads, transpose=True)[1]',
    },
  },
  { id: '18.4', lang: 'zh', query: '&s4.heads=2', check: 'attention', compare: 'weights', setup: MHA,
    programs: {
      correct: 'y = mha(x, w_q, w_k, w_v, heads, causal=causal)[1]',
      scale_model: `y = mha(x, w_q, w_k, w_v, heads, ${byC})[1]`,
      scale_head_size: `y = mha(x, w_q, w_k, w_v, heads, ${byHs})[1]`,
    },
    more: { compare: 'out', programs: { correct: 'y = mha(x, w_q, w_k, w_v, heads)[0]', heads_not_split: 'y = mha(x, w_q, w_k, w_v, heads, split=False)[0]' } } },
  { id: '18.5', lang: 'zh', query: '&s5.pos=learned', check: 'positions', compare: 'out', setup: MHA,
    programs: {
      correct: 'y = mha(X + pos, w_q, w_k, w_v, 1, causal=causal)[0]',
      positions_after: 'y = mha(X, w_q, w_k, w_v, 1, causal=causal)[0] + pos',
      no_positions: 'y = mha(X, w_q, w_k, w_v, 1, causal=causal)[0]',
    } },
  // C = 4 and 2 heads: √C = hs again
  { id: '18.6', lang: 'en', check: 'attention', compare: 'weights', setup: MHA, same: { scale_model: ['scale_model', 'scale_head_size'] },
    programs: {
      correct: 'y = mha(x, w_q, w_k, w_v, heads, causal=causal, src=memory)[1]',
      mask_in_cross_attention: 'y = mha(x, w_q, w_k, w_v, heads, causal=True, src=memory)[1]',
      scale_model: `y = mha(x, w_q, w_k, w_v, heads, ${byC}, causal=causal, src=memory)[1]`,
    },
    more: { compare: 'out', programs: { correct: 'y = mha(x, w_q, w_k, w_v, heads, causal=causal, src=memory)[0]',
      keys_from_decoder: 'y = mha(x, w_q, w_k, w_v, heads, causal=causal)[0]' } } },
  // p = 0.3: dividing by p is not dividing by 1 - p (at the default 0.5 it is)
  { id: '18.7', lang: 'zh', query: '&s7.p=0.3', check: 'sdpaBackward', compare: 'dq',
    setup: String.raw`
T, d = q.shape[-2], q.shape[-1]; sc = 1 / math.sqrt(d)
m = torch.tril(torch.ones(T, T, dtype=torch.bool)) if causal else torch.ones(T, T, dtype=torch.bool)
def by_hand(softmax_backward=True, scale_in_backward=True):
    A = (q @ k.transpose(-2, -1) * sc).masked_fill(~m, float('-inf')).softmax(-1)
    dA = G @ v.transpose(-2, -1)
    dS = A * (dA - (dA * A).sum(-1, keepdim=True)) if softmax_backward else dA * (A > 0)
    return dS @ k * (sc if scale_in_backward else 1.0)
def autograd(masked=True):
    qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
    S = qq @ kk.transpose(-2, -1) * sc
    ((S.masked_fill(~m, float('-inf')) if masked else S).softmax(-1) @ vv).backward(G)
    return qq.grad`,
    programs: {
      correct: 'y = autograd()',
      no_softmax_backward: 'y = by_hand(softmax_backward=False)',
      no_scale_in_backward: 'y = by_hand(scale_in_backward=False)',
      mask_forgotten_in_backward: 'y = autograd(masked=False)',
    },
    // the weights after dropout: a check of its own, with its own inputs (A, keep, p, training)
    more: { compare: 'dropout', check: 'dropout', setup: '',
      programs: { correct: 'y = A * keep / (1 - p) if training else A', no_rescale: 'y = A * keep', divides_by_p: 'y = A * keep / p',
        multiplies_by_1_minus_p: 'y = A * keep * (1 - p)' } } },
  // 18.8's block: A = softmax(S + M) of every head of the traced layer, from the model's own S
  // (the untrained model, as it is built; the step-through at its stage A traces layer 0)
  { id: '18.8', lang: 'en', query: '&s8.stage=a', check: 'softmax', compare: 'a',
    async prepare(page) {
      await makeModel(page);
      await page.waitForSelector('.lab-section[data-section="18.8"] [data-name="b-a"]:not([hidden]) tbody td');
    },
    // (NH, T, T) is more than PyTorch prints in full by default: the student prints it all, as the panel asks
    setup: "T = S.shape[-1]\nm = torch.tril(torch.ones(T, T, dtype=torch.bool))\ntorch.set_printoptions(profile='full')",
    programs: {
      correct: "y = S.masked_fill(~m, float('-inf')).softmax(-1)",
      mask_after: 'y = S.softmax(-1).masked_fill(~m, 0.0)',
      no_mask: 'y = S.softmax(-1)',
      softmax_over_queries: "y = S.masked_fill(~m, float('-inf')).softmax(dim=-2)",
      sees_one_future: "y = S.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=1), float('-inf')).softmax(-1)",
      misses_itself: "y = S.masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1), float('-inf')).softmax(-1)",
    } },
];

const panelOf = (page) => page.locator('details.check-panel');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core (WCAG 2.1 AA and best practice, as tests/web/a11y.test.mjs runs it) over the open panel: the violations. */
async function auditPanel(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => (await window.axe.run({ include: [['details.check-panel[open]']] },
    { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }))
    .violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
}

/** Open a page's panel and pick what is compared. */
async function openPanel(page) {
  const panel = panelOf(page);
  await panel.locator(':scope > summary').click();
  await panel.locator('.check-compare :is(fieldset, p.check-line)').first().waitFor();   // filled on the (asynchronous) toggle event
  return panel;
}
async function choose(panel, key) {
  const radio = panel.locator(`[data-name="check-compare"] input[value="${key}"]`);
  if (await radio.count()) await radio.check();
}

/** The section's inputs in the panel's PyTorch form. */
async function copiedInputs(page) {
  const panel = panelOf(page);
  await panel.locator('.check-inputs-show > summary').click();
  const code = panel.locator('code.check-inputs-code');
  await page.waitForFunction((el) => el.textContent.length > 0, await code.elementHandle());
  return code.textContent();
}

/** Paste `text` and check it; resolves to what the panel says (or its error). */
async function check(page, text) {
  const panel = panelOf(page), result = panel.locator('.check-result');
  const before = await result.getAttribute('data-checked');
  await panel.locator('textarea.check-paste').fill(text);
  await panel.locator('button.check-run').click();
  await page.waitForFunction(([el, n, err]) => el.dataset.checked !== n || !err.hidden,
    [await result.elementHandle(), before, await panel.locator('.check-error').elementHandle()]);
  return said(panel);
}
const said = async (panel) => panel.evaluate((p) => {
  const r = p.querySelector('.check-result');
  return { ...r.dataset, verdict: r.dataset.verdict, head: r.querySelector('.check-verdict').textContent,
    mistakeLines: [...r.querySelectorAll('.check-mistake')].map((m) => ({ id: m.dataset.mistake, text: m.textContent })),
    text: r.textContent, error: p.querySelector('.check-error').hidden ? null : p.querySelector('.check-error').textContent };
});

/** Assert the panel's words for a program meant as `id` ('correct' or a mistake). */
function assertNamed(got, id, { check: name, lang, same = {} }, where) {
  const words = strings[lang];
  const info = `${where}: verdict ${got.verdict}, mistakes [${got.mistakes}], level ${got.level}, error ${got.error}`;
  assert.equal(got.error, null, info);
  if (id === 'correct') {
    assert.equal(got.verdict, 'correct', info);
    assert.equal(got.head, words.verdictCorrect, info);
    return;
  }
  // a mistake these inputs cannot tell from another is named with it
  const ids = same[id] ?? [id];
  const names = ids.map((m) => words[`name_${name}_${m}`]).join(words.listSep);
  assert.equal(got.verdict, 'mistake', info);
  assert.equal(got.mistakes, ids.join(' '), info);
  assert.equal(got.head, ids.length === 1 ? fill(words.verdictMistake, { name: names }) : fill(words.verdictMistakes, { n: ids.length, names }), info);
  assert.deepEqual(got.mistakeLines.map((m) => m.id), ids, info);
  got.mistakeLines.forEach((m, i) => assert.ok(m.text.startsWith(words[`mistake_${name}_${ids[i]}`]), `${info}: ${m.text}`));
}

/** Each mistake's link leads to its lesson paragraph: in this page when the lesson is here, else
 * to the section in the whole lab (a new tab; these pages embed one section). */
async function assertLessonLinks(page, s) {
  const links = await panelOf(page).locator('.check-mistake').evaluateAll((ps) => ps.map((p) => {
    const a = p.querySelector('a.check-lesson');
    const target = a?.hash && document.getElementById(a.hash.slice(1));
    const copy = target?.cloneNode(true);
    copy?.querySelectorAll('.katex-mathml').forEach((m) => m.remove());
    return { id: p.dataset.mistake, href: a?.getAttribute('href'), newTab: a?.target === '_blank', target: copy?.textContent.replace(/\s+/g, ' ') ?? null };
  }));
  for (const l of links) {
    const place = LESSON_PLACES[`${s.check}/${l.id}`];
    assert.ok(place, `${s.check}/${l.id} has a place in the lesson`);
    if (place.section === s.id) {
      assert.ok(!l.newTab && l.target?.includes(place[s.lang]), `${s.id} ${l.id}: the link leads to the paragraph "${place[s.lang]}" (${l.href}: ${l.target})`);
    } else {
      assert.ok(l.newTab && l.href.endsWith(`#s${place.section.replace('.', '-')}`) && !/embed=/.test(l.href), `${s.id} ${l.id}: a new tab at ${place.section} (${l.href})`);
    }
  }
}

const program = (inputs, setup, code, float32 = false) => `import math\n${inputs}\n${setup}\n${code}\n${float32 ? 'torch.set_printoptions(precision=8)\nprint(y.float())' : 'print(y)'}`;

test('every section\'s panel names each mistake made by a PyTorch program on the section\'s inputs; the right one matches, in float32 too', async () => {
  const opened = [];
  const jobs = [];
  for (const s of SECTIONS) {
    s.run = `${s.id}${s.query ?? ''}`;
    const { page, errors } = await lab.open(`?embed=${s.id}&lang=${s.lang}${s.query ?? ''}`);
    if (s.width) await page.setViewportSize({ width: s.width, height: 800 });
    await s.prepare?.(page);
    const panel = await openPanel(page);
    await choose(panel, s.compare);
    const inputs = await copiedInputs(page);
    assert.match(inputs, /^import torch$/m, `${s.id}: the inputs as PyTorch`);
    for (const [id, code] of Object.entries(s.programs)) jobs.push({ id: `${s.run}/${id}`, code: program(inputs, s.setup, code) });
    jobs.push({ id: `${s.run}/float32`, code: program(inputs, s.setup, s.programs.correct, true) });
    // another quantity with a check of its own: its own inputs, copied from the panel once it is chosen
    let more = inputs;
    if (s.more?.check) {
      await choose(panel, s.more.compare);
      const code = panel.locator('code.check-inputs-code');
      await page.waitForFunction(([el, before]) => el.textContent !== before, [await code.elementHandle(), inputs]);
      more = await code.textContent();
    }
    for (const [id, code] of Object.entries(s.more?.programs ?? {})) jobs.push({ id: `${s.run}/more/${id}`, code: program(more, s.more.setup ?? s.setup, code) });
    opened.push({ s, page, errors, panel });
  }
  const runs = await runPrograms(jobs);
  const printed = (id) => { assert.equal(runs[id].error, null, `${id}: ${runs[id].error}`); return runs[id].stdout; };
  for (const { s, page, errors, panel } of opened) {
    await choose(panel, s.compare);
    for (const id of Object.keys(s.programs)) {
      const r = await check(page, printed(`${s.run}/${id}`));
      assertNamed(r, id, s, `${s.id} ${s.lang} ${id}`);
      // print(y) of a float64 tensor (the copied inputs set the float64 default) states no dtype:
      // however close its four decimals come, the panel does not call it float32
      if (id === 'correct') assert.ok(!r.text.includes(strings[s.lang].levelFloat32.split('{max}')[1]), `${s.id}: float64 is not called float32: ${r.text}`);
      if (id !== 'correct') await assertLessonLinks(page, s);
    }
    const f32 = await check(page, printed(`${s.run}/float32`));
    assertNamed(f32, 'correct', s, `${s.id} float32`);
    assert.equal(f32.level, s.float32 ?? 'float32', `${s.id} in float32`);
    // PyTorch prints the float32 tensor's dtype (the float64 default is set): the panel names float32 as the reason
    const says = strings[s.lang][s.float32 ? 'levelFloat64' : 'levelFloat32'].split('{max}')[0];
    assert.ok(f32.text.includes(says), `${s.id}: the panel says "${says}": ${f32.text}`);
    if (s.more) {
      await choose(panel, s.more.compare);
      const m = s.more.check ? { ...s, check: s.more.check, same: {} } : s;
      for (const id of Object.keys(s.more.programs)) {
        assertNamed(await check(page, printed(`${s.run}/more/${id}`)), id, m, `${s.id} ${s.more.compare} ${id}`);
        if (id !== 'correct' && s.more.check) await assertLessonLinks(page, m);
      }
    }
    // the panel as it is now (a result, its heatmap, the inputs shown) passes axe
    assert.deepEqual(await auditPanel(page), [], `${s.id} ${s.lang}: axe over the open panel`);
    if (s.width) {
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);
      assert.ok(fits, `${s.id} at ${s.width} px: nothing wider than the screen`);
    }
    assert.deepEqual(errors, [], `${s.id}: no page errors`);
    await page.close();
  }
  // every mistake the core knows is made by one of the programs above
  for (const name of new Set(SECTIONS.map((s) => s.check))) {
    const made = new Set(SECTIONS.filter((s) => s.check === name).flatMap((s) => [...Object.keys(s.programs), ...Object.keys(s.more?.programs ?? {})]));
    for (const id of core.diagnoseMistakes(name)) assert.ok(made.has(id), `${name}: no program makes ${id}`);
  }
});

test('18.1: a transposed answer, a wrong shape, text that cannot be read (the result stays), a .npy file, a real paste, an edit of the inputs, the first wrong cell\'s provenance, the lesson\'s paragraph; 18.8 before a layer is traced', async () => {
  const { page, errors } = await lab.open('?embed=18.1&lang=en');
  const en = strings.en;
  const panel = await openPanel(page);
  const inputs = await copiedInputs(page);
  const setup = 'T, C = X.shape[-2], X.shape[-1]\nw = torch.tril(torch.ones(T, T)); w = w / w.sum(1, keepdim=True); y = w @ X';
  const npy = 'import io, base64\nimport numpy as np\nb = io.BytesIO(); np.save(b, y.float().numpy()); print(base64.b64encode(b.getvalue()).decode())';
  const runs = await runPrograms([
    { id: 'transposed', code: program(inputs, setup, 'y = y.transpose(-2, -1)') },
    { id: 'sums', code: program(inputs, setup, 'y = torch.tril(torch.ones(T, T)) @ X') },
    { id: 'numpy', code: `${inputs.replace('import torch', 'import torch\nimport numpy as np')}\n${setup}\nprint(repr(y.numpy()))` },
    { id: 'npy', code: `${inputs}\n${setup}\n${npy}` },
  ]);
  for (const r of Object.values(runs)) assert.equal(r.error, null, r.error);

  // the shape first: swapped axes are named as a transpose, and compared swapped back
  const tr = await check(page, runs.transposed.stdout);
  assert.equal(tr.verdict, 'correct');
  assert.equal(tr.shapeNote, 'transposed');
  assert.equal(tr.head, fill(en.verdictTransposed, { shape: '(1, 2, 3)', expected: '(1, 3, 2)' }));
  assert.match(tr.text, new RegExp(en.shapeSwapped.replace(/[()]/g, '.')));
  const wrong = await check(page, '[[1, 2], [3, 4]]');
  assert.equal(wrong.verdict, 'shape');
  assert.equal(wrong.head, fill(en.verdictShape, { shape: '(2, 2)', expected: '(1, 3, 2)' }));

  // NumPy's repr reads too; then text that cannot be read changes nothing but says why
  const np = await check(page, runs.numpy.stdout);
  assert.equal(np.verdict, 'correct', `NumPy: ${np.text}`);
  const kept = await said(panel);
  for (const [text, code] of [['tensor([[2.0000, 0.0000], ..., [2.0000, 2.0000]])', 'paste_elided'], ['[[1, 2], [3]]', 'paste_ragged_rows'], ['y = 2', 'paste_not_number']]) {
    const bad = await check(page, text);
    assert.ok(bad.error?.startsWith(en[code].split('{')[0]), `${code}: ${bad.error}`);
    assert.ok(bad.error.endsWith(en.keep), bad.error);
    assert.equal(await panel.locator('textarea').inputValue(), text, 'the text stays in the box');
    assert.equal(await panel.locator('textarea').getAttribute('aria-invalid'), 'true');
    assert.deepEqual([bad.checked, bad.head, bad.text], [kept.checked, kept.head, kept.text], `${code}: the last result stays`);
  }

  // a .npy file (float32, as NumPy saves it) chosen with the file button
  const before = await panel.locator('.check-result').getAttribute('data-checked');
  await panel.locator('input.check-file').setInputFiles({ name: 'y.npy', mimeType: 'application/octet-stream', buffer: Buffer.from(runs.npy.stdout.trim(), 'base64') });
  await page.waitForFunction((n) => document.querySelector('.check-result').dataset.checked !== n, before);
  const file = await said(panel);
  assert.equal(file.verdict, 'correct');
  assert.equal(file.error, null, 'a good file clears the error');
  assert.deepEqual(await panel.locator('textarea').evaluate((b) => [b.getAttribute('aria-invalid'), document.getElementById(b.getAttribute('aria-describedby'))?.className]),
    [null, 'note check-hint'], 'the box is valid again, described by its hint');
  assert.ok(file.text.includes(fill(en.fromFile, { file: 'y.npy' })), file.text);

  // a CSV dropped on the box is a tensor to check, not a state file for the section
  const dropped = await panel.locator('.check-result').getAttribute('data-checked');
  await panel.locator('textarea').evaluate((box) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['2,0\n1,2\n2,2\n'], 'mine.csv', { type: 'text/csv' }));
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction((n) => document.querySelector('.check-result').dataset.checked !== n, dropped);
  const csv = await said(panel);
  assert.equal(csv.verdict, 'correct');
  assert.equal(csv.shapeNote, 'leading_ones', 'the rows (3, 2) are the output (1, 3, 2)');
  assert.ok(csv.text.includes(fill(en.fromFile, { file: 'mine.csv' })), csv.text);
  assert.equal(await sec(page, '18.1').locator('.state-notice').isHidden(), true, 'the section loaded no state');

  // a real paste is checked without pressing Check
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate((t) => navigator.clipboard.writeText(t), runs.sums.stdout);
  const box = panel.locator('textarea');
  await box.fill('');
  await box.focus();
  const n = await panel.locator('.check-result').getAttribute('data-checked');
  await page.keyboard.press('Control+V');
  await page.waitForFunction((k) => document.querySelector('.check-result').dataset.checked !== k, n);
  const pasted = await said(panel);
  assert.equal(pasted.mistakes, 'sums_not_means');
  // the inputs copied as NumPy, to the clipboard
  await panel.locator('[data-name="check-form"] input[value="numpy"]').check();
  await panel.locator('button.check-copy').click();
  await page.waitForFunction(() => document.querySelector('.check-inputs .check-status').textContent !== '');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /^import numpy as np\n\nX = np\.array\(\[\[\[2\.0, 0\.0\],$/m, copied);

  // the first differing cell: its provenance is one click away
  assert.equal(await panel.locator('.check-first').getAttribute('data-index'), '0,1,0');
  await panel.locator('button.check-explain').click();
  assert.ok(await page.evaluate(() => !!document.activeElement.closest('[data-name="y0"]')), 'the cell of Y is focused (its provenance shows)');
  // the lesson's paragraph: focused and marked
  await panel.locator('.check-mistake a.check-lesson').click();
  const focused = await page.evaluate(() => ({ text: document.activeElement.textContent, marked: document.activeElement.classList.contains('check-target') }));
  assert.ok(focused.marked && focused.text.includes(LESSON_PLACES['causalAverage/sums_not_means'].en), focused.text);

  // the section's inputs edited: the same paste is checked again against the new ones
  const m = await panel.locator('.check-result').getAttribute('data-checked');
  await sec(page, '18.1').locator('[data-name="x"] input[data-row="0"][data-col="0"]').fill('3');
  await page.waitForFunction((k) => document.querySelector('.check-result').dataset.checked !== k, m);
  assert.equal((await said(panel)).verdict, 'unknown', 'the sums of the old X are no mistake of the new X');
  await panel.locator('button.check-clear').click();
  assert.equal((await said(panel)).head, '');
  assert.deepEqual(errors, []);
  await page.close();

  // in Chinese: a parse error and a verdict in its words
  const zh = await lab.open('?embed=18.1&lang=zh');
  await openPanel(zh.page);
  const bad = await check(zh.page, 'tensor([[1., ..., 2.]])');
  assert.equal(bad.error, `${strings.zh.paste_elided}${strings.zh.keep}`);   // no space after 。
  assert.equal(await panelOf(zh.page).locator(':scope > summary').textContent(), '核对我的结果');
  assert.deepEqual(zh.errors, []);
  await zh.page.close();

  // 18.8 before its step-through has traced a layer: the panel says what to do, a paste is told
  // the same, and its (hidden) inputs opened anyway are empty, not an error
  const s8 = await lab.open('?embed=18.8&lang=zh');
  const p8 = panelOf(s8.page);
  await p8.locator(':scope > summary').click();
  await p8.locator('.check-compare p.check-waiting').waitFor();
  assert.equal(await p8.locator('.check-compare').textContent(), strings88.zh.checkWaiting);
  assert.equal(await p8.locator('.check-inputs').isHidden(), true);
  await p8.locator('.check-inputs-show').evaluate((d) => { d.open = true; });
  const told = await check(s8.page, 'tensor([[1., 0.], [0.5, 0.5]])');
  assert.equal(told.error, `${strings88.zh.checkWaiting}${strings.zh.keep}`);
  assert.equal(await p8.locator('code.check-inputs-code').textContent(), '');
  assert.deepEqual(s8.errors, []);
  await s8.page.close();
});

test('18.3 at T = 64, where A is drawn on a canvas: "Explain this cell" puts the canvas\'s cursor on the first wrong weight and its provenance shows', async () => {
  const x = Array.from({ length: 64 }, (_, i) => [(i % 5) - 2, (i % 3) * 0.5]);
  const { page, errors } = await lab.open(`?embed=18.3&lang=zh&s3.x=${x.map((r) => r.join(',')).join(';')}`);
  const a = sec(page, '18.3').locator('[data-name="a"]');
  assert.equal(await a.locator('canvas.heatmap-canvas').isVisible(), true);
  const panel = await openPanel(page);
  await choose(panel, 'weights');
  // the core's weights for the section's default projections, one of them wrong
  const w = core.multiHeadAttention({ shape: [1, 64, 2], data: Float64Array.from(x.flat()) },
    { wq: { shape: [2, 2], data: [0.3, 0.1, 0, 0.3] }, wk: { shape: [2, 2], data: [0.2, -0.3, 0.3, 0.2] }, wv: { shape: [2, 2], data: [1, 0, 0.5, 1] }, heads: 1, causal: true }).weights;
  const rows = Array.from({ length: 64 }, (_, i) => Array.from(w.data.subarray(i * 64, i * 64 + 64)));
  rows[10][5] += 0.25;
  const got = await check(page, JSON.stringify(rows));
  assert.equal(got.verdict, 'unknown', got.text);
  assert.equal(await panel.locator('.check-first').getAttribute('data-index'), '0,0,10,5');
  await panel.locator('button.check-explain').click();
  const canvas = a.locator('canvas');
  assert.equal(await canvas.evaluate((c) => c === document.activeElement), true, 'the canvas has the focus');
  assert.equal(await canvas.getAttribute('data-prov-cells'), '10,5,target,', 'its cursor and outline are on row 10, column 5');
  const prov = sec(page, '18.3').locator('div.provenance');
  assert.equal(await prov.getAttribute('data-at'), '0,0,10,5', 'the provenance explains that weight');
  assert.equal(Number(await prov.locator('.prov-value').getAttribute('data-value')), w.data[10 * 64 + 5]);
  assert.match(await a.locator('output.heatmap-probe').textContent(), new RegExp(`${w.data[10 * 64 + 5].toFixed(3)}`));
  // the arrows go on from there
  await page.keyboard.press('ArrowRight');
  assert.equal(await prov.getAttribute('data-at'), '0,0,10,6');
  assert.deepEqual(errors, []);
  await page.close();
});
