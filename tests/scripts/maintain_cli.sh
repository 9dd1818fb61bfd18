#!/usr/bin/env bash
# `loom maintain`: exit statuses, config/plan errors with file:line, the
# explain output, and a real vacuum run over fixture copies.
set -u
LOOM="${LOOM_BIN:?}"
RES="${LOOM_SOURCE_DIR:?}/tests/resources/config"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {   # check NAME EXPECTED_STATUS ACTUAL_STATUS
	if [ "$2" != "$3" ]; then
		echo "FAIL $1: exit $3, expected $2"; fail=1
	else
		echo "ok   $1"
	fi
}
contains() {   # contains NAME FILE TEXT
	if grep -qF -- "$3" "$2"; then echo "ok   $1"; else
		echo "FAIL $1: '$3' not in:"; cat "$2"; fail=1; fi
}

"$LOOM" maintain >"$tmp/out" 2>"$tmp/err"; check "no --config is usage" 2 $?
contains "usage names --config" "$tmp/err" "--config is required"
"$LOOM" maintain --config "$RES/etl_storage.yaml" --jobs x 2>"$tmp/err"; check "bad --jobs" 2 $?
"$LOOM" maintain --config "$RES/etl_storage.yaml" --step s 2>"$tmp/err"; check "--step without --plan" 2 $?
"$LOOM" maintain --help >"$tmp/out"; check "--help" 0 $?
contains "help lists --plan" "$tmp/out" "--plan FILE"

printf 'storage:\n  tables:\n    - name: a.b\n      path: {uri: /x}\n      ref: c.a.b\n' >"$tmp/bad.yaml"
"$LOOM" maintain --config "$tmp/bad.yaml" 2>"$tmp/err"; check "config error" 2 $?
contains "config error has file:line" "$tmp/err" "$tmp/bad.yaml:3:7: table 'a.b' has both 'path' and 'ref'"

printf 'steps:\n  s:\n    - table: a.b\n      compact:\n      z_order_by: [x]\n' >"$tmp/badplan.yaml"
"$LOOM" maintain --config "$RES/etl_storage.yaml" --plan "$tmp/badplan.yaml" 2>"$tmp/err"
check "plan error" 2 $?
contains "plan error has file:line" "$tmp/err" "$tmp/badplan.yaml:5:"

"$LOOM" maintain --config "$RES/etl_storage.yaml" --plan "$RES/nightly_plan.yaml" 2>"$tmp/err"
check "several steps need --step" 2 $?
contains "steps are listed" "$tmp/err" "nightly weekly_full_vacuum"

"$LOOM" maintain --config "$RES/etl_storage.yaml" --plan "$RES/nightly_plan.yaml" --step nightly --explain >"$tmp/out"
check "explain" 0 $?
contains "explain: step" "$tmp/out" "step nightly: 3 tables"
contains "explain: z-order" "$tmp/out" "z_order by run_date,_id"
contains "explain: default route" "$tmp/out" "staging.orders -> /lake/staging/orders"
if grep -q "wJalrXUtnFEMIexamplesecret" "$tmp/out"; then echo "FAIL secret in explain"; fail=1; fi

LOOM_TEST_LAKE="s3://u:pa55word99@bucket/lake" "$LOOM" maintain --config "$RES/etl_storage.yaml" --explain --json >"$tmp/out"
check "explain json" 0 $?
contains "explain json schema" "$tmp/out" '"schema": "loom.explain/1"'
contains "uri password masked" "$tmp/out" "s3://u:***@bucket/lake/raw/events"
if grep -q "pa55word99" "$tmp/out"; then echo "FAIL uri password shown"; fail=1; fi

"$LOOM" maintain --config "$RES/etl_storage.yaml" --step nope --plan "$RES/nightly_plan.yaml" 2>"$tmp/err"
check "unknown step" 2 $?
contains "unknown step named" "$tmp/err" "no step named 'nope'"

# A real run on a lake of fixture copies: raw.events is simple_table (31
# files the log removed years ago), raw.orders is a table whose protocol
# loom must refuse. The vacuum-only step deletes raw.events' removed files,
# records raw.orders' refusal, and exits 1 because a table failed.
lake="$tmp/lake"
mkdir -p "$lake/raw"
cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$lake/raw/events"
cp -r "$LOOM_FIXTURES_DIR/delta/table-with-dv-small" "$lake/raw/orders_v2"
chmod -R u+w "$lake"
# a catalog-managed table (PROTOCOL.md: filesystem writers must not commit
# to it, so loom refuses every operation): commit 2 upgrades the protocol
printf '%s\n' '{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors","catalogManaged"],"writerFeatures":["deletionVectors","catalogManaged","inCommitTimestamp"]}}' \
	>"$lake/raw/orders_v2/_delta_log/00000000000000000002.json"
removed="part-00190-8ac0ae67-fb1d-461d-a3d3-8dc112766ff5-c000.snappy.parquet"
cat >"$tmp/vacuum_plan.yaml" <<'YAML'
steps:
  nightly_vacuum:
    - schema: raw
      vacuum: {retention_hours: 168, dry_run: false}
YAML
# The human report first, as a dry run: one short phrase per operation.
sed 's/dry_run: false/dry_run: true/' "$tmp/vacuum_plan.yaml" >"$tmp/dry_plan.yaml"
LOOM_TEST_LAKE="$lake" "$LOOM" maintain --config "$RES/etl_storage.yaml" \
	--plan "$tmp/dry_plan.yaml" --step nightly_vacuum >"$tmp/out" 2>"$tmp/err"
check "dry run: a failed table makes exit 1" 1 $?
if grep -qE '^raw\.events +ok +[0-9.]+s +vacuum: would delete 31 files \([0-9.]+ KiB, dry run\)$' "$tmp/out"; then
	echo "ok   human report: short vacuum summary"; else echo "FAIL human report:"; cat "$tmp/out"; fail=1; fi
if grep -q '=' "$tmp/out"; then echo "FAIL human report lists metrics"; fail=1; fi
LOOM_TEST_LAKE="$lake" "$LOOM" maintain --config "$RES/etl_storage.yaml" \
	--plan "$tmp/vacuum_plan.yaml" --step nightly_vacuum --json >"$tmp/out" 2>"$tmp/err"
check "a failed table makes exit 1" 1 $?
if [ -e "$lake/raw/events/$removed" ]; then echo "FAIL removed file still there"; fail=1; else echo "ok   raw.events vacuumed"; fi
contains "refusal names the feature" "$tmp/out" "catalogManaged"
contains "commit metadata from the config" "$lake/raw/events/_delta_log/00000000000000000005.json" '"pipeline":"nightly"'
# --policy stop: the first missing table fails and nothing starts after it.
cat >"$tmp/stop_plan.yaml" <<'YAML'
steps:
  s:
    - table: raw.nothere
      vacuum:
    - table: raw.events
      vacuum:
YAML
LOOM_TEST_LAKE="$lake" "$LOOM" maintain --config "$RES/etl_storage.yaml" \
	--plan "$tmp/stop_plan.yaml" --policy stop --json >"$tmp/out" 2>"$tmp/err"
check "--policy stop fails the run" 1 $?
contains "stop: the missing table failed" "$tmp/out" '"name": "ENOTFOUND"'
contains "stop: the next table did not start" "$tmp/out" "run stopped before this table started: table 'raw.nothere' is missing"
"$LOOM" maintain --config "$RES/etl_storage.yaml" --policy later 2>"$tmp/err"
check "unknown policy" 2 $?
exit $fail
