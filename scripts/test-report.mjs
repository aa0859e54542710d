// The closing table of `npm test` (scripts/test.sh): every stage with its wall time, the machine's
// CPU use meanwhile and its result,
// then the ten slowest tests of all suites (node --test's through tests/timing-reporter.mjs,
// ctest's from its JUnit file).
//   node scripts/test-report.mjs build/test-report
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'build/test-report';
const fmt = (s) => {
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
};

const stages = existsSync(join(dir, 'stages.tsv'))
  ? readFileSync(join(dir, 'stages.tsv'), 'utf8').trim().split('\n').filter(Boolean).map((l) => {
    const [name, ms, rc, busy] = l.split('\t');
    // wall time in milliseconds, the exit status, and how busy the machine's cores were meanwhile (%)
    return { name, secs: Number(ms) / 1000, ok: rc === '0', busy: busy === undefined ? '' : `${busy} %` };
  })
  : [];

const tests = [];
for (const f of readdirSync(dir)) {
  const suite = f.replace(/\.(jsonl|xml)$/, '');
  if (f.endsWith('.jsonl')) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line);
      // top-level tests only: a file's own entry (nesting 0 without a name of its own) is its total
      if (r.nesting === 0 && r.file) tests.push({ suite, name: `${r.file.split('/').slice(-1)[0]}: ${r.name}`, secs: r.ms / 1000, ok: r.ok });
    }
  } else if (f.endsWith('.xml')) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/<testcase name="([^"]*)"[^>]*?time="([\d.]+)"[^>]*?status="(\w+)"/g)) {
      tests.push({ suite, name: m[1].replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&'), secs: Number(m[2]), ok: m[3] !== 'fail' });
    }
  }
}

// the run's wall time (scripts/test.sh writes its start): less than the stages' sum, which overlap
const started = existsSync(join(dir, 'started')) ? Number(readFileSync(join(dir, 'started'), 'utf8')) / 1e9 : null;
const total = started ? Date.now() / 1000 - started : stages.reduce((a, s) => a + s.secs, 0);
const BESIDE = new Set(['mutants', 'sanitize', 'fuzz']);   // run in the background of node ... bench
console.log('\n== npm test: where the time went');
// cores busy: the machine's CPU use while the stage ran (all cores, whoever used them): near 100 %
// a stage computes and only less work makes it faster; far below, it waits
console.log(`${'stage'.padEnd(15)} ${'wall time'.padStart(12)} ${'cores busy'.padStart(11)}  result`);
for (const s of stages) {
  console.log(`${s.name.padEnd(15)} ${fmt(s.secs).padStart(12)} ${s.busy.padStart(11)}  ${s.ok ? 'passed' : 'FAILED'}${BESIDE.has(s.name) ? '  (beside the suites)' : ''}`);
}
console.log(`${(started ? 'wall' : 'total').padEnd(15)} ${fmt(total).padStart(12)} ${''.padStart(11)}  ${stages.every((s) => s.ok) ? 'passed' : 'FAILED'}`);
console.log('\nslowest tests:');
for (const t of tests.sort((a, b) => b.secs - a.secs).slice(0, 10)) {
  console.log(`${fmt(t.secs).padStart(10)}  ${t.suite.padEnd(9)} ${t.name.length > 110 ? `${t.name.slice(0, 109)}…` : t.name}${t.ok ? '' : '  (FAILED)'}`);
}
const failed = stages.filter((s) => !s.ok).map((s) => s.name);
// the end of each failed stage's output, last: what a reader of a truncated log needs first
for (const name of failed) {
  const file = join(dir, `${name}.out`);
  if (!existsSync(file)) continue;
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  console.log(`\n== why ${name} failed: the last ${Math.min(lines.length, 40)} of its ${lines.length} lines (${file})`);
  console.log(lines.slice(-40).join('\n'));
}
const passed = tests.filter((t) => t.ok).length;
console.log(`\n${passed} passed, ${tests.length - passed} failed${failed.length ? ` (stages failed: ${failed.join(', ')})` : ''}`);
