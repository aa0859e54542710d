#!/usr/bin/env bash
# Install what is missing, build the core and the site, and serve the lab (dist/); prints its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build.sh wasm
bash scripts/build.sh web
exec node scripts/serve.mjs dist "$@"
