#!/usr/bin/env bash
# `npm test`: every suite, each a stage timed on its own; at the end a table of the stages (wall
# time, result) and of the slowest tests. Fails if any stage fails (the later ones still run).
#   bootstrap, build           scripts/bootstrap.sh build, scripts/build.sh all (native, WASM, the site);
#                              meanwhile `scripts/bootstrap.sh rest` installs the browsers and PyTorch
#                              in the background (its log: build/test-report/bootstrap-rest.log)
#   bootstrap-rest             waits for that install, before the first stage that needs it
#   native                     the doctest suite through ctest, each case a CTest test
#   consumer                   tests/cmake-consumer: a CMake project using the installed core (find_package(attn))
#   ts-consumer                tests/ts-consumer: a TypeScript project installing the `npm pack` tarball,
#                              compiled by tsc (strict) against the generated declarations, then run
#   mutants                    scripts/mutants.mjs: every planted slip must fail the native suite
#   sanitize                   the suite under ASan + UBSan (clang), from the build the fuzz targets share
#   fuzz                       scripts/fuzz.sh 3: each libFuzzer target for 3 s from the kept corpus
#                              (these three run in the background, beside node ... bench)
#   node                       the WASM module and the page's modules in Node (node --test tests/node)
#   chromium                   the built page in headless Chromium (node --test tests/web)
#   firefox                    a smoke suite of the page in Firefox ESR (node --test tests/firefox)
#   bench                      scripts/bench.sh --smoke: every benchmark script, briefly
# TEST_CONCURRENCY=n sets how many test files node --test runs at once (default 2: a browser file
# waits on its page much of the time, and two at a time took 25 to 30 % less wall time than one
# at a time on a 2-core machine; docs/testing.md).
set -uo pipefail
cd "$(dirname "$0")/.."
out=build/test-report
rm -rf "$out" && mkdir -p "$out"
date +%s%N >"$out/started"   # the closing table's wall time (stages overlap)
jobs=$(nproc 2>/dev/null || echo 2)
concurrency=${TEST_CONCURRENCY:-2}
status=0

# The machine's CPU counters (/proc/stat's first line, in clock ticks): "busy total". A stage's
# share of busy ticks beside its wall time says whether the machine waited or computed while it
# ran (100 %: every core busy; a test file's browser does not count in its own process's CPU time,
# so only the machine's counters show it). Stages that overlap share the figure.
cpu_ticks() {
  local _ user nice system idle iowait irq softirq steal
  read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
  echo "$((user + nice + system + irq + softirq + steal)) $((user + nice + system + idle + iowait + irq + softirq + steal))"
}

# stage NAME COMMAND...: runs the command, its output shown as it goes and kept in NAME.out (the
# closing report repeats the end of a failed stage's: a long log is cut in the middle), and records
# its wall time, how busy the machine's cores were meanwhile, and its result
stage() {
  local name=$1; shift
  echo "== $name: $*"
  local t0 c0 c1 rc
  t0=$(date +%s%N)
  c0=($(cpu_ticks))
  # (a process substitution, not a pipe: the command runs in this shell, so its `wait` sees our children)
  "$@" > >(tee "$out/$name.out") 2>&1
  rc=$?
  c1=($(cpu_ticks))
  printf '%s\t%s\t%s\t%s\n' "$name" "$(( ($(date +%s%N) - t0) / 1000000 ))" "$rc" \
    "$(( (c1[1] > c0[1]) ? 100 * (c1[0] - c0[0]) / (c1[1] - c0[1]) : 0 ))" >>"$out/stages.tsv"
  ((rc == 0)) || status=1
  return $rc
}
# node --test with the spec reporter on the console and one JSON line per test for the table
node_suite() {
  local name=$1; shift
  # a wait for something that never comes fails its file after 20 min instead of hanging the run
  # (node 20 applies the timeout to each test file as well as to each test: the longest file, a11y,
  # takes 2.5 min on an idle 2-core machine and over 3 under load)
  node --test --test-timeout=1200000 --test-concurrency="$concurrency" --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=./tests/timing-reporter.mjs --test-reporter-destination="$out/$name.jsonl" "$@"
}
# ctest NAME DIR ARGS...: the summary on the console, the whole log (with each failure's output) when it fails
run_ctest() {
  local name=$1 dir=$2; shift 2
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure --output-junit "$PWD/$out/$name.xml" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  if ((rc == 0)); then tail -n 3 "$out/$name.log"; else cat "$out/$name.log"; fi
  return $rc
}
native() {
  # the seeded cases computed natively, for the WASM suite: written afresh whatever ctest says, so
  # that the node stage never compares with an earlier run's
  rm -f build/golden.json
  build/native/attn_golden build/golden.json
  local golden=$?
  run_ctest native build/native && ((golden == 0))
}
# a separate CMake project that takes the installed core with find_package(attn) (tests/cmake-consumer)
# (built and run), and the same project taking the core by add_subdirectory (configured: no tests,
# no install rules of ours); the log is shown when it fails
consumer() {
  rm -rf build/attn-prefix build/consumer build/consumer-sub
  local log=$out/consumer.log
  { cmake --install build/native --prefix "$PWD/build/attn-prefix" &&
    cmake -S tests/cmake-consumer -B build/consumer -DCMAKE_PREFIX_PATH="$PWD/build/attn-prefix" -DCMAKE_BUILD_TYPE=Release &&
    cmake --build build/consumer &&
    cmake -S tests/cmake-consumer -B build/consumer-sub -DATTN_SOURCE_DIR="$PWD" &&
    ! grep -q 'attn_tests' build/consumer-sub/Makefile &&
    ! grep -q 'attnTargets' build/consumer-sub/attn/cmake_install.cmake; } >"$log" 2>&1 || { cat "$log"; return 1; }
  build/consumer/consumer
}
# the package as a user installs it: `npm pack`, installed (offline: it has no dependencies) into a
# copy of tests/ts-consumer, compiled with tsc (strict; its expect-error lines must fail) and run
ts_consumer() {
  local dir=build/ts-consumer log=$out/ts-consumer.log
  rm -rf "$dir" && mkdir -p "$dir"
  { npm pack --silent --pack-destination "$dir" &&
    cp tests/ts-consumer/package.json tests/ts-consumer/tsconfig.json tests/ts-consumer/*.ts "$dir/" &&
    (cd "$dir" && npm install --offline --no-audit --no-fund --no-package-lock ./attention-lab-*.tgz) &&
    node_modules/.bin/tsc -p "$dir" &&
    node "$dir/out/main.js"; } >"$log" 2>&1 || { cat "$log"; return 1; }
  tail -n 1 "$log"
}
sanitized() {
  bash scripts/fuzz.sh --build-only &&
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 run_ctest sanitize build/sanitize -E '^training: '
}

# the install of the later stages' packages, started once the build's own are in (apt takes one
# install at a time); its wait is a stage of its own, so the table shows what it still cost
bootstrap_rest() {
  wait "$rest_pid"
  local rc=$?
  cat "$out/bootstrap-rest.log"
  return $rc
}

# mutants, sanitize and fuzz compile and run C++ only: they run beside the suites in Node and the
# browsers, which leave a core idle much of the time (waiting for frames, the worker, the page's
# timers), and their output is shown once they are done
native_checks() {
  stage mutants node scripts/mutants.mjs
  stage sanitize sanitized
  stage fuzz bash scripts/fuzz.sh 3
}

if stage bootstrap bash scripts/bootstrap.sh build; then
  bash scripts/bootstrap.sh rest >"$out/bootstrap-rest.log" 2>&1 &
  rest_pid=$!
fi
if ((status == 0)) && stage build bash scripts/build.sh all; then
  stage native native
  stage consumer consumer
  stage ts-consumer ts_consumer
  native_checks >"$out/native-checks.log" 2>&1 &
  checks_pid=$!
  if stage bootstrap-rest bootstrap_rest; then
    stage node node_suite node tests/node/
    stage chromium node_suite chromium tests/web/
    stage firefox node_suite firefox tests/firefox/
    stage bench bash scripts/bench.sh --smoke
  fi
  # a background stage killed before it wrote its row fails the run too
  wait "$checks_pid" || status=1
  for name in mutants sanitize fuzz; do
    grep -q "^$name"$'\t' "$out/stages.tsv" || { echo "test: the $name stage did not finish" >&2; status=1; }
  done
  echo "== mutants, sanitize, fuzz (they ran beside the stages above)"
  cat "$out/native-checks.log"
else
  echo "test: the set-up failed; nothing was tested" >&2
  [[ -n ${rest_pid:-} ]] && wait "$rest_pid"
fi
# a stage that failed in the background sets no variable here: read every result from the table
awk -F'\t' '$3 != 0 { bad = 1 } END { exit bad }' "$out/stages.tsv" || status=1
node scripts/test-report.mjs "$out"
exit $status
