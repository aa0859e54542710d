// "Show as PyTorch": every section's program, at the default state (Chinese page) and after an
// edit made in the page (English page), is run by real PyTorch (Debian's python3-torch) and the
// numbers it prints must equal the numbers the page shows (read from the DOM: the heatmaps' and
// readouts' data-value, the chart tables) to 1e-12. Files the panel offers (18.4's Monte Carlo
// draws, 18.8's parameters) are downloaded from the page and put beside the program.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec } from './harness.mjs';
import { runPrograms, assertClose } from '../node/pytorch.mjs';
import { LABS, UNREAD, LOOSE, cell, program, collect, eachView } from './pytorch-views.mjs';

const lab = builtLab();
const TOL = 1e-12;

test('every section read here has a "Show as PyTorch" panel; the program is written only when it is opened', async (t) => {
  const { page, errors } = await lab.open('?lang=en');
  for (const id of LABS) {
    const panel = sec(page, id).locator('details.pytorch-panel');
    assert.equal(await panel.count(), 1, id);
    assert.equal(await panel.locator('summary').textContent(), 'Show as PyTorch');
    assert.equal(await panel.locator('[data-pytorch]').textContent(), '', `${id}: nothing written while closed`);
  }
  for (const id of UNREAD) {
    const panels = await sec(page, id).locator('details.pytorch-panel').count();
    t.diagnostic(`${id}: ${panels ? 'a panel, but ' : 'no panel, and '}no reader of its numbers in PAGE (tests/web/pytorch-views.mjs): its program is not run`);
  }
  assert.equal(await sec(page, 'exercises').locator('details.pytorch-panel').count(), 0, 'the exercises have no program: it would print their answers');
  // open: the program appears; an edit while open rewrites it
  const panel = await program(page, '18.3');
  const before = await panel.locator('[data-pytorch]').textContent();
  assert.match(before, /^# Attention Lab 18\.3/);
  assert.match(before, /torch\.set_default_dtype\(torch\.float64\)/);
  await cell(page, '18.3', 'x', 0, 0).fill('2.5');
  const after = await panel.locator('[data-pytorch]').textContent();
  assert.notEqual(after, before);
  assert.match(after, /X = torch\.tensor\(\[\[\[2\.5, 0\.0\],/);
  // copy: to the clipboard where allowed, else the program is selected for Ctrl+C
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await panel.locator('button.pytorch-copy').click();
  await page.waitForFunction(() => /Copied|selected/.test(document.querySelector('.lab-section[data-section="18.3"] .pytorch-status').textContent));
  if (/Copied/.test(await panel.locator('.pytorch-status').textContent())) assert.equal(await page.evaluate(() => navigator.clipboard.readText()), after);
  // 18.8 before any model: the panel says what to do
  await sec(page, '18.8').locator('details.pytorch-panel summary').click();
  // (the panel writes on its toggle event, which comes after the click)
  await page.waitForFunction(() => /once the model is built/.test(document.querySelector('.lab-section[data-section="18.8"] .pytorch-note')?.textContent ?? ''));
  assert.deepEqual(errors, []);
  await page.close();
});

test('each section\'s program, default and edited, run by PyTorch, prints the numbers the page shows (1e-12)', async (t) => {
  const jobs = [];
  const shown = {};
  await eachView(lab, async ({ page, id, state, which, lang }) => {
    const r = await collect(page, id, state);
    if (lang === 'zh') assert.match(r.code, new RegExp(`^# 注意力实验室 ${id.replace('.', '\\.')}`), `${id}: the Chinese page writes Chinese comments`);
    jobs.push({ id: `${which} ${id}`, code: r.code, files: r.files });
    shown[`${which} ${id}`] = r.shown;
  }, (text) => t.diagnostic(text));
  const ran = await runPrograms(jobs);
  for (const job of jobs) {
    const out = ran[job.id];
    assert.equal(out.error, null, `${job.id}: the program failed:\n${out.error}`);
    for (const [label, want] of Object.entries(shown[job.id])) {
      assert.ok(label in out.values, `${job.id}: the program does not print '${label}'; it prints ${Object.keys(out.values).join(' | ')}`);
      if (LOOSE.test(label)) {
        const a = out.values[label], b = want;
        assert.ok(a < 1e-7 && b < 1e-7 && a / b < 1e3 && b / a < 1e3, `${job.id} ${label}: PyTorch ${a}, page ${b}`);
      } else assertClose(out.values[label], want, TOL, `${job.id} ${label}`);
    }
  }
});
