// Small form controls. Each calls onChange with a valid value, or marks itself and explains.
// invalid(text) shows a message beside the control (a core error it caused); invalid(null) clears it.
import { h, nextId, messageLine, setText, setAttr } from './dom.js';

export function toggle({ label, onChange, name, id = nextId('tg') }) {
  const input = h('input', { type: 'checkbox', id, 'data-name': name, onchange: () => onChange(input.checked) });
  const msg = messageLine(() => [input]);
  const el = h('label.control.toggle', { for: id }, input, ' ', label, ' ', msg.el);
  return { el, set: (v) => { input.checked = !!v; }, invalid: msg.show };
}

/** options: [{value, label}] rendered as a segmented radio group (keyboard: arrows within). */
export function choice({ label, options, onChange, name, id = nextId('ch') }) {
  const inputs = options.map((o, i) => h('input', { type: 'radio', name: id, id: `${id}-${i}`, value: String(o.value),
    onchange: () => onChange(o.value) }));
  const msg = messageLine(() => inputs);
  const el = h('fieldset.control.choice', { id, 'data-name': name }, h('legend', {}, label),
    options.map((o, i) => h('label', { for: `${id}-${i}` }, inputs[i], h('span', {}, o.label))), msg.el);
  return { el, set: (v) => inputs.forEach((inp, i) => { inp.checked = options[i].value === v; }), invalid: msg.show };
}

/** A drop-down; set(value, options) rebuilds the options [{value, label}] when they change. */
export function select({ label, options = [], onChange, name, id = nextId('sel') }) {
  let current = options, key = null;
  const sel = h('select', { id, 'data-name': name, onchange: () => onChange(current[sel.selectedIndex].value) });
  const msg = messageLine(() => [sel]);
  const el = h('label.control.select', { for: id }, label, ' ', sel, ' ', msg.el);
  function set(v, next = current) {
    if (JSON.stringify(next) !== key) {
      key = JSON.stringify(next);
      current = next;
      sel.replaceChildren(...current.map((o) => h('option', { value: String(o.value) }, o.label)));
    }
    sel.selectedIndex = Math.max(0, current.findIndex((o) => o.value === v));
  }
  return { el, set, invalid: msg.show };
}

/** Whole numbers in [min, max]; anything else is marked and not reported. set(v, {min, max, label})
 * moves the bounds with the state (and renames the field). */
export function integer({ t, label, min, max, onChange, name, id = nextId('int') }) {
  const input = h('input', { type: 'number', id, min, max, step: 1, inputmode: 'numeric', 'data-name': name,
    oninput: () => {
      const s = input.value.trim();
      const v = Number(s);
      if (s === '' || !Number.isInteger(v) || v < min || v > max) {
        msg.show(t('intRange', { min, max }));
        return;
      }
      msg.show(null);
      onChange(v);
    } });
  const msg = messageLine(() => [input]);
  const labelEl = h('span', {}, label);
  const el = h('label.control.integer', { for: id }, labelEl, ' ', input, ' ', msg.el);
  function set(v, limits = {}) {
    // only what changed is written: a refresh sets every control, and each write is a DOM change
    if (limits.label !== undefined) setText(labelEl, limits.label);
    min = limits.min ?? min;
    max = limits.max ?? max;
    setAttr(input, 'min', String(min));
    setAttr(input, 'max', String(max));
    if (Number(input.value) !== v || input.value === '') input.value = String(v);
    msg.show(null);
  }
  return { el, set, invalid: msg.show };
}

export function slider({ label, min, max, step, onChange, name, format = String, id = nextId('sl') }) {
  const out = h('output', { for: id });
  const input = h('input', { type: 'range', id, min, max, step, 'data-name': name, oninput: () => { out.textContent = format(Number(input.value)); onChange(Number(input.value)); } });
  const msg = messageLine(() => [input]);
  const el = h('label.control.slider', { for: id }, label, ' ', input, ' ', out, ' ', msg.el);
  return { el, set: (v) => { if (Number(input.value) !== v) input.value = String(v); setText(out, format(v)); }, invalid: msg.show };
}

export function button({ label, onClick, className }) {
  return h('button', { type: 'button', class: className, onclick: onClick }, label);
}

/** A line of results: set([[label, text, class, exact], ...]); `exact` (a number or numbers) is
 *  what the text shows rounded, kept in data-value (space-separated) for whoever needs the digits. */
export function readout({ className = '', name } = {}) {
  const el = h('dl.readout', { class: className || null, 'data-name': name });
  return {
    el,
    set(items) {
      el.replaceChildren(...items.flatMap(([k, v, cls, exact]) => [h('dt', {}, k),
        h('dd', { class: cls ?? null, 'data-value': exact === undefined ? null : [exact].flat().map(String).join(' ') }, v)]));
    },
  };
}
