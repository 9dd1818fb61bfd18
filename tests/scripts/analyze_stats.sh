#!/usr/bin/env bash
# loom analyze (COMPUTE DELTA STATISTICS, issue 32) on every fixture table
# and on generated ones, judged by the oracle and DuckDB:
#  - `analyze --all`: the fingerprint unchanged, verify clean (numRecords,
#    nullCount, min, max against DuckDB for every stats column, wide bounds
#    for files with a DV), string bounds exactly Delta's truncation
#    (tests/tools/analyze_check.cjs); one COMPUTE STATS commit of adds with
#    dataChange=false re-stating the same live files (path, size, partition
#    values, DV, row tracking fields, tags kept); a second plain run does
#    nothing;
#  - a table converted from Parquet whose adds lost their stats, and one
#    whose writer logged only numRecords: the dry run lists every file, the
#    run gives them stats, and data skipping appears (the oracle's
#    zorder-quality: no file without stats, a lower scanned fraction);
#  - stats columns changed after the fact (delta.dataSkippingStatsColumns):
#    only files missing the new column are recomputed; --columns narrows;
#  - bad input refused, naming it, the table unchanged.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH

fp() { oracle fingerprint "$1" | node "$TOOLS/jsq.cjs" - 'd.hash + "/" + d.rows'; }

# the live files without their stats: what must not change
files_key() {
  jsq "$1" 'JSON.stringify(d.files.map(f => [f.path, f.size, f.partitionValues, f.deletionVector]))'
}

for name in $(fixture_tables); do
  [ -n "$(fixture_refusal "$name" compact)" ] && continue
  fixture_oracle "$name" snapshot > "$TEST_TMP/s0.json" 2> /dev/null || continue
  [ "$(jsq "$TEST_TMP/s0.json" 'd.files.length')" -gt 0 ] || continue
  t=$(copy_table "$name")
  fp0=$(fixture_oracle "$name" fingerprint | node "$TOOLS/jsq.cjs" - 'd.hash + "/" + d.rows')
  v0=$(jsq "$TEST_TMP/s0.json" 'd.version')
  if ! "$LOOM_BIN" analyze "$t" --all --json > "$TEST_TMP/run.json" 2> "$TEST_TMP/err"; then
    fail "$name: analyze --all failed: $(head -c 400 "$TEST_TMP/err")"; continue
  fi
  pass
  oracle snapshot "$t" > "$TEST_TMP/s1.json"
  expect "$name: fingerprint unchanged" test "$fp0" = "$(fp "$t")"
  if oracle verify "$t" > "$TEST_TMP/verify.json"; then pass; else fail "$name: verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
  if node "$TOOLS/analyze_check.cjs" "$t" "$TEST_TMP/s1.json" > /dev/null 2> "$TEST_TMP/err"; then pass; else fail "$name: string stats: $(head -c 600 "$TEST_TMP/err")"; fi
  expect "$name: the same live files (paths, sizes, partition values, DVs)" \
    test "$(files_key "$TEST_TMP/s0.json")" = "$(files_key "$TEST_TMP/s1.json")"
  expect "$name: every live file has stats with numRecords" \
    jsq --assert "$TEST_TMP/s1.json" 'd.files.every(f => f.stats && Number.isInteger(+f.stats.numRecords))'
  n=$(jsq "$TEST_TMP/run.json" 'd.files_analyzed')
  expect "$name: every file analyzed" test "$n" = "$(jsq "$TEST_TMP/s0.json" 'd.files.length')"
  commit="$t/_delta_log/$(printf '%020d' "$((v0 + 1))").json"
  expect "$name: one COMPUTE STATS commit of metadata-only adds, fields kept" node -e '
    const fs = require("fs");
    const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
    const s0 = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    const ci = lines.find((l) => l.commitInfo).commitInfo;
    const adds = lines.filter((l) => l.add).map((l) => l.add);
    const ok = ci.operation === "COMPUTE STATS" && !lines.some((l) => l.remove || l.metaData || l.protocol) &&
      adds.length === s0.files.length && adds.every((a) => a.dataChange === false && a.stats);
    process.exit(ok ? 0 : 1)' "$commit" "$TEST_TMP/s0.json"
  expect "$name: row tracking fields and tags kept" node -e '
    // every add re-states a live file of the previous version as it was
    const fs = require("fs"), path = require("path");
    const [log, v] = [process.argv[1], +process.argv[2]];
    const live = new Map();
    for (const n of fs.readdirSync(log).filter((n) => /^\d{20}\.json$/.test(n)).sort()) {
      if (+n.slice(0, 20) >= v) break;
      for (const l of fs.readFileSync(path.join(log, n), "utf8").split("\n").filter(Boolean).map(JSON.parse)) {
        if (l.add) live.set(l.add.path, l.add);
        if (l.remove) live.delete(l.remove.path);
      }
    }
    const cp = fs.readdirSync(log).some((n) => /checkpoint/.test(n)); // older state may sit in a checkpoint
    for (const l of fs.readFileSync(path.join(log, String(v).padStart(20, "0") + ".json"), "utf8").split("\n").filter(Boolean).map(JSON.parse)) {
      if (!l.add) continue;
      const o = live.get(l.add.path);
      if (!o) { if (cp) continue; process.exit(1); }
      // (a null field is an absent one: delta-rs writes nulls, loom omits them)
      const norm = (x) => JSON.stringify(x === null || x === undefined ? undefined : x);
      for (const k of ["size", "baseRowId", "defaultRowCommitVersion", "clusteringProvider"])
        if (norm(o[k]) !== norm(l.add[k])) { console.error(k); process.exit(1); }
      if (JSON.stringify(o.tags || {}) !== JSON.stringify(l.add.tags || {})) process.exit(1);
      if (JSON.stringify(o.deletionVector || null) !== JSON.stringify(l.add.deletionVector || null)) process.exit(1);
    }' "$t/_delta_log" "$((v0 + 1))"
  mid=$(tree_digest "$t")
  expect "$name: a second run" "$LOOM_BIN" analyze "$t" --json > "$TEST_TMP/again.json"
  expect "$name: a second run has nothing to do" jsq --assert "$TEST_TMP/again.json" 'd.files_analyzed === 0 && d.version === -1'
  expect "$name: a second run writes nothing" test "$mid" = "$(tree_digest "$t")"
done

# generated: 10 files, each an id range (so stats skip), converted, then
# the adds' stats dropped (a conversion without stats)
g="$TEST_TMP/nostats"
mkdir -p "$g"
node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  for (let i = 0; i < 10; i++)
    await conn.run(`COPY (SELECT (${i} * 1000 + r)::BIGINT AS id, (r % 97)::DOUBLE AS v,
        CASE WHEN r % 13 = 0 THEN NULL ELSE repeat(chr(97 + ${i}), 40) || r::VARCHAR END AS s
      FROM range(1000) t(r)) TO ${"\x27"}${process.argv[1]}/f-${i}.parquet${"\x27"} (FORMAT parquet)`);
})().catch((e) => { console.error(e.message); process.exit(1); });' "$g"
"$LOOM_BIN" convert "$g" > /dev/null
node -e '
const fs = require("fs"), f = process.argv[1] + "/_delta_log/" + "0".repeat(20) + ".json";
fs.writeFileSync(f, fs.readFileSync(f, "utf8").split("\n").map((l) => { if (!l.startsWith("{\"add\"")) return l;
  const a = JSON.parse(l); delete a.add.stats; return JSON.stringify(a); }).join("\n"));' "$g"
oracle zorder-quality "$g" --columns id --queries 50 > "$TEST_TMP/q0.json"
fp0=$(fp "$g")
expect "no stats: no file skipped before" jsq --assert "$TEST_TMP/q0.json" 'd.files_without_stats === 10 && d.avg_fraction_scanned === 1'
expect "no stats: dry run" "$LOOM_BIN" analyze "$g" --dry-run --json > "$TEST_TMP/dry.json"
expect "no stats: the dry run lists every file and commits nothing" jsq --assert "$TEST_TMP/dry.json" 'd.files_analyzed === 10 && d.version === -1'
expect "no stats: analyze" "$LOOM_BIN" analyze "$g" --json > "$TEST_TMP/run.json"
expect "no stats: every file analyzed" jsq --assert "$TEST_TMP/run.json" 'd.files_analyzed === 10 && d.version === 1'
oracle zorder-quality "$g" --columns id --queries 50 > "$TEST_TMP/q1.json"
expect "no stats: data skipping now ($(jsq "$TEST_TMP/q1.json" 'd.avg_fraction_scanned') of the rows scanned)" \
  jsq --assert "$TEST_TMP/q1.json" 'd.files_without_stats === 0 && d.avg_fraction_scanned < 0.4'
expect "no stats: fingerprint unchanged" test "$fp0" = "$(fp "$g")"
if oracle verify "$g" > "$TEST_TMP/verify.json"; then pass; else fail "no stats: verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi
oracle snapshot "$g" > "$TEST_TMP/g1.json"
if node "$TOOLS/analyze_check.cjs" "$g" "$TEST_TMP/g1.json" > /dev/null 2> "$TEST_TMP/err"; then pass; else fail "no stats: long strings cut as Delta: $(head -c 600 "$TEST_TMP/err")"; fi

# stats columns changed after the fact: only `v` was indexed, now `s` too
w="$TEST_TMP/narrow"
cp -r "$g" "$w"
node "$TOOLS/delta_edit.cjs" "$w" --set delta.dataSkippingStatsColumns=id > /dev/null
expect "narrow stats columns: --all" "$LOOM_BIN" analyze "$w" --all --json > /dev/null
oracle snapshot "$w" > "$TEST_TMP/w1.json"
expect "narrow stats columns: stats hold id only" jsq --assert "$TEST_TMP/w1.json" \
  'd.files.every(f => JSON.stringify(Object.keys(f.stats.nullCount)) === "[\"id\"]")'
node "$TOOLS/delta_edit.cjs" "$w" --set delta.dataSkippingStatsColumns=id,s > /dev/null
expect "wider stats columns: --columns id finds nothing missing" sh -c \
  "'$LOOM_BIN' analyze '$w' --columns id --json | node '$TOOLS/jsq.cjs' --assert - 'd.files_analyzed === 0'"
expect "wider stats columns: every file misses s" "$LOOM_BIN" analyze "$w" --json > "$TEST_TMP/w.json"
expect "wider stats columns: all 10 recomputed" jsq --assert "$TEST_TMP/w.json" 'd.files_analyzed === 10'
oracle snapshot "$w" > "$TEST_TMP/w2.json"
expect "wider stats columns: stats hold id and s" jsq --assert "$TEST_TMP/w2.json" \
  'd.files.every(f => JSON.stringify(Object.keys(f.stats.nullCount).sort()) === "[\"id\",\"s\"]" && "s" in f.stats.minValues)'
if oracle verify "$w" > "$TEST_TMP/verify.json"; then pass; else fail "wider stats columns: verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi

# a writer that logged only numRecords (delta_edit --add): exactly that
# file is picked, the DV file beside it (complete stats) is left alone
d=$(copy_table table-with-dv-small)
cp "$(ls "$d"/part-*.parquet | head -1)" "$d/extra.parquet"
node "$TOOLS/delta_edit.cjs" "$d" --add extra.parquet=10 > /dev/null
expect "numRecords only: analyze" "$LOOM_BIN" analyze "$d" --json > "$TEST_TMP/d.json"
expect "numRecords only: exactly the file without column stats" \
  jsq --assert "$TEST_TMP/d.json" 'd.files_analyzed === 1 && d.files[0] === "extra.parquet"'
if oracle verify "$d" > "$TEST_TMP/verify.json"; then pass; else fail "numRecords only: verify: $(head -c 800 "$TEST_TMP/verify.json")"; fi

# bad input: refused, named, nothing changed
before=$(tree_digest "$g")
rc=0; "$LOOM_BIN" analyze "$g" --columns nope > /dev/null 2> "$TEST_TMP/err" || rc=$?
expect "an unknown column is refused (exit 2) naming it: $(head -c 200 "$TEST_TMP/err")" sh -c "test $rc = 2 && grep -q nope '$TEST_TMP/err'"
rc=0; "$LOOM_BIN" analyze "$g" --columns , > /dev/null 2> "$TEST_TMP/err" || rc=$?
expect "an empty column list is a usage error" test "$rc" = 2
rc=0; "$LOOM_BIN" analyze "$TEST_TMP/no-such-table" > /dev/null 2> "$TEST_TMP/err" || rc=$?
expect "a missing table fails (exit 1)" test "$rc" = 1
expect "bad input left the table unchanged" test "$before" = "$(tree_digest "$g")"
finish
