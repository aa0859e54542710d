// A collapsible panel whose code is fetched the first time a student opens it: the <details> and
// its summary are there from the start (in the reading and tab order), the body is built by the
// module `load()` resolves to. "Check my numbers" is one: its words, its diagnosis view and the
// mistakes' lesson places are a chunk of their own, which no first paint needs (docs/performance.md).
//
//   lazyPanel({className, name, title, load, failed}) -> {el, update(next)}
//   load()        -> a promise of build(details) -> {update(next)}: fills the details, once
//   failed(e)     -> the text shown in the panel (a live region, there from the start and empty)
//                    when the chunk cannot be fetched; the next opening tries again
//   update(next)  the section's latest hook for the panel; kept until the body is built, then
//                 handed to it (which runs it while the panel is open)
// A file dropped on the closed panel is the panel's too: it loads the body, which takes the drop.
import { h } from './dom.js';

export function lazyPanel({ className, name, title, load, failed }) {
  const el = h(`details.${className}`, { 'data-name': name }, h('summary', {}, title));
  const error = h('p.note.error.lazy-error', { role: 'status' });
  el.append(error);
  let body = null, loading = null, next = null;
  function open() {
    if (!loading) el.setAttribute('aria-busy', 'true');
    loading ??= load().then((build) => {
      el.removeAttribute('aria-busy');
      error.textContent = '';
      body = build(el);
      if (next) body.update(next);
      return body;
    }, (e) => {
      loading = null;
      el.removeAttribute('aria-busy');
      error.textContent = failed(e);
      throw e;
    });
    return loading;
  }
  el.addEventListener('toggle', () => { if (el.open) open().catch(() => {}); });
  // until the body is here, a dropped file waits for it (the body's own handlers take it after)
  const hasFiles = (ev) => [...(ev.dataTransfer?.types ?? [])].includes('Files');
  el.addEventListener('dragover', (ev) => { if (!body && hasFiles(ev)) { ev.preventDefault(); ev.stopPropagation(); } });
  el.addEventListener('drop', (ev) => {
    if (body || !hasFiles(ev)) return;
    ev.preventDefault();
    ev.stopPropagation();
    el.closest('.drop-target')?.classList.remove('drop-target');   // the section's drop highlight
    const file = ev.dataTransfer.files[0];
    el.open = true;
    open().then((b) => b.drop?.(file), () => {});
  });
  return {
    el,
    update(hook) {
      next = hook;
      body?.update(hook);
    },
  };
}
