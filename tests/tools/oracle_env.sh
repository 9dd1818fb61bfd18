# tests/tools/oracle_env.sh - the one place that finds the oracle's node
# modules (DuckDB), sourced by every script test (through lib.sh, or
# directly) and by tests/tools/oracle.sh, so `ctest` works the same in any
# build directory. Sets and exports LOOM_ORACLE_NODE_PATH and puts it first
# in NODE_PATH. Order:
#   1. LOOM_ORACLE_NODE_PATH when the caller set it (scripts/test.sh does);
#   2. $LOOM_BUILD_DIR/oracle-deps (CTest passes the build dir);
#   3. the source tree's build/oracle-deps (where scripts/test.sh installs);
#   4. else install it into $LOOM_BUILD_DIR (or build/) with
#      scripts/install-oracle.sh, one test at a time (flock).
loom_oracle_locate() {
  local src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
  local build="${LOOM_BUILD_DIR:-$src/build}" d
  if [ -n "${LOOM_ORACLE_NODE_PATH:-}" ] && [ -d "$LOOM_ORACLE_NODE_PATH/@duckdb/node-api" ]; then
    echo "$LOOM_ORACLE_NODE_PATH"; return 0
  fi
  for d in "$build/oracle-deps/node_modules" "$src/build/oracle-deps/node_modules"; do
    if [ -d "$d/@duckdb/node-api" ]; then echo "$d"; return 0; fi
  done
  mkdir -p "$build"
  (
    flock 9
    bash "$src/scripts/install-oracle.sh" "$build" >&2
  ) 9> "$build/.oracle-install.lock"
  echo "$build/oracle-deps/node_modules"
}
LOOM_ORACLE_NODE_PATH="$(loom_oracle_locate)"
export LOOM_ORACLE_NODE_PATH
case ":${NODE_PATH:-}:" in
  *":$LOOM_ORACLE_NODE_PATH:"*) ;;
  *) NODE_PATH="$LOOM_ORACLE_NODE_PATH${NODE_PATH:+:$NODE_PATH}" ;;
esac
export NODE_PATH
