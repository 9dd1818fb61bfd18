#!/usr/bin/env bash
# Install the independent Parquet readers the writer tests use: DuckDB (the
# oracle's node modules) and nodejs-polars + parquet-wasm (arrow-rs), pinned
# as in shared/bench/package.json. Prints the NODE_PATH to use.
#   tests/tools/pqwrite_deps.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$here/build}"
LOOM_SOURCE_DIR="$here" LOOM_BUILD_DIR="$build" source "$here/tests/tools/oracle_env.sh"
dest="$build/pqwrite-deps"
if [ ! -d "$dest/node_modules/nodejs-polars" ] || [ ! -d "$dest/node_modules/parquet-wasm" ]; then
  mkdir -p "$dest"
  rm -f "$dest/INSTALL_FAILED"
  # A registry failure is recorded (the verifier then skips these two
  # readers with a message); DuckDB above stays mandatory.
  ok=0
  for try in 1 2 3; do   # the registry sometimes resets a connection
    if npm install --no-audit --no-fund --prefix "$dest" nodejs-polars@0.25.2 \
        nodejs-polars-linux-x64-gnu@0.25.2 parquet-wasm@0.8.0 >&2 2>"$dest/npm.log"; then ok=1; break; fi
    [ "$try" = 3 ] || sleep $((try * 5))
  done
  if [ "$ok" = 0 ]; then
    cp "$dest/npm.log" "$dest/INSTALL_FAILED"
    echo "pqwrite_deps: npm install of nodejs-polars/parquet-wasm failed, see $dest/INSTALL_FAILED" >&2
  fi
fi
echo "$LOOM_ORACLE_NODE_PATH:$dest/node_modules"
