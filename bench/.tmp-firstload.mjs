import { gzipSync } from 'node:zlib';
import { serve, launch } from '../tests/web/harness.mjs';
const server = await serve(new URL('../dist', import.meta.url).pathname);
const chrome = await launch();
for (const q of ['?lang=zh', '?lang=en&embed=18.3']) {
  const page = await chrome.browser.newPage();
  const res = [];
  page.on('response', async (r) => { try { const b = await r.body(); res.push([gzipSync(b).length, r.url().replace(/.*\//, '')]); } catch {} });
  await page.goto(server.url + q);
  await page.waitForFunction(() => performance.getEntriesByName('attention-lab:mounted').length > 0 || document.body.classList.contains('embed') && performance.getEntriesByName('attention-lab:interactive').length > 0);
  await page.waitForLoadState('networkidle');
  const nf = res.filter(([, u]) => !/woff2?$/.test(u));
  console.log(q, (nf.reduce((a, [g]) => a + g, 0) / 1024).toFixed(1), 'KB');
  for (const [g, u] of nf.sort((a, b) => b[0] - a[0]).slice(0, 14)) console.log('  ', g, u);
  await page.close();
}
await chrome.close(); server.close();
