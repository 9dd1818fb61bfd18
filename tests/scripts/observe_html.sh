#!/usr/bin/env bash
# The HTML report (issue 29), judged in a real browser: headless Chromium
# (Debian's) renders each page - of a run (`maintain --html`), of a saved
# run record and of a bare JSON report (`report --run`), of the history
# (`report --history`), of health alone (`report --config`) - offline:
# every host resolves to nothing and Chromium's net log must show no
# request the page made. The DOM it dumps must hold every table with the
# JSON report's numbers, the history's counts, and the accessibility
# basics (tests/tools/observe/check_html.py); a screenshot must not be
# blank. The local history of the two runs equals the sum of their
# reports. No secret in any page.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/observe/lake.sh"
bash "$LOOM_SOURCE_DIR/scripts/install-observe-deps.sh" > /dev/null
CHECK="$TOOLS/observe/check_html.py"

chrome() {   # chrome NETLOG ARGS...: headless, offline, no background traffic
  local netlog="$1"; shift
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --disable-default-apps \
    --disable-extensions --host-resolver-rules="MAP * ~NOTFOUND" \
    --user-data-dir="$TEST_TMP/chrome-profile" --log-net-log="$netlog" "$@" 2> /dev/null
}
judge() {   # judge NAME HTML REPORT|none [HISTORY]
  local name="$1" html="$2"
  chrome "$TEST_TMP/$name.netlog" --dump-dom "file://$html" > "$TEST_TMP/$name.dom"
  expect "$name: Chromium renders it" test -s "$TEST_TMP/$name.dom"
  expect "$name: no request left the file" python3 "$CHECK" netlog "$TEST_TMP/$name.netlog"
  expect "$name: the DOM holds the report's numbers, accessibly" python3 "$CHECK" dom "$html" "$TEST_TMP/$name.dom" "${@:3}"
  expect "$name: no secret" test "$(grep -cF "$OBSERVE_SECRET" "$html")" -eq 0
}

observe_lake "$TEST_TMP"
cfg=(--config "$TEST_TMP/storage.yaml")
hist="$TEST_TMP/ops/history"

rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --json --html "$TEST_TMP/run.html" --history "$hist" \
  > "$TEST_TMP/r1.json" || rc=$?
expect "the first run exits 1 (raw.broken fails)" test $rc -eq 1
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --json --history "$hist" > "$TEST_TMP/r2.json" || rc=$?
expect "the second run exits 1 too" test $rc -eq 1
expect "two records in the local history" test "$(ls "$hist" | grep -c '\.json$')" -eq 2
"$LOOM_BIN" history --history "$hist" --json > "$TEST_TMP/history.json"
expect "the local history equals the sum of the reports" \
  python3 "$TOOLS/observe/check_history.py" "$TEST_TMP/history.json" "$TEST_TMP/r1.json" "$TEST_TMP/r2.json"

judge run "$TEST_TMP/run.html" "$TEST_TMP/r1.json"
chrome "$TEST_TMP/shot.netlog" --window-size=1200,1800 --screenshot="$TEST_TMP/shot.png" \
  "file://$TEST_TMP/run.html" > /dev/null
expect "the screenshot is not blank" python3 "$CHECK" png "$TEST_TMP/shot.png"
expect "the run page shows the parquet error" grep -q 'data-error-class="parquet"' "$TEST_TMP/run.html"
expect "... and an inline SVG histogram" grep -q '<svg role="img"' "$TEST_TMP/run.html"

# record ids sort by start time (ms): the first is the first run's
first=$(ls "$hist" | head -1)
expect "the first record is the first run" python3 -c '
import json, sys
rec, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert rec["report"] == rep, "the oldest record is not the first run"' "$hist/$first" "$TEST_TMP/r1.json"
expect "report --run of a history record" \
  "$LOOM_BIN" report --html "$TEST_TMP/record.html" --run "$hist/$first"
judge record "$TEST_TMP/record.html" "$TEST_TMP/r1.json"
expect "report --run of a bare JSON report" \
  "$LOOM_BIN" report --html "$TEST_TMP/bare.html" --run "$TEST_TMP/r2.json"
judge bare "$TEST_TMP/bare.html" "$TEST_TMP/r2.json"
expect "report --history" "$LOOM_BIN" report --html "$TEST_TMP/hist.html" --history "$hist"
judge history "$TEST_TMP/hist.html" "$TEST_TMP/r2.json" "$TEST_TMP/history.json"
"$LOOM_BIN" report --html "$TEST_TMP/health.html" "${cfg[@]}" 2> "$TEST_TMP/health.err" || true
expect "report --config (health alone) writes the page" test -s "$TEST_TMP/health.html"
judge health "$TEST_TMP/health.html" none
expect "the health page has every located table" \
  test "$(grep -o 'section class="table" data-table="[^"]*"' "$TEST_TMP/health.html" | wc -l)" -eq 3

# bad input: a clear error naming the file, no page written
echo '{"schema": "something/9"}' > "$TEST_TMP/bad.json"
rc=0; "$LOOM_BIN" report --html "$TEST_TMP/bad.html" --run "$TEST_TMP/bad.json" 2> "$TEST_TMP/err" || rc=$?
expect "a record of another schema is a usage error" test $rc -eq 2
expect "... naming the file" grep -q "bad.json: not a loom run record" "$TEST_TMP/err"
expect "... and writing nothing" test ! -e "$TEST_TMP/bad.html"
rc=0; "$LOOM_BIN" report --html "$TEST_TMP/bad.html" 2> "$TEST_TMP/err" || rc=$?
expect "report without a source is a usage error" test $rc -eq 2
expect "no secret in the history records" test "$(cat "$hist"/*.json | grep -cF "$OBSERVE_SECRET")" -eq 0
finish
