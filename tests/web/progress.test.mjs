// Progress that is kept, in headless Chromium: answers, checks and visits survive a reload in the
// served page, the embed and the single file from file://; the progress view counts them; a
// foreign value is ignored with a notice; storage that throws leaves a working page kept in
// memory; "forget my progress" asks, then clears the page and the storage.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { serve, launch, labMounted } from './harness.mjs';
import { exercises } from './page-modules.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const DIST = new URL('../../dist/', import.meta.url).pathname;
const KEY = 'attention-lab.progress';
let server, chrome;
before(async () => { server = await serve(DIST); chrome = await launch(); });
after(async () => { await chrome?.close(); server?.close(); });

/** A page in a fresh browser profile (its own localStorage) that records errors. */
async function fresh({ init } = {}) {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (init) await context.addInitScript(init);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors, close: () => context.close() };
}
const ready = async (page) => { await page.waitForSelector('.progress-view'); await labMounted(page); };
const ex = (page, id) => page.locator(`article[data-exercise="${id}"]`);
async function answer(page, id, values) {
  const inputs = ex(page, id).locator('input[type="text"]');
  for (let i = 0; i < values.length; i++) await inputs.nth(i).fill(values[i]);
  await ex(page, id).locator('button[type="submit"]').click();
}
const stored = (page) => page.evaluate((k) => localStorage.getItem(k), KEY);
const count = (page) => page.locator('.progress-view .progress-count').textContent();
const N = exercises.length, S = SECTIONS.length;   // the whole page's
/** An entry of the kept text (progress.js, format 2), as a pattern. */
const entry = (text) => new RegExp(`[|;]${text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(;|$)`);

// The store tells the view of every change, a keystroke in an exercise's box among them; the view
// is built again only when what it shows changed (a check, a visit), not on every keystroke.
test('typing an answer leaves the progress view as it is; checking it updates the view', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(`${server.url}?lang=en&embed=18.4`);
  await ready(page);
  await page.evaluate(() => {
    window.__viewChanges = 0;
    new MutationObserver((ms) => { window.__viewChanges += ms.length; })
      .observe(document.querySelector('.progress-view'), { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await ex(page, 'ex-18.4-head').locator('input[type="text"]').pressSequentially('12');
  assert.match(await stored(page), entry('s4:0:12'), 'the draft is kept');
  assert.equal(await page.evaluate(() => window.__viewChanges), 0, 'the view did not change');
  await ex(page, 'ex-18.4-head').locator('button[type="submit"]').click();
  await page.waitForFunction(() => window.__viewChanges > 0);
  assert.equal(await page.locator('.progress-view a.ex-status[data-ex="ex-18.4-head"]').getAttribute('data-status'), 'wrong');
  assert.deepEqual(errors, []);
  await close();
});

test('the served page keeps answers, checks and visits across a reload', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(`${server.url}?lang=en`);
  await ready(page);
  assert.match(await count(page), new RegExp(`^0 of ${N} exercises solved · 1 of ${S} sections visited$`), 'the first section is in view');
  await answer(page, 'ex-18.3-score', ['√2/2']);                     // right
  await answer(page, 'ex-18.4-head', ['1']);                          // wrong
  await ex(page, 'ex-18.6-shape').locator('input').first().fill('2'); // a draft, not checked
  await ex(page, 'ex-chapter-2').locator('input[value="-1"]').check();
  await ex(page, 'ex-chapter-2').locator('button[type="submit"]').click();
  // each exercise by its section's URL prefix; √ is ~G (progress.js)
  assert.match(await stored(page), entry('s3:2:~G2/2'));
  assert.match(await stored(page), entry('s4:1:1'));
  assert.match(await stored(page), entry('s6:0:2,,,'));
  assert.match(await stored(page), entry('ex.1:2:-1'));
  assert.match(await count(page), new RegExp(`^2 of ${N} exercises solved`));

  await page.reload();
  await ready(page);
  assert.equal(await ex(page, 'ex-18.3-score').locator('input').inputValue(), '√2/2');
  assert.match(await ex(page, 'ex-18.3-score').locator('.feedback').textContent(), /You solved this before/);
  assert.equal(await ex(page, 'ex-18.4-head').locator('input').inputValue(), '1');
  assert.equal(await ex(page, 'ex-18.4-head').locator('.feedback').textContent(), '', 'a wrong check is not repeated');
  assert.equal(await ex(page, 'ex-18.6-shape').locator('input').first().inputValue(), '2');
  assert.equal(await ex(page, 'ex-chapter-2').locator('input[value="-1"]').isChecked(), true);
  // the view: counts, one line per section, each exercise's status
  assert.match(await count(page), new RegExp(`^2 of ${N} exercises solved · \\d+ of ${S} sections visited$`));
  await page.locator('.progress-view summary').click();
  const status = (id) => page.locator(`.progress-view a.ex-status[data-ex="${id}"]`).getAttribute('data-status');
  assert.equal(await status('ex-18.3-score'), 'solved');
  assert.equal(await status('ex-18.4-head'), 'wrong');
  assert.equal(await status('ex-18.6-shape'), 'untried');
  assert.equal(await page.locator('.progress-view tbody tr').count(), S);
  assert.match(await page.locator('.progress-where').textContent(), /this browser only.*nothing is sent/);
  // scrolling to a section marks it visited
  const visited = () => page.locator('.progress-view tr[data-section="18.7"] td').first().getAttribute('class');
  assert.equal(await visited(), 'no');
  await page.locator('#s18-7').scrollIntoViewIfNeeded();
  await page.locator('#s18-7 h2').evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.waitForFunction(() => document.querySelector('.progress-view tr[data-section="18.7"] td').className === 'yes');
  assert.match(await stored(page), /^AL2\|([^|]*,)?s7[,|]/);
  assert.deepEqual(errors, []);
  await close();
});

test('forget my progress asks first, then clears the answers, the view and the storage', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(`${server.url}?lang=zh`);
  await ready(page);
  await answer(page, 'ex-18.2-after', ['1/2']);
  await page.locator('.progress-view summary').click();
  await page.locator('button.forget').click();
  assert.equal(await page.locator('.forget-confirm').isVisible(), true);
  await page.locator('.forget-confirm button:not(.danger)').click();   // cancel
  assert.notEqual(await stored(page), null, 'cancel keeps everything');
  await page.locator('button.forget').click();
  await page.locator('.forget-confirm button.danger').click();
  assert.equal(await stored(page), null);
  assert.equal(await ex(page, 'ex-18.2-after').locator('input').inputValue(), '');
  assert.equal(await ex(page, 'ex-18.2-after').locator('.feedback').textContent(), '');
  assert.match(await count(page), new RegExp(`^练习做对 0/${N}`));
  assert.equal(await page.locator('.progress-said').textContent(), '进度已清除。');
  await page.reload();
  await ready(page);
  assert.equal(await ex(page, 'ex-18.2-after').locator('input').inputValue(), '');
  assert.deepEqual(errors, []);
  await close();
});

test('a foreign or broken kept value is ignored with a notice; the page works and writes a good one', async () => {
  for (const [value, text] of [['{"ex-18.3-score":"0.7"}', /could not be read/], ['AL9|18.1|', /newer version/],
    ['AL1|18.1|ex-gone:2:1;ex-18.7-eval:2:0', /did not match this version/]]) {
    const { page, errors, close } = await fresh({ init: `localStorage.setItem(${JSON.stringify(KEY)}, ${JSON.stringify(value)})` });
    await page.goto(`${server.url}?lang=en`);
    await ready(page);
    const notice = await page.locator('p.notice').allTextContents();
    assert.ok(notice.some((n) => text.test(n)), `${value}: ${notice}`);
    assert.equal(await page.locator('.lab-section').count(), S);
    await answer(page, 'ex-18.3-score', ['0.7071']);
    assert.match(await ex(page, 'ex-18.3-score').locator('.feedback').textContent(), /^Correct/);
    assert.match(await page.evaluate((k) => localStorage.getItem(k), KEY), /^AL2\|.*[|;]s3:2:0\.7071(;|$)/);
    if (text.source.includes('match')) assert.equal(await ex(page, 'ex-18.7-eval').locator('input').inputValue(), '0', 'the good part is kept');
    assert.deepEqual(errors, []);
    await close();
  }
});

test('storage that throws: the page works, progress lasts while it is open, and the view says so', async () => {
  const init = `Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('denied', 'SecurityError'); } });`;
  const { page, errors, close } = await fresh({ init });
  await page.goto(`${server.url}?lang=en`);
  await ready(page);
  await answer(page, 'ex-18.3-score', ['sqrt(2)/2']);
  assert.match(await count(page), new RegExp(`^1 of ${N} exercises solved`));
  assert.equal(await page.locator('.progress-view').getAttribute('data-kept'), 'memory');
  assert.match(await page.locator('.progress-where').textContent(), /lasts until you close the page/);
  assert.equal(await page.locator('p.notice').count(), 0, 'no error, no notice');
  assert.deepEqual(errors, []);
  await close();
});

test('the embed keeps progress in the same place as the page, and shows its own view', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(server.blank);   // same origin as the frame
  await page.evaluate((src) => {
    const f = document.createElement('iframe');
    f.src = src;
    f.style.cssText = 'width: 900px; height: 1600px';
    document.body.replaceChildren(f);
  }, `${server.url}?embed=18.3&lang=en`);
  const frame = page.frameLocator('iframe');
  await frame.locator('.progress-view').waitFor();
  assert.match(await frame.locator('.progress-count').textContent(), /^0 of 1 exercises solved · 1 of 1 sections visited$/);
  await frame.locator('article[data-exercise="ex-18.3-score"] input').fill('1/√2');
  await frame.locator('article[data-exercise="ex-18.3-score"] button[type="submit"]').click();
  assert.match(await frame.locator('.progress-count').textContent(), /^1 of 1 exercises solved/);
  // the full page (same origin) finds it
  await page.goto(`${server.url}?lang=en`);
  await ready(page);
  assert.equal(await ex(page, 'ex-18.3-score').locator('input').inputValue(), '1/√2');
  assert.match(await count(page), new RegExp(`^1 of ${N} exercises solved`));
  assert.deepEqual(errors, []);
  await close();
});

test('the single file from file:// keeps progress across a reload', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(`${pathToFileURL(`${DIST}attention-lab.html`).href}?lang=en`);
  await ready(page);
  await answer(page, 'ex-18.1-cumsum', ['6', '6']);
  await page.reload();
  await ready(page);
  assert.equal(await ex(page, 'ex-18.1-cumsum').locator('input').nth(1).inputValue(), '6');
  assert.match(await ex(page, 'ex-18.1-cumsum').locator('.feedback').textContent(), /You solved this before/);
  assert.equal(await page.locator('.progress-view').getAttribute('data-kept'), 'local');
  assert.deepEqual(errors, []);
  await close();
});

test('a solved exercise stays solved after a later wrong try, which the exercise and the view show as a later try, also after a reload', async () => {
  const { page, errors, close } = await fresh();
  await page.goto(`${server.url}?embed=18.3&lang=en`);
  await page.waitForSelector('.progress-view');
  const status = () => page.locator('.progress-view a.ex-status[data-ex="ex-18.3-score"]');
  await answer(page, 'ex-18.3-score', ['√2/2']);
  assert.equal(await status().getAttribute('data-status'), 'solved');
  await answer(page, 'ex-18.3-score', ['1']);
  const feedback = () => ex(page, 'ex-18.3-score').locator('.feedback');
  assert.match(await feedback().textContent(), /^Not yet\..*it stays solved; this later try is not right\./s);
  assert.equal(await status().getAttribute('data-status'), 'solved', 'the view keeps it solved');
  assert.equal(await status().textContent(), '✓ solved (a later try was not right)');
  assert.match(await page.locator('.progress-view .progress-count').textContent(), /^1 of 1 exercises solved/);
  await page.reload();
  await page.waitForSelector('.progress-view');
  assert.equal(await ex(page, 'ex-18.3-score').locator('input').inputValue(), '1', 'the later try is what the box keeps');
  assert.match(await feedback().textContent(), /You solved this before\. The answer kept here is a later try, which was not right\./);
  assert.equal(await status().getAttribute('data-status'), 'solved');
  assert.match(await page.locator('.progress-view .progress-count').textContent(), /^1 of 1 exercises solved/);
  // right again: plainly solved
  await answer(page, 'ex-18.3-score', ['√2/2']);
  assert.equal(await status().textContent(), '✓ solved');
  assert.deepEqual(errors, []);
  await close();
});
