# tests/tools/lib.sh - helpers for the CLI script tests (sourced by tests/scripts/*.sh).
# Every script test runs with LOOM_BIN, LOOM_SOURCE_DIR, LOOM_FIXTURES_DIR.
set -euo pipefail
: "${LOOM_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${LOOM_BIN:=$LOOM_SOURCE_DIR/build/loom}"
: "${LOOM_FIXTURES_DIR:=$LOOM_SOURCE_DIR/../shared/fixtures}"
export LOOM_SOURCE_DIR
TOOLS="$LOOM_SOURCE_DIR/tests/tools"

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/loom-script-XXXXXX")
trap 'chmod -R u+w "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT

failures=0
checks=0
pass() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*" >&2; }
# expect DESCRIPTION COMMAND...: the command must succeed.
expect() { local what="$1"; shift; if "$@"; then pass; else fail "$what"; fi; }

oracle() { "$TOOLS/oracle.sh" "$@"; }
jsq() { node "$TOOLS/jsq.cjs" "$@"; }

# copy_table NAME: a writable copy of a fixture table; prints its path.
copy_table() {
  local dst="$TEST_TMP/$1.$RANDOM"
  cp -r "$LOOM_FIXTURES_DIR/delta/$1" "$dst"
  chmod -R u+w "$dst"
  echo "$dst"
}

# A digest of every file under a dir (path, size, content), to prove a
# table was left byte-for-byte unchanged.
tree_digest() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha1sum) | sha1sum; }

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
