// The lab's static site. `vite build` writes dist/ (relative URLs: servable from any path);
// `vite build --mode single` writes one self-contained HTML file (WASM, CSS, fonts inlined),
// which scripts/build-web.sh copies to dist/attention-lab.html.
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import lessonsPlugin, { labSections, katexWoff2Only } from './web/lessons-plugin.js';

export default defineConfig(({ mode }) => {
  if (mode === 'element') return elementBuild();
  const single = mode === 'single';
  return {
    root: 'web',
    base: './',
    publicDir: false,
    plugins: [lessonsPlugin(), labSections(), katexWoff2Only(), ...(single ? [viteSingleFile({ removeViteModuleLoader: true })] : [])],
    build: {
      outDir: single ? '../build/single' : '../dist',
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: single ? Number.MAX_SAFE_INTEGER : 4096,
      chunkSizeWarningLimit: 2000,
      // the lessons of each language a chunk of their own (virtual:lab-sections imports them on
      // demand), so a page fetches one language's; their Markdown for the notebooks (?notebook)
      // a chunk per language, fetched only for a notebook; each section's controller is a chunk of
      // its own (virtual:lab-sections imports it on demand, the widgets it shares with others go
      // to shared chunks), so an embedded section fetches only its own code (docs/performance.md)
      ...(single ? {} : { rolldownOptions: { output: { codeSplitting: { groups: [
        { name: 'notebook-text-zh', test: /[\\/]lessons[\\/]zh[\\/][^\\/]*\.md\?notebook$/ },
        { name: 'notebook-text-en', test: /[\\/]lessons[\\/]en[\\/][^\\/]*\.md\?notebook$/ },
        { name: 'lessons-zh', test: /[\\/]lessons[\\/]zh[\\/]/ },
        { name: 'lessons-en', test: /[\\/]lessons[\\/]en[\\/]/ },
      ] } } } }),
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
    plugins: [lessonsPlugin(), labSections(), katexWoff2Only()],
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
          codeSplitting: { groups: [
            { name: 'notebook-text-zh', test: /[\\/]lessons[\\/]zh[\\/][^\\/]*\.md\?notebook$/ },
            { name: 'notebook-text-en', test: /[\\/]lessons[\\/]en[\\/][^\\/]*\.md\?notebook$/ },
            { name: 'lessons-zh', test: /[\\/]lessons[\\/]zh[\\/]/ },
            { name: 'lessons-en', test: /[\\/]lessons[\\/]en[\\/]/ },
          ] } },
      },
    },
    worker: { format: 'iife' },
  };
}
