#!/usr/bin/env bash
# kill -9 a real VACUUM at random moments: every time, the oracle still
# reads the table with the same fingerprint and every live file present.
# LOOM_CRASH_RUNS sets the number of runs (default 30 in CI; the issue's
# 100-run acceptance is `LOOM_CRASH_RUNS=100 tests/scripts/vacuum_crash.sh`).
source "$(dirname "$0")/../tools/lib.sh"
runs="${LOOM_CRASH_RUNS:-30}"

base=$(copy_table simple_table)
oracle fingerprint "$base" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
# Enough orphans that a vacuum takes long enough to be killed mid-way.
mkdir -p "$base/old"
for i in $(seq 1 600); do echo "$i" > "$base/old/orphan-$i.parquet"; done
touch -d '30 days ago' "$base"/old/*.parquet

# one run left alone: its wall time spreads the kills over a run
t="$TEST_TMP/run"; rm -rf "$t"; cp -a "$base" "$t"
start=$(now_ms)
expect "a vacuum left alone" "$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null
run_ms=$(( $(now_ms) - start ))
echo "a vacuum left alone takes $run_ms ms"

killed_mid=0
for run in $(seq 1 "$runs"); do
  t="$TEST_TMP/run"
  rm -rf "$t"; cp -a "$base" "$t"
  "$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null 2>&1 &
  pid=$!
  sleep "$(kill_delay "$run_ms")"
  if kill -9 "$pid" 2>/dev/null; then killed_mid=$((killed_mid + 1)); fi
  wait "$pid" 2>/dev/null || true
  oracle fingerprint "$t" > "$TEST_TMP/fp.json" 2>&1 || { fail "run $run: oracle cannot read the table: $(head -c 300 "$TEST_TMP/fp.json")"; continue; }
  if [ "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0" ]; then pass; else fail "run $run: fingerprint changed"; fi
  # the next vacuum finishes the job
  expect "run $run: vacuum after the crash" "$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null
  expect "run $run: no orphan left" test -z "$(ls "$t/old" 2>/dev/null)"
done
echo "killed mid-run in $killed_mid of $runs runs"
expect "at least some runs were killed mid-way" test "$killed_mid" -gt 0
finish
