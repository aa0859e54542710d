// Mutation check of the native test suite. Plants each slip listed in scripts/mutants.txt, one at
// a time, in a scratch copy of the sources (never in the working tree), recompiles only the
// translation units that include a mutated file, links the doctest suite from those objects and
// the unmutated ones of the native build (build/native, which `npm test` has just made), and runs
// it without the slow `training` suite. A slip the suite does not catch survives.
//
//   node scripts/mutants.mjs [ID...]   only the listed mutants (default: all)
//   MUTANTS_BUILD=dir                  the native build to start from (default: build/native)
//   MUTANTS_DIR=dir                    scratch directory (default: $TMPDIR/attn-mutants-<hash of this path>)
//   MUTANTS_WORKERS=n                  slips planted in parallel, each in its own copy (default: cores)
//
// How: the build's compile_commands.json gives each object's command line and its depfile
// (`<object>.d`) the files it was made from; a slip in file F recompiles the objects whose depfile
// names F, with the sources read from the scratch copy and the output written there, at -O1 (the
// same results as -O3 without fast-math, in half the compile time; optimization levels mix
// freely across translation units). The link line is the build's own (link.txt), with the
// recompiled objects in place of the originals (in a copy of the core library, for its members).
//
// Exit status: 0 every slip caught; 1 some survived; 2 the list is stale (a `from` text not found
// exactly once), a slip does not compile, the build is missing or older than its sources, the
// unmutated suite fails, the control (a recompile and relink with nothing planted) fails the
// suite, or the script itself fails.
import { execFile as execFileCb } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);
const ROOT = resolve(new URL('..', import.meta.url).pathname);
const LIST = join(ROOT, 'scripts/mutants.txt');
const BUILD = resolve(ROOT, process.env.MUTANTS_BUILD ?? 'build/native');
const SCRATCH = process.env.MUTANTS_DIR
  ?? join(tmpdir(), `attn-mutants-${createHash('sha1').update(ROOT).digest('hex').slice(0, 10)}`);
const TARGET = 'attn_tests';
// Through ccache when the machine has it, with paths hashed from the worker's folder: the same slip
// compiles once on this machine, whichever worker, clone or run plants it again.
const CCACHE = (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'ccache'))) ? 'ccache ' : '';
const TEST_ARGS = ['--test-suite-exclude=training', '--abort-after=1', '--no-intro', '--no-version'];
const started = Date.now();
const seconds = (t0) => Math.round((Date.now() - t0) / 1000);

function fail(message, code = 2) {
  console.error(`mutants: ${message}`);
  process.exit(code);
}
// an error of the script itself exits 2 (1 means a slip survived)
process.on('uncaughtException', (e) => fail(e.stack ?? String(e)));

/** scripts/mutants.txt: "## id: what", then edits of "file:", "from:", "to:" (\n for a line break). */
export function parseMutants(text, where = LIST) {
  const mutants = [];
  let m = null, edit = null;
  text.split('\n').forEach((line, n) => {
    const head = /^## ([\w-]+): (.*)$/.exec(line);
    if (head) { mutants.push(m = { id: head[1], what: head[2], edits: [] }); return; }
    const kv = /^(file|from|to):\s?(.*)$/.exec(line);
    if (!kv) {
      if (line.trim() && !line.startsWith('#')) throw new Error(`${where}:${n + 1}: cannot read: ${line}`);
      return;
    }
    if (!m) throw new Error(`${where}:${n + 1}: an edit before the first "## id: what"`);
    const value = kv[2].trim().replace(/\\n/g, '\n');
    if (kv[1] === 'file') m.edits.push(edit = { file: value });
    else if (!edit || kv[1] in edit) throw new Error(`${where}:${n + 1}: "${kv[1]}:" needs "file:" first`);
    else edit[kv[1]] = value;
  });
  const ids = new Set();
  for (const x of mutants) {
    if (ids.has(x.id)) throw new Error(`${where}: mutant ${x.id} is listed twice`);
    ids.add(x.id);
    if (!x.edits.length || x.edits.some((e) => !('from' in e) || !('to' in e))) throw new Error(`${where}: mutant ${x.id} needs file, from and to`);
    x.files = [...new Set(x.edits.map((e) => e.file))];
  }
  return mutants;
}

/** The files a depfile (make syntax, as gcc -MD writes it) lists after its first colon. */
function depfileInputs(path) {
  const text = readFileSync(path, 'utf8').replace(/\\\n/g, ' ');
  return text.slice(text.indexOf(':') + 1).split(/\s+/).filter(Boolean).map((f) => resolve(BUILD, f));   // relative to where it was compiled
}

/** The objects of TARGET, each {output, command, inputs}, and its link line. */
function readBuild() {
  const ccPath = join(BUILD, 'compile_commands.json');
  const linkPath = join(BUILD, `CMakeFiles/${TARGET}.dir/link.txt`);
  if (!existsSync(ccPath) || !existsSync(linkPath) || !existsSync(join(BUILD, TARGET))) {
    fail(`no native build in ${BUILD} (run scripts/build.sh native first)`);
  }
  const link = readFileSync(linkPath, 'utf8').trim();
  const tokens = link.split(/\s+/);
  const libraries = tokens.filter((t) => t.endsWith('.a'));
  const linked = new Set(tokens.filter((t) => t.endsWith('.o')));
  const objects = JSON.parse(readFileSync(ccPath, 'utf8')).map((e) => {
    const output = relative(BUILD, resolve(e.directory, e.output ?? /\s-o\s(\S+)/.exec(e.command)[1]));   // CMake 3.25 gives no "output" field
    const library = libraries.find((lib) => output.startsWith(`CMakeFiles/${basename(lib, '.a').replace(/^lib/, '')}.dir/`)) ?? null;
    return { output, library, command: e.command, source: resolve(e.directory, e.file) };
  }).filter((o) => linked.has(o.output) || o.library);
  const built = statSync(join(BUILD, TARGET)).mtimeMs;
  for (const o of objects) {
    const dep = join(BUILD, `${o.output}.d`);
    if (!existsSync(dep)) fail(`${dep} is missing: the build has no depfiles`);
    o.inputs = depfileInputs(dep);
    const stale = o.inputs.find((f) => f.startsWith(`${ROOT}/`) && statSync(f).mtimeMs > built);
    if (stale) fail(`${relative(ROOT, stale)} is newer than ${relative(ROOT, join(BUILD, TARGET))}: run scripts/build.sh native first`);
  }
  return { objects, link };
}

/** A copy of the files the objects are made from, under dir/src (only what changed since the last run). */
function copySources(objects, src) {
  const files = new Set(objects.flatMap((o) => o.inputs).filter((f) => f.startsWith(`${ROOT}/`) && !f.startsWith(`${BUILD}/`)));
  for (const f of files) {
    const to = join(src, relative(ROOT, f));
    const st = statSync(f);
    if (existsSync(to) && statSync(to).mtimeMs === st.mtimeMs && statSync(to).size === st.size) continue;
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(f, to);
    utimesSync(to, st.atime, st.mtime);   // the original's time: the next run skips the file
  }
}

/** The compile command of `o` reading sources from `src` and writing under `obj`, at -O1, without a depfile. */
function mutantCommand(o, src, obj) {
  const quoteRoot = ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return o.command
    .replace(/\s-MD\s-MT\s\S+\s-MF\s\S+/, '')
    .replace(/\s-o\s(\S+)/, (_, out) => ` -o ${join(obj, out)}`)
    .replace(/\s-O[0-3s]\b/g, ' -O1')
    .replace(new RegExp(`${quoteRoot}/(wasm|tests|bench)/`, 'g'), `${src}/$1/`);
}

/** Apply mutant m's edits to the copy in src; resolves to the original texts, to put back. */
function plant(m, src) {
  const original = {}, text = {};
  for (const e of m.edits) {
    const path = join(src, e.file);
    if (!(path in text)) original[path] = text[path] = readFileSync(path, 'utf8');
    const count = text[path].split(e.from).length - 1;
    if (count !== 1) return { stale: `${e.file} has ${count} copies of: ${e.from}` };
    text[path] = text[path].replace(e.from, () => e.to);
  }
  for (const [path, t] of Object.entries(text)) writeFileSync(path, t);
  return { original };
}

async function run(m, worker, { objects, link }) {
  const { dir, src } = worker;
  const obj = join(dir, 'obj');
  rmSync(obj, { recursive: true, force: true });
  const planted = plant(m, src);
  if (planted.stale) return { result: 'STALE', detail: planted.stale };
  try {
    const touched = new Set(m.files.map((f) => join(ROOT, f)));
    const affected = objects.filter((o) => o.inputs.some((f) => touched.has(f)));
    if (!affected.length) return { result: 'STALE', detail: `no object of ${TARGET} is made from ${m.files.join(', ')}` };
    for (const o of affected) {
      mkdirSync(dirname(join(obj, o.output)), { recursive: true });
      try {
        await execFile('/bin/sh', ['-c', `${CCACHE}${mutantCommand(o, src, obj)}`],
          { cwd: dir, env: { ...process.env, CCACHE_BASEDIR: dir, CCACHE_NOHASHDIR: 'true' }, maxBuffer: 64 << 20 });
      } catch (e) {
        writeFileSync(join(dir, `build-${m.id}.log`), `${e.stdout}\n${e.stderr}`);
        return { result: 'DOES-NOT-COMPILE', detail: join(dir, `build-${m.id}.log`) };
      }
    }
    // the link line of the build, with the recompiled objects (and a library with them replaced)
    const libraries = {};
    for (const o of affected.filter((x) => x.library)) (libraries[o.library] ??= []).push(join(obj, o.output));
    for (const [lib, members] of Object.entries(libraries)) {
      copyFileSync(join(BUILD, lib), join(obj, lib));
      await execFile('ar', ['rs', join(obj, lib), ...members]);
    }
    const mine = new Set(affected.map((o) => o.output));
    const line = link.split(/\s+/).map((t) => {
      if (mine.has(t) || t in libraries) return join(obj, t);
      if (t === TARGET) return join(obj, TARGET);
      return /\.(o|a)$/.test(t) ? join(BUILD, t) : t;
    }).join(' ');
    try {
      await execFile('/bin/sh', ['-c', line], { cwd: BUILD, maxBuffer: 64 << 20 });
    } catch (e) {
      writeFileSync(join(dir, `link-${m.id}.log`), `${e.stdout}\n${e.stderr}`);
      return { result: 'DOES-NOT-COMPILE', detail: join(dir, `link-${m.id}.log`) };
    }
    try {
      await execFile(join(obj, TARGET), TEST_ARGS, { cwd: BUILD, timeout: 300000, maxBuffer: 64 << 20 });
      return { result: 'SURVIVED' };
    } catch {
      return { result: 'caught' };
    }
  } finally {
    for (const [path, t] of Object.entries(planted.original ?? {})) writeFileSync(path, t);
  }
}

let mutants;
try { mutants = parseMutants(readFileSync(LIST, 'utf8')); } catch (e) { fail(e.message); }
const wanted = process.argv.slice(2);
for (const id of wanted) if (!mutants.some((m) => m.id === id)) fail(`no mutant ${id} in scripts/mutants.txt`);
if (wanted.length) mutants = mutants.filter((m) => wanted.includes(m.id));

const build = readBuild();
try {
  await execFile(join(BUILD, TARGET), TEST_ARGS, { cwd: BUILD, maxBuffer: 64 << 20 });
} catch (e) {
  fail(`the unmutated suite fails (${join(BUILD, TARGET)} ${TEST_ARGS.join(' ')}); fix it first\n${e.stdout ?? ''}`);
}
const count = Math.max(1, Math.min(Number(process.env.MUTANTS_WORKERS) || availableParallelism(), mutants.length));
const workers = Array.from({ length: count }, (_, k) => ({ dir: join(SCRATCH, `w${k}`), src: join(SCRATCH, `w${k}`, 'src') }));
for (const w of workers) copySources(build.objects, w.src);
console.log(`mutants: ${mutants.length} slips, ${count} workers, seeded from ${relative(ROOT, BUILD) || BUILD}, scratch copies in ${SCRATCH}`);

// The control: the first slip's file recompiled, archived, linked and run exactly as a slip's, but
// with nothing planted, must pass the suite; otherwise a broken recompile or relink would count as
// every slip caught.
const results = [];
try {
  const control = await run({ id: 'control', files: mutants[0].files, edits: [] }, workers[0], build);
  if (control.result !== 'SURVIVED') {
    fail(`the unmutated recompile of ${mutants[0].files.join(', ')} does not pass the suite (${control.result}${control.detail ? `: ${control.detail}` : ''}): the check cannot be trusted`);
  }
  let next = 0;
  await Promise.all(workers.map(async (w) => {
    while (next < mutants.length) {
      const m = mutants[next++];
      const t0 = Date.now();
      const r = await run(m, w, build);
      results.push({ ...m, ...r });
      console.log(`${m.id.padEnd(36)} ${r.result.padEnd(16)} ${String(seconds(t0)).padStart(4)} s  ${m.what}`);
    }
  }));
} catch (e) {
  fail(e.stack ?? String(e));   // an error of the script itself: not a survivor
}

const caught = results.filter((r) => r.result === 'caught').length;
const survived = results.filter((r) => r.result === 'SURVIVED');
const broken = results.filter((r) => r.result !== 'caught' && r.result !== 'SURVIVED');
console.log(`\nmutants: ${caught} of ${mutants.length} slips caught in ${seconds(started)} s`);
for (const r of broken) console.error(`mutants: broken entry (fix scripts/mutants.txt): ${r.id} (${r.result}: ${r.detail})`);
for (const r of survived) console.error(`mutants: SURVIVED (the native suite passed with this slip): ${r.id}: ${r.what}`);
process.exit(broken.length ? 2 : survived.length ? 1 : 0);
