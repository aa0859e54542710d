// The TypeScript declarations of the package, generated from the core's own table (core.describe(),
// the rows of wasm/bindings/table.cpp with their typed options and results) and from the list of
// sections, so that they cannot drift from what the core accepts and returns:
//   wasm/js/gen/index.d.ts            the JS API: loadCore(), tensor(), toNested(), Core, GptModel, ...
//   dist/element/attention-lab.d.ts   <attention-lab>: the element, its section ids and its events
// scripts/build.sh runs it after the web build; tests/ts-consumer type-checks a user against both.
//   node scripts/gen-types.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadCore } from '../wasm/js/index.js';
import { SECTIONS } from '../web/src/sections/index.js';
import { PYTORCH_FUNCTIONS } from '../wasm/js/pytorch.js';

const ROOT = new URL('..', import.meta.url).pathname;
const core = await loadCore();
const rows = core.describe();

const cap = (s) => s[0].toUpperCase() + s.slice(1);
const quote = (s) => JSON.stringify(s);
const doc = (text, indent = '') => (text ? `${indent}/** ${String(text).replace(/\*\//g, '* /')} */\n` : '');
const ident = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : quote(name));

/** A TypeScript type for a declaration of describe(): an option ({kind, values?}) or a result
 * ({kind, fields?, of?, value?}; docs/api.md, "describe"). `input`: as the core accepts it. */
export function tsType(t, { input = false } = {}) {
  const tensor = input ? 'TensorLike' : 'Tensor';
  switch (t.kind) {
    case 'tensor': return tensor;
    case 'number': case 'integer': return 'number';
    case 'boolean': return 'boolean';
    case 'string': return 'string';
    case 'literal': return quote(t.value);
    case 'enum': return t.values.map(quote).join(' | ');
    case 'numberOrEnum': return ['number', ...t.values.map(quote)].join(' | ');
    case 'enumOrMask': return [...t.values.map(quote), tensor].join(' | ');
    case 'numbers': return input ? 'ArrayLike<number>' : 'number[]';
    case 'float64Array': return 'Float64Array';
    case 'nothing': return 'void';
    case 'model': return 'GptModel';
    case 'array': return `Array<${tsType(t.of, { input })}>`;
    case 'record': return `Record<string, ${tsType(t.of, { input })}>`;
    case 'oneOf': return t.of.map((o) => tsType(o, { input })).join(' | ');
    // a field an option value leaves out is there by default: the overloads of its function say when it is not
    case 'object': return `{ ${t.fields.map((f) => `${f.doc ? `/** ${f.doc.replace(/\*\//g, '* /')} */ ` : ''}${ident(f.name)}${f.optional && !f.omittedBy ? '?' : ''}: ${tsType(f, { input })}`).join('; ')} }`;
    default: throw new Error(`gen-types: a declaration of unknown kind ${JSON.stringify(t)}`);
  }
}

/** The config object of a model declaration ({kind: 'model', fields}). */
const configType = (t) => tsType({ kind: 'object', fields: t.fields });

const optionsName = (row) => `${cap(row.name)}Options`;
const resultName = (row) => `${cap(row.name)}Result`;

function argList(row, { skipModel }) {
  const args = row.args.filter((a) => !(skipModel && a.kind === 'model'));
  // an argument may be left out when it has a default, and so may every one after it
  let optionalFrom = args.length;
  for (let i = args.length - 1; i >= 0; i--) {
    const required = args[i].kind === 'options' && row.options.some((o) => o.required);
    if (!required && (args[i].default !== undefined || args[i].kind === 'options')) optionalFrom = i; else break;
  }
  return args.map((a, i) => {
    const type = a.kind === 'options' ? optionsName(row) : a.kind === 'number' ? 'number' : tsType(a, { input: true });
    return `${ident(a.name)}${i >= optionalFrom ? '?' : ''}: ${type}`;
  }).join(', ');
}

function declarations() {
  const out = [];
  for (const row of rows) {
    if (row.args.some((a) => a.kind === 'options')) {
      out.push(`${doc(`Options of ${row.name}(); an option the core does not know is an error.`)}export interface ${optionsName(row)} {\n`
        + row.options.map((o) => `${doc(o.doc, '  ')}  ${ident(o.name)}${o.required ? '' : '?'}: ${tsType(o, { input: true })};\n`).join('')
        + '}\n');
    }
    if (row.role !== 'release' && row.role !== 'create') out.push(`${doc(`What ${row.name}() returns.`)}export type ${resultName(row)} = ${tsType(row.returns)};\n`);
  }
  return out.join('\n');
}

// The fields of a row's result that an option value leaves out ({omittedBy: {option, value}}), by
// "option=value": such a row gets one overload per value, whose result lacks those fields, before
// the general one, whose result has them all (the default) unless the option is given a value not known
// in advance (then they are optional).
function omissions(row) {
  const by = new Map();
  for (const f of row.returns.kind === 'object' ? row.returns.fields : []) {
    if (!f.omittedBy) continue;
    const key = `${f.omittedBy.option}=${f.omittedBy.value}`;
    if (!by.has(key)) by.set(key, { ...f.omittedBy, fields: [] });
    by.get(key).fields.push(f.name);
  }
  return [...by.values()];
}

function method(row, skipModel) {
  const returns = row.role === 'create' ? 'GptModel' : row.role === 'release' ? 'void' : resultName(row);
  const general = `${doc(row.doc, '  ')}  ${row.name}(${argList(row, { skipModel })}): ${returns};\n`;
  const omitted = omissions(row);
  if (!omitted.length) return general;
  const args = argList(row, { skipModel }).split(', ');
  const opts = args.findIndex((a) => a.startsWith('opts'));
  const options = optionsName(row);
  const name = args[opts].slice(0, args[opts].indexOf(':'));   // opts, or opts? when every option may be left out
  const overload = (o) => {
    const a = [...args];
    a[opts] = `opts: ${options} & { ${ident(o.option)}: ${quote(o.value)} }`;
    return `  ${row.name}(${a.join(', ')}): Omit<${returns}, ${o.fields.map(quote).join(' | ')}>;\n`;
  };
  // the default: options that leave nothing out
  const plain = [...args];
  const keys = [...new Set(omitted.map((o) => o.option))];
  const others = (k) => row.options.find((o) => o.name === k).values.filter((v) => !omitted.some((o) => o.option === k && o.value === v));
  plain[opts] = `${name}: Omit<${options}, ${keys.map(quote).join(' | ')}> & { ${keys.map((k) => `${ident(k)}?: ${others(k).map(quote).join(' | ')}`).join('; ')} }`;
  const some = [...args];
  some[opts] = `${name}: ${options}`;
  const partial = `Omit<${returns}, ${omitted.flatMap((o) => o.fields).map(quote).join(' | ')}> & Partial<${returns}>`;
  return `${doc(row.doc, '  ')}${omitted.map(overload).join('')}  ${row.name}(${plain.join(', ')}): ${returns};\n`
    + `  ${row.name}(${some.join(', ')}): ${partial};\n`;
}

function indexDts() {
  const functions = rows.filter((r) => r.role === 'function' || r.role === 'create');
  const methods = rows.filter((r) => r.role === 'method' || r.role === 'release');
  const create = rows.find((r) => r.role === 'create');
  const codes = Object.keys(core.errorCodes);
  return `// Generated by scripts/gen-types.mjs from the core's table (core.describe()); do not edit.

/** A tensor as the core returns it: row-major float64 data and its shape. */
export interface Tensor { shape: number[]; data: Float64Array }
/** A tensor as the core accepts it: plain numbers (or booleans for a mask) are copied in. */
export interface TensorLike { shape: ArrayLike<number>; data: Float64Array | Uint8Array | ArrayLike<number> | ArrayLike<boolean> }
/** Nested arrays of numbers, as tensor() takes and toNested() gives. */
export type Nested = number | Nested[];

/** Every code an Error from the core may carry. */
export type ErrorCode = ${codes.map(quote).join(' | ')};
/** An Error raised by the core: a wrong shape, a bad option, a value out of range... */
export interface CoreError extends Error { code: ErrorCode; params: Record<string, unknown> }

/** What a result is, as describe() declares it. */
export interface Declaration { kind: string; fields?: ReadonlyArray<Declaration & { name: string; optional?: boolean; doc?: string }>; of?: Declaration | ReadonlyArray<Declaration>; value?: string }

/** One row of the core's table of entry points (core.describe()). */
export interface FunctionRow {
  name: string;
  args: ReadonlyArray<{ name: string; kind: string; default?: number | string }>;
  options: ReadonlyArray<{ name: string; kind: string; values?: ReadonlyArray<string>; doc: string; required?: boolean }>;
  doc: string;
  returns: Declaration;
  role: 'function' | 'create' | 'method' | 'release';
}

${declarations()}
/** A character GPT living in the core; dispose() frees it (a finalizer frees a forgotten one). */
export interface GptModel {
  /** The model's settings and its data, as ${create.name}() made them. */
  readonly config: ${configType(create.returns)};
${methods.map((r) => method(r, true)).join('')}}

/** Names of the functions that toPyTorch() writes a program for. */
export type PyTorchFunction = ${PYTORCH_FUNCTIONS.map(quote).join(' | ')};

/** The core: one function per row of its table. */
export interface Core {
${functions.map((r) => method(r, false)).join('')}  /** The table of functions, or the row of one. */
  describe(): ReadonlyArray<FunctionRow>;
  describe(name: string): FunctionRow | undefined;
  /** {code: [parameter names]} of every error the core raises. */
  readonly errorCodes: Readonly<Record<ErrorCode, ReadonlyArray<string>>>;
  /** {parameter name: kind} of the errors' parameters. */
  readonly errorParams: Readonly<Record<string, string>>;
  /** A float64 PyTorch program reproducing one call of the core, printing its results. */
  toPyTorch(fnName: PyTorchFunction, args?: ReadonlyArray<unknown>): string;
}

export interface LoadOptions {
  /** The core compiled once (compileCore()), e.g. to share with a Web Worker. */
  module?: WebAssembly.Module;
  /** The .wasm file's bytes. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch the .wasm file from (default: beside this module). */
  wasmUrl?: string;
}
/** Load the WebAssembly core, in the browser or in Node 20. */
export function loadCore(options?: LoadOptions): Promise<Core>;
export default loadCore;
/** Compile the core once as a WebAssembly.Module. */
export function compileCore(options?: { wasmUrl?: string }): Promise<WebAssembly.Module>;
/** Instantiate the core from a compiled module, bytes, or a locateFile function. */
export function instantiateCore(options?: { module?: WebAssembly.Module; wasmBinary?: ArrayBuffer | Uint8Array; locateFile?: (path: string) => string }): Promise<Core>;
/** The URL the browser build loads the .wasm file from. */
export function coreUrl(): string;
/** Nested arrays to a tensor {shape, data: Float64Array}. */
export function tensor(nested: Nested): Tensor;
/** A tensor to nested arrays. */
export function toNested(t: TensorLike): Nested;

/** A tensor a student's program printed or saved, read by parse-tensor.js. */
export interface ParsedTensor extends Tensor {
  /** half a unit of each value's last printed digit (0: exact) */
  resolution: Float64Array;
  form: 'pytorch' | 'numpy' | 'list' | 'rows' | 'npy';
  dtype: string | null;
  /** whether the text or file states dtype (PyTorch prints none for its default dtype) */
  dtypeStated: boolean;
}
/** Text parse-tensor.js cannot read: code paste_* or npy_* (docs/api.md, "Check my numbers"). */
export class ParseError extends Error { code: string; params: Record<string, unknown> }
export function parseTensor(text: string): ParsedTensor;
export function parseNpy(bytes: ArrayBuffer | Uint8Array): ParsedTensor;
/** parseTensor, then core.diagnose(check, student, {...inputs, resolution}). */
export function diagnoseText(core: Core, check: string, inputs: Omit<DiagnoseOptions, 'resolution'>, text: string): DiagnoseResult;
`;
}

function elementDts() {
  return `// Generated by scripts/gen-types.mjs from web/src/sections/index.js; do not edit.
// <attention-lab section="18.3" lang="en" state="s3.causal=0" solutions="0">: importing this module
// defines the element (docs/course-integration.md).

/** A section of the lab, as the section attribute takes it (several: separated by spaces). */
export type SectionId = ${SECTIONS.map((s) => quote(s.id)).join(' | ')};

export interface AttentionLabStateDetail {
  /** The section the student edited. */
  section: SectionId;
  /** The element's new state attribute (the page URL's form). */
  state: string;
  /** That section's state as an object. */
  values: Record<string, unknown>;
}
export interface AttentionLabReadyDetail {
  /** The sections rendered. */
  sections: SectionId[];
  /** The message shown instead, when the attributes could not be rendered. */
  error: string | null;
}

export declare class AttentionLabElement extends HTMLElement {
  static readonly observedAttributes: string[];
}

declare global {
  interface HTMLElementTagNameMap { 'attention-lab': AttentionLabElement }
  interface HTMLElementEventMap {
    'attention-lab:state': CustomEvent<AttentionLabStateDetail>;
    'attention-lab:ready': CustomEvent<AttentionLabReadyDetail>;
  }
}
`;
}

const outputs = [
  [join(ROOT, 'wasm/js/gen/index.d.ts'), indexDts()],
  [join(ROOT, 'dist/element/attention-lab.d.ts'), elementDts()],
];
for (const [file, text] of outputs) { mkdirSync(dirname(file), { recursive: true }); writeFileSync(file, text); }
console.log(`gen-types: ${outputs.map(([f]) => f.slice(ROOT.length)).join(' and ')}`);
