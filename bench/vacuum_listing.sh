#!/usr/bin/env bash
# VACUUM full (dry run) over a table of 200,000 files in 1,000 partition
# directories, side by side with `find TABLE -type f | wc -l` — the floor
# for listing the same tree — alternating A B A B, as ratios of medians.
#   bench/vacuum_listing.sh [RUNS]     (default 5; BENCH_DIR default $HOME/loom-bench)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
loom="${LOOM_BIN:-$here/build/loom}"
runs="${1:-5}"
work="${BENCH_DIR:-$HOME/loom-bench}/vacuum-listing"
table="$work/table"

if [ ! -f "$table/.complete" ]; then
  rm -rf "$work"; mkdir -p "$table/_delta_log"
  # 200 live files referenced by the log, 199,800 orphans, all old
  cat > "$table/_delta_log/00000000000000000000.json" <<'JSON'
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"bench","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{},"createdTime":0}}
JSON
  for p in $(seq 0 999); do
    d="$table/p=$p"; mkdir -p "$d"
    (cd "$d" && touch $(seq -f "part-%05g-0000-c000.snappy.parquet" 0 199))
    echo "{\"add\":{\"path\":\"p=$p/part-00000-0000-c000.snappy.parquet\",\"partitionValues\":{\"p\":\"$p\"},\"size\":0,\"modificationTime\":0,\"dataChange\":true}}" >> "$table/_delta_log/00000000000000000000.json"
  done
  find "$table" -name '*.parquet' -exec touch -d '30 days ago' {} +
  touch "$table/.complete"
fi

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
measure() { # prints "wall_s max_rss_kib"
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2>/dev/null
  cat "$work/time"
}
: > "$work/loom.txt"; : > "$work/find.txt"
"$loom" vacuum "$table" --full --json > /dev/null   # warm-up, fills the page cache
find "$table" -type f | wc -l > /dev/null
for i in $(seq 1 "$runs"); do
  measure "$loom" vacuum "$table" --full --json >> "$work/loom.txt"
  measure bash -c "find '$table' -type f | wc -l" >> "$work/find.txt"
done
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).num_files)' "$work/out" 2>/dev/null || echo "?")
"$loom" vacuum "$table" --full --json > "$work/out"
n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).num_files)' "$work/out")
lw=$(cut -d' ' -f1 "$work/loom.txt" | median); lr=$(cut -d' ' -f2 "$work/loom.txt" | median)
fw=$(cut -d' ' -f1 "$work/find.txt" | median); fr=$(cut -d' ' -f2 "$work/find.txt" | median)
echo "vacuum full dry run: $n files to delete of 200,000 listed"
printf 'loom vacuum --full (dry): wall %.2f s, peak RSS %d KiB\n' "$lw" "$lr"
printf 'find -type f | wc -l:     wall %.2f s, peak RSS %d KiB\n' "$fw" "$fr"
awk -v a="$lw" -v b="$fw" 'BEGIN { printf "ratio loom/find wall: %.2f\n", (b > 0 ? a / b : 0) }'
