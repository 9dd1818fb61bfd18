#!/usr/bin/env bash
# Clustering quality figures for bench/RESULTS.md: Hilbert (default), Morton
# and a plain sort by the first column on the generated tables of
# tests/scripts/zorder_quality.sh. Usage: bench/zorder_quality.sh [build dir]
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
LOOM_BIN=$build/loom LOOM_SOURCE_DIR=$here ZORDER_COMPARE=1 \
  NODE_PATH=$build/oracle-deps/node_modules bash "$here/tests/scripts/zorder_quality.sh"
