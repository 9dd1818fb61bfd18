#!/usr/bin/env bash
# kill -9 `loom checkpoint` at random moments (LOOM_CRASH_RUNS, default 30),
# alternating a real fixture table (the oracle's fingerprint of the rows is
# compared) and a log-only table with a large state (7201 live files, 800
# tombstones, a txn, tags, partitions; the oracle's whole state is compared). After every
# crash the oracle must read the table with no warning and the same state:
# either without a new checkpoint, or through a complete one. Then a normal
# run must finish (writing the checkpoint or reporting the existing one),
# and (every few runs) the oracle reads the table through it.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
RUNS="${LOOM_CRASH_RUNS:-30}"

big="$TEST_TMP/big-template"
node "$TOOLS/make_big_log.cjs" "$big" 8000 800
real=$(copy_table delta-0.8.0-partitioned)
for tmpl in "$big" "$real"; do
  oracle snapshot "$tmpl" --ignore-checkpoints > "$tmpl.ref.json"
done
oracle fingerprint "$real" > "$TEST_TMP/fp0.json"
fp0=$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')
# how long a full run takes, to spread the kills over it
s=$(now_ms); "$LOOM_BIN" checkpoint "$(cp -r "$big" "$TEST_TMP/probe" && echo "$TEST_TMP/probe")" > /dev/null
big_ms=$(( $(now_ms) - s + 20 ))
s=$(now_ms); "$LOOM_BIN" checkpoint "$(cp -r "$real" "$TEST_TMP/probe2" && echo "$TEST_TMP/probe2")" > /dev/null
real_ms=$(( $(now_ms) - s + 5 ))
echo "full runs: big $big_ms ms, real $real_ms ms; $RUNS crash runs"

published=0; unpublished=0; finished=0
for i in $(seq 1 "$RUNS"); do
  if [ $((i % 2)) -eq 0 ]; then tmpl=$real; window=$real_ms; else tmpl=$big; window=$big_ms; fi
  t="$TEST_TMP/run"; rm -rf "$t"; cp -r "$tmpl" "$t"
  delay=$(( RANDOM % window ))
  "$LOOM_BIN" checkpoint "$t" > /dev/null 2>&1 &
  pid=$!
  sleep "$(ms_to_seconds "$delay")"
  if kill -9 "$pid" 2> /dev/null; then :; fi
  wait "$pid" 2> /dev/null && finished=$((finished + 1)) || true
  if ls "$t/_delta_log/" | grep -q 'checkpoint.parquet$'; then published=$((published + 1)); else unpublished=$((unpublished + 1)); fi
  if ! oracle snapshot "$t" > "$TEST_TMP/got.json" 2> "$TEST_TMP/err"; then
    fail "run $i (kill after ${delay} ms): oracle cannot read the table: $(cat "$TEST_TMP/err")"; continue
  fi
  expect "run $i: no oracle warning" jsq --assert "$TEST_TMP/got.json" 'd.warnings.length === 0'
  if jsq --assert "$TEST_TMP/got.json" 'd.checkpoint !== null' 2> /dev/null; then
    expect "run $i: state through the checkpoint" node "$CMP" snap "$tmpl.ref.json" "$TEST_TMP/got.json" > /dev/null
  else
    expect "run $i: state from the commits" node "$CMP" snap "$tmpl.ref.json" "$TEST_TMP/got.json" --same > /dev/null
  fi
  if [ "$tmpl" = "$real" ]; then
    oracle fingerprint "$t" > "$TEST_TMP/fp.json"
    expect "run $i: fingerprint unchanged" test "$fp0" = "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')"
  fi
  expect "run $i: a normal run afterwards succeeds" "$LOOM_BIN" checkpoint "$t" --json > "$TEST_TMP/after.json"
  [ $((i % 5)) -lt 2 ] || continue   # the oracle is slow: check every few runs
  oracle snapshot "$t" > "$TEST_TMP/got2.json"
  expect "run $i: then the oracle reads loom's checkpoint" jsq --assert "$TEST_TMP/got2.json" 'd.checkpoint && d.checkpoint.kind === "classic" && d.warnings.length === 0'
  expect "run $i: same state through it" node "$CMP" snap "$tmpl.ref.json" "$TEST_TMP/got2.json" > /dev/null
done
echo "crash runs: $RUNS; checkpoint already published when killed: $published; not yet: $unpublished; finished before the kill: $finished"
finish
