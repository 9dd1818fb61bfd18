#!/usr/bin/env bash
# Time travel: every earlier version of every Delta fixture table: loom's
# snapshot (`loom inspect --json --files`) against the independent oracle.
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
build="${LOOM_BUILD_DIR:-$src/build}"
bin="${LOOM_BIN:-$build/loom}"
fixtures="${LOOM_FIXTURES_DIR:-$src/../shared/fixtures}"
if [ -z "${LOOM_ORACLE_NODE_PATH:-}" ]; then
  if [ -d "$build/oracle-deps/node_modules/@duckdb" ]; then
    export LOOM_ORACLE_NODE_PATH="$build/oracle-deps/node_modules"
  elif [ -d "$src/build/oracle-deps/node_modules/@duckdb" ]; then
    export LOOM_ORACLE_NODE_PATH="$src/build/oracle-deps/node_modules"
  else
    bash "$src/scripts/install-oracle.sh" "$build" >&2
    export LOOM_ORACLE_NODE_PATH="$build/oracle-deps/node_modules"
  fi
fi
export LOOM_SOURCE_DIR="$src"
exec python3 "$src/tests/scripts/delta_snapshot_compare.py" history "$bin" \
  "$src/tests/tools/oracle.sh" "$fixtures/delta" "$fixtures/MANIFEST.tsv"
