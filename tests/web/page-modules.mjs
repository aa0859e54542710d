// Importing the page's own modules in Node: Vite-only imports (`?worker&inline`, `?raw`, `?inline`,
// stylesheets, `virtual:` modules) resolve to an empty module, so a section's controller (its
// strings, state schema and exercises) can be read here.
import { register } from 'node:module';

register(`data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  // virtual:lab-sections (web/lessons-plugin.js) also exports allLessons: none here
  if (/^virtual:/.test(specifier)) return { url: 'data:text/javascript,export default [];export const allLessons = {}', shortCircuit: true };
  if (/[?](raw|inline)\\b|[.]css$/.test(specifier)) return { url: 'data:text/javascript,export default ""', shortCircuit: true };
  if (/[?]worker\\b/.test(specifier)) return { url: 'data:text/javascript,export default null', shortCircuit: true };
  return next(specifier, context);
}`)}`);

const { SECTIONS } = await import('../../web/src/sections/index.js');

/** The sections of web/src/sections/index.js, each with its controller module (or null). */
export const sections = await Promise.all(SECTIONS.map(async (s) => ({
  ...s, controller: s.module ? (await import(`../../web/src/sections/${s.module}`)).default : null,
})));
const { exercisesOf } = await import('../../web/src/exercises.js');

/** Every exercise of the lab, in page order, as the page has them (web/src/exercises.js's and the controllers'). */
export const exercises = exercisesOf(sections);
