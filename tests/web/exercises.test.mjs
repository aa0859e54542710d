// Exercises in the page, in both languages: answers typed as a student writes them (fractions,
// roots, expressions) are read and checked by the core; an answer that matches a known
// misconception gets its diagnosis instead of a plain "wrong".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, labMounted } from './harness.mjs';

const DIST = new URL('../../dist/', import.meta.url).pathname;
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

async function open(lang) {
  const { page, errors } = await openPage(chrome.browser, `${server.url}?lang=${lang}`);
  await page.waitForSelector('.lab-section[data-section="exercises"] [data-exercise]');
  await labMounted(page);
  const ex = (id) => page.locator(`[data-exercise="${id}"]`);
  const answer = async (id, values) => {
    const inputs = ex(id).locator('input[type="text"]');
    for (let i = 0; i < values.length; i++) await inputs.nth(i).fill(values[i]);
    await ex(id).locator('button[type="submit"]').click();
    return ex(id).locator('.feedback');
  };
  return { page, errors, ex, answer };
}

const TEXT = {
  en: { right: /^Correct! The core computes/, wrong: /^Not yet\./, readAs: /reads as 0\.7071/, unreadable: /could not read “1\/\/2”/,
    sqrtC: /You divided by .*, the width of the whole model/, before: /That is the mask-before answer/, receivers: /normalizes over the receivers/, unchanged: /That is the output for the original .*The output does change/ },
  zh: { right: /^正确！内核算出的答案是/, wrong: /^还不对。/, readAs: /读作 0\.7071/, unreadable: /“1\/\/2”读不懂/,
    sqrtC: /你除的是 .*，即整个模型的宽度/, before: /这是“先遮罩再 softmax”的答案/, receivers: /在接收位置（查询这一维）上归一化/, unchanged: /这是原来的 .* 对应的输出。输出其实会变/ },
};

for (const lang of ['en', 'zh']) {
  test(`exercises (${lang}): fractions and expressions are accepted; misconceptions are diagnosed`, async () => {
    const { page, errors, ex, answer } = await open(lang);
    const L = TEXT[lang];
    const text = async (id, values) => (await (await answer(id, values)).textContent()).replace(/\s+/g, ' ');
    // the right answer in the forms a student writes it
    assert.match(await text('ex-18.3-score', ['√2/2']), L.right);
    assert.match(await text('ex-18.3-score', ['√2/2']), L.readAs, 'an expression is shown as the number it was read as');
    assert.match(await text('ex-18.3-score', ['sqrt(2)/2']), L.right);
    assert.match(await text('ex-18.2-after', ['2/8 + 1/4']), L.right);
    assert.match(await text('ex-18.2-after', ['1/2']), L.right);
    assert.match(await text('ex-chapter-1', ['1/4', '1/2', '1/4', '5']), L.right);
    assert.match(await text('ex-18.4-head', ['2√2']), L.right);
    // misconceptions: the diagnosis, computed by the core (the same call with the other choice)
    for (const [id, values, diagnosis] of [['ex-18.4-head', ['1'], L.sqrtC], ['ex-18.2-after', ['1'], L.before],
      ['ex-chapter-3', null, L.unchanged]]) {
      let vals = values;
      if (!vals) vals = (await ex(id).locator('.given').textContent()).match(/\(([^,]+), ([^)]+)\)/).slice(1).map((s) => s.trim());
      const fb = await answer(id, vals);
      const t = (await fb.textContent()).replace(/\s+/g, ' ');
      assert.match(t, L.wrong, `${id} ${vals}`);
      assert.match(t, diagnosis, `${id} ${vals}`);
      assert.equal(await fb.locator('.diagnosis').count(), 1);
      assert.ok(await fb.locator('.diagnosis .katex').count() > 0, `${id}: the diagnosis renders its math`);
    }
    const choice = ex('ex-chapter-2');
    await choice.locator('input[value="1"]').check();
    await choice.locator('button[type="submit"]').click();
    assert.match((await choice.locator('.feedback').textContent()).replace(/\s+/g, ' '), L.receivers);
    // a wrong answer with no known misconception is plainly wrong; an unreadable one is marked
    const plain = await answer('ex-18.4-head', ['4']);
    assert.match(await plain.textContent(), L.wrong);
    assert.equal(await plain.locator('.diagnosis').count(), 0);
    const bad = await answer('ex-18.3-score', ['1//2']);
    assert.match(await bad.textContent(), L.unreadable);
    assert.equal(await ex('ex-18.3-score').locator('input').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

// Exercises with several boxes say which box is not right yet; an answer accepted within the
// exercise's tolerance says so (what was accepted, the core's value, the tolerance); shapes print
// as whole numbers; the unigram baseline given for 18.8's untrained loss is diagnosed.
const BOXES = {
  en: { off: /^Not right yet: (.*) \(the other boxes are right\)\.$/, within: /Correct! The core computes 3\.3472; your 3\.3322 is within 0\.05 of it/,
    shape: /^Correct! The core computes \(2, 4, 3, 7\)\.$/, unigram: /That is the unigram entropy/ },
  zh: { off: /^还不对的是：(.*)（其余输入框是对的）。$/, within: /正确！内核算出的是 3\.3472；你的 3\.3322 与它相差不到 0\.05/,
    shape: /^正确！内核算出的答案是 \(2, 4, 3, 7\)。$/, unigram: /这是这段文本的一元熵/ },
};
for (const lang of ['en', 'zh']) {
  test(`exercises (${lang}): which box is wrong, what a tolerance accepted, shapes as whole numbers, the unigram slip`, async () => {
    const { page, errors, ex, answer } = await open(lang);
    const L = BOXES[lang];
    const text = async (fb) => (await fb.textContent()).replace(/\s+/g, ' ').trim();
    // 18.1: the last row of Y is (6, 6); the first box right, the second not
    // the boxes named as not right yet
    const off = async (fb) => (await fb.locator('p.boxes-off').textContent()).match(L.off)[1].match(/“[^”]*”/g);
    let fb = await answer('ex-18.1-cumsum', ['6', '5']);
    assert.deepEqual(await off(fb), ['“Y[2, 1]”']);
    const inputs = ex('ex-18.1-cumsum').locator('input[type="text"]');
    assert.deepEqual([await inputs.nth(0).getAttribute('aria-invalid'), await inputs.nth(1).getAttribute('aria-invalid')], [null, 'true'], 'the wrong box is marked');
    // the chapter's exercise 1: two of four boxes off
    fb = await answer('ex-chapter-1', ['1/4', '1/3', '1/4', '4']);
    assert.deepEqual(await off(fb), ['“w₁”', '“y”']);
    // every box wrong: nothing to single out
    fb = await answer('ex-18.1-cumsum', ['1', '1']);
    assert.equal(await fb.locator('p.boxes-off').count(), 0);
    assert.equal(await ex('ex-18.1-cumsum').locator('input[aria-invalid="true"]').count(), 2);
    // right again: nothing is marked
    fb = await answer('ex-18.1-cumsum', ['6', '6']);
    assert.equal(await ex('ex-18.1-cumsum').locator('input[aria-invalid]').count(), 0);
    // a shape is whole numbers
    fb = await answer('ex-18.6-shape', ['2', '4', '3', '7']);
    assert.match(await text(fb), L.shape);
    // ln V for the untrained loss: accepted within the exercise's tolerance, and the page says so
    fb = await answer('ex-18.8-init', ['ln 28']);
    assert.match(await text(fb), L.within);
    // the unigram baseline instead of ln V: diagnosed, from the core's unigram entropy of the text
    fb = await answer('ex-18.8-init', ['2.80']);
    assert.match(await text(fb), L.unigram);
    assert.equal(await fb.locator('.diagnosis[data-misconception="unigram"]').count(), 1);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
