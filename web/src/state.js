// A section's state, driven by one declarative table (its schema): {key, type, default, ...limits}.
// The limits (min, max, options, minRows, maxRows, minCols, maxCols, maxLength) are written once,
// here: the URL parser checks them and the widgets built from the schema (schema-widgets.js) take
// them. An entry may narrow its limits by the rest of the state with within(state) -> {min, max}
// (numbers), {options} (enum) or {rows, cols} (matrix, mask); fitState() keeps every value inside.
//
// The URL is untrusted: every value is parsed against its entry and falls back to the default
// (with a notice) when it does not fit. Only values that differ from the default are written.

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const MAX_PARAM = 2000;   // characters; longer values are not read

const parseNumber = (s) => (NUMBER.test(s) ? Number(s) : NaN);

/** Parse one raw URL value for a schema entry: {ok: true, value} or {ok: false}. */
export function parseValue(entry, raw) {
  if (typeof raw !== 'string' || raw.length > MAX_PARAM) return { ok: false };
  switch (entry.type) {
    case 'bool':
      return raw === '1' || raw === '0' ? { ok: true, value: raw === '1' } : { ok: false };
    case 'enum':
      return entry.options.map(String).includes(raw) ? { ok: true, value: entry.options.find((o) => String(o) === raw) } : { ok: false };
    case 'int': {
      const v = parseNumber(raw);
      return Number.isInteger(v) && v >= entry.min && v <= entry.max ? { ok: true, value: v } : { ok: false };
    }
    case 'number': {
      const v = parseNumber(raw);
      return Number.isFinite(v) && v >= entry.min && v <= entry.max ? { ok: true, value: v } : { ok: false };
    }
    case 'vector': {
      const v = raw.split(',').map(parseNumber);
      return v.length >= (entry.minCols ?? 1) && v.length <= entry.maxCols && v.every(Number.isFinite) && v.every((x) => Math.abs(x) <= 1e6)
        ? { ok: true, value: v } : { ok: false };
    }
    case 'matrix': {
      const rows = raw.split(';').map((r) => r.split(',').map(parseNumber));
      const cols = rows[0].length;
      const ok = rows.length >= (entry.minRows ?? 1) && rows.length <= entry.maxRows && cols >= (entry.minCols ?? 1) &&
        cols <= entry.maxCols && rows.every((r) => r.length === cols && r.every((x) => Number.isFinite(x) && Math.abs(x) <= 1e6));
      return ok ? { ok: true, value: rows } : { ok: false };
    }
    case 'text': {   // a short string: at most maxLength characters, no control characters
      const ok = [...raw].length <= entry.maxLength && !/[\u0000-\u001f\u007f]/.test(raw);
      return ok ? { ok: true, value: raw } : { ok: false };
    }
    case 'mask': {   // rows of 0/1 digits, e.g. 100;110;111
      const rows = raw.split(';');
      const ok = rows.length >= 1 && rows.length <= entry.maxRows && rows.every((r) => /^[01]+$/.test(r) && r.length === rows[0].length);
      return ok ? { ok: true, value: rows.map((r) => [...r].map(Number)) } : { ok: false };
    }
    default:
      return { ok: false };
  }
}

export function serializeValue(entry, value) {
  switch (entry.type) {
    case 'bool': return value ? '1' : '0';
    case 'vector': return value.join(',');
    case 'matrix': return value.map((r) => r.join(',')).join(';');
    case 'mask': return value.map((r) => r.join('')).join(';');
    default: return String(value);
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

export function defaults(schema) {
  return Object.fromEntries(schema.map((e) => [e.key, structuredClone(e.default)]));
}

/** An entry's limits in this state: its own, narrowed by within(state). */
export const limitsOf = (entry, state) => ({ ...entry, ...entry.within?.(state) });

// A value moved inside narrowed limits: numbers clamped; an enum to the largest allowed option
// not above it (else the first); a matrix or mask cropped or padded (0, or the causal pattern).
function fitValue(type, v, lim) {
  switch (type) {
    case 'int': case 'number': return Math.min(lim.max, Math.max(lim.min, v));
    case 'enum': {
      if (lim.options.includes(v)) return v;
      const below = typeof v === 'number' ? lim.options.filter((o) => o <= v) : [];
      return below.length ? Math.max(...below) : lim.options[0];
    }
    case 'matrix': case 'mask':
      return Array.from({ length: lim.rows ?? v.length }, (_, i) => Array.from({ length: lim.cols ?? v[0].length },
        (__, j) => v[i]?.[j] ?? (type === 'mask' ? Number(j <= i) : 0)));
    default: return v;
  }
}

/** The state with every value inside its current limits (in schema order: within may read earlier keys). */
export function fitState(schema, state) {
  const out = { ...state };
  for (const e of schema) if (e.within) out[e.key] = fitValue(e.type, out[e.key], limitsOf(e, out));
  return out;
}

/** Read one section's state from URLSearchParams; returns {state, rejected: [param names]}. A value
 * that had to be moved inside its limits (t past T - 2, say) counts as rejected. */
export function readSection(prefix, schema, params) {
  const parsed = defaults(schema);
  const rejected = [];
  for (const entry of schema) {
    const name = `${prefix}.${entry.key}`;
    if (!params.has(name)) continue;
    const r = parseValue(entry, params.get(name));
    if (r.ok) parsed[entry.key] = r.value;
    else rejected.push(name);
  }
  const state = fitState(schema, parsed);
  for (const entry of schema) {
    const name = `${prefix}.${entry.key}`;
    if (params.has(name) && !rejected.includes(name) && !same(state[entry.key], parsed[entry.key])) rejected.push(name);
  }
  return { state, rejected };
}

/** Write one section's state into URLSearchParams (defaults are removed). */
export function writeSection(prefix, schema, state, params) {
  for (const entry of schema) {
    const name = `${prefix}.${entry.key}`;
    if (same(state[entry.key], entry.default)) params.delete(name);
    else params.set(name, serializeValue(entry, state[entry.key]));
  }
}
