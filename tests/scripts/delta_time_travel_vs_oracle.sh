#!/usr/bin/env bash
# Time travel: every earlier version of every Delta fixture table: loom's
# snapshot (`loom inspect --json --files`) against the independent oracle.
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
build="${LOOM_BUILD_DIR:-$src/build}"
bin="${LOOM_BIN:-$build/loom}"
fixtures="${LOOM_FIXTURES_DIR:-$src/../shared/fixtures}"
export LOOM_SOURCE_DIR="$src" LOOM_BUILD_DIR="$build"
source "$src/tests/tools/oracle_env.sh"
exec python3 "$src/tests/scripts/delta_snapshot_compare.py" history "$bin" \
  "$src/tests/tools/oracle.sh" "$fixtures/delta" "$fixtures/MANIFEST.tsv"
