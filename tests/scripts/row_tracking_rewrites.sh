#!/usr/bin/env bash
# Row tracking through rewrites (PROTOCOL.md "Row Tracking"): Z-order and
# then compaction of a table with deletion vectors and files from several
# commit versions keep every row's stable row id and row commit version, as
# the oracle's `rowids` computes them from the protocol's rules with DuckDB
# (materialized column if not null, else baseRowId + physical row index /
# defaultRowCommitVersion), independent of loom. The second rewrite reads
# the ids the first one materialized. Each OPTIMIZE commit gives its adds
# fresh, non-overlapping baseRowId ranges above the old high-water mark,
# defaultRowCommitVersion = its version, raises the delta.rowTracking mark
# to the highest fresh id and tags commitInfo delta.rowTracking.preserved;
# the materialized columns get no Delta stats. A table that enables row
# tracking but has a file without baseRowId is refused, unchanged.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH
ID_COL=_row-id-col-loomtest
VER_COL=_row-commit-version-col-loomtest

# table-with-dv-small (10 rows, 2 deleted by a DV) + three DuckDB files, in
# two commits that backfill row ids (versions 2 and 3); a fourth file is
# appended after the Z-order
t=$(copy_table table-with-dv-small)
node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  for (let i = 0; i < 4; i++)
    await conn.run(`COPY (SELECT ((r * 7919 + ${i} * 131) % 1000)::INTEGER AS value FROM range(40) t(r))
      TO ${"\x27"}${process.argv[1]}/gen-${i}.parquet${"\x27"} (FORMAT parquet)`);
})().catch((e) => { console.error(e.message); process.exit(1); });' "$t"
node "$TOOLS/delta_edit.cjs" "$t" --features w:rowTracking,w:domainMetadata \
  --set delta.enableRowTracking=true --set "delta.rowTracking.materializedRowIdColumnName=$ID_COL" \
  --set "delta.rowTracking.materializedRowCommitVersionColumnName=$VER_COL" \
  --add gen-0.parquet=40 --backfill-row-ids > /dev/null
node "$TOOLS/delta_edit.cjs" "$t" --add gen-1.parquet=40 --add gen-2.parquet=40 --backfill-row-ids > /dev/null

oracle rowids "$t" > "$TEST_TMP/r0.json"
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
expect "the generated table: 128 live rows, every row with an id, two commit versions" \
  jsq --assert "$TEST_TMP/r0.json" 'd.rows === 128 && d.distinctRowIds === 128 && d.rowsWithoutId === 0'

# judge STEP: rows, ids and versions as before; the new commit's actions
judge() {
  local step=$1 v
  oracle rowids "$t" > "$TEST_TMP/r.json"
  expect "$step: row ids and row commit versions unchanged (oracle rowids)" node -e '
const [a, b] = process.argv.slice(1).map((f) => JSON.parse(require("fs").readFileSync(f, "utf8")));
const k = (r) => [r.rows, r.distinctRowIds, r.rowsWithoutId, r.rowsWithoutCommitVersion, r.idHash, r.versionHash].join("/");
if (k(a) !== k(b)) { console.error(`${k(a)} -> ${k(b)}`); process.exit(1); }' "$TEST_TMP/r0.json" "$TEST_TMP/r.json"
  oracle fingerprint "$t" > "$TEST_TMP/fp.json"
  expect "$step: fingerprint unchanged" test "$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fp.json" 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "$step: verify: $(head -c 800 "$TEST_TMP/v.json")"; fi
  v=$(jsq "$TEST_TMP/fp.json" 'd.version')
  expect "$step: the commit's row tracking fields, domain and tag" node -e '
const fs = require("fs"), path = require("path");
const [log, v, idCol, verCol] = [process.argv[1], +process.argv[2], process.argv[3], process.argv[4]];
const name = (n) => path.join(log, String(n).padStart(20, "0") + ".json");
const acts = (n) => fs.readFileSync(name(n), "utf8").split("\n").filter(Boolean).map(JSON.parse);
let oldMark = -1; const live = new Map();
for (let n = 0; n < v; n++) for (const a of acts(n)) {
  if (a.domainMetadata && a.domainMetadata.domain === "delta.rowTracking") oldMark = JSON.parse(a.domainMetadata.configuration).rowIdHighWaterMark;
  if (a.add) live.set(a.add.path, a.add); if (a.remove) live.delete(a.remove.path);
}
const bad = (m) => { console.error(m); process.exit(1); };
const cur = acts(v), adds = cur.filter((a) => a.add).map((a) => a.add), removes = cur.filter((a) => a.remove).map((a) => a.remove);
const ci = cur[0].commitInfo;
if (!ci || ci.operation !== "OPTIMIZE") bad("not an OPTIMIZE commit");
if (!ci.tags || ci.tags["delta.rowTracking.preserved"] !== "true") bad("commitInfo.tags lacks delta.rowTracking.preserved");
if (!adds.length || !removes.length) bad("no adds or removes");
for (const r of removes) { const l = live.get(r.path); if (!l || r.baseRowId !== l.baseRowId || r.defaultRowCommitVersion !== l.defaultRowCommitVersion) bad(`remove ${r.path}: row tracking fields not carried`); }
const ranges = adds.map((a) => {
  const s = JSON.parse(a.stats);
  if (!Number.isInteger(a.baseRowId) || a.defaultRowCommitVersion !== v) bad(`add ${a.path}: baseRowId ${a.baseRowId}, defaultRowCommitVersion ${a.defaultRowCommitVersion} (want ${v})`);
  for (const k of ["minValues", "maxValues", "nullCount"]) for (const c of Object.keys(s[k] || {})) if (c === idCol || c === verCol) bad(`add ${a.path}: stats cover ${c}`);
  return [a.baseRowId, a.baseRowId + s.numRecords - 1];
}).sort((x, y) => x[0] - y[0]);
if (ranges[0][0] !== oldMark + 1) bad(`first fresh id ${ranges[0][0]}, old mark ${oldMark}`);
for (let i = 1; i < ranges.length; i++) if (ranges[i][0] !== ranges[i - 1][1] + 1) bad(`ranges ${JSON.stringify(ranges)} overlap or leave gaps`);
const dm = cur.filter((a) => a.domainMetadata && a.domainMetadata.domain === "delta.rowTracking");
if (dm.length !== 1 || JSON.parse(dm[0].domainMetadata.configuration).rowIdHighWaterMark !== ranges[ranges.length - 1][1])
  bad(`domain ${JSON.stringify(dm)} != last fresh id ${ranges[ranges.length - 1][1]}`);
console.log(`version ${v}: ${adds.length} adds, fresh ids ${ranges[0][0]}..${ranges[ranges.length - 1][1]}`);
' "$t/_delta_log" "$v" "$ID_COL" "$VER_COL"
}

# 1. Z-order (rows reordered; the DV file's deleted rows dropped; small
# files so there are several adds)
expect "zorder" "$LOOM_BIN" zorder "$t" --columns value --target-size 1KiB --json > "$TEST_TMP/z.json"
judge zorder
new_files() { # the files the last commit added, one a line
  jsq "$TEST_TMP/fp.json" 'd.version' > /dev/null
  grep -h '"add"' "$t/_delta_log/$(printf '%020d' "$(jsq "$TEST_TMP/fp.json" 'd.version')").json" |
    node -e 'for (const l of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) console.log(process.argv[1] + "/" + JSON.parse(l).add.path)' "$t"
}
expect "the new files hold every row's materialized id and version (DuckDB)" node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const files = process.argv.slice(3).map((f) => "\x27" + f + "\x27").join(",");
  const r = await conn.runAndReadAll(`SELECT count(*) AS n, count(${JSON.stringify(process.argv[1])}) AS i, count(${JSON.stringify(process.argv[2])}) AS c
    FROM read_parquet([${files}])`);
  const [n, i, c] = r.getRows()[0].map(Number);
  console.log(`${n} rows in new files, ${i} ids, ${c} versions`);
  process.exit(n === 128 && i === n && c === n ? 0 : 1);
})().catch((e) => { console.error(e.message); process.exit(2); });' "$ID_COL" "$VER_COL" $(new_files)
# 2. an append, then compaction of the Z-order's file (ids from its
# materialized columns) with the appended one (ids from baseRowId)
node "$TOOLS/delta_edit.cjs" "$t" --add gen-3.parquet=40 --backfill-row-ids > /dev/null
oracle rowids "$t" > "$TEST_TMP/r0.json"
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
expect "compaction" "$LOOM_BIN" compact "$t" --target-size 64MiB --json > "$TEST_TMP/c.json"
expect "compaction merged both files" jsq --assert "$TEST_TMP/c.json" 'd.num_files_removed === 2 && d.num_files_added === 1'
judge compaction

# Enabled row tracking and a file without baseRowId: refused, unchanged.
u=$(copy_table simple_table)
node "$TOOLS/delta_edit.cjs" "$u" --features w:rowTracking,w:domainMetadata --set delta.enableRowTracking=true \
  --set "delta.rowTracking.materializedRowIdColumnName=$ID_COL" \
  --set "delta.rowTracking.materializedRowCommitVersionColumnName=$VER_COL" > /dev/null
before=$(tree_digest "$u")
if "$LOOM_BIN" compact "$u" --target-size 64MiB > /dev/null 2> "$TEST_TMP/err"; then
  fail "compaction of a row tracking table whose files lack baseRowId succeeded"
else
  expect "the refusal names baseRowId" grep -q "baseRowId" "$TEST_TMP/err"
fi
expect "refused table unchanged" test "$before" = "$(tree_digest "$u")"
# Enabled without the column names: refused before anything is written.
w=$(copy_table table-with-dv-small)
node "$TOOLS/delta_edit.cjs" "$w" --features w:rowTracking,w:domainMetadata --set delta.enableRowTracking=true \
  --backfill-row-ids > /dev/null
before=$(tree_digest "$w")
if "$LOOM_BIN" zorder "$w" --columns value --json > /dev/null 2> "$TEST_TMP/err"; then
  fail "Z-order of a row tracking table without materialized column names succeeded"
else
  expect "the refusal names the property" grep -q "materializedRowIdColumnName" "$TEST_TMP/err"
fi
expect "refused table unchanged" test "$before" = "$(tree_digest "$w")"
finish
