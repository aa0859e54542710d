// Progress that is kept: what the student typed into each exercise, whether the last check of it
// was right, and which sections they visited. The data model, its one text encoding (the value
// kept in localStorage and in an LMS's cmi.suspend_data alike), its validation when read back, and
// the store over a backend. No DOM; nothing here sends anything anywhere.
//
// The encoding, format 2 (ASCII only, so it fits SCORM 1.2's CMIString4096):
//   AL2|<visited>|<exercises>
//   visited     the visited sections' URL prefixes (sections/index.js), joined by ","   s1,s2,ex
//   exercises   entries joined by ";", each <key>:<status>[:<answers>]                    s3:2:~G2/2
//   key         the section's prefix for its first exercise, <prefix>.<n> for the n-th after it
//               (ex.1, ex.2), in the order the section's exercises are declared (a new one goes last)
//   status      0 not checked yet (a draft), 1 checked and not right, 2 solved (the last check was right),
//               3 solved at an earlier check and the last check (its answer the one kept) not right
//   answers     one per answer box, joined by ","; a choice exercise has one: the chosen value
// An answer's characters:
//   printable ASCII but , ; : | ~ !   as themselves                     sqrt(2)/2
//   ~A ... ~Y                         one of TABLE: the six above, the answer parser's own
//                                     characters (√ π − × · ÷ ...) and an IME's full-width
//                                     punctuation and space                √ -> ~G, ， -> ~T
//   !c                                the full-width form of c (U+FF01 + c - 0x21), c one of the
//                                     first line's characters other than space    １ -> !1
//   ~dddd                             any other code point, in base 36 on four digits   中 -> ~0ffx
// Each answer is at most MAX_ANSWER code points, so the longest text is known: everything an
// answer is written with (half- or full-width) takes at most two characters, anything else five
// (worstCase(); the figures are in docs/course-integration.md).
//
// Format 1 (AL1|..., section and exercise ids, every character outside [A-Za-z0-9 .()*+/^_-] as
// ~dddd) is still read, and written again as format 2.
//
// Reading back is like reading the URL (state.js): the value is untrusted. Something that is not
// ours ("foreign"), from a newer format ("newer") or broken ("corrupt") is ignored whole; an
// entry for an exercise or section this version does not have, or with answers that do not fit
// the exercise, is dropped ("partial"). The page says so; it never breaks.

export const FORMAT = 2;
export const MAX_ANSWER = 32;                       // code points per answer box (the box's maxlength)
export const STORAGE_KEY = 'attention-lab.progress';
export const LIMITS = { '1.2': 4096, 2004: 64000 };  // characters of cmi.suspend_data
export const NOT_CHECKED = 0, WRONG = 1, SOLVED = 2, SOLVED_BEFORE = 3;
/** Whether an exercise of this status counts as solved: once solved, a later wrong try does not undo it. */
export const isSolved = (status) => status === SOLVED || status === SOLVED_BEFORE;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const RESERVED = ',;:|~!';
/** The characters written ~A, ~B, ...: the reserved ones, the answer parser's (answer.js), an IME's. */
export const TABLE = [...RESERVED, ...'√π−×·÷–—⋅∙⁄∕', '\u3000', ...'，；：｜～！'];
const WIDE = 0xff01 - 0x21;   // a full-width form's code point less its ASCII character's
const literal = (c) => c >= ' ' && c <= '~' && c.length === 1 && !RESERVED.includes(c);

/** The ids the encoding may name, from the section list and the exercises (web/src/exercises.js's
 * exercisesOf): {sections: [id], prefixes: [prefix], exercises: [{id, section, key, boxes, choices}]}. */
export function catalogueOf(sections, exercises) {
  const count = new Map();
  const prefixes = sections.map((s) => {
    if (!/^[a-z0-9]{1,16}$/.test(s.prefix)) throw new Error(`progress: section ${s.id}'s prefix '${s.prefix}' is not [a-z0-9]{1,16}`);
    return s.prefix;
  });
  if (new Set(prefixes).size !== prefixes.length) throw new Error(`progress: section prefixes repeat: ${prefixes}`);
  if (new Set(exercises.map((e) => e.id)).size !== exercises.length) throw new Error('progress: exercise ids repeat');
  return {
    sections: sections.map((s) => s.id),
    prefixes,
    exercises: exercises.map((e) => {
      const at = sections.findIndex((s) => s.id === e.section);
      if (at < 0) throw new Error(`progress: exercise ${e.id} is in section ${e.section}, which is not listed`);
      const n = count.get(e.section) ?? 0;
      count.set(e.section, n + 1);
      return {
        id: e.id, section: e.section, key: n ? `${prefixes[at]}.${n}` : prefixes[at],
        boxes: e.choices ? 1 : e.inputs.length,
        choices: e.choices ? e.choices.map((c) => String(c.value)) : null,
      };
    }),
  };
}

/** {visited: Set of section ids, exercises: Map id -> {status, answer: [string per box]}} */
export const emptyProgress = () => ({ visited: new Set(), exercises: new Map() });

const long = (cp) => `~${cp.toString(36).padStart(4, '0')}`;

/** One character of an answer as format 2 writes it. */
function escapeChar(c) {
  if (literal(c)) return c;
  const k = TABLE.indexOf(c);
  if (k >= 0) return `~${String.fromCharCode(65 + k)}`;
  const cp = c.codePointAt(0);
  const ascii = String.fromCharCode(cp - WIDE);
  return cp >= 0xff01 && cp <= 0xff5e && literal(ascii) ? `!${ascii}` : long(cp);
}
const escapeText = (s) => [...s].map(escapeChar).join('');

/** `~dddd` at s[i]: its code point, or -1. */
function longAt(s, i) {
  const digits = s.slice(i + 1, i + 5);
  const cp = /^[0-9a-z]{4}$/.test(digits) ? parseInt(digits, 36) : -1;
  return cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? -1 : cp;
}

/** An answer's text read back (format 2), or null if it is not one the encoder writes. */
function unescapeText(s) {
  let out = '';
  for (let i = 0; i < s.length;) {
    const c = s[i], next = s[i + 1] ?? '';
    if (c === '~' && next >= 'A' && next < String.fromCharCode(65 + TABLE.length)) {
      out += TABLE[next.charCodeAt(0) - 65];
      i += 2;
    } else if (c === '~') {
      const cp = longAt(s, i);
      if (cp < 0) return null;
      out += String.fromCodePoint(cp);
      i += 5;
    } else if (c === '!' && literal(next) && next !== ' ') {
      out += String.fromCodePoint(next.charCodeAt(0) + WIDE);
      i += 2;
    } else if (literal(c)) out += s[i++];
    else return null;
  }
  return out;
}

/** An answer's text read back (format 1: [A-Za-z0-9 .()*+/^_-] as they are, the rest ~dddd), or null. */
function unescapeText1(s) {
  let out = '';
  for (let i = 0; i < s.length;) {
    if (s[i] === '~') {
      const cp = longAt(s, i);
      if (cp < 0) return null;
      out += String.fromCodePoint(cp);
      i += 5;
    } else if (/^[A-Za-z0-9 .()*+/^_-]$/.test(s[i])) out += s[i++];
    else return null;
  }
  return out;
}

/** An answer as it is kept: control characters removed, at most MAX_ANSWER code points. */
export const clipAnswer = (s) => [...String(s ?? '')].filter((c) => !CONTROL.test(c)).slice(0, MAX_ANSWER).join('');

/** The progress as text (format 2). Over `limit` characters, the longest kept answers are dropped
 * (drafts first; the statuses stay) until it fits; throws if even the statuses do not fit. */
export function encode(cat, progress, limit = Infinity) {
  const visited = cat.prefixes.filter((_, i) => progress.visited.has(cat.sections[i]));
  const entries = cat.exercises.filter((e) => progress.exercises.has(e.id))
    .map((e) => ({ key: e.key, ...progress.exercises.get(e.id) }))
    .map((e) => ({ ...e, text: e.answer.some(Boolean) ? e.answer.map(escapeText).join(',') : '' }));
  const render = () => `AL${FORMAT}|${visited.join(',')}|${entries.filter((e) => e.status !== NOT_CHECKED || e.text)
    .map((e) => `${e.key}:${e.status}${e.text ? `:${e.text}` : ''}`).join(';')}`;
  let s = render();
  while (s.length > limit) {
    const kept = entries.filter((e) => e.text);
    if (!kept.length) throw new Error(`progress: ${s.length} characters do not fit the limit of ${limit}, even without answers`);
    const drafts = kept.filter((e) => e.status === NOT_CHECKED);
    const victim = (drafts.length ? drafts : kept).reduce((a, b) => (b.text.length > a.text.length ? b : a));
    victim.text = '';
    s = render();
  }
  return s;
}

// What differs between the formats a value may be in: how a visited section, an exercise and an
// answer's text are written.
const READERS = {
  1: { section: (cat, id) => (cat.sections.includes(id) ? id : null), exercise: (cat, id) => cat.exercises.find((e) => e.id === id), text: unescapeText1 },
  2: { section: (cat, prefix) => cat.sections[cat.prefixes.indexOf(prefix)] ?? null, exercise: (cat, key) => cat.exercises.find((e) => e.key === key), text: unescapeText },
};

/** Read kept text back (format 2, or 1): {progress, problem: null | 'foreign' | 'newer' | 'corrupt' | 'partial'}. */
export function decode(cat, text) {
  const progress = emptyProgress();
  if (text === null || text === undefined || text === '') return { progress, problem: null };
  if (typeof text !== 'string' || text.length > LIMITS[2004]) return { progress, problem: 'foreign' };
  const head = /^AL(\d{1,4})\|/.exec(text);
  if (!head) return { progress, problem: 'foreign' };
  const reader = READERS[Number(head[1])];
  if (!reader) return { progress, problem: Number(head[1]) > FORMAT ? 'newer' : 'foreign' };
  const parts = text.slice(head[0].length).split('|');
  if (parts.length !== 2) return { progress, problem: 'corrupt' };
  let dropped = 0;
  for (const name of parts[0] ? parts[0].split(',') : []) {
    const id = reader.section(cat, name);
    if (id !== null) progress.visited.add(id);
    else dropped++;
  }
  for (const entry of parts[1] ? parts[1].split(';') : []) {
    const m = /^([\w.-]{1,64}):([0-3])(?::([^:]*))?$/.exec(entry);
    const ex = m && reader.exercise(cat, m[1]);
    const answer = m?.[3] === undefined ? Array(ex?.boxes ?? 0).fill('') : m[3].split(',').map(reader.text);
    const fits = ex && !progress.exercises.has(ex.id) && answer.length === ex.boxes &&
      answer.every((a) => a !== null && a === clipAnswer(a)) && (!ex.choices || answer[0] === '' || ex.choices.includes(answer[0]));
    if (fits) progress.exercises.set(ex.id, { status: Number(m[2]), answer });
    else dropped++;
  }
  return { progress, problem: dropped ? 'partial' : null };
}

/** The progress with the longest text this catalogue can have: every section visited, every
 * exercise checked, every box full of `char` (by default one that takes five characters, as every
 * character outside ASCII, the table and the full-width forms does; '１' or '√' take two). */
export function worstCase(cat, char = '中') {
  const progress = emptyProgress();
  for (const id of cat.sections) progress.visited.add(id);
  for (const e of cat.exercises) {
    const full = e.choices ? [e.choices.reduce((a, b) => (b.length > a.length ? b : a))] : Array(e.boxes).fill(char.repeat(MAX_ANSWER));
    progress.exercises.set(e.id, { status: SOLVED, answer: full });
  }
  return progress;
}

/** What the student has done in these sections (the ones on the page). */
export function summarize(cat, progress, sectionIds) {
  const exercises = cat.exercises.filter((e) => sectionIds.includes(e.section))
    .map((e) => ({ id: e.id, section: e.section, status: progress.exercises.get(e.id)?.status ?? NOT_CHECKED }));
  const sections = sectionIds.map((id) => ({ id, visited: progress.visited.has(id) }));
  const solved = exercises.filter((e) => isSolved(e.status)).length;
  const checked = exercises.filter((e) => e.status !== NOT_CHECKED).length;
  return {
    sections, exercises, solved, checked, total: exercises.length,
    visited: sections.filter((s) => s.visited).length,
    // done with the lab: every section seen and every exercise checked at least once
    complete: sections.every((s) => s.visited) && checked === exercises.length,
  };
}

// Backends: {kind: 'local' | 'memory' | 'lms', shared, limit, read() -> string | null, write(text), clear()}.
// `shared`: other frames or tabs write the same value, so every change reads it again first.

export function memoryBackend() {
  let value = null;
  return { kind: 'memory', shared: false, limit: Infinity, read: () => value, write(s) { value = s; }, clear() { value = null; } };
}

/** localStorage (whatever getStorage() returns), or, where it throws (file:// in some browsers,
 * sandboxed frames, private modes, a full quota), memory: the page keeps working either way. */
export function localBackend(getStorage, key = STORAGE_KEY) {
  const memory = memoryBackend();
  let storage = null;
  try {
    storage = getStorage();
    storage.setItem(`${key}.probe`, '1');
    storage.removeItem(`${key}.probe`);
  } catch {
    storage = null;
  }
  const attempt = (fn) => {
    if (storage) {
      try { return fn(storage); } catch { memory.write(backend.last); storage = null; }
    }
    return undefined;
  };
  const backend = {
    get kind() { return storage ? 'local' : 'memory'; },
    get shared() { return Boolean(storage); },
    limit: Infinity,
    last: null,   // the last value written, carried into memory if storage fails later
    read() {
      const v = attempt((s) => s.getItem(key));
      return storage ? v : memory.read();
    },
    write(s) {
      backend.last = s;
      attempt((st) => st.setItem(key, s));
      if (!storage) memory.write(s);
    },
    clear() {
      backend.last = null;
      attempt((s) => s.removeItem(key));
      memory.clear();
    },
  };
  return backend;
}

/** The store: the progress read from `backend` (validated), changed one step at a time. */
export function openProgress(cat, backend) {
  const read = () => decode(cat, backend.read());
  let { progress, problem } = read();
  const listeners = new Set();
  const forgetters = new Set();
  function update(change) {
    if (backend.shared) progress = read().progress;   // what other frames or tabs wrote since
    change(progress);
    backend.write(encode(cat, progress, backend.limit));
    for (const fn of listeners) fn();
  }
  const entry = (id) => progress.exercises.get(id) ?? { status: NOT_CHECKED, answer: Array(cat.exercises.find((e) => e.id === id).boxes).fill('') };
  return {
    problem,
    get kind() { return backend.kind; },
    exercise: (id) => progress.exercises.get(id) ?? null,
    /** The boxes' text as typed (not checked yet: the status stays). */
    answer(id, values) {
      const answer = values.map(clipAnswer);
      if (JSON.stringify(entry(id).answer) === JSON.stringify(answer)) return;
      update((p) => p.exercises.set(id, { ...entry(id), answer }));
    },
    /** A check of these values: right or not (a solved exercise stays solved). Returns the new status. */
    checked(id, values, correct) {
      let status;
      update((p) => {
        status = correct ? SOLVED : isSolved(p.exercises.get(id)?.status) ? SOLVED_BEFORE : WRONG;
        p.exercises.set(id, { status, answer: values.map(clipAnswer) });
      });
      return status;
    },
    visit(id) {
      if (!progress.visited.has(id)) update((p) => p.visited.add(id));
    },
    summary: (sectionIds) => summarize(cat, progress, sectionIds),
    /** Start over: nothing kept; the exercise views clear themselves (onForget). */
    forget() {
      progress = emptyProgress();
      backend.clear();
      for (const fn of forgetters) fn();
      for (const fn of listeners) fn();
    },
    /** Take what another tab wrote (a 'storage' event). */
    refresh() {
      progress = read().progress;
      for (const fn of listeners) fn();
    },
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    onForget(fn) { forgetters.add(fn); return () => forgetters.delete(fn); },
    /** The kept text (what an LMS stores as suspend_data). */
    text: () => encode(cat, progress, backend.limit),
  };
}
