#!/usr/bin/env bash
# The GCS backend against a GCS JSON API server on loopback (firebase-tools'
# Storage emulator behind shared/'s gcs-front.cjs, tests/tools/gcs/gcs.sh),
# judged by Google's own client (@google-cloud/storage) and the oracle:
#  - gs:// and gcs:// spellings of a table root reach the same table, and
#    inspect equals the oracle's snapshot;
#  - request counts: a log of N commits is one LIST and N(+1) GETs (no
#    metadata request), a small Parquet file one GET (a suffix range);
#  - listing in pages (pageToken) comes back whole and in byte order;
#  - create-only uploads (ifGenerationMatch=0): the second is refused, and
#    of 6 racers on one key exactly one wins, 20 rounds. The 412 comes from
#    the front in shared/, which adds ifGenerationMatch to the emulator;
#  - a large object goes by a resumable upload in 256 KiB chunks, read back
#    byte for byte by the SDK; read_tail names its size;
#  - 150 deletes: the batch endpoint is tried once (the emulator answers
#    501), then one by one; the SDK sees none left;
#  - the log may name files by absolute gs:// or gcs:// URIs: VACUUM protects
#    them, compaction rewrites them (tests/tools/vacuum_absolute_paths_body.sh).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/gcs/gcs.sh"
PROBE="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/store_probe"
gcs_start

# ---- URI spellings -------------------------------------------------------
gcsc upload "$LOOM_FIXTURES_DIR/delta/simple_table" lake/simple
"$LOOM_BIN" inspect "$LOOM_FIXTURES_DIR/delta/simple_table" --json --files > "$TEST_TMP/local.json"
for uri in gs://lake/simple gcs://lake/simple/ GS://lake/simple; do
  if "$LOOM_BIN" inspect "$uri" --json --files > "$TEST_TMP/uri.json" 2> "$TEST_TMP/err"; then
    expect "$uri: the state of the local copy" test "$(jsq "$TEST_TMP/uri.json" 'JSON.stringify([d.version, d.files])')" = \
      "$(jsq "$TEST_TMP/local.json" 'JSON.stringify([d.version, d.files])')"
  else
    fail "inspect $uri: $(cat "$TEST_TMP/err")"
  fi
done
oracle snapshot "$LOOM_FIXTURES_DIR/delta/simple_table" > "$TEST_TMP/oracle.json"
expect "gs:// inspect equals the oracle's live files" test \
  "$(jsq "$TEST_TMP/uri.json" 'JSON.stringify(d.files.map(f => [f.path, f.size]))')" = \
  "$(jsq "$TEST_TMP/oracle.json" 'JSON.stringify(d.files.map(f => [f.path, f.size]))')"

# ---- request counts --------------------------------------------------------
commits=$(ls "$LOOM_FIXTURES_DIR/delta/simple_table/_delta_log/"*.json | wc -l)
LOOM_STORE_STATS="$TEST_TMP/inspect.stats" "$LOOM_BIN" inspect gs://lake/simple > /dev/null
expect "reading a log of $commits commits: one LIST, one GET each, no metadata request" \
  jsq --assert "$TEST_TMP/inspect.stats" "d.store_requests.LIST === 1 && d.store_requests.GET === $commits + 1 && d.store_requests.HEAD === 0"
pq=$(cd "$LOOM_FIXTURES_DIR/delta/simple_table" && ls ./*.parquet | head -1)
pq=${pq#./}
"$LOOM_BIN" parquet meta "$LOOM_FIXTURES_DIR/delta/simple_table/$pq" > "$TEST_TMP/meta.local"
LOOM_STORE_STATS="$TEST_TMP/pq.stats" "$LOOM_BIN" parquet meta "gs://lake/simple/$pq" > "$TEST_TMP/meta.gs"
expect "parquet meta over gs:// equals the local file's" cmp -s "$TEST_TMP/meta.local" "$TEST_TMP/meta.gs"
expect "opening a small Parquet file: one GET, no metadata request" \
  jsq --assert "$TEST_TMP/pq.stats" 'd.store_requests.GET === 1 && d.store_requests.HEAD === 0'

# ---- listing in pages --------------------------------------------------------
mkdir -p "$TEST_TMP/many/sub"
for i in $(seq 1 150); do echo "$i" > "$TEST_TMP/many/f$i"; done
for i in 1 2 3; do echo "$i" > "$TEST_TMP/many/sub/g$i"; done
gcsc upload "$TEST_TMP/many" lake/many
LOOM_LIST_PAGE_SIZE=7 "$PROBE" gs://lake/many list "" stats > "$TEST_TMP/list.out"
gcsc ls lake/many | tr '\t' ' ' > "$TEST_TMP/list.sdk"
expect "a listing in pages of 7 holds what the SDK lists, in byte order" \
  cmp -s <(grep -v '^{' "$TEST_TMP/list.out") "$TEST_TMP/list.sdk"
expect "153 objects in pages of 7: 22 LIST requests" jsq --assert <(tail -1 "$TEST_TMP/list.out") 'd.store_requests.LIST === 22'
expect "byte order (LC_ALL=C sort)" cmp -s <(grep -v '^{' "$TEST_TMP/list.out") <(grep -v '^{' "$TEST_TMP/list.out" | LC_ALL=C sort)

# ---- create-only --------------------------------------------------------------
expect "a create-only upload of a new object succeeds" test "$("$PROBE" gs://lake/c create k one)" = "create k"
expect "the second is refused: exists (412 from the front)" test "$("$PROBE" gs://lake/c create k two)" = "exists k"
expect "the first one's bytes stay" test "$(gcsc cat lake/c/k)" = one
lost=0
for round in $(seq 1 20); do
  pids=()
  for r in 1 2 3 4 5 6; do "$PROBE" gs://lake/race create "v$round" "racer-$r" > "$TEST_TMP/race.$round.$r" 2>&1 & pids+=($!); done
  wait "${pids[@]}"
  wins=$(cat "$TEST_TMP"/race."$round".* | grep -c "^create v$round$" || true)
  refused=$(cat "$TEST_TMP"/race."$round".* | grep -c "^exists v$round$" || true)
  winner=$(grep -l "^create v$round$" "$TEST_TMP"/race."$round".* | head -1)
  if [ "$wins" != 1 ] || [ "$refused" != 5 ] || [ "$(gcsc cat "lake/race/v$round")" != "racer-${winner##*.}" ]; then
    lost=$((lost + 1)); echo "round $round: $wins wins, $refused refused" >&2
  fi
done
expect "6 racers x 20 rounds: one winner each round, its bytes kept" test "$lost" = 0

# ---- a resumable upload ---------------------------------------------------------
head -c 1100000 /dev/urandom > "$TEST_TMP/big.bin"
LOOM_MULTIPART_PART_SIZE=262144 "$PROBE" gs://lake/up write big.bin "$TEST_TMP/big.bin" stats > "$TEST_TMP/up.out"
expect "1.1 MB in 256 KiB chunks: 5 chunk PUTs + the session" jsq --assert <(tail -1 "$TEST_TMP/up.out") \
  'd.store_requests.PUT === 5 && d.store_requests.OTHER === 1'
gcsc cat lake/up/big.bin > "$TEST_TMP/big.back"
expect "the SDK reads back the same bytes" cmp -s "$TEST_TMP/big.bin" "$TEST_TMP/big.back"
LOOM_MULTIPART_PART_SIZE=300000 "$PROBE" gs://lake/up write odd.bin "$TEST_TMP/big.bin" > /dev/null
gcsc cat lake/up/odd.bin > "$TEST_TMP/odd.back"
expect "a part size that is no multiple of 256 KiB is rounded down (GCS refuses such chunks)" cmp -s "$TEST_TMP/big.bin" "$TEST_TMP/odd.back"
"$PROBE" gs://lake/up tail big.bin 1000 get big.bin > "$TEST_TMP/tail.out"
expect "read_tail of a large object names its size" grep -q '^tail big.bin 1000 of 1100000$' "$TEST_TMP/tail.out"
: > "$TEST_TMP/empty"
"$PROBE" gs://lake/up write empty "$TEST_TMP/empty" tail empty 10 > "$TEST_TMP/empty.out"
expect "an empty object: written, its tail is empty" grep -q '^tail empty 0 of 0$' "$TEST_TMP/empty.out"

# ---- deletes ----------------------------------------------------------------------
keys=$(for i in $(seq 1 150); do echo "f$i"; done)
# shellcheck disable=SC2086
"$PROBE" gs://lake/many rm $keys nosuch-key stats > "$TEST_TMP/rm.out"
expect "151 deletes: the batch endpoint once (501), then one DELETE each" \
  jsq --assert <(tail -1 "$TEST_TMP/rm.out") 'd.store_requests.DELETE === 152'
expect "the SDK sees only sub/ left" test "$(gcsc ls lake/many | cut -f1 | tr '\n' ' ')" = "sub/g1 sub/g2 sub/g3 "

# ---- absolute URIs in the log --------------------------------------------
BACKEND_LABEL="the GCS server"
backend_prefixes() { echo "gs://abs/$1 gcs://abs/$1"; }
backend_put() { gcsc upload "$2" "abs/$1" && echo "gs://abs/$1"; }
backend_view() {
  local dir p
  dir=$(mktemp -d "$TEST_TMP/view.XXXX")
  gcsc download "abs/$1" "$dir"
  for p in $(backend_prefixes "$1"); do python3 "$TOOLS/log_paths.py" relocate "$dir" "$p" "$dir" > /dev/null; done
  echo "$dir"
}
backend_has() { gcsc exists "abs/$1/$3"; }
source "$TOOLS/vacuum_absolute_paths_body.sh"
finish
