// A section's state as a JSON file: saved from the section's tools, loaded again by a file
// picker or by dropping the file on the section. No DOM here.
//
//   {"format": "attention-lab-state", "version": 1, "section": "18.3",
//    "state": {"x": "2,0;0,4;4,2", "causal": "0", ...}}
//
// The values are written exactly as in the link (state.js serializeValue, every key of the
// schema), and a file is read exactly as a link is: through readSection(), so the same checks
// apply and a value that does not fit falls back to its default and is named. A person editing
// the file may also write plain JSON: true/false, a number, a list of numbers (a vector) or a
// list of rows (a matrix or a mask).
import { readSection, serializeValue } from './state.js';

export const FORMAT = 'attention-lab-state';
export const VERSION = 1;
export const MAX_BYTES = 256 * 1024;

/** The file's text for a section's state. */
export function stateToJson(sectionId, schema, state) {
  const values = Object.fromEntries(schema.map((e) => [e.key, serializeValue(e, state[e.key])]));
  return `${JSON.stringify({ format: FORMAT, version: VERSION, section: sectionId, state: values }, null, 2)}\n`;
}

const isNum = (v) => typeof v === 'number' || typeof v === 'boolean';

/** A value written as plain JSON, in the link's form; null when it has no such form. */
function asLinkText(entry, v) {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v) && v.length && v.every(isNum)) return v.map(Number).join(',');
  if (Array.isArray(v) && v.length && v.every((r) => Array.isArray(r) && r.every(isNum))) {
    return v.map((r) => r.map(Number).join(entry.type === 'mask' ? '' : ',')).join(';');
  }
  return null;
}

/**
 * Read a file's text for one section: {ok: true, state, rejected: [keys]} or
 * {ok: false, reason: 'broken' | 'foreign' | 'otherSection', message?, other?}.
 */
export function stateFromJson(text, { id, prefix }, schema) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: 'broken', message: e.message };
  }
  if (!doc || typeof doc !== 'object' || doc.format !== FORMAT || doc.version !== VERSION
    || typeof doc.section !== 'string' || !doc.state || typeof doc.state !== 'object' || Array.isArray(doc.state)) {
    return { ok: false, reason: 'foreign' };
  }
  if (doc.section !== id) return { ok: false, reason: 'otherSection', other: doc.section.slice(0, 20) };
  const params = new URLSearchParams();
  const unreadable = [];   // keys the section does not have, or values with no link form
  for (const [key, v] of Object.entries(doc.state)) {
    const entry = schema.find((e) => e.key === key);
    const raw = entry ? asLinkText(entry, v) : null;
    if (raw === null) unreadable.push(key.slice(0, 40));
    else params.set(`${prefix}.${key}`, raw);
  }
  const read = readSection(prefix, schema, params);
  // named in schema order, then the keys the section does not have
  const rejected = schema.map((e) => e.key).filter((k) => unreadable.includes(k) || read.rejected.includes(`${prefix}.${k}`));
  return { ok: true, state: read.state, rejected: [...rejected, ...unreadable.filter((k) => !rejected.includes(k))] };
}
