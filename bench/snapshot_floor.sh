#!/usr/bin/env bash
# Issue 30's snapshot floor, at a size of your choice: a table of FILES live
# files named as Spark names them (part-NNNNN-<uuid>-c000.snappy.parquet),
# partitioned by date and region, deletion vectors on 1% of files, stats on
# four columns, in a checkpoint (classic, or V2 with sidecars: KIND=v2),
# plus COMMITS one-add commits after it; then the snapshot loaded into the
# compact file index (tests/snapshot_mem --index --stats-pass: index bytes
# and peak RSS per live file, a pass over every file's stats) and, for
# comparison, the load as it is today (snapshot_mem); then the compaction
# and Z-order dry runs' and health's peak RSS (LOOM_BIN=another loom for a
# before/after).
#   bench/snapshot_floor.sh [FILES] [COMMITS] [KIND]   (default 1000000 1000 classic)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${LOOM_BUILD_DIR:-$here/build}"
loom="${LOOM_BIN:-$build/loom}"
files="${1:-1000000}"; commits="${2:-1000}"; kind="${3:-classic}"
work="${BENCH_DIR:-$HOME/loom-bench}/floor-$files-$commits-$kind"
t="$work/table"

if [ ! -f "$work/.complete" ]; then
  rm -rf "$work"; mkdir -p "$t/_delta_log"
  node -e '
    const fs = require("fs"), crypto = require("crypto");
    const [dir, n, kind] = [process.argv[1], +process.argv[2], process.argv[3]];
    const out = fs.openSync(dir + "/_delta_log/00000000000000000000.json", "w");
    const schema = JSON.stringify({type: "struct", fields: [
      {name: "id", type: "long", nullable: true, metadata: {}},
      {name: "name", type: "string", nullable: true, metadata: {}},
      {name: "amount", type: "double", nullable: true, metadata: {}},
      {name: "ts", type: "timestamp", nullable: true, metadata: {}},
      {name: "date", type: "string", nullable: true, metadata: {}},
      {name: "region", type: "string", nullable: true, metadata: {}}]});
    const v2 = kind === "v2";
    const features = v2 ? ["deletionVectors", "v2Checkpoint"] : ["deletionVectors"];
    let buf = JSON.stringify({protocol: {minReaderVersion: 3, minWriterVersion: 7,
      readerFeatures: features, writerFeatures: features}}) + "\n" +
      JSON.stringify({metaData: {id: "floor", format: {provider: "parquet", options: {}},
        schemaString: schema, partitionColumns: ["date", "region"],
        configuration: Object.assign({"delta.enableDeletionVectors": "true"},
          v2 ? {"delta.checkpointPolicy": "v2"} : {}), createdTime: 0}}) + "\n";
    const z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    const regions = ["us-east", "us-west", "eu-central", "ap-south"];
    for (let i = 0; i < n; i++) {
      const date = "2026-" + String(1 + (i % 12)).padStart(2, "0") + "-" + String(1 + (i % 28)).padStart(2, "0");
      const region = regions[i % 4];
      const path = `date=${date}/region=${region}/part-${String(i % 200).padStart(5, "0")}-${crypto.randomUUID()}-c000.snappy.parquet`;
      const rows = 100000 + (i % 5000);
      const add = {path, partitionValues: {date, region}, size: 64 * 1024 * 1024 + i % 99991,
        modificationTime: 1760000000000 + i, dataChange: true,
        stats: JSON.stringify({numRecords: rows, minValues: {id: i * 100000, name: "a" + i, amount: -1.5, ts: "2026-01-01T00:00:00.000Z"},
          maxValues: {id: i * 100000 + rows, name: "z" + i, amount: 99999.25, ts: "2026-12-31T23:59:59.999Z"},
          nullCount: {id: 0, name: i % 7, amount: 0, ts: 0}})};
      if (i % 100 === 7) {
        let p = ""; for (let k = 0; k < 20; k++) p += z85[(i * 31 + k * 17) % 85];
        add.deletionVector = {storageType: "u", pathOrInlineDv: p, offset: 1, sizeInBytes: 34, cardinality: 1 + i % 9};
      }
      buf += JSON.stringify({add}) + "\n";
      if (buf.length > 1 << 22) { fs.writeSync(out, buf); buf = ""; }
    }
    fs.writeSync(out, buf); fs.closeSync(out);' "$t" "$files" "$kind"
  "$loom" checkpoint "$t" > /dev/null
  rm "$t/_delta_log/00000000000000000000.json"   # the checkpoint must carry the state
  for v in $(seq 1 "$commits"); do
    printf '{"commitInfo":{"operation":"WRITE"}}\n{"add":{"path":"date=2027-01-01/region=us-east/part-00000-%08x-0000-4000-8000-%012x-c000.snappy.parquet","partitionValues":{"date":"2027-01-01","region":"us-east"},"size":1000,"modificationTime":1770000000000,"dataChange":true,"stats":"{\\"numRecords\\":%d}"}}\n' \
      "$v" "$v" "$v" > "$t/_delta_log/$(printf '%020d' "$v").json"
  done
  touch "$work/.complete"
fi
echo "checkpoint files: $(ls "$t/_delta_log" | grep -c '\.checkpoint\.'), sidecars: $(ls "$t/_delta_log/_sidecars" 2>/dev/null | wc -l)"
echo "== compact file index"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$build/tests/snapshot_mem" "$t" --index --stats-pass
echo "== today's snapshot (stats kept)"
/usr/bin/time -f "wall %e s, peak RSS %M KiB" "$build/tests/snapshot_mem" "$t" | tail -3
# compaction and Z-order planning read the index: issue 30 allows the
# snapshot's peak (above) + 256 MiB; a dry run plans and writes nothing
echo "== planning: loom compact --dry-run, loom zorder --columns id --dry-run"
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" "$loom" compact "$t" --dry-run | tail -1
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" "$loom" zorder "$t" --columns id --dry-run | tail -1
# health reads the index too; with --zorder-columns it reads every file's
# stats for the clustering depth, one partition at a time
echo "== health: loom health --json, and with --zorder-columns id,name"
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" "$loom" health "$t" --json > /dev/null
/usr/bin/time -f "wall %e s, user %U s, peak RSS %M KiB" "$loom" health "$t" --json --zorder-columns id,name > /dev/null
