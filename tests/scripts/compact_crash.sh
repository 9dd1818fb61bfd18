#!/usr/bin/env bash
# kill -9 a real compaction at random moments: every time the oracle reads
# the table with the same fingerprint (the commit is atomic; files written
# before it are unreferenced), and a later compaction still succeeds.
# LOOM_CRASH_RUNS sets the number of runs (default 30).
source "$(dirname "$0")/../tools/lib.sh"
runs="${LOOM_CRASH_RUNS:-30}"

base="$TEST_TMP/base"
node "$TOOLS/gen_small_files.cjs" "$base" 4 160 4000
expect "convert" "$LOOM_BIN" convert "$base" --partition-by p,q > /dev/null
oracle fingerprint "$base" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')

# one run left alone: its wall time spreads the kills over a run
t="$TEST_TMP/run"; rm -rf "$t"; cp -a "$base" "$t"
start=$(now_ms)
expect "a compaction left alone" "$LOOM_BIN" compact "$t" --target-size 64MiB > /dev/null
run_ms=$(( $(now_ms) - start ))
echo "a compaction left alone takes $run_ms ms"

killed_mid=0
for run in $(seq 1 "$runs"); do
  t="$TEST_TMP/run"
  rm -rf "$t"; cp -a "$base" "$t"
  "$LOOM_BIN" compact "$t" --target-size 64MiB > /dev/null 2>&1 &
  pid=$!
  sleep "$(kill_delay "$run_ms")"
  if kill -9 "$pid" 2>/dev/null; then killed_mid=$((killed_mid + 1)); fi
  wait "$pid" 2>/dev/null || true
  oracle fingerprint "$t" > "$TEST_TMP/fp.json" 2>&1 || { fail "run $run: oracle cannot read the table: $(head -c 300 "$TEST_TMP/fp.json")"; continue; }
  if [ "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0" ]; then pass; else fail "run $run: fingerprint changed"; fi
  if [ $((run % 10)) -eq 0 ]; then
    expect "run $run: compaction after the crash" "$LOOM_BIN" compact "$t" --target-size 64MiB > /dev/null
    oracle fingerprint "$t" > "$TEST_TMP/fp.json"
    expect "run $run: fingerprint after recompaction" test "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')" = "$fp0"
    if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "run $run: verify: $(head -c 500 "$TEST_TMP/v.json")"; fi
  fi
done
echo "killed mid-run in $killed_mid of $runs runs"
expect "at least some runs were killed mid-way" test "$killed_mid" -gt 0
finish
