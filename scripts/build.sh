#!/usr/bin/env bash
# Build the attention core natively (library, doctest suite, golden generator) and as a
# WebAssembly module (wasm/js/gen/attn_core.{js,wasm}). Usage: scripts/build.sh [native|wasm|all]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc 2>/dev/null || echo 2)
# emcc's JS optimizer needs acorn, which Debian installs under /usr/share/nodejs (TOOLCHAIN.md item 1).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

if [[ $what == native || $what == all ]]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j "$jobs"
fi
if [[ $what == wasm || $what == all ]]; then
  emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DATTN_WASM_OUT_DIR="$PWD/wasm/js/gen" >/dev/null
  cmake --build build/wasm -j "$jobs"
fi
