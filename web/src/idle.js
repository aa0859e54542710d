// The browser's idle periods, for work no first paint needs (mount.js's labs out of view, 18.4's
// variance Monte Carlo, a lesson's MathML: mathml-later.js). Looked up at each call, so that a
// test can hold the callbacks back.

/** Run f in the next idle period, at most `timeout` ms from now; a short timer where the browser
 * has no requestIdleCallback. Returns an id for cancelIdle. */
export function whenIdle(f, timeout = 1000) {
  return globalThis.requestIdleCallback ? globalThis.requestIdleCallback(f, { timeout }) : setTimeout(f, 16);
}

/** Cancel what whenIdle scheduled. */
export function cancelIdle(id) {
  if (globalThis.cancelIdleCallback) globalThis.cancelIdleCallback(id);
  else clearTimeout(id);
}
