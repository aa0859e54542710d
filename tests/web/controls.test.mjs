// Every control is bounded by the current state: a value a control offers (a drop-down option, a
// radio button, a checkbox, a whole number between the field's own min and max, a slider's ends)
// never leaves the section with an error. The only errors a student can reach are the ones a
// lesson teaches with (a wrong shape in 18.3, rows past T_max in 18.5), and those come from
// editing a matrix, not from picking an offered value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtLab, sec, fig } from './harness.mjs';
import { SECTIONS } from '../../web/src/sections/index.js';

const { open } = builtLab();
// the section's core error, wherever it is shown (beside a control, or in the status line), or null
const errorText = async (page, id) => ((await sec(page, id).evaluate((el) => el.classList.contains('has-error')))
  ? (await sec(page, id).locator('.cell-error:visible, .status.error').allTextContents()).join(' ') : null);

// 18.8 trains a model in a worker; its controls belong to another test file
const LABS = SECTIONS.filter((s) => s.module && s.id !== '18.8').map((s) => s.id);

test('every value a visible control offers computes, in every section (each control from the defaults)', async () => {
  const { page, errors } = await open();
  for (const id of LABS) {
    const lab = sec(page, id).locator('.lab');
    const reset = () => sec(page, id).locator('button.reset').click();
    // a switch the lesson is about asks for a prediction first (once per visit): skip it
    const skipPrediction = async () => {
      const skip = sec(page, id).locator('.predict:not([hidden]) button[data-act="skip"]');
      if (await skip.count()) await skip.first().click();
    };
    const check = async (what) => {
      await skipPrediction();
      assert.equal(await errorText(page, id), null, `${id}: ${what}`);
      assert.equal(await lab.locator('[aria-invalid="true"]').count(), 0, `${id}: ${what} is marked invalid`);
    };
    for (let i = 0; i < await lab.locator('select:visible').count(); i++) {
      const values = await lab.locator('select:visible').nth(i).locator('option').evaluateAll((os) => os.map((o) => o.value));
      for (const v of values) {
        await lab.locator('select:visible').nth(i).selectOption(v);
        await check(`select ${await lab.locator('select:visible').nth(i).getAttribute('data-name')} = ${v}`);
      }
      await reset();
    }
    for (let i = 0; i < await lab.locator('input[type="number"]:visible').count(); i++) {
      const field = lab.locator('input[type="number"]:visible').nth(i);
      for (const end of ['min', 'max']) {
        const v = await field.getAttribute(end);
        await field.fill(v);
        await check(`${await field.getAttribute('data-name')} = ${end} ${v}`);
        await reset();
      }
    }
    // the radios of a control (a "predict first" card's own radios are not controls of the state)
    const radios = lab.locator('input[type="radio"]:not(.predict input):visible');
    for (let i = 0; i < await radios.count(); i++) {
      await radios.nth(i).click();
      await skipPrediction();
      assert.equal(await radios.nth(i).isChecked(), true, `${id}: radio ${i} checked`);
      await check(`radio ${await radios.nth(i).getAttribute('value')}`);
    }
    await reset();
    for (let i = 0; i < await lab.locator('input[type="checkbox"]:visible').count(); i++) {
      await lab.locator('input[type="checkbox"]:visible').nth(i).click();
      await check(`checkbox ${await lab.locator('input[type="checkbox"]:visible').nth(i).getAttribute('data-name')}`);
    }
    await reset();
    for (let i = 0; i < await lab.locator('input[type="range"]:visible').count(); i++) {
      const slider = lab.locator('input[type="range"]:visible').nth(i);
      for (const end of ['min', 'max']) {
        await slider.fill(await slider.getAttribute(end));
        await check(`slider ${await slider.getAttribute('data-name')} at its ${end}`);
      }
    }
    await reset();
  }
  assert.deepEqual(errors, []);
  await page.close();
});

// controls that only some states show: each from the state that shows it, at its ends
test('controls hidden at the defaults compute too, from a state that shows them', async () => {
  const { page, errors } = await open('?lang=en&s5.pos=learned&s6.mode=cross');
  for (const [id, name] of [['18.5', 'posSeed'], ['18.6', 'tin']]) {
    const field = sec(page, id).locator(`input[type="number"][data-name="${name}"]`);
    assert.equal(await field.isVisible(), true, `${id} ${name} is shown in this state`);
    for (const end of ['min', 'max']) {
      const v = await field.getAttribute(end);
      await field.fill(v);
      assert.equal(await errorText(page, id), null, `${id}: ${name} = ${end} ${v}`);
      assert.equal(await sec(page, id).locator('.lab [aria-invalid="true"]').count(), 0, `${id}: ${name} = ${end} ${v} is marked invalid`);
    }
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.4: "Show head" offers the heads there are, the heads divide C, and both follow changes', async () => {
  const { page, errors } = await open('?embed=18.4&lang=en');
  const options = async (name) => fig(page, '18.4', name).locator('option').evaluateAll((os) => os.map((o) => Number(o.value)));
  assert.deepEqual(await options('head'), [0, 1, 2, 3], '4 heads');
  await fig(page, '18.4', 'head').selectOption('3');
  await fig(page, '18.4', 'heads').selectOption('2');
  assert.deepEqual(await options('head'), [0, 1]);
  assert.equal(await fig(page, '18.4', 'head').inputValue(), '1', 'head 3 of 2 became the last head');
  await fig(page, '18.4', 'heads').selectOption('8');
  await fig(page, '18.4', 'C').selectOption('4');
  assert.deepEqual(await options('heads'), [1, 2, 4], 'C = 4: 8 heads are not offered');
  assert.equal(await fig(page, '18.4', 'heads').inputValue(), '4');
  assert.deepEqual(await options('head'), [0, 1, 2, 3]);
  assert.equal(await errorText(page, '18.4'), null);
  await page.waitForURL(/s4\.heads=4|s4\.C=4/);   // written once the edits pause
  assert.deepEqual(errors, []);
  await page.close();
});

test('18.7: t stops at T - 2 and follows T', async () => {
  const { page, errors } = await open('?embed=18.7&lang=en');
  const t = fig(page, '18.7', 't');
  assert.equal(await t.getAttribute('max'), '4', 'T = 6');
  await t.fill('5');
  assert.equal(await t.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator(`#${await t.getAttribute('aria-describedby')}`).textContent(), /from 0 to 4/);
  assert.equal(await errorText(page, '18.7'), null, 'the section keeps working');
  await t.fill('4');
  await fig(page, '18.7', 'T').fill('3');
  assert.equal(await t.inputValue(), '1', 't moved to T - 2');
  assert.equal(await t.getAttribute('max'), '1');
  assert.equal(await errorText(page, '18.7'), null);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link whose values do not fit together is fitted, with a notice, and no section fails', async () => {
  const { page, errors } = await open('?lang=en&s4.C=4&s4.heads=8&s4.head=5&s7.T=3&s7.t=8&s2.kind=btt&s2.dim=3');
  const notice = await page.locator('.notice').textContent();
  for (const name of ['s4.heads', 's4.head', 's7.t', 's2.dim']) assert.ok(notice.includes(name), `${name} in the notice`);
  assert.equal(await fig(page, '18.4', 'heads').inputValue(), '4');
  assert.equal(await fig(page, '18.4', 'head').inputValue(), '3');
  assert.equal(await fig(page, '18.7', 't').inputValue(), '1');
  assert.equal(await page.locator('.lab-section.has-error').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});
