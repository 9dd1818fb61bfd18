#!/usr/bin/env bash
# Partial progress (loom_compact_opts.commit_every, --commit-every):
#  1. compaction with --commit-every commits its units of work as they
#     finish: one OPTIMIZE commit per unit here, each removing files of one
#     partition only, rows unchanged (oracle), verify clean;
#  2. Z-order commits each partition whole, one commit per partition;
#  3. a blind appender commits while a --commit-every compaction runs: every
#     append lands, no row is lost or doubled (oracle), the compaction's
#     commits interleave with the appends;
#  4. kill -9 in the middle: the commits made are kept, the table reads the
#     same rows, and the next run compacts only what is left: no file the
#     first run wrote is rewritten;
#  5. a run that fails part-way (a fault at a later put) keeps the units it
#     finished, committed, and says so.
source "$(dirname "$0")/../tools/lib.sh"
HELPER="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/append_commits"

base="$TEST_TMP/base"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
  node "$TOOLS/gen_small_files.cjs" "$base" 8 160 4000 > /dev/null
expect "convert the generated files" "$LOOM_BIN" convert "$base" --partition-by p,q
fp0=$(oracle fingerprint "$base" | jsq - 'd.hash + "/" + d.rows')
fingerprint() { oracle fingerprint "$1" | jsq - 'd.hash + "/" + d.rows'; }
# the OPTIMIZE commits after version 0: "version partitions-of-removes", one line each
optimize_commits() {
  for f in "$1"/_delta_log/0*.json; do
    v=$(basename "$f" .json); v=$((10#$v))
    [ "$v" -eq 0 ] && continue
    node -e '
      const lines = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
      const ci = lines.find(a => a.commitInfo);
      if (!ci || ci.commitInfo.operation !== "OPTIMIZE") process.exit(0);
      const parts = new Set(lines.filter(a => a.remove).map(a => JSON.stringify(a.remove.partitionValues)));
      console.log(process.argv[2], parts.size, lines.filter(a => a.remove).length);' "$f" "$v"
  done
}

# ---- 1. compaction, one commit per unit ---------------------------------------
t="$TEST_TMP/t1"; cp -r "$base" "$t"
expect "compact --commit-every 1B" sh -c "'$LOOM_BIN' compact '$t' --target-size 1MiB --commit-every 1B --json > '$TEST_TMP/c1.json'"
optimize_commits "$t" > "$TEST_TMP/c1.commits"
n=$(wc -l < "$TEST_TMP/c1.commits")
expect "several OPTIMIZE commits ($n)" test "$n" -ge 4
expect "the result counts them" jsq --assert "$TEST_TMP/c1.json" "d.metrics.numCommits === $n && d.metrics.unitsLeft === 0 && d.num_files_removed === 160"
expect "each commit removes files of one partition" test "$(awk '$2 != 1' "$TEST_TMP/c1.commits" | wc -l)" -eq 0
expect "rows unchanged (oracle)" test "$fp0" = "$(fingerprint "$t")"
expect "verify clean" oracle verify "$t" > /dev/null
expect "a second run has nothing left" sh -c "'$LOOM_BIN' compact '$t' --target-size 1MiB --commit-every 1B --json | node '$TOOLS/jsq.cjs' --assert - 'd.num_files_removed === 0'"

# ---- 2. Z-order: a partition per commit ---------------------------------------
t="$TEST_TMP/t2"; cp -r "$base" "$t"
expect "zorder --commit-every 1B" sh -c "'$LOOM_BIN' zorder '$t' --columns id --commit-every 1B --json > '$TEST_TMP/z.json'"
optimize_commits "$t" > "$TEST_TMP/z.commits"
expect "one commit per partition (8): $(tr '\n' ';' < "$TEST_TMP/z.commits")" \
  test "$(wc -l < "$TEST_TMP/z.commits")" -eq 8 -a "$(awk '$2 != 1 || $3 != 20' "$TEST_TMP/z.commits" | wc -l)" -eq 0
expect "Z-ordered rows unchanged (oracle)" test "$fp0" = "$(fingerprint "$t")"

# ---- 3. against a racing appender ---------------------------------------------
t="$TEST_TMP/t3"; cp -r "$base" "$t"
src=$(cd "$t" && find . -name '*.parquet' -path './p=0/*' | head -1 | sed 's#^\./##')
per_copy=$(oracle fingerprint-parquet "$t/$src" | jsq - 'd.rows')
base_rows=$(oracle fingerprint "$t" | jsq - 'd.rows')
"$HELPER" "$t" "$src" "racer" 40 "$per_copy" > "$TEST_TMP/appends" 2> "$TEST_TMP/appends.err" &
apid=$!
expect "compact beside the appender" sh -c "'$LOOM_BIN' compact '$t' --target-size 1MiB --commit-every 1B --json > '$TEST_TMP/c3.json'"
if wait "$apid"; then pass; else fail "appender failed: $(cat "$TEST_TMP/appends.err")"; fi
rows=$(oracle fingerprint "$t" | jsq - 'd.rows')
expect "every append landed, no row lost or doubled: $rows = $base_rows + 40 x $per_copy" test "$rows" -eq $((base_rows + 40 * per_copy))
# (no verify here: the appender helper writes adds without partition values)
expect "40 appends committed" test "$(wc -l < "$TEST_TMP/appends")" -eq 40

# ---- 4. kill -9 mid-run, then the rest -------------------------------------------
# the kill lands at the middle write of a run (store/fault.h's crash mode:
# SIGKILL before the call), counted on a probe run
probe="$TEST_TMP/probe"; cp -r "$base" "$probe"
LOOM_FAULTS="stat@1000000" LOOM_FAULT_TALLY="$TEST_TMP/tally" \
  "$LOOM_BIN" compact "$probe" --target-size 1MiB --commit-every 1B > /dev/null
writes=$(awk '$1 == "write" {print $2}' "$TEST_TMP/tally")
expect "the probe run counted its writes ($writes)" test "${writes:-0}" -ge 8
t="$TEST_TMP/t4"; cp -r "$base" "$t"
rc=0
LOOM_FAULTS="write@$((writes / 2)):crash" "$LOOM_BIN" compact "$t" --target-size 1MiB --commit-every 1B > /dev/null 2>&1 || rc=$?
expect "the run was killed (exit $rc)" test "$rc" -eq 137
kept=$(optimize_commits "$t" | wc -l)
expect "the kill kept $kept commits, fewer than a whole run's" \
  test "$kept" -ge 1 -a "$kept" -lt "$(wc -l < "$TEST_TMP/c1.commits")"
expect "rows unchanged after the kill (oracle)" test "$fp0" = "$(fingerprint "$t")"
expect "verify clean after the kill" oracle verify "$t" > /dev/null
oracle snapshot "$t" | jsq - 'd.files.map(f => f.path).filter(p => !/\/part-\d+\.parquet$/.test(p)).join("\n")' > "$TEST_TMP/written1"
expect "the kept commits wrote files" test -s "$TEST_TMP/written1"
expect "the rerun finishes" sh -c "'$LOOM_BIN' compact '$t' --target-size 1MiB --commit-every 1B --json > '$TEST_TMP/c4.json'"
oracle snapshot "$t" | jsq - 'd.files.map(f => f.path).join("\n")' > "$TEST_TMP/live2"
expect "no file the first run wrote was rewritten ($(grep -c . "$TEST_TMP/written1") kept)" \
  test "$(grep -cvxF -f "$TEST_TMP/live2" "$TEST_TMP/written1")" -eq 0
expect "nothing small left: the rerun removed every original file" \
  test "$(grep -cE '/part-[0-9]+\.parquet$' "$TEST_TMP/live2")" -eq 0
expect "rows unchanged after the rerun (oracle)" test "$fp0" = "$(fingerprint "$t")"

# ---- 5. a failure part-way keeps the finished units --------------------------------
t="$TEST_TMP/t5"; cp -r "$base" "$t"
rc=0
LOOM_FAULTS="write@$((writes * 3 / 4))" "$LOOM_BIN" compact "$t" --target-size 1MiB --commit-every 1B > /dev/null 2> "$TEST_TMP/c5.err" || rc=$?
expect "the faulted run fails (exit $rc)" test "$rc" -ne 0
kept=$(optimize_commits "$t" | wc -l)
expect "it kept $kept commits of finished units and says so: $(head -c 300 "$TEST_TMP/c5.err")" \
  sh -c "[ '$kept' -ge 1 ] && grep -q 'kept' '$TEST_TMP/c5.err'"
expect "rows unchanged after the failure (oracle)" test "$fp0" = "$(fingerprint "$t")"
expect "verify clean after the failure" oracle verify "$t" > /dev/null
finish
