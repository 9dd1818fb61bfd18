#!/usr/bin/env bash
# Tables and Parquet files are reached through the store seam whatever the
# spelling: a path, file:/abs, file:///abs (and an unknown scheme is a
# clear error naming it and the supported ones). LOOM_STORE_STATS reports
# the requests a command made: opening a Parquet file whose footer fits
# the first read is one GET and no HEAD; reading a table's log is one LIST
# and one GET per commit (each read whole in one request) plus one for the
# _last_checkpoint hint.
source "$(dirname "$0")/../tools/lib.sh"

pq="$LOOM_FIXTURES_DIR/parquet/data/alltypes_tiny_pages.parquet"
"$LOOM_BIN" parquet meta "$pq" > "$TEST_TMP/path.json"
for uri in "file://$pq" "file:$pq" "FILE://localhost$pq"; do
  expect "parquet meta via $uri" "$LOOM_BIN" parquet meta "$uri" > "$TEST_TMP/uri.json"
  expect "same footer via $uri" cmp -s "$TEST_TMP/path.json" "$TEST_TMP/uri.json"
done
LOOM_STORE_STATS="$TEST_TMP/pq.stats" "$LOOM_BIN" parquet meta "file://$pq" > /dev/null
expect "opening a Parquet file: one GET, no HEAD" \
  jsq --assert "$TEST_TMP/pq.stats" 'd.store_requests.GET === 1 && d.store_requests.HEAD === 0'

t=$(copy_table simple_table)
"$LOOM_BIN" inspect "$t" --json --files > "$TEST_TMP/path.json"
expect "inspect via file:///" "$LOOM_BIN" inspect "file://$t" --json --files > "$TEST_TMP/uri.json"
expect "same state via file:///" test "$(jsq "$TEST_TMP/uri.json" 'd.files')" = "$(jsq "$TEST_TMP/path.json" 'd.files')"
expect "at version 4" jsq --assert "$TEST_TMP/uri.json" 'd.version === 4 && d.files.length > 0' 
commits=$(ls "$t/_delta_log/"*.json | wc -l)
LOOM_STORE_STATS="$TEST_TMP/inspect.stats" "$LOOM_BIN" inspect "$t" > /dev/null
# (plus one GET for _last_checkpoint, read before listing to skip the old log)
expect "reading the log: one LIST, one GET per commit ($commits) and the hint" \
  jsq --assert "$TEST_TMP/inspect.stats" "d.store_requests.LIST === 1 && d.store_requests.GET === $commits + 1 && d.store_requests.HEAD === 0"
LOOM_STORE_STATS=1 "$LOOM_BIN" inspect "$t" > /dev/null 2> "$TEST_TMP/stderr"
expect "LOOM_STORE_STATS=1 prints to stderr" grep -q '^{"store_requests":{"GET":' "$TEST_TMP/stderr"

if "$LOOM_BIN" inspect "nosuch://bucket/t" > /dev/null 2> "$TEST_TMP/err"; then
  fail "an unknown scheme was accepted"
else
  expect "an unknown scheme is named, with the supported ones" \
    grep -q "no object store for URI scheme 'nosuch' (supported: file" "$TEST_TMP/err"
fi
if "$LOOM_BIN" vacuum "file://otherhost/t" > /dev/null 2> "$TEST_TMP/err"; then
  fail "a file: URI naming another host was accepted"
else
  expect "a file: URI must name a local path" grep -q "file: URI names a local absolute path" "$TEST_TMP/err"
fi
finish
