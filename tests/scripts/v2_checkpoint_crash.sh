#!/usr/bin/env bash
# kill -9 `loom checkpoint` while it writes a V2 checkpoint (LOOM_CRASH_RUNS
# times, default 30): a log-only table with a large state (4001 live files,
# 400 tombstones, a txn, domains) made V2 by another writer, written as 9
# sidecars of 500 actions (--part-size) and the top-level file. After
# every crash the oracle must read the table with no warning and the same
# state (the top-level file appears whole or not at all, so a half-written
# checkpoint does not exist for readers); a normal run afterwards must
# finish. At the end, cleanup-logs (every file made old) must leave no
# sidecar that no checkpoint references: crash leftovers are removed.
source "$(dirname "$0")/../tools/lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
RUNS="${LOOM_CRASH_RUNS:-30}"
PART=500

tmpl="$TEST_TMP/big-v2"
node "$TOOLS/make_big_log.cjs" "$tmpl" 4000 400
node "$TOOLS/delta_edit.cjs" "$tmpl" --features r:v2Checkpoint --set delta.checkpointPolicy=v2 > /dev/null
oracle snapshot "$tmpl" --ignore-checkpoints > "$TEST_TMP/ref.json"
s=$(now_ms)
"$LOOM_BIN" checkpoint "$(cp -r "$tmpl" "$TEST_TMP/probe" && echo "$TEST_TMP/probe")" --part-size $PART > /dev/null
window=$(( $(now_ms) - s + 10 ))
echo "full run: $window ms; $RUNS crash runs"

published=0; leftovers=0
for i in $(seq 1 "$RUNS"); do
  t="$TEST_TMP/run"; rm -rf "$t"; cp -r "$tmpl" "$t"
  delay=$(( RANDOM % window ))
  "$LOOM_BIN" checkpoint "$t" --part-size $PART > /dev/null 2>&1 &
  pid=$!
  sleep "$(ms_to_seconds "$delay")"
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  if ls "$t/_delta_log/" | grep -qE 'checkpoint\.[0-9a-f-]{36}\.json$'; then published=$((published + 1)); fi
  if ! oracle snapshot "$t" > "$TEST_TMP/got.json" 2> "$TEST_TMP/err"; then
    fail "run $i (kill after ${delay} ms): oracle cannot read the table: $(cat "$TEST_TMP/err")"; continue
  fi
  expect "run $i: no oracle warning" jsq --assert "$TEST_TMP/got.json" 'd.warnings.length === 0'
  if jsq --assert "$TEST_TMP/got.json" 'd.checkpoint !== null' 2> /dev/null; then
    expect "run $i: state through the checkpoint" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got.json" > /dev/null
  else
    expect "run $i: state from the commits" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got.json" --same > /dev/null
  fi
  expect "run $i: a normal run afterwards succeeds" "$LOOM_BIN" checkpoint "$t" --part-size $PART > /dev/null
  # crash leftovers: sidecars no checkpoint references, removed once old
  n_before=$(ls "$t/_delta_log/_sidecars" 2> /dev/null | wc -l)
  find "$t/_delta_log" -type f -exec touch -d '40 days ago' {} +
  expect "run $i: cleanup-logs" "$LOOM_BIN" cleanup-logs "$t" --no-dry-run > /dev/null
  expect "run $i: every sidecar left is referenced" node -e '
const fs = require("fs"), d = process.argv[1] + "/_delta_log/";
const refs = new Set();
for (const f of fs.readdirSync(d).filter((n) => /checkpoint\.[0-9a-f-]{36}\.json$/.test(n)))
  for (const l of fs.readFileSync(d + f, "utf8").split("\n")) if (l.includes("\"sidecar\"")) refs.add(JSON.parse(l).sidecar.path);
const left = fs.existsSync(d + "_sidecars") ? fs.readdirSync(d + "_sidecars") : [];
const stray = left.filter((n) => !refs.has(n));
if (stray.length || left.length !== refs.size) { console.error("unreferenced: " + stray.join(" ")); process.exit(1); }' "$t"
  leftovers=$((leftovers + n_before - $(ls "$t/_delta_log/_sidecars" | wc -l)))
  [ $((i % 5)) -eq 1 ] || continue   # the oracle is slow: check every few runs
  oracle snapshot "$t" > "$TEST_TMP/got2.json"
  expect "run $i: then the oracle reads loom's V2 checkpoint" jsq --assert "$TEST_TMP/got2.json" 'd.checkpoint && d.checkpoint.kind === "v2-json" && d.warnings.length === 0'
  expect "run $i: same state through it" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/got2.json" > /dev/null
done
echo "crash runs: $RUNS; top-level published before the kill: $published; leftover sidecars removed by cleanup: $leftovers"
finish
