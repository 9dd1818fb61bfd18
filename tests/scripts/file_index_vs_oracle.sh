#!/usr/bin/env bash
# Every Delta fixture table at its latest version: the files and tombstones
# the compact file index gives back (tests/helpers/file_index_dump: paths in
# order, partition values, deletion vectors, stats on demand, sizes, times)
# against the independent oracle's `snapshot`.
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
build="${LOOM_BUILD_DIR:-$src/build}"
fixtures="${LOOM_FIXTURES_DIR:-$src/../shared/fixtures}"
export LOOM_SOURCE_DIR="$src" LOOM_BUILD_DIR="$build"
source "$src/tests/tools/oracle_env.sh"
exec python3 "$src/tests/scripts/file_index_compare.py" "$build/tests/file_index_dump" \
  "$src/tests/tools/oracle.sh" "$fixtures/delta" "$fixtures/MANIFEST.tsv"
