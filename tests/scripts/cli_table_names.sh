#!/usr/bin/env bash
# The single-table verbs take a logical table name plus --config as well as
# a path: the name resolves through the storage YAML and the location's
# commit metadata applies.
source "$(dirname "$0")/../tools/lib.sh"
: "${LOOM_BUILD_DIR:=$LOOM_SOURCE_DIR/build}"
lake="$TEST_TMP/lake"
"$LOOM_BUILD_DIR/loom-example-lake" "$lake" > /dev/null
export LOOM_EXAMPLE_LAKE="$lake"
cfg="$LOOM_SOURCE_DIR/examples/storage.yaml"

expect "vacuum by name" "$LOOM_BIN" vacuum raw.orders --config "$cfg" --no-dry-run --json > "$TEST_TMP/v.json"
expect "the named table was vacuumed" jsq --assert "$TEST_TMP/v.json" "d.num_files === 20 && d.table === '$lake/raw/orders'"
last=$(ls "$lake/raw/orders/_delta_log/"*.json | tail -1)
expect "the location's commit metadata is in the commit" grep -q '"pipeline":"nightly-maintenance"' "$last"

expect "compact by name" "$LOOM_BIN" compact raw.events --config "$cfg" --json > "$TEST_TMP/c.json"
oracle snapshot "$lake/raw/events" > "$TEST_TMP/s.json"
expect "the named table was compacted (oracle: 10 live files)" jsq --assert "$TEST_TMP/s.json" 'd.numFiles === 10'
expect "checkpoint by name" "$LOOM_BIN" checkpoint raw.events --config "$cfg" > /dev/null
expect "the checkpoint is there" test -e "$lake/raw/events/_delta_log/00000000000000000030.checkpoint.parquet"

printf 'storage:\n  tables:\n    - name: a.b\n      path: {uri: %s/raw/orders}\n' "$lake" > "$TEST_TMP/only.yaml"
if "$LOOM_BIN" vacuum c.d --config "$TEST_TMP/only.yaml" 2> "$TEST_TMP/err"; then
  fail "an unknown name should fail"
else
  expect "the error names the table" grep -q "c.d" "$TEST_TMP/err"
fi
if "$LOOM_BIN" vacuum raw.orders --config "$TEST_TMP/missing.yaml" 2> /dev/null; then
  fail "a missing config should fail"
else pass; fi
finish
