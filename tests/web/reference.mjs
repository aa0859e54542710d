// Plain-JS reference math for the browser tests: independent of the WASM core.
export const matmul = (A, B) => A.map((r) => B[0].map((_, j) => r.reduce((s, a, k) => s + a * B[k][j], 0)));
export const transpose = (A) => A[0].map((_, j) => A.map((r) => r[j]));
export function softmaxRow(row, allowed = row.map(() => true)) {
  const e = row.map((v, j) => (allowed[j] ? Math.exp(v) : 0));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}
export const rowSums = (A) => A.map((r) => r.reduce((a, b) => a + b, 0));
export const colSums = (A) => A[0].map((_, j) => A.reduce((s, r) => s + r[j], 0));
export const maxAbs = (A, B) => {
  const b = B.flat();
  return Math.max(...A.flat().map((v, i) => Math.abs(v - b[i])));
};
/** Causal attention of one head: S = Q K^T / sqrt(d), A = softmax(S + M), Y = A V. */
export function attention(Q, K, V, causal) {
  const d = Q[0].length;
  const S = matmul(Q, transpose(K)).map((r) => r.map((v) => v / Math.sqrt(d)));
  const A = S.map((r, i) => softmaxRow(r, r.map((_, j) => !causal || j <= i)));
  return { S, A, Y: matmul(A, V) };
}
/** "2.22e−16" or "0" (as the page prints them) -> number */
export const parseShown = (s) => Number(s.trim().replace(/−/g, '-'));
