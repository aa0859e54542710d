// Choose the axis a softmax normalizes: a radio group of dims with each axis named, e.g.
// "dim 1 (T: receiving position)". Keyboard: arrows move within the group.
import { choice } from './controls.js';

export function dimSelector({ label, onChange }) {
  let current = null;
  const wrap = document.createElement('div');
  wrap.className = 'dim-selector';
  return {
    el: wrap,
    /** dims: [{value, label}] */
    set(dims, value) {
      const key = JSON.stringify(dims);
      if (key !== current) {
        current = key;
        const c = choice({ label, options: dims, onChange, name: 'dim' });
        wrap.replaceChildren(c.el);
        wrap.setChoice = c.set;
      }
      wrap.setChoice(value);
    },
  };
}
