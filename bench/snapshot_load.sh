#!/usr/bin/env bash
# Snapshot load of a table with 1,000,000 live files in a checkpoint plus
# 1,000 JSON commits after it: `loom inspect --json` side by side with the
# independent oracle (DuckDB reading the same checkpoint, Node parsing the
# same JSON commits), wall time and peak RSS, as ratios.
#   bench/snapshot_load.sh [FILES] [COMMITS] [RUNS]   (default 1000000 1000 3)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
loom="${LOOM_BIN:-$here/build/loom}"
files="${1:-1000000}"; commits="${2:-1000}"; runs="${3:-3}"
work="${BENCH_DIR:-$HOME/loom-bench}/snapshot-$files-$commits"
t="$work/table"

if [ ! -f "$work/.complete" ]; then
  rm -rf "$work"; mkdir -p "$t/_delta_log"
  # version 0: protocol, metadata and FILES adds (the files need not exist:
  # a snapshot load reads only the log)
  node -e '
    const fs = require("fs");
    const [dir, n] = [process.argv[1], +process.argv[2]];
    const out = fs.openSync(dir + "/_delta_log/00000000000000000000.json", "w");
    const schema = JSON.stringify({type: "struct", fields: [
      {name: "id", type: "long", nullable: true, metadata: {}},
      {name: "p", type: "integer", nullable: true, metadata: {}}]});
    let buf = JSON.stringify({protocol: {minReaderVersion: 1, minWriterVersion: 2}}) + "\n" +
      JSON.stringify({metaData: {id: "bench", format: {provider: "parquet", options: {}},
        schemaString: schema, partitionColumns: ["p"], configuration: {}, createdTime: 0}}) + "\n";
    for (let i = 0; i < n; i++) {
      const p = i % 1000;
      buf += JSON.stringify({add: {path: `p=${p}/part-${String(i).padStart(7, "0")}-c000.snappy.parquet`,
        partitionValues: {p: String(p)}, size: 1000 + i % 977, modificationTime: 1700000000000,
        dataChange: true, stats: `{"numRecords":${100 + i % 50},"minValues":{"id":${i * 100}},"maxValues":{"id":${i * 100 + 99}},"nullCount":{"id":0}}`}}) + "\n";
      if (buf.length > 1 << 22) { fs.writeSync(out, buf); buf = ""; }
    }
    fs.writeSync(out, buf); fs.closeSync(out);' "$t" "$files"
  "$loom" checkpoint "$t" > /dev/null
  rm "$t/_delta_log/00000000000000000000.json"   # the checkpoint must carry the state
  for v in $(seq 1 "$commits"); do
    printf '{"commitInfo":{"operation":"WRITE"}}\n{"add":{"path":"p=%d/new-%07d-c000.snappy.parquet","partitionValues":{"p":"%d"},"size":1000,"modificationTime":1700000000000,"dataChange":true}}\n' \
      $((v % 1000)) "$v" $((v % 1000)) > "$t/_delta_log/$(printf '%020d' "$v").json"
  done
  touch "$work/.complete"
fi

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
run() { /usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" > "$work/out" 2>/dev/null; cat "$work/time"; }
: > "$work/loom.txt"; : > "$work/oracle.txt"
cat "$t"/_delta_log/* > /dev/null
for i in $(seq 1 "$runs"); do
  run "$loom" inspect "$t" --json >> "$work/loom.txt"
  run "$here/tests/tools/oracle.sh" snapshot "$t" >> "$work/oracle.txt"
done
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).numFiles)' "$work/out")
for who in loom oracle; do
  printf '%-7s wall %6.2f s  cpu %6.2f s  peak RSS %6d MiB\n' "$who" \
    "$(cut -d' ' -f1 "$work/$who.txt" | median)" \
    "$(awk '{print $3 + $4}' "$work/$who.txt" | median)" \
    "$(( $(cut -d' ' -f2 "$work/$who.txt" | median | cut -d. -f1) / 1024 ))"
done
echo "oracle sees $n live files (expected $((files + commits)))"
awk -v a="$(cut -d' ' -f1 "$work/loom.txt" | median)" -v b="$(cut -d' ' -f1 "$work/oracle.txt" | median)" \
  'BEGIN { printf "ratio loom/oracle wall: %.3f\n", a / b }'
awk -v a="$(cut -d' ' -f2 "$work/loom.txt" | median)" -v b="$(cut -d' ' -f2 "$work/oracle.txt" | median)" \
  'BEGIN { printf "ratio loom/oracle peak RSS: %.3f\n", a / b }'
