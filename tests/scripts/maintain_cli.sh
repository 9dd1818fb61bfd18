#!/usr/bin/env bash
# `loom maintain`: exit statuses, config/plan errors with file:line, the
# explain output, and the honest failure while the native engine is absent.
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

"$LOOM" maintain --config "$RES/etl_storage.yaml" >"$tmp/out" 2>"$tmp/err"
check "native engine missing fails honestly" 1 $?
contains "engine message" "$tmp/err" "native maintenance engine"
contains "nothing changed" "$tmp/err" "nothing was changed"
exit $fail
