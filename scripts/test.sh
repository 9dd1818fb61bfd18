#!/usr/bin/env bash
# The test command: install what is missing, build with -Werror, check the
# layer rules, install the oracle, run every test with CTest.
#   scripts/test.sh            regular build in build/
#   scripts/test.sh --sanitize ASan + UBSan build in build-asan/
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

build=build
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOOM_WERROR=ON)
# kill -9 and race loops: 10 runs per operation here; the reported
# campaigns are scripts/reliability/*_campaign.sh (README, "Reliability")
export LOOM_CRASH_RUNS="${LOOM_CRASH_RUNS:-10}"
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  cmake_args=(-DCMAKE_BUILD_TYPE=Debug -DLOOM_SANITIZE=ON -DLOOM_WERROR=ON)
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # Sanitizers check loom's C paths; the fixture sweeps' oracle judgments
  # (DuckDB, unaffected by ASan) already ran in the regular pass, so here
  # they take every 8th table plus the rare-path ones, and the kill -9
  # loops run a few times (CI's whole .ci/run stays well under 45 minutes).
  LOOM_CRASH_RUNS=3
  export LOOM_FIXTURE_SAMPLE="${LOOM_FIXTURE_SAMPLE:-8}"
  # the fault walk takes 3 call numbers per kind
  export LOOM_FAULT_SAMPLE="${LOOM_FAULT_SAMPLE:-3}"
fi

bash scripts/install-deps.sh
bash scripts/install-s3-test-deps.sh
# promtool, Prometheus and headless Chromium judge the observability outputs
bash scripts/install-observe-deps.sh
bash scripts/check-layers.sh
cmake -S . -B "$build" -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
bash scripts/check-layers.sh --symbols "$build"
bash scripts/install-oracle.sh "$here/build"
export LOOM_ORACLE_NODE_PATH="$here/build/oracle-deps/node_modules"
# Azurite and the Azure SDK for the azure_* tests (one install for both passes)
bash scripts/install-azurite.sh "$here/build"
export LOOM_AZURE_NODE_PATH="$here/build/azure-deps/node_modules"
# the GCS server (firebase-tools' Storage emulator) and Google's client for
# the gcs_* tests (one install for both passes)
bash scripts/install-gcs.sh "$here/build"
export LOOM_GCS_DEPS="$here/build/gcs-deps"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
