#!/usr/bin/env bash
# The test command: install what is missing, build with -Werror, check the
# layer rules, install the oracle, run every test with CTest.
#   scripts/test.sh            regular build in build/
#   scripts/test.sh --sanitize ASan + UBSan build in build-asan/
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

build=build
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  cmake_args=(-DCMAKE_BUILD_TYPE=Debug -DLOOM_SANITIZE=ON)
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # the crash loop runs 100 times in the regular pass; fewer suffice here
  export LOOM_CRASH_RUNS="${LOOM_CRASH_RUNS:-10}"
fi

bash scripts/install-deps.sh
bash scripts/check-layers.sh
cmake -S . -B "$build" -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j "$(nproc)"
bash scripts/install-oracle.sh "$here/build"
export LOOM_ORACLE_NODE_PATH="$here/build/oracle-deps/node_modules"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
