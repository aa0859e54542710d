// Widgets built from a section's state schema (state.js): each takes its limits (rows, columns,
// min, max, options) from the entry for `key`, in the current state (within), shows state[key]
// on every run, and sets state[key] when the student changes it. A section writes
//   ctx.editor('x', {names: ['T', 'C']})    matrix, vector or mask
//   ctx.integer('T')  ctx.slider('p', {step})  ctx.toggle('causal')  ctx.choice('mode')  ctx.select('heads')
// The label is t(key) and an option's label t(String(value)) unless given; `name` (data-name) is
// the key unless given; onChange(value) replaces the plain ctx.set({[key]: value}); view(state)
// -> {value, names} shows a matrix in another layout.
import { matrixEditor } from './widgets/matrix-editor.js';
import { maskEditor } from './widgets/mask-editor.js';
import { integer, toggle, choice, select, slider } from './widgets/controls.js';
import { limitsOf } from './state.js';

const range = (min, max) => Array.from({ length: max - min + 1 }, (_, i) => min + i);

/** ctx: {t, set(patch)}; schema: the section's state schema; bind(key, widget, show(state)) registers
 * a widget to be shown the state on every run. Returns the builders above. */
export function schemaWidgets(ctx, schema, bind) {
  const { t } = ctx;
  const entryOf = (key) => {
    const e = schema.find((x) => x.key === key);
    if (!e) throw new Error(`no state entry '${key}'`);
    return e;
  };
  // common options of every builder
  const common = (key, { label = t(key), name = key, onChange = (v) => ctx.set({ [key]: v }) }) => ({ t, label, name, onChange });
  const optionsOf = (e, lim) => (e.type === 'int' ? range(lim.min, lim.max) : lim.options).map((v) => ({ value: v, label: t(String(v)) }));

  return {
    editor(key, { view, names, axes, ...opts } = {}) {
      const e = entryOf(key), c = common(key, opts);
      if (e.type === 'mask') {
        const w = maskEditor(c);
        return bind(key, w, (s) => w.set(s[key]));
      }
      if (e.type === 'vector') {
        const w = matrixEditor({ ...c, names: null, resizeRows: false, minCols: e.minCols, maxCols: e.maxCols, onChange: (rows) => c.onChange(rows[0]) });
        return bind(key, w, (s) => w.set([s[key]]));
      }
      // a matrix whose shape follows the state (within) cannot be resized by itself
      const w = matrixEditor({ ...c, names, axes, minRows: e.minRows, maxRows: e.maxRows, minCols: e.minCols, maxCols: e.maxCols,
        resizeRows: !e.within, resizeCols: !e.within });
      return bind(key, w, (s) => {
        const v = view?.(s);
        w.set(v?.value ?? s[key], { names: v?.names ?? names });
      });
    },
    integer(key, opts = {}) {
      const e = entryOf(key);
      const w = integer({ ...common(key, opts), min: e.min, max: e.max });
      return bind(key, w, (s) => w.set(s[key], limitsOf(e, s)));
    },
    slider(key, { step, format, ...opts } = {}) {
      const e = entryOf(key);
      const w = slider({ ...common(key, opts), min: e.min, max: e.max, step, format });
      return bind(key, w, (s) => w.set(s[key]));
    },
    toggle(key, opts = {}) {
      const w = toggle(common(key, opts));
      return bind(key, w, (s) => w.set(s[key]));
    },
    /** an enum as a group of radio buttons */
    choice(key, opts = {}) {
      const e = entryOf(key);
      const w = choice({ ...common(key, opts), options: optionsOf(e, e) });
      return bind(key, w, (s) => w.set(s[key]));
    },
    /** an enum, or a small whole-number range, as a drop-down whose options follow the state */
    select(key, opts = {}) {
      const e = entryOf(key);
      const w = select(common(key, opts));
      return bind(key, w, (s) => w.set(s[key], optionsOf(e, limitsOf(e, s))));
    },
  };
}
