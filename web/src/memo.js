// Recompute only what a change needs: memo(fn) returns a function that calls fn again only when
// its key (any JSON-able value) differs from the last call's. A throw leaves the cache as it was.
export function memo(fn) {
  let lastKey, lastValue;
  return (key, ...args) => {
    const k = JSON.stringify(key);
    if (k !== lastKey) {
      lastValue = fn(...args);
      lastKey = k;
    }
    return lastValue;
  };
}
