#!/usr/bin/env bash
# purge and analyze as plan operations (issue 32 part 3): the storage YAML's
# `maintenance: {purge: ..., analyze: ...}` run by `loom maintain` on a copy
# of every fixture with deletion vectors, judged by the oracle: no DV left,
# the fingerprint unchanged, verify clean, the log's new commits a REORG
# (predicate, applyPurge) then a COMPUTE STATS, every live file with stats;
# the report (JSON and text) carries both results. A bad value in the block
# is refused at file:line naming the key, the table unchanged.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH

n=0
for name in $(fixture_tables); do
  [ -n "$(fixture_refusal "$name" compact)" ] && continue
  fixture_oracle "$name" snapshot > "$TEST_TMP/fs.json" 2>/dev/null || continue
  jsq --assert "$TEST_TMP/fs.json" 'd.files.some(f => f.deletionVector)' 2>/dev/null || continue
  t=$(copy_table "$name")
  oracle snapshot "$t" > "$TEST_TMP/s0.json"
  oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
  v0=$(jsq "$TEST_TMP/s0.json" 'd.version')
  rows=$(jsq "$TEST_TMP/s0.json" 'd.files.reduce((a, f) => a + (f.deletionVector ? f.deletionVector.cardinality : 0), 0)')
  cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  tables:
    - {name: lake.t, path: {uri: "$t"}}
  maintenance:
    schemas: [lake]
    purge: true
    analyze: {all: true}
YAML
  if ! "$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" --json > "$TEST_TMP/report.json" 2> "$TEST_TMP/err"; then
    fail "$name: maintain failed: $(head -c 600 "$TEST_TMP/err") $(head -c 600 "$TEST_TMP/report.json")"; continue
  fi
  expect "$name: report has purge (rows $rows) then analyze" node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ops = r.tables[0].ops;
    process.exit(Object.keys(ops).join() === "purge,analyze" &&
      ops.purge.metrics.numRowsPurged === +process.argv[2] &&
      ops.analyze.metrics.numFilesAnalyzed > 0 ? 0 : 1)' "$TEST_TMP/report.json" "$rows"
  oracle snapshot "$t" > "$TEST_TMP/s1.json"
  oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
  expect "$name: no DV left" jsq --assert "$TEST_TMP/s1.json" 'd.files.every(f => !f.deletionVector)'
  expect "$name: every live file has stats" jsq --assert "$TEST_TMP/s1.json" 'd.files.every(f => f.stats && f.stats.numRecords !== undefined)'
  expect "$name: fingerprint unchanged" test "$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name: verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
  expect "$name: two commits, REORG then COMPUTE STATS" node -e '
    const fs = require("fs"), [dir, v0] = [process.argv[1], +process.argv[2]];
    const ci = (v) => fs.readFileSync(`${dir}/_delta_log/${String(v).padStart(20, "0")}.json`, "utf8")
      .trim().split("\n").map(JSON.parse).find((l) => l.commitInfo).commitInfo;
    const a = ci(v0 + 1), b = ci(v0 + 2);
    process.exit(a.operation === "REORG" && a.operationParameters.applyPurge === "true" &&
      "predicate" in a.operationParameters && b.operation === "COMPUTE STATS" &&
      !fs.existsSync(`${dir}/_delta_log/${String(v0 + 3).padStart(20, "0")}.json`) ? 0 : 1)' "$t" "$v0"
  "$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" > "$TEST_TMP/text.out" 2>&1 || true
  expect "$name: text report: nothing left to purge, statistics recomputed" \
    grep -q "purge: nothing to rewrite; analyze: computed statistics of" "$TEST_TMP/text.out"
  n=$((n + 1))
done
expect "at least one DV fixture" test "$n" -gt 0

# bad values: refused at file:line naming the key, nothing touched
t=$(copy_table "$(fixture_tables | head -1)")
before=$(tree_digest "$t")
bad() {
  local want=$1 body=$2
  printf 'storage:\n  tables:\n    - {name: lake.t, path: {uri: "%s"}}\n  maintenance:\n%s\n' "$t" "$body" > "$TEST_TMP/bad.yaml"
  if "$LOOM_BIN" maintain --config "$TEST_TMP/bad.yaml" > "$TEST_TMP/bad.out" 2>&1; then
    fail "accepted: $body"
  else
    expect "refused at its line naming $want: $body" grep -q "bad.yaml:5:.*$want" "$TEST_TMP/bad.out"
  fi
}
bad "maintenance.purge" "    purge: sometimes"
bad "maintenance.purge.partition" "    purge: {partition: [nope]}"
bad "maintenance.analyze.all" "    analyze: {all: 1}"
bad "maintenance.analyze" "    analyze: {column: [a]}"
expect "bad configs left the table unchanged" test "$before" = "$(tree_digest "$t")"
finish
