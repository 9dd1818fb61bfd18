#!/usr/bin/env bash
# Health advice for statistics (docs/health.md, min_files_without_stats): a
# table whose adds lost their statistics gets an `analyze` recommendation
# naming the count, `loom maintain --auto` runs analyze (and nothing it was
# not told to), afterwards every live file has statistics (oracle snapshot)
# and advise has nothing left for it; rows unchanged (oracle fingerprint).
# min_files_without_stats: 0 turns it off; above the count, not triggered.
source "$(dirname "$0")/../tools/lib.sh"
t="$TEST_TMP/lake/raw/nostats"
mkdir -p "$t"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  for (let i = 0; i < 6; i++)
    await conn.run(`COPY (SELECT (${i} * 1000 + r)::BIGINT AS id, (r % 7)::DOUBLE AS v FROM range(1000) t(r))
      TO ${"\x27"}${process.argv[1]}/f-${i}.parquet${"\x27"} (FORMAT parquet)`);
})().catch((e) => { console.error(e.message); process.exit(1); });' "$t"
expect "convert" "$LOOM_BIN" convert "$t"
# the adds lose their stats, as a writer that skips them leaves them
node -e '
const fs = require("fs"), f = process.argv[1] + "/_delta_log/" + "0".repeat(20) + ".json";
fs.writeFileSync(f, fs.readFileSync(f, "utf8").split("\n").map((l) => { if (!l.startsWith("{\"add\"")) return l;
  const a = JSON.parse(l); delete a.add.stats; return JSON.stringify(a); }).join("\n"));' "$t"
fp0=$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')
cat > "$TEST_TMP/s.yaml" <<YAML
storage:
  tables:
    - {name: raw.nostats, path: {uri: "$t"}}
  maintenance:
    schemas: [raw]
    auto: true
YAML
"$LOOM_BIN" advise "$t" --json > "$TEST_TMP/a0.json"
expect "analyze recommended for 6 files without statistics" jsq --assert "$TEST_TMP/a0.json" \
  '(a => a && a.recommended && a.value === 6 && a.threshold === 1)((d.advice || d.tables[0].advice).find(x => x.op === "analyze"))'
"$LOOM_BIN" advise "$t" --json --min-files-without-stats 7 > "$TEST_TMP/a1.json"
expect "not triggered below its threshold (7)" jsq --assert "$TEST_TMP/a1.json" \
  '!(d.advice || d.tables[0].advice).find(x => x.op === "analyze").recommended'
"$LOOM_BIN" advise "$t" --json --min-files-without-stats 0 > "$TEST_TMP/a2.json"
expect "off with 0" jsq --assert "$TEST_TMP/a2.json" \
  '!(d.advice || d.tables[0].advice).find(x => x.op === "analyze").recommended'
expect "maintain --auto" sh -c "'$LOOM_BIN' maintain --config '$TEST_TMP/s.yaml' --json > '$TEST_TMP/r.json'"
expect "auto ran analyze: $(jsq "$TEST_TMP/r.json" 'JSON.stringify(d.tables[0].ops.auto.metrics)')" \
  jsq --assert "$TEST_TMP/r.json" 'd.tables[0].ops.auto.metrics["analyze.ran"] === 1'
oracle snapshot "$t" > "$TEST_TMP/snap.json"
expect "every live file has statistics now (oracle)" jsq --assert "$TEST_TMP/snap.json" \
  'd.files.length === 6 && d.files.every(f => f.stats && Number.isInteger(+f.stats.numRecords))'
expect "rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
expect "verify clean" oracle verify "$t" > /dev/null
"$LOOM_BIN" advise "$t" --json > "$TEST_TMP/a3.json"
expect "nothing left to analyze" jsq --assert "$TEST_TMP/a3.json" \
  '!(d.advice || d.tables[0].advice).find(x => x.op === "analyze").recommended'
finish
