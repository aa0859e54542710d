// Reading toPyTorch's arguments (wasm/js/pytorch.js): only what writing a program needs (the
// argument count, tensor shapes against their data, option names, the kinds of a few values); the
// values themselves are the core's to check when the call is made. Every failure is an Error
// "toPyTorch('<fn>'): ...".
import { pyFloat } from './pytorch-format.js';

export const fail = (fn, msg) => { throw new Error(`toPyTorch('${fn}'): ${msg}`); };

/** {shape, data} with data as an array of numbers (or 0/1 for a mask), checked for its shape. */
export function tensorArg(fn, name, t, { bool = false } = {}) {
  if (t === null || typeof t !== 'object' || !Array.isArray(t.shape) || t.data === undefined || typeof t.data.length !== 'number')
    fail(fn, `${name} must be a tensor {shape, data}`);
  if (!t.shape.every((d) => Number.isInteger(d) && d >= 1)) fail(fn, `${name}.shape must hold whole numbers >= 1, got [${t.shape.join(', ')}]`);
  const n = t.shape.reduce((a, b) => a * b, 1);
  if (t.data.length !== n) fail(fn, `${name} has shape (${t.shape.join(', ')}), which needs ${n} values, but its data has ${t.data.length}`);
  const data = bool ? Uint8Array.from(t.data, (v) => (v ? 1 : 0)) : Array.from(t.data);
  if (!bool && data.some((v) => typeof v !== 'number')) fail(fn, `${name}.data must hold numbers`);
  return { shape: t.shape.slice(), data };
}

/** The options object with its defaults; unknown names are an error, as in the core. */
export function optionsArg(fn, o, defaults) {
  if (o === undefined || o === null) return { ...defaults };
  if (typeof o !== 'object' || Array.isArray(o)) fail(fn, 'opts must be an object');
  for (const k of Object.keys(o)) if (!(k in defaults)) fail(fn, `unknown option '${k}' (known: ${Object.keys(defaults).join(', ') || 'none'})`);
  const out = { ...defaults };
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}

export const number = (fn, name, v) => (typeof v === 'number' && Number.isFinite(v) ? v : fail(fn, `${name} must be a finite number`));
export const whole = (fn, name, v) => (Number.isInteger(v) && v >= 0 ? v : fail(fn, `${name} must be a whole number >= 0`));

/** The Python expression of a `scale` option: null for the default 1/sqrt(head width). */
export function scaleExpr(fn, scale, { modelWidth = null } = {}) {
  if (scale === 'head') return null;
  if (scale === 'none') return '1.0';
  if (scale === 'model') return modelWidth ? `1 / math.sqrt(${modelWidth})` : fail(fn, "scale 'model' needs a model width C (use multiHeadAttention)");
  if (typeof scale === 'number' && Number.isFinite(scale)) return pyFloat(scale);
  return fail(fn, `scale must be 'head', 'model', 'none' or a number, got ${String(scale)}`);
}

// ---- the multi-head options, shared by several functions -----------------------------------
export const MHA_DEFAULTS = { wq: undefined, wk: undefined, wv: undefined, heads: 1, causal: false, scale: 'head', memory: undefined };

export function mhaArgs(fn, o) {
  for (const k of ['wq', 'wk', 'wv']) if (o[k] === undefined) fail(fn, `opts.${k} is required`);
  const w = Object.fromEntries(['wq', 'wk', 'wv'].map((k) => [k, tensorArg(fn, `opts.${k}`, o[k])]));
  const heads = Number.isInteger(o.heads) && o.heads >= 1 ? o.heads : fail(fn, 'opts.heads must be a whole number >= 1');
  const memory = o.memory === undefined ? null : tensorArg(fn, 'opts.memory', o.memory);
  return { ...w, heads, causal: !!o.causal, scale: scaleExpr(fn, o.scale, { modelWidth: 'x.shape[-1]' }), memory };
}
