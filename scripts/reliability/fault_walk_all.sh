#!/usr/bin/env bash
# Every store call of every scenario with every fault mode (the CI test
# tests/scripts/fault_walk.sh walks a sample). Needs a build (build/loom)
# and the oracle (scripts/test.sh installs both).
#   scripts/reliability/fault_walk_all.sh [--scenarios vacuum,compact]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export LOOM_SOURCE_DIR="$here"
export LOOM_BIN="${LOOM_BIN:-$here/build/loom}"
source "$here/tests/tools/oracle_env.sh"
exec node "$here/tests/tools/fault_walk.mjs" --modes-per-kind all "$@"
