// Running PyTorch programs from the tests: Debian's python3-torch through /usr/bin/python3 (not
// a python3 on PATH), all of a test's programs in one Python process (importing torch takes a
// second or two). See pytorch_runner.py for the protocol.
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';

export const PYTHON = process.env.PYTORCH_PYTHON ?? '/usr/bin/python3';
const RUNNER = new URL('./pytorch_runner.py', import.meta.url).pathname;

/**
 * Run programs [{id, code, files?: {name: Uint8Array | string}}] in PyTorch, in one process;
 * resolves to {id: {values, error, stdout}}.
 */
export function runPrograms(jobs) {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [RUNNER], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${PYTHON} ${RUNNER} exited with ${code}`));
      try { resolve(Object.fromEntries(JSON.parse(out).map((r) => [r.id, r]))); } catch (e) { reject(new Error(`the runner's output is not JSON: ${e.message}\n${out.slice(0, 500)}`)); }
    });
    child.stdin.end(JSON.stringify(jobs.map((j) => ({ id: j.id, code: j.code,
      files: Object.fromEntries(Object.entries(j.files ?? {}).map(([n, d]) => [n, Buffer.from(d).toString('base64')])) }))));
  });
}

const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
/** Numbers (and booleans) of a printed value or a result, flattened in row-major order. */
export function flat(v) {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return [v in SPECIAL ? SPECIAL[v] : v];
  if (typeof v === 'number' || typeof v === 'boolean') return [v];
  if (ArrayBuffer.isView(v)) return Array.from(v);
  if (Array.isArray(v)) return v.flatMap(flat);
  if (typeof v === 'object' && 'data' in v && 'shape' in v) return Array.from(v.data);
  throw new Error(`flat: cannot flatten ${typeof v}`);
}

/** Equal within `tol` entry by entry (NaN only equals NaN; booleans and strings exactly). */
export function assertClose(got, want, tol, what) {
  const g = flat(got), w = flat(want);
  assert.equal(g.length, w.length, `${what}: PyTorch printed ${g.length} values, the page/core has ${w.length}`);
  for (let i = 0; i < w.length; i++) {
    const a = g[i], b = w[i];
    if (typeof b === 'number' && Number.isNaN(b)) assert.ok(Number.isNaN(a), `${what}[${i}]: PyTorch ${a}, expected NaN`);
    else if (typeof b === 'number' && Number.isFinite(b)) {
      assert.ok(typeof a === 'number' && Math.abs(a - b) <= tol, `${what}[${i}]: PyTorch ${a}, page/core ${b} (|diff| ${Math.abs(a - b)} > ${tol})`);
    } else assert.equal(a, b, `${what}[${i}]`);
  }
}

// Multi-head attention as a student writes it in PyTorch, with a switch for each mistake of "Check
// my numbers": mha(x, wq, wk, wv, H, scale=None, ...) returns (out, weights, scores); x (B, T, C),
// the weights in math layout (C, D): q = x @ wq; scale(hs, C) is the factor (default 1/sqrt(hs),
// which `root` also is). tests/node/diagnose.test.mjs and tests/web/check.test.mjs set it up.
export const MHA = String.raw`
def mha(x, wq, wk, wv, H, scale=None, mask_way='before', shift=0, causal=True, dim=-1, src=None, split=True, transpose=False):
    src = x if src is None else src
    if transpose: wq, wk, wv = wq.T, wk.T, wv.T
    q, k, v = x @ wq, src @ wk, src @ wv
    B, T, D = q.shape; Tk = k.shape[1]
    H = H if split else 1; hs = D // H
    q = q.view(B, T, H, hs).transpose(1, 2); k = k.view(B, Tk, H, hs).transpose(1, 2); v = v.view(B, Tk, H, hs).transpose(1, 2)
    sc = 1 / math.sqrt(hs) if scale is None else scale(hs, x.shape[-1])
    scores = (q @ k.transpose(-2, -1)) * sc
    allowed = torch.tril(torch.ones(T, Tk, dtype=torch.bool), diagonal=shift)
    if causal and mask_way == 'before': att = scores.masked_fill(~allowed, float('-inf')).softmax(dim)
    elif causal and mask_way == 'after': att = scores.softmax(dim).masked_fill(~allowed, 0.0)
    else: att = scores.softmax(dim)
    return (att @ v).transpose(1, 2).contiguous().view(B, T, D), att, scores
root = lambda hs, C: 1 / math.sqrt(hs)
`;
