// A collapsible panel whose code is fetched the first time a student opens it: the <details> and
// its summary are there from the start (in the reading and tab order), the body is built by the
// module `load()` resolves to. "Check my numbers" is one: its words, its diagnosis view and the
// mistakes' lesson places are a chunk of their own, which no first paint needs (docs/performance.md).
//
//   lazyPanel({className, name, title, load, failed}) -> {el, update(next)}
//   load()        -> a promise of build(details) -> {update(next), drop?(file)}: fills the details, once
//   failed(e)     -> the text shown in the panel (a live region, there from the start and empty)
//                    when the chunk cannot be fetched; the next opening tries again
//   update(next)  the section's latest hook for the panel; kept until the body is built, then
//                 handed to it (which runs it while the panel is open)
// A file dropped on the panel is the panel's: it opens the panel and goes to the body's drop(file).
import { h, carriesFiles } from './dom.js';

/**
 * Fetch what a <details> needs on its first opening (or when open() is called): `el` is aria-busy
 * while load() runs; then done(value), or failed(error), and the next opening tries again.
 * Returns open() -> the promise of the value. (Also the PyTorch panel's, for its programs.)
 */
export function loadOnOpen(el, load, { done, failed }) {
  let loading = null;
  function open() {
    if (!loading) {
      el.setAttribute('aria-busy', 'true');
      loading = load().then((value) => {
        el.removeAttribute('aria-busy');
        done(value);
        return value;
      }, (e) => {
        loading = null;
        el.removeAttribute('aria-busy');
        failed(e);
        throw e;
      });
    }
    return loading;
  }
  el.addEventListener('toggle', () => { if (el.open) open().catch(() => {}); });
  return open;
}

export function lazyPanel({ className, name, title, load, failed }) {
  const el = h(`details.${className}`, { 'data-name': name }, h('summary', {}, title));
  const error = h('p.note.error.lazy-error', { role: 'status' });
  el.append(error);
  let body = null, next = null;
  const open = loadOnOpen(el, load, {
    done(build) {
      error.textContent = '';
      body = build(el);
      if (next) body.update(next);
    },
    failed(e) { error.textContent = failed(e); },
  });
  // a file dropped on the panel is the panel's (not the section's, which takes state files): it
  // opens the panel and goes to the body's drop(), once the body is here
  el.addEventListener('dragover', (ev) => { if (carriesFiles(ev)) { ev.preventDefault(); ev.stopPropagation(); } });
  el.addEventListener('drop', (ev) => {
    if (!carriesFiles(ev)) return;
    ev.preventDefault();
    ev.stopPropagation();
    el.closest('.drop-target')?.classList.remove('drop-target');   // the section's drop highlight
    const file = ev.dataTransfer.files[0];
    el.open = true;
    open().then(() => body.drop?.(file), () => {});
  });
  return {
    el,
    update(hook) {
      next = hook;
      body?.update(hook);
    },
  };
}
