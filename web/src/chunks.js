// The sections' code chunks (virtual:lab-sections), each fetched once per page. Kept apart from
// mount.js so that page-early.js can start the fetches before the page's other modules run.
import SECTIONS from 'virtual:lab-sections';

const controllers = new Map();   // id -> the promise of its controller (null: none)

// A chunk that cannot be fetched: the error's `part` is true (the caller says: check the connection).
export const part = (e) => { throw Object.assign(new Error(e.message, { cause: e }), { part: true }); };

/** The controller of a section (a chunk of its own, loaded once per page), or null. */
export function loadController(spec) {
  if (!controllers.has(spec.id)) {
    const p = spec.loadController ? spec.loadController().catch(part) : Promise.resolve(null);
    p.catch(() => controllers.delete(spec.id));   // tried again next time
    controllers.set(spec.id, p);
  }
  return controllers.get(spec.id);
}

/** Start fetching the code of the sections with these ids (unknown ids are skipped). */
export function prefetchControllers(ids) {
  for (const spec of SECTIONS.filter((s) => ids.includes(s.id))) loadController(spec).catch(() => {});
}
