#!/usr/bin/env bash
# Build the attention core natively (library, doctest suite, golden generator), as a
# WebAssembly module (wasm/js/gen/attn_core.{js,wasm}), and the static site (dist/, with the
# single-file build dist/attention-lab.html, the SCORM packages dist/attention-lab-scorm{12,2004}.zip
# and the web component dist/element/), and the TypeScript declarations (scripts/gen-types.mjs).
# Usage: scripts/build.sh [native|wasm|web|all]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc's JS optimizer needs acorn, which Debian installs under /usr/share/nodejs (docs/toolchain.md, item 1).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
# emcc's compiles through ccache as the native ones (CMakeLists.txt): paths hashed from the root.
if command -v ccache >/dev/null; then
  export EM_COMPILER_WRAPPER=ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true CCACHE_DEPEND=true
fi

if [[ $what == native || $what == all ]]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
fi
if [[ $what == wasm || $what == all ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DATTN_WASM_OUT_DIR="$PWD/wasm/js/gen" >/dev/null
  cmake --build build/wasm -j "$jobs"
fi
if [[ $what == web || $what == all ]]; then
  [[ -f wasm/js/gen/attn_core.wasm ]] || { echo "build: build the WASM module first (scripts/build.sh wasm)" >&2; exit 1; }
  npx --no-install vite build --logLevel warn
  npx --no-install vite build --mode single --logLevel warn
  cp build/single/index.html dist/attention-lab.html
  node scripts/csp.mjs dist/index.html dist/attention-lab.html
  echo "build: dist/index.html and dist/attention-lab.html"
  # The <attention-lab> web component: dist/element/attention-lab.js, its .wasm and fonts in dist/element/assets/.
  npx --no-install vite build --mode element --logLevel warn
  echo "build: dist/element/attention-lab.js"
  # The package's TypeScript declarations, from the core's table and the list of sections
  node scripts/gen-types.mjs

  # SCORM packages for learning platforms: the single file and a manifest (scripts/scorm.mjs)
  node scripts/scorm.mjs
fi
