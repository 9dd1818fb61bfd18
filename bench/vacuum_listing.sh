#!/usr/bin/env bash
# VACUUM FULL (dry run) over a local table of FILES empty files in DIRS
# partition directories (issue 30: "locally 10,000,000 files: at most 1.3x
# a find that stats every file"), side by side in one run, alternating:
#
#   [FILES=200000] [DIRS=1000] bench/vacuum_listing.sh [RUNS]   (default 5)
#
#  - loom-summary: `loom vacuum TABLE --full --summary` (the counts only:
#                the nightly job's output; the floor is measured on it)
#  - loom-json:  `loom vacuum TABLE --full --json` (every path to delete, as JSON)
#  - loom-human: `loom vacuum TABLE --full` (a line per path, then the summary)
#  - loom-base:  `$LOOM_BASE_BIN vacuum TABLE --full`, another build (before
#                a change), when LOOM_BASE_BIN is set
#  - find-stat:  `find TABLE -type f -printf '%s %T@ %p\n'` (stats every
#                file, as VACUUM must for size and mtime: the floor)
#  - find:       `find TABLE -type f` (no stat: the directory entries' types)
# every one writing to /dev/null; wall, user, sys, peak RSS per run and
# medians, and loom / find-stat as the median of per-round ratios. One
# file per directory is live (in the log), every other is 30 days old, so
# FILES - DIRS are to delete; the count is checked against find's.
# The tree (bench/many_files.c) is kept under BENCH_DIR (default
# $HOME/loom-bench) for reruns; KEEP=0 deletes it at the end (10,000,000
# files take 10 M inodes: check `df -i` first).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
loom="${LOOM_BIN:-$here/build/loom}"
runs="${1:-5}"
files="${FILES:-200000}"
dirs="${DIRS:-1000}"
work="${BENCH_DIR:-$HOME/loom-bench}/vacuum-listing-$files"
table="$work/table"

if [ ! -f "$table/.complete" ]; then
  rm -rf "$work"; mkdir -p "$table/_delta_log"
  cc -O2 -Wall -Wextra -pthread -o "$work/many_files" "$here/bench/many_files.c"
  cat > "$table/_delta_log/00000000000000000000.json" <<'JSON'
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"bench","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"x\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":\"p\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]}","partitionColumns":["p"],"configuration":{},"createdTime":0}}
JSON
  # the first file of each directory is live
  awk -v d="$dirs" 'BEGIN { for (p = 0; p < d; p++)
    printf "{\"add\":{\"path\":\"p=%d/part-00000-0000-c000.snappy.parquet\",\"partitionValues\":{\"p\":\"%d\"},\"size\":0,\"modificationTime\":0,\"dataChange\":true}}\n", p, p }' \
    >> "$table/_delta_log/00000000000000000000.json"
  echo "creating $files files in $dirs directories ..." >&2
  start=$(date +%s)
  "$work/many_files" "$table" "$files" "$dirs" 30
  echo "created in $(( $(date +%s) - start )) s" >&2
  touch "$table/.complete"
fi

run_engine() { # ENGINE: one run's command, output to /dev/null
  case "$1" in
    loom-summary) "$loom" vacuum "$table" --full --summary ;;
    loom-json) "$loom" vacuum "$table" --full --json ;;
    loom-base) "$LOOM_BASE_BIN" vacuum "$table" --full ;;
    loom-human) "$loom" vacuum "$table" --full ;;
    find-stat) find "$table" -type f -printf '%s %T@ %p\n' ;;
    find) find "$table" -type f ;;
  esac
}
engines="${ENGINES:-find-stat loom-summary loom-json loom-human find${LOOM_BASE_BIN:+ loom-base}}"
results="$work/results.jsonl"; : > "$results"
# warm-up (WARMUP=0: none): the page cache holds every directory and inode
if [ "${WARMUP:-1}" != 0 ]; then
  for e in find-stat loom-summary; do run_engine "$e" > /dev/null; done
fi
for r in $(seq 1 "$runs"); do
  for e in $engines; do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time" bash -c "$(declare -f run_engine); loom='$loom' table='$table' LOOM_BASE_BIN='${LOOM_BASE_BIN:-}' run_engine $e" > /dev/null
    read -r wall user sys rss < "$work/time"
    echo "{\"engine\":\"$e\",\"round\":$r,\"wall_s\":$wall,\"user_s\":$user,\"sys_s\":$sys,\"peak_rss_kib\":$rss,\"load\":\"$(cut -d' ' -f1 /proc/loadavg)\"}" | tee -a "$results"
  done
done

# the count, judged by find: every file but the live one of each directory
found=$(find "$table" -type f -name '*.parquet' | wc -l)
summary=$("$loom" vacuum "$table" --full --summary)
loomn=${summary#*: }; loomn=${loomn%% files*}
echo "find: $found files; loom: $summary" >&2
if [ "$loomn" != $((found - dirs)) ]; then
  echo "loom would delete $loomn files, expected $((found - dirs))" >&2
  exit 1
fi

load=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$results" "$files" "$dirs" "$load" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
files, dirs, load = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
engines = list(dict.fromkeys(r["engine"] for r in rows))
print(f"\n### {files:,} files in {dirs:,} directories (load average at the end: {load})\n")
print("| engine | wall s (median; runs) | user s | sys s | peak RSS MiB |")
print("| --- | --- | --- | --- | --- |")
for e in engines:
    rs = [r for r in rows if r["engine"] == e]
    med = lambda k: statistics.median(r[k] for r in rs)
    walls = " / ".join(f"{r['wall_s']:.2f}" for r in rs)
    print(f"| {e} | {med('wall_s'):.2f} ({walls}) | {med('user_s'):.2f} | {med('sys_s'):.2f} | {med('peak_rss_kib') / 1024:.0f} |")
if "find-stat" in engines:
    base = {r["round"]: r["wall_s"] for r in rows if r["engine"] == "find-stat"}
    for e in engines:
        if e.startswith("loom"):
            ratios = [r["wall_s"] / base[r["round"]] for r in rows if r["engine"] == e and base.get(r["round"])]
            print(f"\n{e} / find-stat wall, median of per-round ratios: {statistics.median(ratios):.2f}")
PY
if [ "${KEEP:-1}" = 0 ]; then rm -rf "$work"; fi
