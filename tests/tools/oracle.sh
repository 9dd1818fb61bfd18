#!/usr/bin/env bash
# Run the independent Delta oracle (../shared/tools/delta-oracle) with the
# node modules tests/tools/oracle_env.sh finds (or installs).
#   tests/tools/oracle.sh snapshot TABLE_DIR ...
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
source "$src/tests/tools/oracle_env.sh"
exec node "$src/../shared/tools/delta-oracle/oracle.mjs" "$@"
