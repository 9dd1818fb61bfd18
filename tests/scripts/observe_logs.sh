#!/usr/bin/env bash
# Structured logs (issue 29): `loom maintain --log-format json` writes one
# JSON object per event to stderr, or to --log-file; an independent parser
# (Python's json) reads them line by line and finds every table and
# operation of the run's JSON report with the report's numbers, the failed
# table's error with its class and code, and never the config's secret.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/observe/lake.sh"

observe_lake "$TEST_TMP"
cfg=(--config "$TEST_TMP/storage.yaml")

rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --log-format text --log-file "$TEST_TMP/x.log" 2> "$TEST_TMP/err" || rc=$?
expect "--log-file needs --log-format json" test $rc -eq 2

# to stderr: every stderr line is an event
cp -r "$TEST_TMP/lake" "$TEST_TMP/lake0"
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --json --log-format json > "$TEST_TMP/r1.json" 2> "$TEST_TMP/stderr.log" || rc=$?
expect "the run exits 1 (raw.broken fails)" test $rc -eq 1
expect "stderr events match the report" \
  python3 "$TOOLS/observe/check_logs.py" "$TEST_TMP/stderr.log" "$TEST_TMP/r1.json" "$OBSERVE_SECRET"
expect "the broken table's error is a parquet ECORRUPT" \
  grep -q '"event":"error","table":"raw.broken","operation":"compact","class":"parquet","code":-6,"name":"ECORRUPT"' "$TEST_TMP/stderr.log"

# to a file, appended, with --jobs 2 (events of tables interleave; lines never do)
rm -rf "$TEST_TMP/lake"; mv "$TEST_TMP/lake0" "$TEST_TMP/lake"
echo '{"ts":"x","level":"info","event":"earlier"}' > "$TEST_TMP/run.log"
rc=0; "$LOOM_BIN" maintain "${cfg[@]}" --json --jobs 2 --log-format json --log-file "$TEST_TMP/run.log" \
  > "$TEST_TMP/r2.json" 2> "$TEST_TMP/err2" || rc=$?
expect "the second run exits 1 too" test $rc -eq 1
expect "nothing but the log file got the events" test "$(grep -c '"event"' "$TEST_TMP/err2")" -eq 0
expect "the file was appended to" test "$(head -1 "$TEST_TMP/run.log")" = '{"ts":"x","level":"info","event":"earlier"}'
tail -n +2 "$TEST_TMP/run.log" > "$TEST_TMP/run2.log"
expect "file events (--jobs 2) match the report" \
  python3 "$TOOLS/observe/check_logs.py" "$TEST_TMP/run2.log" "$TEST_TMP/r2.json" "$OBSERVE_SECRET"
finish
