# tests/tools/lib.sh - helpers for the CLI script tests (sourced by tests/scripts/*.sh).
# Every script test runs with LOOM_BIN, LOOM_SOURCE_DIR, LOOM_FIXTURES_DIR.
set -euo pipefail
: "${LOOM_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${LOOM_BIN:=$LOOM_SOURCE_DIR/build/loom}"
: "${LOOM_FIXTURES_DIR:=$LOOM_SOURCE_DIR/../shared/fixtures}"
export LOOM_SOURCE_DIR
TOOLS="$LOOM_SOURCE_DIR/tests/tools"
# the oracle's node modules (DuckDB), found one way for every test
source "$TOOLS/oracle_env.sh"

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/loom-script-XXXXXX")
# on_exit CMD: run CMD when the script exits, however it exits (servers a
# test started are stopped this way), before TEST_TMP is removed.
EXIT_HOOKS=()
on_exit() { EXIT_HOOKS+=("$1"); }
run_exit_hooks() {
  local h
  for h in "${EXIT_HOOKS[@]+"${EXIT_HOOKS[@]}"}"; do eval "$h" || true; done
  chmod -R u+w "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"
}
trap run_exit_hooks EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

failures=0
checks=0
pass() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*" >&2; }
# expect DESCRIPTION COMMAND...: the command must succeed.
expect() { local what="$1"; shift; if "$@"; then pass; else fail "$what"; fi; }

oracle() { "$TOOLS/oracle.sh" "$@"; }
# fixture_oracle NAME COMMAND [ARGS...]: the oracle's answer for fixture
# table NAME as shipped, computed once per run (tests/tools/fixture_oracle.sh)
fixture_oracle() { bash "$TOOLS/fixture_oracle.sh" "$@"; }
# jsq FILE|- 'EXPR' (tests/tools/jsq.cjs): a test makes hundreds of these
# queries, so one node server per script answers them over loopback
# (jsq.cjs --serve, gone with this shell) instead of a node per query; a
# query falls back to its own node when the server is not there.
JSQ_PORT_FILE="$TEST_TMP/jsq.port"
node "$TOOLS/jsq.cjs" --serve $$ "$JSQ_PORT_FILE" < /dev/null > /dev/null 2>&1 &
JSQ_SERVER_PID=$!
on_exit 'kill "$JSQ_SERVER_PID" 2> /dev/null'
jsq() {
  local port="" fd code="" err="" out="" input="" waited=0 stdin=0 file_at=1
  [ "${1:-}" = --assert ] && file_at=2
  local file="${!file_at:-}"
  if [ "$file" = - ]; then
    stdin=1
  elif [ -e "$file" ] && [ ! -f "$file" ]; then
    # a pipe such as <(...) is this shell's alone: send what it holds
    input=$(cat "$file"; echo .); input=${input%.}
    set -- "${@:1:file_at-1}" - "${@:file_at+1}"
    stdin=2
  fi
  while [ ! -s "$JSQ_PORT_FILE" ] && [ "$waited" -lt 100 ] && kill -0 "$JSQ_SERVER_PID" 2> /dev/null; do
    sleep 0.05; waited=$((waited + 1))
  done
  [ -s "$JSQ_PORT_FILE" ] && read -r port < "$JSQ_PORT_FILE"
  if [ -z "$port" ] || ! { exec {fd}<> "/dev/tcp/127.0.0.1/$port"; } 2> /dev/null; then
    if [ "$stdin" = 2 ]; then printf '%s' "$input" | node "$TOOLS/jsq.cjs" "$@"; else node "$TOOLS/jsq.cjs" "$@"; fi
    return
  fi
  if [ "$stdin" = 1 ]; then input=$(cat; echo .); input=${input%.}; fi
  local LC_ALL=C # ${#input} in bytes
  printf '%s\0' "$#" "$PWD" "$@" "${#input}" >&"$fd" && printf '%s' "$input" >&"$fd" &&
    IFS= read -r -d '' code <&"$fd" && IFS= read -r -d '' err <&"$fd" || true
  IFS= read -r -d '' out <&"$fd" || true
  exec {fd}<&-
  case "$code" in
    '' | *[!0-9]*) # the server went away mid-query: ask node
      if [ "$stdin" != 0 ]; then printf '%s' "$input" | node "$TOOLS/jsq.cjs" "$@"; else node "$TOOLS/jsq.cjs" "$@"; fi
      return ;;
  esac
  [ -z "$err" ] || printf '%s' "$err" >&2
  printf '%s' "$out"
  return "$code"
}

# copy_table NAME: a writable copy of a fixture table; prints its path.
copy_table() {
  local dst="$TEST_TMP/$1.$RANDOM"
  cp -r "$LOOM_FIXTURES_DIR/delta/$1" "$dst"
  chmod -R u+w "$dst"
  echo "$dst"
}

# fixture_tables: the fixture table names a sweep runs over. With
# LOOM_FIXTURE_SAMPLE=N (the sanitizer pass sets it) every Nth table is
# taken, always including the tables that exercise the rarest paths
# (deletion vectors, Parquet/V2 checkpoints, column mapping), so the slow
# oracle judgments stay affordable under ASan while the C paths that
# matter still run.
fixture_tables() {
  local n="${LOOM_FIXTURE_SAMPLE:-1}" i=0 name
  local always=" table-with-dv-small with-short-dv v2-checkpoints-json-with-sidecars v2-parquet-sidecars-struct-stats-only table_with_column_mapping delta-1.2.1-only-struct-stats simple_table "
  for dir in "$LOOM_FIXTURES_DIR"/delta/*/; do
    name=$(basename "$dir")
    if [ "$n" -le 1 ] || [ $((i % n)) -eq 0 ] || [[ "$always" == *" $name "* ]]; then
      echo "$name"
    fi
    i=$((i + 1))
  done
}

# A digest of every file under a dir (path, size, content), to prove a
# table was left byte-for-byte unchanged.
tree_digest() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha1sum) | sha1sum; }

# read_new_files MANIFEST: every file the commits listed in MANIFEST
# ("LABEL<TAB>TABLE<TAB>COMMIT_JSON" lines) added is read by DuckDB, Polars
# and parquet-wasm in one node process (tests/tools/read_new_files.cjs);
# one check, failed when a reader fails on a file or no file was listed.
read_new_files() {
  local np
  if ! np=$(bash "$TOOLS/pqwrite_deps.sh" "${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}"); then
    fail "cannot install the Parquet readers (tests/tools/pqwrite_deps.sh)"; return
  fi
  if NODE_PATH="$np" node "$TOOLS/read_new_files.cjs" "$1"; then pass; else fail "new files: a reader failed on a file (above)"; fi
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}

# fixture_refusal TABLE OP: the word loom's refusal of OP on fixture TABLE
# names (tests/tools/fixture_refusals.tsv), empty when OP must succeed. OP:
# inspect, vacuum-lite, vacuum-full, compact, zorder, checkpoint, cleanup-logs.
fixture_refusal() {
  awk -F'\t' -v t="$1" -v o="$2" '$1 == t && $2 == o { print $3; exit }' "$TOOLS/fixture_refusals.tsv"
}

# now_ms: the wall clock in milliseconds.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# kill_delay MS: a random moment (seconds, for sleep) between 5% and 85% of
# MS, the wall time of the same run left alone, so that kill -9 lands
# mid-run on a fast machine as on a slow one or under a sanitizer (fixed
# windows of 0-2 s once left an ASan run of 0.3 s never killed).
kill_delay() { ms_to_seconds $(( $1 * 5 / 100 + RANDOM % ($1 * 80 / 100 + 1) )); }
# ms_to_seconds MS: MS milliseconds as sleep takes them (1234 -> 1.234).
ms_to_seconds() { printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }

# loom_base_rss: the peak RSS (KiB) of a loom process that does next to
# nothing (inspect of a small fixture): the shared libraries it maps and
# initialises (libcurl's dependency tree alone is about 6 MiB), which no
# memory budget covers. Memory tests bound what a run adds above it.
loom_base_rss() {
  /usr/bin/time -f %M -o "$TEST_TMP/base_rss" "$LOOM_BIN" inspect "$LOOM_FIXTURES_DIR/delta/simple_table" > /dev/null 2>&1
  tail -1 "$TEST_TMP/base_rss"
}
