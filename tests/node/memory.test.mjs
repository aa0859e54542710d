// 10,000 calls, including calls that throw, leave the WASM heap where it was and do not grow memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../wasm/js/index.js';

const core = await loadCore();

test('10,000 mixed calls (some throwing) do not grow WASM memory or leak heap', () => {
  const x = core.randn([2, 8, 8], 1);
  const w = { wq: core.randn([8, 8], 2), wk: core.randn([8, 8], 3), wv: core.randn([8, 8], 4), heads: 2, causal: true };
  const round = (i) => {
    switch (i % 8) {
      case 0: return core.multiHeadAttention(x, w);
      case 1: return core.softmax(x, { dim: 1, mask: 'causal' });
      case 2: return core.sdpaBackward(x, x, x, x, { causal: true });
      case 3: return core.futureProbe(x, { ...w, t: 3 });
      case 4: try { core.multiHeadAttention(x, { ...w, heads: 3 }); } catch { return null; } throw new Error('expected a throw');
      case 5: try { core.softmax(x, { dim: 7 }); } catch { return null; } throw new Error('expected a throw');
      case 6: try { core.sdpa(x, core.randn([2, 8, 3], 1), x); } catch { return null; } throw new Error('expected a throw');
      default: return core.causalAverage(x, { method: 'loop' });
    }
  };
  for (let i = 0; i < 200; i++) round(i);   // warm up: first-use allocations
  const before = core.memoryStats();
  for (let i = 0; i < 10000; i++) round(i);
  const after = core.memoryStats();
  assert.equal(after.memoryBytes, before.memoryBytes, 'WASM memory grew');
  assert.equal(after.heapInUse, before.heapInUse, `heap in use went from ${before.heapInUse} to ${after.heapInUse} bytes`);
  assert.equal(after.emvalHandles, before.emvalHandles, 'Embind value handles left behind');
});

