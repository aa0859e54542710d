// Static file server for the lab: `node scripts/serve.mjs [root] [--port N] [--base /path/]`.
// Serves .wasm as application/wasm (needed for streaming compilation), never leaves `root`,
// and tries the next port when one is taken. Prints the URL.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : fallback;
};
let port = Number(flag('--port', process.env.PORT ?? 5173));
const base = flag('--base', '/').replace(/\/?$/, '/');
const root = resolve(args[0] ?? '.');

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.md': 'text/markdown; charset=utf-8',
};

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://x');
    let path = decodeURIComponent(url.pathname);
    if (!path.startsWith(base)) { res.writeHead(404).end('not found'); return; }
    path = normalize(path.slice(base.length));
    let file = join(root, path);
    if (file !== root && !file.startsWith(root + sep)) { res.writeHead(403).end('forbidden'); return; }
    if ((await stat(file).catch(() => null))?.isDirectory()) file = join(file, 'index.html');
    const info = await stat(file);
    const type = types[extname(file)] ?? 'application/octet-stream';
    // the build's assets carry their content's hash in their names: they never change, so the
    // browser keeps them (and V8 its compiled code of them); the rest is revalidated each time
    if (/(^|[\\/])assets[\\/][^\\/]+-[\w-]{8}\.\w+$/.test(path)) {
      res.writeHead(200, { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' });
      res.end(await readFile(file));
      return;
    }
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    if (req.headers['if-none-match'] === etag) { res.writeHead(304, { etag, 'cache-control': 'no-cache' }).end(); return; }
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-cache', etag });
    res.end(await readFile(file));
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
});

server.on('error', (e) => {
  if (e.code === 'EADDRINUSE' && port < 65535) { port += 1; server.listen(port, '127.0.0.1'); }
  else { console.error(e.message); process.exit(1); }
});
server.on('listening', () => console.log(`Attention Lab: http://127.0.0.1:${port}${base}`));
server.listen(port, '127.0.0.1');
