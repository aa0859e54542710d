// A straightforward JavaScript multi-head attention (float64, the same math as the core: causal,
// 1/sqrt(hs), nanoGPT head split, no output projection), written the way a person would without
// WebAssembly: typed arrays and plain loops. The benchmark's baseline.

/** x (B, T, C), w* (C, D) as Float64Array; returns {out, att, q, k, v} */
export function mhaForward(x, wq, wk, wv, B, T, C, D, NH) {
  const hs = D / NH, scale = 1 / Math.sqrt(hs);
  const proj = (w) => {
    const y = new Float64Array(B * T * D);
    for (let bt = 0; bt < B * T; bt++)
      for (let c = 0; c < C; c++) {
        const a = x[bt * C + c];
        for (let e = 0; e < D; e++) y[bt * D + e] += a * w[c * D + e];
      }
    return y;
  };
  const q = proj(wq), k = proj(wk), v = proj(wv);
  const att = new Float64Array(B * NH * T * T), out = new Float64Array(B * T * D);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < NH; h++)
      for (let i = 0; i < T; i++) {
        const row = ((b * NH + h) * T + i) * T;
        let mx = -Infinity;
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let e = 0; e < hs; e++) s += q[(b * T + i) * D + h * hs + e] * k[(b * T + j) * D + h * hs + e];
          att[row + j] = s * scale;
          if (att[row + j] > mx) mx = att[row + j];
        }
        let z = 0;
        for (let j = 0; j <= i; j++) { att[row + j] = Math.exp(att[row + j] - mx); z += att[row + j]; }
        for (let j = 0; j <= i; j++) {
          const a = (att[row + j] /= z);
          for (let e = 0; e < hs; e++) out[(b * T + i) * D + h * hs + e] += a * v[(b * T + j) * D + h * hs + e];
        }
      }
  return { out, att, q, k, v };
}

/** Forward, then gradients of sum(out * g) with respect to x, wq, wk, wv. */
export function mhaBackward(x, wq, wk, wv, g, B, T, C, D, NH) {
  const { att, q, k, v } = mhaForward(x, wq, wk, wv, B, T, C, D, NH);
  const hs = D / NH, scale = 1 / Math.sqrt(hs);
  const dq = new Float64Array(B * T * D), dk = new Float64Array(B * T * D), dv = new Float64Array(B * T * D);
  const datt = new Float64Array(T);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < NH; h++)
      for (let i = 0; i < T; i++) {
        const row = ((b * NH + h) * T + i) * T;
        let dot = 0;
        for (let j = 0; j <= i; j++) {
          let s = 0;
          for (let e = 0; e < hs; e++) {
            s += g[(b * T + i) * D + h * hs + e] * v[(b * T + j) * D + h * hs + e];
            dv[(b * T + j) * D + h * hs + e] += att[row + j] * g[(b * T + i) * D + h * hs + e];
          }
          datt[j] = s;
          dot += s * att[row + j];
        }
        for (let j = 0; j <= i; j++) {
          const ds = att[row + j] * (datt[j] - dot) * scale;
          for (let e = 0; e < hs; e++) {
            dq[(b * T + i) * D + h * hs + e] += ds * k[(b * T + j) * D + h * hs + e];
            dk[(b * T + j) * D + h * hs + e] += ds * q[(b * T + i) * D + h * hs + e];
          }
        }
      }
  const dx = new Float64Array(B * T * C);
  const dW = (d, w) => {
    const dw = new Float64Array(C * D);
    for (let bt = 0; bt < B * T; bt++)
      for (let c = 0; c < C; c++) {
        const a = x[bt * C + c];
        let s = 0;
        for (let e = 0; e < D; e++) { dw[c * D + e] += a * d[bt * D + e]; s += d[bt * D + e] * w[c * D + e]; }
        dx[bt * C + c] += s;
      }
    return dw;
  };
  return { dx, dwq: dW(dq, wq), dwk: dW(dk, wk), dwv: dW(dv, wv) };
}
