// Running Jupyter notebooks from the tests: Debian's nbformat, nbclient and ipykernel on its
// python3-torch, through /usr/bin/python3 (the same Python as pytorch.mjs), all of a test's
// notebooks in one process and one kernel, which starts (and imports torch) as soon as the runner
// is made, while the test still collects its notebooks. See notebook_runner.py for the protocol.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PYTHON } from './pytorch.mjs';

const RUNNER = new URL('./notebook_runner.py', import.meta.url).pathname;

/**
 * A runner: run({id, notebook: the .ipynb text, files?: {name: bytes}}) resolves to that
 * notebook's {id, invalid, error: null | {cell, ename, evalue}, outputs: {cell id: stdout},
 * seconds}, the notebooks running one after the other in the order given; close() resolves to
 * {warmup: the kernel's start and torch's import, in s} once the runner has stopped.
 */
export function notebookRunner() {
  // each distinct file written once (18.4's draws are 16 MB), the runner links it beside each notebook
  const dir = mkdtempSync(join(tmpdir(), 'attention-lab-notebook-files-'));
  const written = new Map();
  const place = (data) => {
    const hash = createHash('sha1').update(data).digest('hex');
    if (!written.has(hash)) { writeFileSync(join(dir, hash), data); written.set(hash, join(dir, hash)); }
    return written.get(hash);
  };
  const child = spawn(PYTHON, [RUNNER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = [];
  let out = '', err = '', warmup = null, failed = null;
  const fail = (e) => { failed = e; for (const w of waiting.splice(0)) w.reject(e); };
  child.stdout.on('data', (d) => {
    out += d;
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      let msg;
      try { msg = JSON.parse(line); } catch (e) { fail(new Error(`the runner wrote what is not JSON: ${e.message}\n${line.slice(0, 500)}`)); return; }
      if ('warmup' in msg) warmup = msg.warmup;
      else waiting.shift()?.resolve(msg);
    }
  });
  child.stderr.on('data', (d) => { err += d; });   // the kernel's debugger warnings; shown on failure
  const closed = new Promise((resolve, reject) => {
    child.on('error', (e) => { rmSync(dir, { recursive: true, force: true }); fail(e); reject(e); });
    child.on('close', (code) => {
      rmSync(dir, { recursive: true, force: true });
      const e = code === 0 ? null : new Error(`${PYTHON} ${RUNNER} exited with ${code}\n${err.slice(-2000)}`);
      if (e || waiting.length) fail(e ?? new Error('the runner stopped before answering'));
      if (e) reject(e); else resolve({ warmup });
    });
  });
  closed.catch(() => {});
  return {
    run(job) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify({ id: job.id, notebook: job.notebook,
          files: Object.fromEntries(Object.entries(job.files ?? {}).map(([n, d]) => [n, place(d)])) })}\n`);
      });
    },
    close() {
      child.stdin.end();
      return closed;
    },
  };
}

/** Run notebooks [{id, notebook, files?}]; resolves to {id: result} (see notebookRunner). */
export async function runNotebooks(jobs) {
  const runner = notebookRunner();
  try {
    const results = await Promise.all(jobs.map((j) => runner.run(j)));
    return Object.fromEntries(results.map((r) => [r.id, r]));
  } finally {
    await runner.close();
  }
}
