#!/usr/bin/env bash
# Every suite: the native doctest suite (through ctest), the mutation check of that suite, the
# same suite under ASan + UBSan, a short libFuzzer run over the C++ API, the WASM module in Node
# (node --test, including the native-vs-WASM golden cases and the lesson files), the built page
# in headless Chromium (node --test tests/web) and a smoke suite of it in headless Firefox ESR
# (node --test tests/firefox). Fails if any suite fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
bash scripts/build.sh all || { echo "test: build failed" >&2; exit 1; }

status=0
echo "== native: doctest through ctest"
ctest --test-dir build/native --output-on-failure || status=1
echo "== mutation check: every slip in scripts/mutants.txt must fail the native suite"
bash scripts/mutants.sh || status=1
echo "== native under AddressSanitizer + UndefinedBehaviorSanitizer: doctest through ctest"
{ cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DATTN_SANITIZE=ON >/dev/null &&
  cmake --build build/asan -j "$(nproc)" --target attn_tests >/dev/null &&
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build/asan --output-on-failure; } || status=1
echo "== fuzzing the C++ API briefly (scripts/fuzz.sh 60 for the long run)"
bash scripts/fuzz.sh 3 || status=1
echo "== golden cases from the native build"
build/native/attn_golden build/golden.json || status=1
echo "== WASM in Node and the page in Chromium: node --test"
node --test tests/node/ tests/web/ || status=1
echo "== the page in Firefox ESR (smoke suite): node --test tests/firefox/"
node --test tests/firefox/ || status=1
exit $status
