// What the core's sources may include, checked on the sources and on the built module: the core
// never includes Emscripten's headers (wasm/bindings/bindings.cpp is the one file that does), and
// nothing in it formats through iostreams, whose locale machinery (money, time and wide-character
// facets the core never uses) made up a third of the WASM module's gzip bytes (docs/performance.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;
const sources = (dir) => readdirSync(join(ROOT, dir), { recursive: true })
  .filter((f) => /\.(cpp|hpp)$/.test(f)).map((f) => join(dir, f));
const includes = (file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^\s*#\s*include\s*[<"]([^>"]+)[>"]/gm)].map((m) => m[1]);

test('only wasm/bindings/bindings.cpp includes an Emscripten header', () => {
  const files = [...sources('wasm/src'), ...sources('wasm/include'), ...sources('wasm/bindings')];
  assert.ok(files.length > 30, `${files.length} files`);
  assert.deepEqual(files.filter((f) => includes(f).some((i) => i.startsWith('emscripten'))), ['wasm/bindings/bindings.cpp']);
});

test('no iostream header in the core, and none of their locale tables in the built WASM module', () => {
  const files = [...sources('wasm/src'), ...sources('wasm/include'), ...sources('wasm/bindings')];
  const streams = /^(iostream|istream|ostream|sstream|fstream|iomanip|locale|xtensor\/xio\.hpp)$/;
  assert.deepEqual(files.filter((f) => includes(f).some((i) => streams.test(i))), []);
  // xtensor's headers include <sstream> for their own messages: what counts is what gets linked.
  // libc++'s time and money facets carry these strings; a stream instantiated anywhere links them.
  const wasm = readFileSync(join(ROOT, 'wasm/js/gen/attn_core.wasm')).toString('latin1');
  for (const s of ['January', '%H:%M:%S', '%m/%d/%y']) assert.equal(wasm.includes(s), false, `the module holds "${s}"`);
});
