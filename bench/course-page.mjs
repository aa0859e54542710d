// A course page with three <attention-lab> elements (18.2, 18.3, 18.4; the web component of
// `dist`/element/) in a temporary folder, marked interactive once every element has rendered its
// section ('attention-lab:ready', listened for before the module loads). Used by bench/page.mjs
// and bench/profile-page.mjs. Returns the folder (remove it with rmSync when done).
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function coursePage(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'attn-course-'));
  symlinkSync(resolve(dist, 'element'), join(dir, 'lab'));   // absolute: the link lives elsewhere
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A course page</title>'
    + '<script>let ready = 0; document.addEventListener("attention-lab:ready", () => { if (++ready === 3) performance.mark("attention-lab:interactive"); });</script>'
    + '<script type="module" src="lab/attention-lab.js"></script></head><body><h1>Week 6: attention</h1>'
    + ['18.2', '18.3', '18.4'].map((id) => `<p>Section ${id}: read it, then try the lab.</p><attention-lab section="${id}" lang="en"></attention-lab>`).join('')
    + '</body></html>');
  return dir;
}
