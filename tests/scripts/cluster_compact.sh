#!/usr/bin/env bash
# Liquid clustering (PROTOCOL.md "Clustered Table") by `loom compact` on a
# generated table (Parquet by DuckDB, converted, then given the clustering
# feature and domain delta.clustering on [u1, u2] as Spark's CLUSTER BY
# does): the rows are unchanged (oracle fingerprint), `verify` passes, the
# files are clustered - the oracle's zorder-quality over min/max stats:
# a 10% range on either column scans <= 45% of the files, a 10% x 10% box
# <= 25% (the floors of zorder_quality.sh: the same Hilbert machinery) -
# and every add carries clusteringProvider "liquid" with one ZCube's tags
# (ZCUBE_ID, ZCUBE_ZORDER_BY) and the commit operationParameters.clusterBy.
# Incremental as Delta: a second run writes nothing; after an append, the
# new file and the small ZCube are reclustered together while a file
# another engine clustered (clusteringProvider "other") is left alone;
# once the ZCube reaches the minimum cube size (100 x the target) only new
# files are clustered. `loom zorder` is refused, saying to run compact.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH
# 6 files of ROWS rows (~440 B a row); a target of 64 B a row gives 12+
# files and keeps the ZCube below 100 x the target. The sanitizer pass
# (LOOM_FIXTURE_SAMPLE set) runs a smaller table and leaves the quality
# floors, which need many files, to the regular pass.
ROWS=16000
SAMPLED=0
[ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ] && { ROWS=3000; SAMPLED=1; }
TARGET=$((ROWS * 64))

t="$TEST_TMP/clustered"
node "$TOOLS/zorder_gen.cjs" "$t" 6 $ROWS 0
"$LOOM_BIN" convert "$t" > /dev/null
node "$TOOLS/delta_edit.cjs" "$t" --features w:domainMetadata,w:clustering \
  --domain 'delta.clustering={"clusteringColumns":[["u1"],["u2"]]}' > /dev/null
fp() { oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows'; }
fp0=$(fp)
last_commit() { ls "$t/_delta_log/"*.json | sort | tail -1; }

# check_adds COMMIT: provider, one ZCube id, its columns, clusterBy
check_adds() {
  node -e '
const acts = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
const adds = acts.filter((a) => a.add).map((a) => a.add), ci = acts[0].commitInfo;
const bad = (m) => { console.error(m); process.exit(1); };
if (!adds.length) bad("no adds");
if (ci.operationParameters.clusterBy !== "[\"u1\",\"u2\"]") bad("clusterBy " + ci.operationParameters.clusterBy);
const ids = new Set(adds.map((a) => a.tags && a.tags.ZCUBE_ID));
for (const a of adds) {
  if (a.clusteringProvider !== "liquid") bad(`${a.path}: clusteringProvider ${a.clusteringProvider}`);
  if (!a.tags || !a.tags.ZCUBE_ID || a.tags.ZCUBE_ZORDER_BY !== "[\"u1\",\"u2\"]") bad(`${a.path}: tags ${JSON.stringify(a.tags)}`);
}
if (ids.size !== 1) bad(`one bin, ${ids.size} ZCube ids`);' "$1"
}

expect "clustering compaction" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/c1.json"
expect "fingerprint unchanged" test "$fp0" = "$(fp)"
if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "verify: $(head -c 600 "$TEST_TMP/v.json")"; fi
expect "adds: provider liquid, one ZCube, clusterBy" check_adds "$(last_commit)"
files=$(oracle zorder-quality "$t" --columns u1 | jsq - 'd.files')
qa=$(oracle zorder-quality "$t" --columns u1 | jsq - 'd.avg_file_fraction_scanned.toFixed(3)')
qb=$(oracle zorder-quality "$t" --columns u2 | jsq - 'd.avg_file_fraction_scanned.toFixed(3)')
qbox=$(oracle zorder-quality "$t" --columns u1,u2 | jsq - 'd.avg_file_fraction_scanned.toFixed(3)')
echo "clustered: $files files; scanned fraction u1 $qa, u2 $qb, box $qbox"
if [ $SAMPLED -eq 0 ]; then
  expect "12+ files ($files)" test "$files" -ge 12
  expect "u1 10% range scans $qa <= 0.45" node -e "process.exit($qa <= 0.45 ? 0 : 1)"
  expect "u2 10% range scans $qb <= 0.45" node -e "process.exit($qb <= 0.45 ? 0 : 1)"
  expect "box scans $qbox <= 0.25" node -e "process.exit($qbox <= 0.25 ? 0 : 1)"
fi

v=$(last_commit)
expect "second run" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/c2.json"
expect "second run writes nothing" test "$v" = "$(last_commit)"

# an append, and a file another engine clustered
node "$TOOLS/zorder_gen.cjs" "$TEST_TMP/more" 2 $ROWS 0
mkdir -p "$t/new" && cp "$TEST_TMP/more/part-00000.parquet" "$t/new/a.parquet" && cp "$TEST_TMP/more/part-00001.parquet" "$t/new/other.parquet"
node "$TOOLS/delta_edit.cjs" "$t" --add new/a.parquet=$ROWS > /dev/null
node "$TOOLS/delta_edit.cjs" "$t" --add new/other.parquet=$ROWS --add-provider other > /dev/null
fp0=$(fp)
cube=$(grep -c '"add"' "$v")
expect "after an append" "$LOOM_BIN" compact "$t" --target-size $TARGET --json > "$TEST_TMP/c3.json"
expect "fingerprint unchanged after the append's clustering" test "$fp0" = "$(fp)"
expect "the small ZCube ($cube files) and the new file reclustered, the other engine's file untouched" node -e '
const acts = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
const rm = acts.filter((a) => a.remove).map((a) => a.remove.path);
process.exit(rm.length === +process.argv[2] + 1 && rm.includes("new/a.parquet") && !rm.includes("new/other.parquet") ? 0 : 1);' "$(last_commit)" "$cube"
expect "adds of the append's clustering" check_adds "$(last_commit)"

# the ZCube is finished once it holds 100 x the target: only new files
cube_bytes=$(grep '"add"' "$(last_commit)" | node -e 'let s = 0; for (const l of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) s += JSON.parse(l).add.size; console.log(s)')
small=$((cube_bytes / 100))
cp "$TEST_TMP/more/part-00000.parquet" "$t/new/b.parquet"
node "$TOOLS/delta_edit.cjs" "$t" --add new/b.parquet=$ROWS > /dev/null
fp0=$(fp)
expect "with a finished ZCube" "$LOOM_BIN" compact "$t" --target-size $small --json > "$TEST_TMP/c4.json"
expect "fingerprint unchanged" test "$fp0" = "$(fp)"
expect "only the new file reclustered" node -e '
const acts = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(JSON.parse);
const rm = acts.filter((a) => a.remove).map((a) => a.remove.path);
process.exit(rm.length === 1 && rm[0] === "new/b.parquet" ? 0 : 1);' "$(last_commit)"
if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "verify at the end: $(head -c 600 "$TEST_TMP/v.json")"; fi

# Z-order on a clustered table: refused, saying why and what to run
before=$(tree_digest "$t")
if "$LOOM_BIN" zorder "$t" --columns u1,u2 > /dev/null 2> "$TEST_TMP/err"; then
  fail "Z-order of a clustered table succeeded"
else
  expect "the refusal says Delta refuses it and to run loom compact: $(head -c 300 "$TEST_TMP/err")" \
    sh -c "grep -q 'refuses ZORDER BY on clustered tables' '$TEST_TMP/err' && grep -q 'loom compact' '$TEST_TMP/err'"
fi
expect "refused table unchanged" test "$before" = "$(tree_digest "$t")"
finish
