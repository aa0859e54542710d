// scripts/serve.mjs (what `npm start` and the browser suites serve the lab with) caches as a static
// host should: the build's hashed assets are immutable (the browser keeps them, and V8 its
// compiled code), every other file is revalidated by its ETag (304 while unchanged), and nothing
// outside the root is served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '../web/harness.mjs';

test('hashed assets are immutable; other files are revalidated by ETag; nothing outside the root', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'attn-serve-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><p>one</p>');
  writeFileSync(join(dir, 'assets', 'index-AbC_d-12.js'), 'export {};');
  writeFileSync(join(dir, 'assets', 'notes.txt'), 'plain');
  const server = await serve(dir);
  try {
    const asset = await fetch(`${server.url}assets/index-AbC_d-12.js`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await asset.text(), 'export {};');

    const plain = await fetch(`${server.url}assets/notes.txt`);   // no hash in its name: revalidated
    assert.equal(plain.headers.get('cache-control'), 'no-cache');
    assert.ok(plain.headers.get('etag'));

    const page = await fetch(server.url);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const etag = page.headers.get('etag');
    assert.match(etag, /^"[\w-]+"$/);
    assert.equal(await page.text(), '<!doctype html><p>one</p>');
    const again = await fetch(server.url, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');

    writeFileSync(join(dir, 'index.html'), '<!doctype html><p>two, changed</p>');
    const changed = await fetch(server.url, { headers: { 'if-none-match': etag } });
    assert.equal(changed.status, 200);
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal(await changed.text(), '<!doctype html><p>two, changed</p>');

    assert.equal((await fetch(`${server.url}../../etc/passwd`)).status, 404);   // fetch normalises ../ away: outside the base
    assert.equal((await fetch(`${server.url}..%2f..%2f..%2fetc%2fpasswd`)).status, 403);
    assert.equal((await fetch(`${server.url}missing.js`)).status, 404);
  } finally {
    server.close();
  }
});
