#!/usr/bin/env bash
# Install what the lab needs and is missing; idempotent. Debian packages with apt-get (as root;
# otherwise print the exact command and stop), npm packages from package-lock.json.
#   scripts/bootstrap.sh          everything (npm start, npm run bench)
#   scripts/bootstrap.sh build    what the builds need (compilers, clang's sanitizers and libFuzzer, xtensor,
#                                 doctest, Emscripten) and the npm packages
#   scripts/bootstrap.sh rest     what only the test suites in Node and the browsers need (the browsers,
#                                 PyTorch, Jupyter's nbformat, nbclient and ipykernel): npm test installs
#                                 these in the background while it builds
set -euo pipefail
cd "$(dirname "$0")/.."
group=${1:-all}

# package -> a file that proves it is installed, by group
declare -A build=(
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [make]=/usr/bin/make
  [ccache]=/usr/bin/ccache   # a compiler cache: a second clone's builds (and the mutants) reuse the first's
  [emscripten]=/usr/bin/em++
  [xtensor-dev]=/usr/include/xtensor/xarray.hpp
  [doctest-dev]=/usr/include/doctest/doctest.h
  [clang-14]=/usr/bin/clang++-14   # the sanitized build and the fuzz targets (emscripten brings it too)
  [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
)
declare -A rest=(
  [chromium]=/usr/bin/chromium
  [firefox-esr]=/usr/bin/firefox-esr
  [python3-torch]=/usr/lib/python3/dist-packages/torch/__init__.py   # the tests' PyTorch reference (/usr/bin/python3)
  [python3-nbformat]=/usr/lib/python3/dist-packages/nbformat/validator.py   # the notebooks' schema check (tests/node/notebook_runner.py)
  [python3-nbclient]=/usr/lib/python3/dist-packages/nbclient/client.py      # runs the notebooks
  [python3-ipykernel]=/usr/lib/python3/dist-packages/ipykernel_launcher.py  # their python3 kernel
)
missing=()
if [[ $group == all || $group == build ]]; then
  for pkg in "${!build[@]}"; do [[ -e ${build[$pkg]} ]] || missing+=("$pkg"); done
fi
if [[ $group == all || $group == rest ]]; then
  for pkg in "${!rest[@]}"; do [[ -e ${rest[$pkg]} ]] || missing+=("$pkg"); done
fi
if [[ $group != all && $group != build && $group != rest ]]; then
  echo "bootstrap: unknown group '$group' (all, build or rest)" >&2
  exit 2
fi
if ((${#missing[@]})); then
  IFS=$'\n' missing=($(sort <<<"${missing[*]}")); unset IFS
  cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "bootstrap: missing Debian packages: ${missing[*]}" >&2
    echo "bootstrap: run as root:  sudo sh -c '$cmd'" >&2
    exit 1
  fi
  echo "bootstrap: installing ${missing[*]}"
  sh -c "$cmd" >/dev/null
fi

# npm packages, exactly as locked, when node_modules is missing or older than the lock.
if [[ $group != rest && -f package-lock.json ]] && grep -q '"node_modules/' package-lock.json; then
  if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
    echo "bootstrap: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
