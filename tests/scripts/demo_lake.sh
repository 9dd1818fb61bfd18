#!/usr/bin/env bash
# The README's main job end to end: the example lake is generated, every
# table reads clean in the oracle, `loom maintain` runs the seed's nightly
# plan (vacuum + compact on raw, vacuum + Z-order on staging.orders):
# raw.orders' expired removed files are gone, raw.events' 300 small files
# become one per date partition, raw.orders and staging.orders one file
# each, and no table's rows change.
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
removed=$(jsq "$TEST_TMP/orph.json" 'd.files.filter(f => f.tombstone).map(f => f.path).join(" ")')

cd "$LOOM_SOURCE_DIR"
expect "loom maintain" env LOOM_EXAMPLE_LAKE="$lake" "$LOOM_BIN" maintain --config examples/storage.yaml \
  --plan examples/plan.yaml --step nightly --json > "$TEST_TMP/report.json"
expect "report has no errors" jsq --assert "$TEST_TMP/report.json" 'd.tables.every(t => t.status === "ok")'
for f in $removed; do
  expect "expired removed file $f vacuumed" test ! -e "$lake/raw/orders/$f"
done
oracle snapshot "$lake/raw/events" > "$TEST_TMP/s.json"
expect "raw.events compacted to one file per date (oracle)" jsq --assert "$TEST_TMP/s.json" 'd.numFiles === 10'
oracle snapshot "$lake/raw/orders" > "$TEST_TMP/s.json"
expect "raw.orders compacted to one file (oracle)" jsq --assert "$TEST_TMP/s.json" 'd.numFiles === 1'
oracle snapshot "$lake/staging/orders" > "$TEST_TMP/s.json"
expect "staging.orders Z-ordered into one file (oracle)" jsq --assert "$TEST_TMP/s.json" 'd.numFiles === 1'
for t in raw/events raw/orders staging/orders; do
  oracle fingerprint "$lake/$t" > "$TEST_TMP/fp.json"
  expect "$t rows unchanged" test "${fp[$t]}" = "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')"
  expect "$t verifies after" oracle verify "$lake/$t" > /dev/null
done
finish
