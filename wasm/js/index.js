// Attention Lab's public JS API: `const core = await loadCore()`, in the browser and in Node 20.
// The functions themselves are in api.js; this module knows where the .wasm file is.
import { instantiateCore } from './api.js';

export { tensor, toNested, instantiateCore } from './api.js';
export { parseTensor, parseNpy, ParseError } from './parse-tensor.js';
import { parseTensor } from './parse-tensor.js';

/**
 * "Check my numbers" from text: what a student's program printed (PyTorch, NumPy, a list, CSV
 * rows; parse-tensor.js), diagnosed by the core against the check's inputs:
 * diagnoseText(core, 'softmax', {scores}, 'tensor([[1.0000, 0.0000], ...])'). Throws a ParseError
 * (code paste_*) for text it cannot read, the core's Error for bad inputs (docs/api.md).
 */
export function diagnoseText(core, check, inputs, text) {
  const { shape, data, resolution } = parseTensor(text);
  return core.diagnose(check, { shape, data }, { ...inputs, resolution: { shape, data: resolution } });
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

async function wasmBytes(url) {
  if (isNode && !url) {
    const fsName = 'node:fs/promises';
    const { readFile } = await import(/* @vite-ignore */ fsName);
    return readFile(new URL('./gen/attn_core.wasm', import.meta.url));
  }
  const response = await fetch(url ?? new URL('./gen/attn_core.wasm', import.meta.url).href);
  if (!response.ok) throw new Error(`loadCore: could not fetch the WebAssembly core (${response.status})`);
  return response.arrayBuffer();
}

/** Where the browser build loads the .wasm from (a data: URL in the single-file build). */
export function coreUrl() {
  return new URL('./gen/attn_core.wasm', import.meta.url).href;
}

/**
 * Compile the core once as a WebAssembly.Module (streaming where the server allows), e.g. to
 * share it with a Web Worker: `loadCore({module})` here, `instantiateCore({module})` there.
 */
export async function compileCore(options = {}) {
  const url = options.wasmUrl ?? (isNode ? null : new URL('./gen/attn_core.wasm', import.meta.url).href);
  if (!isNode && typeof WebAssembly.compileStreaming === 'function' && !url.startsWith('data:')) {
    try {
      return await WebAssembly.compileStreaming(fetch(url));
    } catch {
      /* a server without application/wasm: compile from the bytes below */
    }
  }
  return WebAssembly.compile(await wasmBytes(url));
}

/**
 * Load the WebAssembly core. In the browser the .wasm file is fetched next to this module; in
 * Node 20 it is read from disk. `options.module` (a compiled WebAssembly.Module),
 * `options.wasmBinary` (bytes) or `options.wasmUrl` override that.
 */
export async function loadCore(options = {}) {
  if (options.module) return instantiateCore({ module: options.module });
  if (options.wasmBinary) return instantiateCore({ wasmBinary: options.wasmBinary });
  if (isNode && !options.wasmUrl) return instantiateCore({ wasmBinary: await wasmBytes() });
  const url = options.wasmUrl ?? new URL('./gen/attn_core.wasm', import.meta.url).href;
  return instantiateCore({ locateFile: () => url });
}

export default loadCore;
