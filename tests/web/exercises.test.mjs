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
  await page.waitForSelector('.lab-section[data-section="exercises"] [data-exercise]', { timeout: 15000 });
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
