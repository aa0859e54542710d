// Export: every heatmap and chart saves a PNG, an SVG (vector, numbers as text) and
// a CSV (the core's values at full precision); a section's state saves as JSON and loads again,
// checked like a link. Downloads are Playwright download events; their files are read back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { builtLab, sec, fig, heatmapValues, urlWritten } from './harness.mjs';
import { fmt } from '../../web/src/format.js';

const { open } = builtLab();

/** Choose an export from a figure's menu with the keyboard only; resolves to {name, text, bytes}. */
async function exportBy(page, figure, kind) {
  await figure.locator('summary.export-toggle').focus();
  await page.keyboard.press('Enter');
  const item = figure.locator(`button[data-export="${kind}"]`);
  await assert.doesNotReject(item.waitFor({ state: 'visible' }));
  // the menu's first item has the focus; move to the one asked for with Tab
  while (!(await item.evaluate((b) => b === document.activeElement))) await page.keyboard.press('Tab');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
  const bytes = await readFile(await dl.path());
  assert.equal(await figure.locator('details.export-menu').evaluate((d) => d.open), false, 'the menu closes after a choice');
  return { name: dl.suggestedFilename(), bytes, text: bytes.toString('utf8') };
}

/** RFC 4180 rows (quoted fields with "" escapes). */
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; } else if (c === '\r') { /* before \n */ } else if (c === '\n') { row.push(field); rows.push(row); row = []; field = ''; } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** Parse an SVG in the page: {error, texts: [all text nodes], cells: [[text, data-value]], rects}. */
const parseSvg = (page, text) => page.evaluate((src) => {
  const doc = new DOMParser().parseFromString(src, 'image/svg+xml');
  const error = doc.querySelector('parsererror')?.textContent ?? null;
  return { error, root: doc.documentElement.localName, texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
    cells: [...doc.querySelectorAll('text[data-value]')].map((t) => [t.textContent, t.getAttribute('data-value')]),
    rects: doc.querySelectorAll('rect').length, width: Number(doc.documentElement.getAttribute('width')) };
}, text);

test('a heatmap exports CSV (the core\'s values, full precision), SVG (numbers as text) and PNG, by keyboard', async () => {
  const { page, errors } = await open('?embed=18.3&lang=en&s3.x=0.1,0.2;0.3,0.7;1,1.1');
  const a = fig(page, '18.3', 'a');
  const shown = await a.locator('table.heatmap tbody td').evaluateAll((tds) => tds.map((td) => [td.textContent, td.dataset.value]));
  const values = await heatmapValues(a);

  const csv = await exportBy(page, a, 'csv');
  assert.equal(csv.name, 'attention-lab-18.3-a.csv');
  const rows = parseCsv(csv.text);
  // the page's own headers: positions with their tokens ("0 the", "1 cat", ...)
  assert.deepEqual(rows[0], ['t \\ j', '0 the', '1 cat', '2 sat'], 'column headers');
  assert.deepEqual(rows.slice(1).map((r) => r[0]), ['0 the', '1 cat', '2 sat'], 'row headers');
  const numbers = rows.slice(1).map((r) => r.slice(1).map(Number));
  assert.deepEqual(numbers, values, 'the CSV holds exactly the values the page holds');
  // full precision: some weights are not round at 3 digits, and the CSV keeps every digit
  assert.ok(rows.slice(1).flat().some((s) => s.length > 10), 'unrounded values');
  assert.deepEqual(rows.slice(1).map((r) => r.slice(1)).flat(), shown.map(([, v]) => v), 'the same text as the cells\' data');

  const svg = await exportBy(page, a, 'svg');
  assert.equal(svg.name, 'attention-lab-18.3-a.svg');
  const parsed = await parseSvg(page, svg.text);
  assert.equal(parsed.error, null);
  assert.equal(parsed.root, 'svg');
  assert.deepEqual(parsed.cells, shown, 'every cell is in the SVG as text, as the page prints it, with its value');
  assert.ok(parsed.texts.some((s) => s.startsWith('Weights A = softmax(S + M)') && s.includes('(1, 3, 3)')), 'title with the shape');
  assert.ok(parsed.texts.includes('row t receives (query) · column j gives (key, the source)'), 'the axes line');
  assert.ok(parsed.rects >= 9);

  const png = await exportBy(page, a, 'png');
  assert.equal(png.name, 'attention-lab-18.3-a.png');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'a PNG signature');
  const [w, hgt] = [png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)];
  assert.equal(w, 2 * parsed.width, 'rasterised at twice the SVG size');
  assert.ok(hgt > 50);
  assert.deepEqual(errors, []);
  await page.close();
});

test('every heatmap and chart on the page carries the export menu', async () => {
  const { page, errors } = await open('?lang=zh');
  const counts = await page.evaluate(() => {
    const figs = [...document.querySelectorAll('figure.heat, figure.chart-figure')];
    return { figs: figs.length, menus: figs.filter((f) => f.querySelector(':scope > .export details.export-menu')).length };
  });
  assert.ok(counts.figs >= 20, `figures: ${counts.figs}`);
  assert.equal(counts.menus, counts.figs);
  assert.equal(await fig(page, '18.3', 'a').locator('summary.export-toggle').textContent(), '导出');
  assert.deepEqual(errors, []);
  await page.close();
});

test('a chart exports its data as CSV (equal to its table), and an SVG with axis labels, legend and ticks as text', async () => {
  const { page, errors } = await open('?embed=18.4&lang=en');
  const chart = sec(page, '18.4').locator('figure.chart-figure').first();
  await chart.locator('details.chart-data summary').click();
  await chart.locator('details.chart-data tbody tr').first().waitFor();   // built on the (asynchronous) toggle event
  const table = await chart.locator('details.chart-data table').evaluate((tb) => [...tb.rows].map((r) => [...r.cells].map((c) => c.textContent)));
  const csv = parseCsv((await exportBy(page, chart, 'csv')).text);
  assert.deepEqual(csv[0], table[0], 'same headers');
  assert.equal(csv.length, table.length);
  csv.slice(1).forEach((r, i) => {
    assert.equal(r[0], table[i + 1][0]);
    r.slice(1).forEach((v, j) => assert.equal(v === '' ? '' : fmt(Number(v), 4), table[i + 1][j + 1], `row ${i}, column ${j}`));
  });
  assert.ok(csv.slice(1).flat().some((s) => s.replace('-', '').length > 10), 'unrounded values');
  const svg = await parseSvg(page, (await exportBy(page, chart, 'svg')).text);
  assert.equal(svg.error, null);
  const label = await chart.locator('figcaption').evaluate((c) => c.firstChild.textContent);
  const legend = await chart.locator('ul.chart-legend li').allTextContents();
  const ticks = await chart.locator('svg.chart text.tick').allTextContents();
  for (const s of [label, csv[0][0], ...legend.map((l) => l.trim()), ...ticks]) assert.ok(svg.texts.includes(s), `the SVG says "${s}"`);
  const png = await exportBy(page, chart, 'png');
  assert.deepEqual([...png.bytes.subarray(0, 4)], [137, 80, 78, 71]);
  assert.deepEqual(errors, []);
  await page.close();
});

/** Load a file into a section through its (hidden) file input; resolves once the section's
 * notice names the file (every message does; give each load its own name). */
async function loadFile(page, id, name, text) {
  await sec(page, id).locator('input.state-file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await sec(page, id).locator('.state-notice', { hasText: name }).waitFor();
  await urlWritten(page);
}
const stateOf = (page) => Object.fromEntries([...new URL(page.url()).searchParams].filter(([k]) => k.startsWith('s3.')));

test('JSON: save, edit, load restores the state; invalid fields fall back and are named', async () => {
  const { page, errors } = await open('?embed=18.3&lang=en&s3.causal=0&s3.wq=0.5,0.1;0,0.3');
  const [dl] = await Promise.all([page.waitForEvent('download'), sec(page, '18.3').locator('button.save-state').click()]);
  assert.equal(dl.suggestedFilename(), 'attention-lab-18.3-state.json');
  const saved = JSON.parse(await readFile(await dl.path(), 'utf8'));
  assert.deepEqual(saved, { format: 'attention-lab-state', version: 1, section: '18.3',
    state: { x: '2,0;0,4;4,2', wq: '0.5,0.1;0,0.3', wk: '0.2,-0.3;0.3,0.2', wv: '1,0;0.5,1', layout: 'math', causal: '0', stage: 'off' } });

  // reset, then load the saved file as it is: the state comes back
  await sec(page, '18.3').locator('button.reset').click();
  await page.waitForFunction(() => ![...new URL(location.href).searchParams.keys()].some((k) => k.startsWith('s3.')));
  await loadFile(page, '18.3', 'saved.json', JSON.stringify(saved));
  assert.deepEqual(stateOf(page), { 's3.wq': '0.5,0.1;0,0.3', 's3.causal': '0' });
  assert.match(await sec(page, '18.3').locator('.state-notice').textContent(), /^Loaded this section’s state from saved\.json\.$/);

  // edited: a new X in plain JSON (4 rows), a bad W_K, an unknown key, a layout out of its options
  const edited = { ...saved, state: { ...saved.state, x: [[1, 2], [3, 4], [5, 6], [7, 8]], wk: 'abc', layout: 'sideways', extra: 1 } };
  await loadFile(page, '18.3', 'edited.json', JSON.stringify(edited));
  assert.deepEqual(stateOf(page), { 's3.x': '1,2;3,4;5,6;7,8', 's3.wq': '0.5,0.1;0,0.3', 's3.causal': '0' });
  const notice = sec(page, '18.3').locator('.state-notice');
  assert.equal(await notice.getAttribute('role'), 'status');
  assert.match(await notice.textContent(), /reset to defaults: wk, layout, extra$/);
  assert.equal((await heatmapValues(fig(page, '18.3', 'q'))).length, 4, 'the lab computed the loaded X');
  assert.deepEqual(errors, []);
  await page.close();
});

test('JSON: a broken, foreign or other section\'s file is refused with a message and changes nothing; drop works', async () => {
  const { page, errors } = await open('?lang=en&s3.causal=0');
  const before = { url: page.url(), a: await heatmapValues(fig(page, '18.3', 'a')) };
  const notice = sec(page, '18.3').locator('.state-notice');
  const cases = [
    ['broken.json', '{"format": "attention-lab-state", ', /^broken\.json is not valid JSON \(.+\); nothing in this section changed\.$/],
    ['foreign.json', JSON.stringify({ hello: 'world' }), /^foreign\.json is not an Attention Lab state file; nothing in this section changed\.$/],
    ['list.json', '[1, 2, 3]', /not an Attention Lab state file/],
    ['s4.json', JSON.stringify({ format: 'attention-lab-state', version: 1, section: '18.4', state: {} }),
      /^s4\.json holds the state of section 18\.4, not 18\.3; nothing in this section changed\.$/],
  ];
  for (const [name, text, message] of cases) {
    await loadFile(page, '18.3', name, text);
    assert.match(await notice.textContent(), message);
    assert.equal(await notice.getAttribute('role'), 'alert');
    assert.equal(page.url(), before.url, `${name}: the state did not change`);
    assert.deepEqual(await heatmapValues(fig(page, '18.3', 'a')), before.a);
  }
  // a good file dropped on the section
  const good = JSON.stringify({ format: 'attention-lab-state', version: 1, section: '18.3', state: { causal: true, x: '1,0;0,1' } });
  await sec(page, '18.3').evaluate((el, text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'dropped.json', { type: 'application/json' }));
    el.querySelector('.lab').dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    el.querySelector('.lab').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, good);
  await page.waitForFunction(() => new URL(location.href).searchParams.get('s3.x') === '1,0;0,1');
  assert.deepEqual(stateOf(page), { 's3.x': '1,0;0,1' });
  assert.match(await notice.textContent(), /from dropped\.json/);
  assert.deepEqual(errors, []);
  await page.close();
});
