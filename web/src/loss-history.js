// The evaluation points of a training run, kept at a bounded size so that drawing them costs the
// same after an hour as after a minute. Points are thinned by selection, never averaged (every
// number shown is one the core computed): while there are more than `capacity`, every other kept
// point is dropped and only every 2nd, 4th, 8th ... new point is kept, which keeps the curve's
// shape at a resolution of `capacity` points. The first point (the untrained model), the latest
// and the best validation point are always kept.

export class LossHistory {
  constructor(capacity = 300) {
    this.capacity = capacity;
    this.clear();
  }

  clear() {
    this.kept = [];      // every stride-th point, in step order
    this.stride = 1;
    this.count = 0;      // points added so far
    this.first = null;
    this.best = null;    // lowest validation loss so far (the earliest, on a tie)
    this.last = null;
  }

  /** p: {step, seconds, train, val}, added in step order. */
  add(p) {
    this.first ??= p;
    if (!this.best || p.val < this.best.val) this.best = p;
    this.last = p;
    if (this.count % this.stride === 0) this.kept.push(p);
    this.count += 1;
    if (this.kept.length > this.capacity) {
      this.stride *= 2;
      this.kept = this.kept.filter((_, i) => i % 2 === 0);   // the i-th kept point was number i * stride / 2
    }
  }

  /** The points to draw, in step order: the kept ones plus the best and the latest (at most capacity + 2). */
  points() {
    const out = [...this.kept];
    for (const p of [this.best, this.last]) {
      if (!p || out.includes(p)) continue;
      const at = out.findIndex((q) => q.step > p.step);
      out.splice(at < 0 ? out.length : at, 0, p);
    }
    return out;
  }
}
