// Choose the axis a softmax normalizes: a radio group of dims with each axis named, e.g.
// "dim 1 (T: receiving position)". Keyboard: arrows move within the group.
import { choice } from './controls.js';

export function dimSelector({ label, onChange }) {
  let current = null, group = null;
  const wrap = document.createElement('div');
  wrap.className = 'dim-selector';
  return {
    el: wrap,
    /** dims: [{value, label}]; the group is rebuilt only when the dims change */
    set(dims, value) {
      const key = JSON.stringify(dims);
      if (key !== current) {
        current = key;
        group = choice({ label, options: dims, onChange, name: 'dim' });
        wrap.replaceChildren(group.el);
      }
      group.set(value);
    },
  };
}
