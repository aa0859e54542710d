// Write a Content-Security-Policy into the built pages: scripts only from our own files (or, in
// the single-file build, exactly the inline scripts it was built with, by hash), WebAssembly
// compilation allowed, no eval, no plugins, no network but our own origin.
// Usage: node scripts/csp.mjs dist/index.html dist/attention-lab.html
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

for (const file of process.argv.slice(2)) {
  let html = readFileSync(file, 'utf8');
  html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\s*/g, '');
  const hashes = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
    .filter((m) => !/\ssrc=/.test(m[0].slice(0, m[0].indexOf('>'))) && m[1].length > 0)
    .map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",   // inline style attributes: heatmap colours, KaTeX layout
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self' data:",           // the WASM file (a data: URL in the single-file build)
    "worker-src 'self' blob:",            // the training worker, inlined in the bundle and started from a Blob
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  html = html.replace(/<meta charset="utf-8">/i, (m) => `${m}\n  ${meta}`);
  if (!html.includes(meta)) throw new Error(`${file}: no <meta charset="utf-8"> to put the policy after`);
  writeFileSync(file, html);
  console.log(`csp: ${file} (${hashes.length} inline script hash${hashes.length === 1 ? '' : 'es'})`);
}
