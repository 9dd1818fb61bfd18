#!/usr/bin/env bash
# Run the independent Delta oracle (../shared/tools/delta-oracle) with the
# node modules that scripts/install-oracle.sh put in the build tree.
#   tests/tools/oracle.sh snapshot TABLE_DIR ...
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$src/build/oracle-deps/node_modules}"
exec node "$src/../shared/tools/delta-oracle/oracle.mjs" "$@"
