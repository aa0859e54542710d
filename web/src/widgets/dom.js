// Tiny DOM helpers shared by the widgets. Text always goes in as text (never as HTML).

// 'td.a.b#x' -> {name: 'td', className: 'a b', id: 'x'}, parsed once per distinct string (a page
// builds thousands of nodes from a few dozen of them)
const tags = new Map();
function parseTag(tag) {
  let t = tags.get(tag);
  if (!t) {
    const [, name, rest] = /^([a-z0-9-]+)(.*)$/i.exec(tag);
    const classes = [];
    let id = '';
    for (const m of rest.matchAll(/([.#])([\w-]+)/g)) {
      if (m[1] === '.') classes.push(m[2]);
      else id = m[2];
    }
    t = { name, className: classes.join(' '), id };
    tags.set(tag, t);
  }
  return t;
}

function append(el, c) {
  if (Array.isArray(c)) for (const x of c) append(el, x);
  else if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
}

/** h('div.cls#id', {attr: v, onclick: fn}, ...children) */
export function h(tag, attrs = {}, ...children) {
  const { name, className, id } = parseTag(tag);
  const el = document.createElement(name);
  if (className) el.className = className;
  if (id) el.id = id;
  if (attrs) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false || !Object.hasOwn(attrs, k)) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else if (k === 'class') el.classList.add(...String(v).split(/\s+/).filter(Boolean));
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const c of children) append(el, c);
  return el;
}

// Writes that skip a value the node has already: an edit recomputes whole figures, and writing
// the same text, attribute or hidden flag again still invalidates style and layout (more work
// between a keystroke and the next paint; docs/performance.md).
/** el.textContent = text, unless it is that already. */
export function setText(el, text) { if (el.textContent !== text) el.textContent = text; }
/** el.hidden = hidden, unless it is that already. */
export function setHidden(el, hidden) { if (el.hidden !== hidden) el.hidden = hidden; }
/** el.setAttribute(name, value) (null: remove), unless it is that already. */
export function setAttr(el, name, value) {
  if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

let uid = 0;
export const nextId = (p = 'w') => `${p}-${++uid}`;

/** Whether a drag or drop event carries files (not text or a link). */
export const carriesFiles = (ev) => [...(ev.dataTransfer?.types ?? [])].includes('Files');

/** A widget's own message line (role=alert). show(text) shows it (scrolled into view if it is
 * not) and marks each of targets() aria-invalid, described by it; show(null) hides it and clears
 * the marks. */
export function messageLine(targets, tag = 'span') {
  const el = h(`${tag}.cell-error`, { role: 'alert', hidden: true, id: nextId('msg') });
  return {
    el,
    show(text) {
      setText(el, text ?? '');
      setHidden(el, !text);
      if (text) el.scrollIntoView?.({ block: 'nearest' });
      for (const target of targets()) {
        setAttr(target, 'aria-invalid', text ? 'true' : null);
        setAttr(target, 'aria-describedby', text ? el.id : null);
      }
    },
  };
}

/** A box that scrolls sideways when its content is wider (a wide matrix or formula on a phone):
 * while it does and holds nothing focusable, it takes keyboard focus itself, so that the arrow
 * keys scroll it (WCAG 2.1.1: what the mouse can scroll, the keyboard can too); with label(), as
 * a region of that name. And it says that it scrolls: data-more names the sides that have more
 * ('left', 'right' or 'left right'; style.css fades that edge out), kept as it scrolls and
 * resizes. Returns box. */
export function keyboardScrollable(box, label = null) {
  const update = () => {
    const wide = box.scrollWidth > box.clientWidth + 1;
    if (wide && !box.querySelector('input, button, select, textarea, a[href]')) {
      box.tabIndex = 0;
      if (label) {
        box.setAttribute('role', 'region');
        box.setAttribute('aria-label', label());
      }
    } else if (box.hasAttribute('tabindex')) {
      for (const a of ['tabindex', 'role', 'aria-label']) box.removeAttribute(a);
    }
    const left = Math.abs(box.scrollLeft) > 1, right = Math.abs(box.scrollLeft) + box.clientWidth < box.scrollWidth - 1;
    setAttr(box, 'data-more', wide && (left || right) ? [left && 'left', right && 'right'].filter(Boolean).join(' ') : null);
  };
  box.addEventListener('scroll', update, { passive: true });
  if (typeof ResizeObserver === 'function') {
    const ro = new ResizeObserver(update);
    ro.observe(box);
    if (box.firstElementChild) ro.observe(box.firstElementChild);
  }
  return box;
}

/** A formula or a label as text nodes with its subscripts set as subscripts: "W_Q", "q_t", "W_{qkv}" ->
 * W<sub>Q</sub>, ... (always as text, never as HTML). */
export function subscripts(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/_(\{[^}]*\}|[A-Za-z0-9]+)/g)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(h('sub', {}, m[1].replace(/^\{|\}$/g, '')));
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

