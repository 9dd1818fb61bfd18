#!/usr/bin/env bash
# The README's main job end to end: the example lake is generated, every
# table reads clean in the oracle, `loom maintain` runs the nightly plan,
# raw.orders' expired removed files are gone, and no table's rows change.
source "$(dirname "$0")/../tools/lib.sh"
: "${LOOM_BUILD_DIR:=$LOOM_SOURCE_DIR/build}"
lake="$TEST_TMP/lake"
expect "generate the lake" "$LOOM_BUILD_DIR/loom-example-lake" "$lake" > /dev/null
declare -A fp
for t in raw/events raw/orders staging/orders; do
  expect "$t verifies" oracle verify "$lake/$t" > /dev/null
  oracle fingerprint "$lake/$t" > "$TEST_TMP/fp.json"
  fp[$t]=$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')
done
oracle orphans "$lake/raw/orders" > "$TEST_TMP/orph.json"
expect "raw.orders has 20 removed files on disk" jsq --assert "$TEST_TMP/orph.json" 'd.files.filter(f => f.tombstone).length === 20'

cd "$LOOM_SOURCE_DIR"
expect "loom maintain" env LOOM_EXAMPLE_LAKE="$lake" "$LOOM_BIN" maintain --config examples/storage.yaml \
  --plan examples/plan.yaml --step nightly --json > "$TEST_TMP/report.json"
expect "report has no errors" jsq --assert "$TEST_TMP/report.json" 'd.tables.every(t => t.status === "ok")'
oracle orphans "$lake/raw/orders" > "$TEST_TMP/orph.json"
expect "removed files vacuumed" jsq --assert "$TEST_TMP/orph.json" 'd.files.filter(f => f.tombstone).length === 0'
for t in raw/events raw/orders staging/orders; do
  oracle fingerprint "$lake/$t" > "$TEST_TMP/fp.json"
  expect "$t rows unchanged" test "${fp[$t]}" = "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')"
  expect "$t verifies after" oracle verify "$lake/$t" > /dev/null
done
finish
