#!/usr/bin/env bash
# `npm run bench`: every benchmark, after installing and building what is missing.
#   scripts/bench.sh            the figures: native and WASM kernels (bench/run.mjs), the page in
#                               Chromium (bench/page.mjs), 18.8 training for 10 min (zh) and 3 min (en),
#                               then the targets' table with met / NOT met (bench/summary.mjs)
#   scripts/bench.sh --smoke    the same scripts and code paths with a few repeats and seconds of
#                               training, figures not checked, results in build/bench-smoke/: what
#                               `npm test` runs, so that a bench that breaks fails the suite
# Figures depend on the machine's load: run on an idle machine, and read the spread they print.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --smoke ]]; then
  export BENCH_RESULTS=$PWD/build/bench-smoke BENCH_SMOKE=1
  node bench/run.mjs 1
  node bench/page.mjs 3 1
  node bench/summary.mjs
  node bench/profile-page.mjs 18.3 4 3
  node bench/profile-page.mjs embed 1
  node bench/ab-load.mjs dist dist course 1 1
  node bench/train.mjs 0.1 en
  exit 0
fi
bash scripts/bootstrap.sh
bash scripts/build.sh all
node bench/run.mjs
node bench/page.mjs
node bench/train.mjs 10 zh
node bench/train.mjs 3 en
node bench/summary.mjs   # issue 23's table, from this run's results, last
