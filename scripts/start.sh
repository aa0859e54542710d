#!/usr/bin/env bash
# Install what is missing, build the core, and serve the lab; prints its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh wasm
exec node scripts/serve.mjs . "$@"
