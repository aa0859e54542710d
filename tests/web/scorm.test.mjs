// The SCORM packages (dist/attention-lab-scorm{12,2004}.zip, scripts/scorm.mjs) in headless
// Chromium against a real SCORM runtime playing the platform: scorm-again's Scorm12API and
// Scorm2004API on a host page served on loopback, which unpacks the package and launches its entry
// point (from the manifest, with the item's parameters) in an iframe. Each version: launch, solve,
// check the values the runtime received and that they were committed, leave (finish/terminate
// with a session time), relaunch with the runtime's stored data and find the progress restored;
// a one-section package with a passing score and solutions hidden; the language switch keeps the
// session open. And the manifests against the schemas' required elements; no request leaves the package.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { serve, launch } from './harness.mjs';
import { buildPackage } from '../../scripts/scorm.mjs';
import { exercises } from './page-modules.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const DIST = `${ROOT}dist/`;
const FILES = { '1.2': 'attention-lab-scorm12.zip', 2004: 'attention-lab-scorm2004.zip' };
const N = exercises.length;   // the whole lab's
/** The score the platform is sent for `solved` of `total`: a percentage to two places, as SCORM's decimal text. */
const percent = (solved, total, places = 2) => String(Number((100 * solved / total).toFixed(places)));
const HOST = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>LMS</title>
<script src="scorm-again.js"></script>
<body style="margin:0"><iframe id="sco" style="width:1280px;height:900px;border:0"></iframe>
<script>
  // One launch: a fresh runtime (with what the platform stored from the last one), every call recorded.
  window.launch = (version, stored, src) => {
    window.calls = [];
    const api = version === '1.2' ? new Scorm12API({ logLevel: 5 }) : new Scorm2004API({ logLevel: 5 });
    if (stored) api.loadFromJSON(stored, '');
    const names = version === '1.2' ? ['LMSInitialize', 'LMSSetValue', 'LMSCommit', 'LMSFinish'] : ['Initialize', 'SetValue', 'Commit', 'Terminate'];
    for (const n of names) api.on(n, (...args) => calls.push([n, ...args.map((a) => (a === null || a === undefined ? '' : String(a)))]));
    delete window.API;
    delete window.API_1484_11;
    window[version === '1.2' ? 'API' : 'API_1484_11'] = api;
    document.getElementById('sco').src = src;
  };
  // What the runtime holds, read from its data model (also after the session is finished); for a
  // write-only element (exit, session_time), the last value the SCO set.
  window.value = (field) => {
    try {
      return field.split('.').slice(1).reduce((o, k) => o?.[k], (window.API ?? window.API_1484_11).cmi);
    } catch {
      return window.calls.findLast((c) => /SetValue$/.test(c[0]) && c[1] === field)?.[2];
    }
  };
  window.leave = () => { document.getElementById('sco').src = 'about:blank'; };
</script>`;

let work, server, chrome;
const packages = {};   // name -> {files, dir}
before(async () => {
  work = mkdtempSync(join(tmpdir(), 'attention-lab-lms-'));
  writeFileSync(join(work, 'host.html'), HOST);
  copyFileSync(`${ROOT}node_modules/scorm-again/dist/scorm-again.js`, join(work, 'scorm-again.js'));
  const html = readFileSync(`${DIST}attention-lab.html`);
  const zips = {
    '1.2': readFileSync(DIST + FILES['1.2']), 2004: readFileSync(DIST + FILES[2004]),
    // an instructor's package: section 18.3 in English, a graded session (no solutions), pass at 50 %
    '1.2-section': buildPackage({ version: '1.2', html, lang: 'en', section: '18.3', solutions: false, pass: 50 }),
    '2004-section': buildPackage({ version: '2004', html, lang: 'en', section: '18.3', solutions: false, pass: 50 }),
  };
  for (const [name, zip] of Object.entries(zips)) {
    const files = unzipSync(new Uint8Array(zip));
    for (const [path, bytes] of Object.entries(files)) {
      mkdirSync(dirname(join(work, name, path)), { recursive: true });
      writeFileSync(join(work, name, path), bytes);
    }
    packages[name] = { files, manifest: strFromU8(files['imsmanifest.xml']) };
  }
  server = await serve(work);
  chrome = await launch();
});
after(async () => {
  await chrome?.close();
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The manifest's required elements, read with the browser's namespace-aware XML parser. */
async function readManifest(page, text, version) {
  return page.evaluate(({ text, version }) => {
    const NS = version === '1.2'
      ? { cp: 'http://www.imsproject.org/xsd/imscp_rootv1p1p2', adlcp: 'http://www.adlnet.org/xsd/adlcp_rootv1p2', type: 'scormtype' }
      : { cp: 'http://www.imsglobal.org/xsd/imscp_v1p1', adlcp: 'http://www.adlnet.org/xsd/adlcp_v1p3', type: 'scormType' };
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    if (doc.getElementsByTagName('parsererror').length) return { error: doc.getElementsByTagName('parsererror')[0].textContent };
    const kids = (el, name) => [...el.children].filter((c) => c.namespaceURI === NS.cp && c.localName === name);
    const root = doc.documentElement;
    const [metadata] = kids(root, 'metadata');
    const [orgs] = kids(root, 'organizations');
    const [resources] = kids(root, 'resources');
    const organizations = orgs ? kids(orgs, 'organization') : [];
    const items = organizations.flatMap((o) => kids(o, 'item'));
    return {
      rootNs: root.namespaceURI, rootName: root.localName, identifier: root.getAttribute('identifier'),
      schema: metadata && kids(metadata, 'schema')[0]?.textContent, schemaversion: metadata && kids(metadata, 'schemaversion')[0]?.textContent,
      defaultOrg: orgs?.getAttribute('default'), organizations: organizations.map((o) => ({ id: o.getAttribute('identifier'), title: kids(o, 'title')[0]?.textContent })),
      items: items.map((i) => ({ id: i.getAttribute('identifier'), ref: i.getAttribute('identifierref'), title: kids(i, 'title')[0]?.textContent, parameters: i.getAttribute('parameters') })),
      resources: (resources ? kids(resources, 'resource') : []).map((r) => ({
        id: r.getAttribute('identifier'), type: r.getAttribute('type'), scormType: r.getAttributeNS(NS.adlcp, NS.type), href: r.getAttribute('href'),
        files: kids(r, 'file').map((f) => f.getAttribute('href')),
      })),
      ids: [...doc.querySelectorAll('[identifier]')].map((e) => e.getAttribute('identifier')),
    };
  }, { text, version });
}

test('the manifests have the required elements, and the package holds exactly what they list', async () => {
  const page = await chrome.browser.newPage();
  await page.goto(`${server.url}host.html`);
  for (const [name, pkg] of Object.entries(packages)) {
    const version = name.startsWith('1.2') ? '1.2' : '2004';
    const m = await readManifest(page, pkg.manifest, version);
    assert.equal(m.error, undefined, `${name}: ${m.error}`);
    assert.equal(m.rootName, 'manifest');
    assert.equal(m.rootNs, version === '1.2' ? 'http://www.imsproject.org/xsd/imscp_rootv1p1p2' : 'http://www.imsglobal.org/xsd/imscp_v1p1');
    assert.match(m.identifier, /^[A-Za-z_][\w.-]*$/, `${name}: identifier is an xsd:ID`);
    assert.equal(m.schema, 'ADL SCORM');
    assert.equal(m.schemaversion, version === '1.2' ? '1.2' : '2004 4th Edition');
    assert.equal(new Set(m.ids).size, m.ids.length, `${name}: identifiers are unique`);
    assert.equal(m.organizations.length, 1);
    assert.equal(m.defaultOrg, m.organizations[0].id, 'organizations@default names the organization');
    assert.ok(m.organizations[0].title);
    assert.equal(m.items.length, 1, `${name}: one SCO`);
    assert.ok(m.items[0].title);
    assert.equal(m.resources.length, 1);
    const [res] = m.resources;
    assert.equal(m.items[0].ref, res.id, 'the item points at the resource');
    assert.equal(res.type, 'webcontent');
    assert.equal(res.scormType, 'sco', `${name}: adlcp:${version === '1.2' ? 'scormtype' : 'scormType'} = sco`);
    assert.equal(res.href, 'attention-lab.html');
    const inZip = Object.keys(pkg.files).filter((f) => f !== 'imsmanifest.xml').sort();
    assert.deepEqual(res.files.sort(), inZip, `${name}: every file listed, every listed file present`);
    assert.ok(inZip.includes(res.href));
    // the entry point is the single file: nothing to load besides it
    const html = strFromU8(pkg.files[res.href]);
    assert.equal(/<script[^>]+\ssrc=/i.test(html), false, 'no external script');
    assert.equal(/<link[^>]+\shref="(?!data:)/i.test(html), false, 'no external stylesheet or icon');
    if (name.endsWith('section')) assert.equal(m.items[0].parameters, '?embed=18.3&lang=en&solutions=0');
    else assert.equal(m.items[0].parameters, null);
  }
  // the passing score: 1.2 adlcp:masteryscore, 2004 the primary objective's measure
  assert.match(packages['1.2-section'].manifest, /<adlcp:masteryscore>50<\/adlcp:masteryscore>/);
  assert.match(packages['2004-section'].manifest, /<imsss:primaryObjective objectiveID="[^"]+" satisfiedByMeasure="true">\s*<imsss:minNormalizedMeasure>0.5<\/imsss:minNormalizedMeasure>/);
  await page.close();
});

// ---- launching ----

const F = {
  '1.2': { raw: 'cmi.core.score.raw', min: 'cmi.core.score.min', max: 'cmi.core.score.max', exit: 'cmi.core.exit', time: 'cmi.core.session_time',
    init: 'LMSInitialize', set: 'LMSSetValue', commit: 'LMSCommit', finish: 'LMSFinish' },
  2004: { raw: 'cmi.score.raw', min: 'cmi.score.min', max: 'cmi.score.max', exit: 'cmi.exit', time: 'cmi.session_time',
    init: 'Initialize', set: 'SetValue', commit: 'Commit', finish: 'Terminate' },
};

/** A host page with the runtime; launch(name, stored) opens package `name` as the platform would. */
async function platform() {
  const page = await chrome.browser.newPage({ viewport: { width: 1300, height: 950 } });
  const errors = [], requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${server.url}host.html`);
  const frame = page.frameLocator('#sco');
  return {
    page, errors, requests, frame,
    async launch(name, stored = null) {
      const version = name.startsWith('1.2') ? '1.2' : '2004';
      const m = await readManifest(page, packages[name].manifest, version);
      await page.evaluate(({ version, stored, src }) => window.launch(version, stored, src),
        { version, stored, src: `${server.url}${name}/${m.resources[0].href}${m.items[0].parameters ?? ''}` });
      await frame.locator('.progress-view').waitFor();
      // a one-section package is an embed: its exercises come after its lab (mount.js, exercisesWhenIdle)
      await page.waitForFunction(() => document.getElementById('sco').contentWindow.performance.getEntriesByName('attention-lab:mounted').length > 0);
    },
    value: (field) => page.evaluate((f) => window.value(f), field),
    calls: () => page.evaluate(() => window.calls),
    /** Wait until every value set so far has been committed. */
    committed: (v) => page.waitForFunction((F) => {
      const last = (re) => window.calls.findLastIndex((c) => c[0] === re);
      return last(F.commit) > last(F.set);
    }, F[v]),
    async answer(id, values) {
      const ex = frame.locator(`article[data-exercise="${id}"]`);
      const inputs = ex.locator('input[type="text"]');
      for (let i = 0; i < values.length; i++) await inputs.nth(i).fill(values[i]);
      await ex.locator('button[type="submit"]').click();
      return ex;
    },
  };
}

/** What the platform keeps between launches, from the runtime's data model. */
async function storedData(lms, version) {
  const suspend_data = await lms.value('cmi.suspend_data');
  if (version === '1.2') return { suspend_data, core: { lesson_status: await lms.value('cmi.core.lesson_status'), entry: 'resume' } };
  return { suspend_data, completion_status: await lms.value('cmi.completion_status'), success_status: await lms.value('cmi.success_status'), entry: 'resume' };
}

for (const version of ['1.2', '2004']) {
  test(`SCORM ${version}: launch, solve, the runtime receives status, score and progress; relaunch restores it`, async () => {
    const f = F[version];
    const lms = await platform();
    await lms.launch(version);
    let calls = await lms.calls();
    assert.equal(calls[0][0], f.init, 'Initialize first');
    assert.equal(await lms.value(f.exit), 'suspend', 'exit = suspend: the platform keeps suspend_data');
    assert.equal(await lms.value(f.raw), '0');
    assert.equal(await lms.value(f.min), '0');
    assert.equal(await lms.value(f.max), '100');
    if (version === '1.2') assert.equal(await lms.value('cmi.core.lesson_status'), 'incomplete');
    else assert.deepEqual([await lms.value('cmi.completion_status'), await lms.value('cmi.success_status')], ['incomplete', 'unknown']);
    assert.match(await lms.frame.locator('.progress-where').textContent(), /课程平台（SCORM）/);

    await lms.answer('ex-18.3-score', ['√2/2']);   // right
    await lms.answer('ex-18.4-head', ['1']);       // wrong (√C)
    await lms.committed(version);
    // 1 of the N exercises (11: 100 / 11 = 9.09 %)
    assert.equal(await lms.value(f.raw), percent(1, N));
    if (version === '1.2') assert.equal(await lms.value('cmi.core.lesson_status'), 'incomplete');
    else {
      assert.equal(await lms.value('cmi.score.scaled'), String(Number((1 / N).toFixed(4))));
      assert.equal(await lms.value('cmi.completion_status'), 'incomplete');
      assert.equal(await lms.value('cmi.success_status'), 'unknown');
    }
    const suspend = await lms.value('cmi.suspend_data');
    assert.match(suspend, /^AL2\|[^|]*\|(.*;)?s3:2:~G2\/2;s4:1:1(;|$)/, 'the progress text of progress.js: 18.3\'s exercise solved, 18.4\'s wrong');
    assert.ok(suspend.length < 4096);

    // leaving the page: session time, a last commit, then finish / terminate, once
    await lms.page.evaluate(() => window.leave());
    await lms.page.waitForFunction((fin) => window.calls.some((c) => c[0] === fin), f.finish);
    calls = await lms.calls();
    assert.equal(calls.filter((c) => c[0] === f.finish).length, 1);
    const time = calls.find((c) => c[0] === f.set && c[1] === f.time);
    assert.ok(time, 'session time set');
    assert.match(time[2], version === '1.2' ? /^\d{4}:\d{2}:\d{2}\.\d{2}$/ : /^PT\d+H\d+M\d+(\.\d+)?S$/);
    assert.equal(calls.at(-2)[0], f.commit, 'committed just before finishing');

    // the next launch, with what the platform kept
    const stored = await storedData(lms, version);
    await lms.launch(version, stored);
    const ex = lms.frame.locator('article[data-exercise="ex-18.3-score"]');
    assert.equal(await ex.locator('input').inputValue(), '√2/2');
    assert.match(await ex.locator('.feedback').textContent(), /你之前已经做对了/);
    assert.equal(await lms.frame.locator('article[data-exercise="ex-18.4-head"] input').inputValue(), '1');
    assert.match(await lms.frame.locator('.progress-count').textContent(), new RegExp(`^练习做对 1/${N}`));
    assert.equal(await lms.value(f.raw), percent(1, N));
    assert.equal(await lms.page.evaluate(() => localStorage.length), 0, 'nothing kept in the browser under a platform');
    assert.deepEqual(lms.requests.filter((u) => !u.startsWith(server.url) && !/^(data|blob|about):/.test(u)), [], 'no request leaves the package');
    assert.deepEqual(lms.requests.filter((u) => u.includes(`/${version}/`)).map((u) => new URL(u).pathname.split('/').pop()),
      ['attention-lab.html', 'attention-lab.html'], 'the package loads nothing but its entry point');
    assert.deepEqual(lms.errors, []);
    await lms.page.close();
  });

  test(`SCORM ${version}: a one-section graded package: no solutions; failed below the pass mark, then passed`, async () => {
    const f = F[version];
    const lms = await platform();
    // the platform hands the SCO the manifest's passing score
    await lms.launch(`${version}-section`, version === '1.2' ? { student_data: { mastery_score: '50' } } : { scaled_passing_score: '0.5' });
    assert.equal(await lms.frame.locator('.lab-section').count(), 1);
    assert.equal(await lms.frame.locator('details.hint, details.solution').count(), 0, 'no hints or solutions');
    const ex = await lms.answer('ex-18.3-score', ['1']);   // the unscaled score: a known misconception
    assert.match(await ex.locator('.feedback').textContent(), /^Not yet\. Think again\.$/, 'no diagnosis either');
    await lms.committed(version);
    // one section, visited; its one exercise checked: complete, below 50 %
    assert.equal(await lms.value(f.raw), '0');
    if (version === '1.2') assert.equal(await lms.value('cmi.core.lesson_status'), 'failed');
    else assert.deepEqual([await lms.value('cmi.completion_status'), await lms.value('cmi.success_status')], ['completed', 'failed']);
    await lms.answer('ex-18.3-score', ['1/√2']);
    await lms.committed(version);
    assert.equal(await lms.value(f.raw), '100');
    if (version === '1.2') assert.equal(await lms.value('cmi.core.lesson_status'), 'passed');
    else {
      assert.equal(await lms.value('cmi.score.scaled'), '1');
      assert.deepEqual([await lms.value('cmi.completion_status'), await lms.value('cmi.success_status')], ['completed', 'passed']);
    }
    assert.deepEqual(lms.errors, []);
    await lms.page.close();
  });
}

test('SCORM 2004: the language switch reloads the lab and keeps the session open', async () => {
  const lms = await platform();
  await lms.launch('2004');
  await lms.answer('ex-18.2-after', ['1/2']);
  await lms.frame.locator('a.lang-switch').click();
  await lms.frame.locator('html[lang="en"] .progress-view').waitFor();
  let calls = await lms.calls();
  assert.equal(calls.filter((c) => c[0] === 'Terminate').length, 0, 'not terminated by the reload');
  assert.equal(await lms.page.evaluate(() => window.API_1484_11.isInitialized()), true, 'the session is still open');
  assert.equal(await lms.frame.locator('article[data-exercise="ex-18.2-after"] input').inputValue(), '1/2', 'progress carried over');
  await lms.answer('ex-18.3-score', ['0.7071']);
  await lms.committed('2004');
  assert.equal(await lms.value('cmi.score.raw'), percent(2, N), `the reloaded page still reports: 2 of ${N}`);
  await lms.page.evaluate(() => window.leave());
  await lms.page.waitForFunction(() => window.calls.some((c) => c[0] === 'Terminate'));
  calls = await lms.calls();
  assert.equal(calls.filter((c) => c[0] === 'Terminate').length, 1);
  assert.deepEqual(lms.errors, []);
  await lms.page.close();
});
