// widgets/motion.js: reducedMotion() follows the system setting prefers-reduced-motion, read
// afresh on every call (a Play that checks it at each step stops when the student turns it on).
import { test } from 'node:test';
import assert from 'node:assert/strict';

test('reducedMotion() is the media query (prefers-reduced-motion: reduce), live', async () => {
  let reduce = false;
  const asked = [];
  globalThis.matchMedia = (q) => { asked.push(q); return { get matches() { return q === '(prefers-reduced-motion: reduce)' && reduce; } }; };
  const { reducedMotion } = await import('../../web/src/widgets/motion.js');
  assert.deepEqual(asked, ['(prefers-reduced-motion: reduce)']);
  assert.equal(reducedMotion(), false);
  reduce = true;
  assert.equal(reducedMotion(), true);
  delete globalThis.matchMedia;
});
