#!/usr/bin/env bash
# Issue 28: health from the log alone, advice at its thresholds, auto mode.
# A generated append-heavy table (tests/tools/gen_appends.cjs: 160 blind
# appends into 4 partitions). Every health figure is recomputed here
# independently from the oracle's snapshot (its own log replay) and the
# _delta_log listing: files, bytes, small files, the size histogram,
# files without stats, per-partition counts, tombstones, commits since the
# checkpoint, and the clustering depth of 'id' (an O(n^2) pairwise count,
# not loom's sorted one). Each recommendation flips exactly at its
# threshold. `loom maintain --auto` then runs what was recommended and
# nothing else; afterwards `loom advise` recommends nothing, and the rows
# are unchanged (oracle fingerprint).
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH

t="$TEST_TMP/lake/raw/appends"
mkdir -p "$(dirname "$t")"
T=131072
node "$TOOLS/gen_appends.cjs" "$t" 0 1
expect "convert" "$LOOM_BIN" convert "$t" --partition-by p > /dev/null
node "$TOOLS/gen_appends.cjs" "$t" 60 7
oracle snapshot "$t" > "$TEST_TMP/s0.json"
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"

expect "health --json" "$LOOM_BIN" health "$t" --json --target-size $T --zorder-columns id > "$TEST_TMP/h.json"
expect "health figures equal the oracle's" node -e '
  const fs = require("fs"), path = require("path");
  const s = JSON.parse(fs.readFileSync(process.argv[1])), h = JSON.parse(fs.readFileSync(process.argv[2])).health;
  const T = +process.argv[3], logdir = path.join(process.argv[4], "_delta_log");
  const bad = [];
  const eq = (what, a, b) => { if (a !== b) bad.push(`${what}: loom ${a}, oracle ${b}`); };
  const bucket = n => n <= 1 ? 0 : Math.floor(Math.log2(n));
  const fig = files => {
    const r = { files: files.length, bytes: 0, small: 0, nostats: 0, hist: {} };
    for (const f of files) {
      r.bytes += f.size;
      if (f.size < T / 2) r.small++;
      if (!f.stats || f.stats.numRecords === undefined) r.nostats++;
      const k = bucket(f.size); r.hist[k] = (r.hist[k] || 0) + 1;
    }
    return r;
  };
  const check = (where, o, l) => {
    eq(where + " files", l.files, o.files); eq(where + " bytes", l.bytes, o.bytes);
    eq(where + " small files", l.smallFiles, o.small); eq(where + " files without stats", l.filesWithoutStats, o.nostats);
    const lh = {}; for (const b of l.histogram) lh[b.minBytes ? Math.log2(b.minBytes) : 0] = b.files;
    eq(where + " histogram", JSON.stringify(lh), JSON.stringify(o.hist));
  };
  check("table", fig(s.files), h.table);
  // depth of id per partition, pairwise
  const parts = {};
  for (const f of s.files) (parts["p=" + f.partitionValues.p] ||= []).push(f);
  eq("partitions", h.partitions.length, Object.keys(parts).length);
  for (const p of h.partitions) {
    const files = parts[p.partition] || [];
    check(p.partition, fig(files), p);
    const r = files.filter(f => f.stats && f.stats.minValues && f.stats.minValues.id !== undefined)
                   .map(f => [Number(f.stats.minValues.id), Number(f.stats.maxValues.id)]);
    let tot = 0;
    for (const a of r) for (const b of r) if (b[0] <= a[1] && a[0] <= b[1]) tot++;
    const depth = r.length ? tot / r.length : 0;
    if (Math.abs(p.clustering[0].depth - depth) > 1e-6) bad.push(`${p.partition} depth: loom ${p.clustering[0].depth}, oracle ${depth}`);
  }
  eq("tombstones", h.tombstones.expiredFiles + h.tombstones.retainedFiles, s.tombstones.length);
  const ck = s.checkpoint ? s.checkpoint.version : -1;
  const commits = fs.readdirSync(logdir).filter(n => /^\d{20}\.json$/.test(n) && +n.slice(0, 20) > ck);
  eq("commits since checkpoint", h.log.commitsSinceCheckpoint, commits.length);
  eq("json bytes since checkpoint", h.log.jsonBytesSinceCheckpoint,
     commits.reduce((a, n) => a + fs.statSync(path.join(logdir, n)).size, 0));
  if (bad.length) { console.log(bad.join("\n")); process.exit(1); }' "$TEST_TMP/s0.json" "$TEST_TMP/h.json" $T "$t"

# each recommendation at its threshold: recommended at the figure, not above it
advice() { "$LOOM_BIN" advise "$t" --json --target-size $T "$@"; }
rec() { jsq - "d.advice.find(a => a.op === '$1').recommended"; }
value() { jsq "$TEST_TMP/h.json" "d.advice.find(a => a.op === '$1').value"; }
nc=$(value compact); ncommits=$(value checkpoint)
expect "compactable files found" test "$nc" -ge 2
expect "compact at its threshold" test "$(advice --min-small-files "$nc" | rec compact)" = true
expect "no compact above it" test "$(advice --min-small-files $((nc + 1)) | rec compact)" = false
expect "checkpoint at its threshold" test "$(advice --checkpoint-commits "$ncommits" | rec checkpoint)" = true
expect "no checkpoint above it" test "$(advice --checkpoint-commits $((ncommits + 1)) --checkpoint-json-bytes 0 | rec checkpoint)" = false
# clustering depth: the generated appends carry no min/max (only the seed
# files do), so judge it on a fixture with full stats (a copy: fixtures are
# never touched), against a pairwise count over the oracle's snapshot
c="$TEST_TMP/covid"; cp -r "$LOOM_FIXTURES_DIR/delta/COVID-19_NYT" "$c"
oracle snapshot "$c" > "$TEST_TMP/sc.json"
"$LOOM_BIN" advise "$c" --json --zorder-columns cases,state > "$TEST_TMP/ac.json"
"$LOOM_BIN" health "$c" --json --zorder-columns cases,state > "$TEST_TMP/hc.json"
expect "depth equals the pairwise count" node -e '
  const fs = require("fs"), s = JSON.parse(fs.readFileSync(process.argv[1])), h = JSON.parse(fs.readFileSync(process.argv[2])).health;
  for (const col of h.clustering) {
    const r = s.files.filter(f => f.stats && f.stats.minValues[col.column] !== undefined)
                     .map(f => [f.stats.minValues[col.column], f.stats.maxValues[col.column]]);
    let tot = 0; for (const a of r) for (const b of r) if (b[0] <= a[1] && a[0] <= b[1]) tot++;
    if (Math.abs(col.depth - tot / r.length) > 1e-6 || col.filesWithMinMax !== r.length) {
      console.log(col, tot / r.length, r.length); process.exit(1); }
  }' "$TEST_TMP/sc.json" "$TEST_TMP/hc.json"
depth=$(jsq "$TEST_TMP/ac.json" "d.advice.find(a => a.op === 'z_order').value")
expect "columns overlap" node -e "process.exit(+process.argv[1] > 1.5 ? 0 : 1)" "$depth"
crec() { "$LOOM_BIN" advise "$c" --json --zorder-columns cases,state "$@" | jsq - "d.advice.find(a => a.op === 'z_order').recommended"; }
expect "z_order above the depth threshold" test "$(crec --max-clustering-depth 1.5)" = true
expect "no z_order at the depth" test "$(crec --max-clustering-depth "$depth")" = false
expect "no vacuum: no tombstone past the retention" test "$(advice | rec vacuum)" = false
if "$LOOM_BIN" advise "$t" --dv-purge-ratio 0.01 > "$TEST_TMP/bad.txt" 2>&1; then fail "a purge ratio below compaction's is refused"; else pass; fi

# auto: compaction (>= min files) and a checkpoint (61 commits), nothing else
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  defaults:
    table_path: {uri: $TEST_TMP/lake}
  tables:
    - name: raw.appends
      path: {uri: $t, target_file_size: $T}
  maintenance:
    schemas: [raw]
    vacuum: {dry_run: false}
YAML
"$LOOM_BIN" advise "$t" --json --target-size $T --min-small-files 2 > /dev/null
expect "maintain --auto" "$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" --auto --json > "$TEST_TMP/r.json"
expect "auto compacted and checkpointed, skipped the rest with reasons" jsq --assert "$TEST_TMP/r.json" '
  (m => m["compact.ran"] === (+'"$nc"' >= 50 ? 1 : 0) && m["z_order.ran"] === 0 && m["vacuum.ran"] === 0 &&
        m["checkpoint.ran"] === 1 && m["cleanup_logs.ran"] === 0)(d.tables[0].ops.auto.metrics) &&
  d.tables[0].ops.auto.decisions.length === 6 && d.tables[0].ops.auto.decisions.every(s => /: (ran|skipped)/.test(s))'
expect "advise has nothing left" test "$("$LOOM_BIN" advise "$t" --json --target-size $T | jsq - 'd.advice.filter(a => a.recommended).map(a => a.op).join()')" = ""
oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
expect "rows unchanged" test "$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
expect "a table without _delta_log is a clear error" bash -c "! '$LOOM_BIN' health '$TEST_TMP/nowhere' 2> '$TEST_TMP/e.txt' && grep -q nowhere '$TEST_TMP/e.txt'"

# a path removed and later added again is live: vacuum can never delete it,
# so it is no tombstone to count (delta/table-with-dv-small has one: its
# live file's path is also in a remove of its log); before, the vacuum
# advice for it never cleared
dv=$(copy_table table-with-dv-small)
oracle snapshot "$dv" > "$TEST_TMP/dv.json"
readded=$(node -e '
const fs = require("fs"), dir = process.argv[1] + "/_delta_log";
const live = new Set(JSON.parse(fs.readFileSync(process.argv[2], "utf8")).files.map(f => f.path));
let n = 0;
for (const f of fs.readdirSync(dir).filter(f => /^\d{20}\.json$/.test(f)))
  for (const l of fs.readFileSync(dir + "/" + f, "utf8").split("\n").filter(Boolean)) {
    const a = JSON.parse(l);
    if (a.remove && live.has(decodeURIComponent(a.remove.path))) n++;
  }
console.log(n);' "$dv" "$TEST_TMP/dv.json")
expect "the fixture has a removed path that is live again ($readded)" test "$readded" -ge 1
expect "no vacuum advised for it" test "$("$LOOM_BIN" advise "$dv" --json | jsq - 'd.advice.find(a => a.op === "vacuum").value + "/" + d.advice.find(a => a.op === "vacuum").recommended')" = "0/false"
# its DV file purged by a compaction: the path is now removed twice, an
# old remove past the retention and the new one within it; vacuum goes by
# the newest (it may not delete the file yet), so health counts none
expect "compaction purges the DV file" "$LOOM_BIN" compact "$dv" --target-size 1MiB
removes=$(cat "$dv"/_delta_log/*.json | node -e '
const seen = {};
for (const l of require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const a = JSON.parse(l);
  if (a.remove) seen[a.remove.path] = (seen[a.remove.path] || 0) + 1;
}
console.log(Math.max(0, ...Object.values(seen)));')
expect "a path is removed twice in the log ($removes)" test "$removes" -ge 2
expect "still no vacuum advised" test "$("$LOOM_BIN" advise "$dv" --json | jsq - 'd.advice.find(a => a.op === "vacuum").value + "/" + d.advice.find(a => a.op === "vacuum").recommended')" = "0/false"

echo "health_advice_auto: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
