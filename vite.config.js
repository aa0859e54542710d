// The lab's static site. `vite build` writes dist/ (relative URLs: servable from any path);
// `vite build --mode single` writes one self-contained HTML file (WASM, CSS, fonts inlined),
// which scripts/build-web.sh copies to dist/attention-lab.html.
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import lessonsPlugin, { labSections, katexWoff2Only } from './web/lessons-plugin.js';

export default defineConfig(({ mode }) => {
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
    },
    worker: { format: 'iife' },   // classic workers: module workers from blob: URLs fail on file:// pages
    server: { fs: { allow: ['..'] } },
  };
});
