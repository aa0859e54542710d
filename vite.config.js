// The lab's static site. `vite build` writes dist/ (relative URLs: servable from any path);
// `vite build --mode single` writes one self-contained HTML file (WASM, CSS, fonts inlined),
// which scripts/build-web.sh copies to dist/attention-lab.html.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import lessonsPlugin, { labSections, katexWoff2Only } from './web/lessons-plugin.js';

// The lessons' chunks (the first group a module matches names its chunk, and takes the modules it
// imports): a notebook's Markdown, each language's in one chunk; with `combined`, every lesson of a
// language (lessons-plugin.js's virtual:lab-lessons/<lang> and the ?all modules it imports) in one
// chunk; each section's lesson in a chunk of its own.
const lessonChunks = ({ combined }) => [
  { name: 'notebook-text-zh', test: /[\\/]lessons[\\/]zh[\\/][^\\/]*\.md\?notebook$/ },
  { name: 'notebook-text-en', test: /[\\/]lessons[\\/]en[\\/][^\\/]*\.md\?notebook$/ },
  ...(combined ? [{ name: (id) => { const m = /virtual:lab-lessons\/(\w+)$/.exec(id); return m && `lessons-${m[1]}`; } }] : []),
  { name: (id) => { const m = /[\\/]lessons[\\/](\w+)[\\/]([^\\/]*)\.md$/.exec(id); return m && `lesson-${m[2]}-${m[1]}`; } },
];

export default defineConfig(({ mode }) => {
  if (mode === 'element') return elementBuild();
  const single = mode === 'single';
  return {
    root: 'web',
    base: './',
    publicDir: false,
    plugins: [lessonsPlugin(), labSections({ combined: !single }), katexWoff2Only(), compileHints(), ...(single ? [viteSingleFile({ removeViteModuleLoader: true })] : [])],
    build: {
      outDir: single ? '../build/single' : '../dist',
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: single ? Number.MAX_SAFE_INTEGER : 4096,
      chunkSizeWarningLimit: 2000,
      // each section's lesson in each language a chunk of its own (what an embed fetches), and every
      // lesson of a language in one chunk (what the whole page fetches, lessons-plugin.js); their
      // Markdown for the notebooks (?notebook) a chunk per language, fetched only for a notebook;
      // each section's controller is a chunk of its own (virtual:lab-sections imports it on
      // demand, the widgets it shares with others go to shared chunks), so an embedded section
      // fetches only its own code (docs/performance.md)
      ...(single ? {} : { rolldownOptions: { output: { codeSplitting: { groups: lessonChunks({ combined: true }) } } } }),
    },
    worker: { format: 'iife' },   // classic workers: module workers from blob: URLs fail on file:// pages
    server: { fs: { allow: ['..'] } },
  };
});

// `vite build --mode element`: the <attention-lab> web component (web/src/element.js) as an ES
// module, dist/element/attention-lab.js, with its chunks and assets as files beside it
// (dist/element/assets/: each section's code, the lessons, the .wasm and KaTeX's fonts, found from
// the module's own URL). Not a library build: that
// would inline every asset into the module.
function elementBuild() {
  return {
    root: 'web',
    base: './',
    publicDir: false,
    plugins: [lessonsPlugin(), labSections({ combined: false }), katexWoff2Only(), compileHints()],
    build: {
      outDir: '../dist/element',
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      modulePreload: false,
      chunkSizeWarningLimit: 2000,
      rolldownOptions: {
        input: 'web/src/element.js',
        preserveEntrySignatures: 'exports-only',
        // the module, and beside it in assets/ each section's controller and the lessons of each
        // language as chunks it imports on demand (an element fetches its own sections' only)
        output: { entryFileNames: 'attention-lab.js', chunkFileNames: 'assets/[name]-[hash].js', assetFileNames: 'assets/[name]-[hash][extname]',
          codeSplitting: { groups: lessonChunks({ combined: false }) } },
      },
    },
    worker: { format: 'iife' },
  };
}

// Every chunk of code starts with V8's compile hint `//# allFunctionsCalledOnLoad` (Chrome 136 and
// later; other engines ignore the comment): a chunk's functions are compiled as it streams in, on
// a background thread, instead of each on the main thread at its first call. Most of a chunk's
// code runs soon after it loads (the page's first paint, a section's build); with the CPU slowed
// 4x this took the main thread's compiling at an embed's load from about 80 ms to 15.
// The lessons and the training texts are data (one object of strings each): no hint.
function compileHints() {
  const DATA = /^(lessons?-|notebook-text-|speeches|poems)/;
  return {
    name: 'attention-lab-compile-hints',
    // once the files are written: minification would take the comment out, and Vite puts its
    // list of preloads at the top of the entry after the other plugins' generateBundle
    writeBundle(options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || DATA.test(chunk.name)) continue;
        const file = path.join(options.dir, chunk.fileName);
        writeFileSync(file, `//# allFunctionsCalledOnLoad\n${readFileSync(file, 'utf8')}`);
      }
    },
  };
}
