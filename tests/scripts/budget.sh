#!/usr/bin/env bash
# Budgets for a maintenance run (loom_runner_set_budget; loom maintain
# --budget-bytes / --budget-time):
#  1. tables run in order of benefit per byte, and once the byte budget is
#     spent no table starts: the report says which were skipped and why;
#  2. the time budget (half a probe run's time) stops a running compaction,
#     which commits the units
#     it finished (numCommits, unitsLeft) - rows unchanged (oracle) - and the
#     next run, without a budget, compacts only what is left.
source "$(dirname "$0")/../tools/lib.sh"
gen() { NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
          node "$TOOLS/gen_small_files.cjs" "$@" > /dev/null; }
fingerprint() { oracle fingerprint "$1" | jsq - 'd.hash + "/" + d.rows'; }
lake="$TEST_TMP/lake"
mkdir -p "$lake/raw"
# many small files (high benefit per byte), fewer larger ones (lower), and
# one already compacted (nothing to rewrite)
gen "$lake/raw/many" 4 160 2000
gen "$lake/raw/few" 4 24 40000
gen "$lake/raw/done" 2 2 4000
for t in many few done; do
  expect "convert $t" "$LOOM_BIN" convert "$lake/raw/$t" --partition-by p,q
done
fp_many=$(fingerprint "$lake/raw/many"); fp_few=$(fingerprint "$lake/raw/few")
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  tables:
    - {name: raw.few, path: {uri: "$lake/raw/few"}}
    - {name: raw.many, path: {uri: "$lake/raw/many"}}
    - {name: raw.done, path: {uri: "$lake/raw/done"}}
  maintenance:
    schemas: [raw]
    compact:
      target_size: 64MiB
YAML

# ---- 1. order by benefit per byte, byte budget ----------------------------------
expect "maintain under a 1-byte budget" sh -c "'$LOOM_BIN' maintain --config '$TEST_TMP/storage.yaml' --budget-bytes 1B --json > '$TEST_TMP/r1.json'"
expect "raw.done (nothing to rewrite) and raw.many (most files per byte) ran; raw.few was skipped for the budget" \
  jsq --assert "$TEST_TMP/r1.json" '(t => t("raw.done").status === "ok" && t("raw.many").status === "ok" &&
    t("raw.many").ops.compact.num_files_removed === 160 && t("raw.few").skipped &&
    /byte budget spent/.test(t("raw.few").skip_reason))(r => d.tables.find(x => x.ref === r))'
expect "the skip is not a failure" jsq --assert "$TEST_TMP/r1.json" '!d.has_errors && d.summary.skipped === 1'
expect "raw.few untouched" test "$(ls "$lake/raw/few/_delta_log" | grep -c '\.json$')" -eq 1
expect "raw.many rows unchanged (oracle)" test "$fp_many" = "$(fingerprint "$lake/raw/many")"

# ---- 2. the time budget stops a compaction, which keeps what it finished -------
big="$TEST_TMP/big"
gen "$big/raw/t" 8 160 4000
expect "convert the big table" "$LOOM_BIN" convert "$big/raw/t" --partition-by p,q
fp_big=$(fingerprint "$big/raw/t")
cat > "$TEST_TMP/big.yaml" <<YAML
storage:
  tables:
    - {name: raw.t, path: {uri: "$big/raw/t"}}
  maintenance:
    schemas: [raw]
    compact:
      target_size: 1MiB
YAML
# every data-file write waits 5 ms (store/fault.h delay mode: ~1,500 writes),
# so the run lasts seconds however fast the machine; the budget is half of
# what a probe run of the same table takes here (a sanitizer build is
# slower), so some units finish before it and some do not
probe="$TEST_TMP/probe"; mkdir -p "$probe/raw"; cp -r "$big/raw/t" "$probe/raw/t"
sed "s#$big/raw/t#$probe/raw/t#" "$TEST_TMP/big.yaml" > "$TEST_TMP/probe.yaml"
t0=$(now_ms)
LOOM_FAULTS="write@1+:delay=5" "$LOOM_BIN" maintain --config "$TEST_TMP/probe.yaml" > /dev/null
took=$(( $(now_ms) - t0 ))
budget="$(ms_to_seconds $((took / 2)))s"
rc=0
LOOM_FAULTS="write@1+:delay=5" "$LOOM_BIN" maintain --config "$TEST_TMP/big.yaml" --budget-time "$budget" \
  --commit-every 1B --json > "$TEST_TMP/r2.json" 2> "$TEST_TMP/r2.err" || rc=$?
expect "the budgeted run ends cleanly (exit $rc: $(head -c 300 "$TEST_TMP/r2.err"))" test "$rc" -eq 0
expect "it stopped early with commits kept: $(jsq "$TEST_TMP/r2.json" 'JSON.stringify(d.tables[0].ops.compact && d.tables[0].ops.compact.metrics)')" \
  jsq --assert "$TEST_TMP/r2.json" '(m => m.numCommits >= 1 && m.unitsLeft >= 1)(d.tables[0].ops.compact.metrics)'
expect "rows unchanged after the stop (oracle)" test "$fp_big" = "$(fingerprint "$big/raw/t")"
expect "verify clean after the stop" oracle verify "$big/raw/t" > /dev/null
oracle snapshot "$big/raw/t" | jsq - 'd.files.map(f => f.path).filter(p => !/\/part-\d+\.parquet$/.test(p)).join("\n")' > "$TEST_TMP/kept"
expect "the stopped run wrote files that stay" test -s "$TEST_TMP/kept"
expect "the next run (no budget) finishes" sh -c "'$LOOM_BIN' maintain --config '$TEST_TMP/big.yaml' --json > '$TEST_TMP/r3.json'"
oracle snapshot "$big/raw/t" | jsq - 'd.files.map(f => f.path).join("\n")' > "$TEST_TMP/live"
expect "none of the stopped run's files was rewritten" test "$(grep -cvxF -f "$TEST_TMP/live" "$TEST_TMP/kept")" -eq 0
expect "no original small file left" test "$(grep -cE '/part-[0-9]+\.parquet$' "$TEST_TMP/live")" -eq 0
expect "rows unchanged after the rest (oracle)" test "$fp_big" = "$(fingerprint "$big/raw/t")"
finish
