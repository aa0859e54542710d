#!/usr/bin/env bash
# Fuzz the core's public C++ API with libFuzzer (+ AddressSanitizer, UndefinedBehaviorSanitizer).
#   scripts/fuzz.sh [seconds per target = 60] [--keep]
#   scripts/fuzz.sh --build-only    only configure and build build/sanitize (scripts/test.sh)
# Starts from the corpus in tests/fuzz/corpus/<target>; with --keep, the inputs that reach new
# code are merged into it afterwards (libFuzzer -merge=1 keeps it small). Without --keep the
# corpus is only read.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
keep=${2:-}
cxx=$(command -v clang++-14 || command -v clang++ || true)
[[ -n $cxx ]] || { echo "fuzz: clang++ is needed (Debian: clang, libclang-rt-14-dev)" >&2; exit 1; }
# build/sanitize: the core once, with ASan + UBSan and libFuzzer's coverage, for the fuzz targets and
# the sanitized doctest suite alike (scripts/test.sh builds it first; then this only checks it is current)
out=build/sanitize
cmake -S . -B $out -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" -DATTN_FUZZ=ON >/dev/null
targets=(softmax sdpa mha positions options gpt)
cmake --build $out -j "$(nproc)" --target attn_tests "${targets[@]/#/fuzz_}" >/dev/null
[[ $seconds == --build-only ]] && exit 0
status=0
for target in "${targets[@]}"; do
  seeds=tests/fuzz/corpus/$target
  mkdir -p "$seeds"
  work=$(mktemp -d)
  log=$out/fuzz-$target.log
  if $out/fuzz_$target -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=4096 \
       -artifact_prefix=$out/crash-$target- "$work" "$seeds" >"$log" 2>&1; then
    echo "fuzz $target: clean for ${seconds}s, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || grep -oE '#[0-9]+' "$log" | tail -1) runs"
  else
    echo "fuzz $target: FAILED (see $log and $out/crash-$target-*)"; tail -30 "$log"; status=1
  fi
  if [[ $keep == --keep && $status == 0 ]]; then
    $out/fuzz_$target -merge=1 -max_len=4096 "$seeds" "$work" >>"$log" 2>&1
    echo "fuzz $target: corpus now $(ls "$seeds" | wc -l) inputs"
  fi
  rm -rf "$work"
done
exit $status
