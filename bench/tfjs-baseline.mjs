// The same multi-head attention in TensorFlow.js (tfjs-core, the op library that the
// @tensorflow/tfjs package re-exports, on its WebAssembly backend): what a user might pick
// instead of writing C++. It computes in float32, so its numbers are not comparable bit for bit.
import { createRequire, register } from 'node:module';
import * as tf from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

// The gradients that @tensorflow/tfjs registers on import (tfjs keeps the registry on globalThis,
// so registering them through the ES module files reaches this instance too).
register('./tfjs-resolve.mjs', import.meta.url);
await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');

export async function initTfjs() {
  const require = createRequire(import.meta.url);
  setWasmPaths(require.resolve('@tensorflow/tfjs-backend-wasm').replace(/[^/]+$/, ''));   // from node_modules, offline
  await tf.setBackend('wasm');
  await tf.ready();
  return tf.getBackend();
}

/** x (B, T, C); weights (C, D); causal, 1/sqrt(hs), nanoGPT head split. Returns out (B, T, D),
 * or with `all` every result the core's forward returns: [out, scores, weights, q, k, v]. */
function mha(x, wq, wk, wv, B, T, C, D, NH, all = false) {
  const hs = D / NH;
  const heads = (w) => tf.transpose(tf.reshape(tf.matMul(tf.reshape(x, [B * T, C]), w), [B, T, NH, hs]), [0, 2, 1, 3]);
  const q = heads(wq), k = heads(wk), v = heads(wv);
  const scores = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hs));                 // (B, NH, T, T)
  const allowed = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);                            // j <= i
  const masked = tf.add(scores, tf.mul(tf.sub(1, allowed), -1e9));
  const weights = tf.softmax(masked);
  const out = tf.reshape(tf.transpose(tf.matMul(weights, v), [0, 2, 1, 3]), [B, T, D]);
  return all ? [out, scores, weights, q, k, v] : out;
}

// The tensors' values as typed arrays, read outside tf.tidy: tidy walks what its function returns
// looking for tensors, element by element through a typed array (seconds for the (B, NH, T, T)
// scores and weights).
function download(tensors) {
  const list = Array.isArray(tensors) ? tensors : [tensors];
  const values = list.map((t) => t.dataSync());
  tf.dispose(list);
  return values;
}

/** Prepared inputs (float32 copies) and the timed operations. */
export function tfjsCase(x, wq, wk, wv, g, B, T, C, D, NH) {
  const f32 = (a) => Float32Array.from(a);
  const X = tf.tensor(f32(x), [B, T, C], 'float32'), Wq = tf.tensor(f32(wq), [C, D], 'float32'), Wk = tf.tensor(f32(wk), [C, D], 'float32'),
    Wv = tf.tensor(f32(wv), [C, D], 'float32'), G = tf.tensor(f32(g), [B, T, D], 'float32');
  const grads = tf.grads((a, b, c, d) => tf.sum(tf.mul(mha(a, b, c, d, B, T, C, D, NH), G)));
  return {
    forward: () => download(tf.tidy(() => mha(X, Wq, Wk, Wv, B, T, C, D, NH)))[0],
    // what the core's forward with every result hands over: each tensor downloaded into JS
    forwardAll: () => download(tf.tidy(() => mha(X, Wq, Wk, Wv, B, T, C, D, NH, true))),
    forwardBackward: () => download(tf.tidy(() => grads([X, Wq, Wk, Wv]))),
    dispose: () => tf.dispose([X, Wq, Wk, Wv, G]),
  };
}
