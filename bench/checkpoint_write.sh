#!/usr/bin/env bash
# Issue 30's checkpoint-writing floor at a size of your choice: `loom
# checkpoint` of the floor table of bench/snapshot_floor.sh (FILES live files
# in a checkpoint, classic or V2 + sidecars, COMMITS one-add commits after
# it) side by side with DuckDB's COPY of the same rows to Parquet (the rows of
# the checkpoint loom wrote, read and written back: bench/checkpoint_write_duckdb.cjs),
# alternating, RUNS rounds; wall, cpu, peak RSS (/usr/bin/time through
# ../shared/bench/measure.sh) and peak RSS per live file.
#   bench/checkpoint_write.sh [FILES] [COMMITS] [KIND] [RUNS]   (default 1000000 1000 classic 3)
# Each loom run starts from the generated table: the checkpoint of version
# COMMITS it wrote (and its sidecars) are removed and _last_checkpoint put
# back between runs (not timed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
loom="${LOOM_BIN:-${LOOM_BUILD_DIR:-$here/build}/loom}"
bench="${BENCH:-$here/../shared/bench}"
files="${1:-1000000}"; commits="${2:-1000}"; kind="${3:-classic}"; runs="${4:-3}"
bench_dir="${BENCH_DIR:-$HOME/loom-bench}"
export NODE_PATH="${NODE_PATH:-$HOME/loom-bench/node_modules}"
work="$bench_dir/floor-$files-$commits-$kind"
t="$work/table"; log="$t/_delta_log"
[ -f "$work/.complete" ] || LOOM_BIN="$loom" bash "$here/bench/snapshot_floor.sh" "$files" "$commits" "$kind" > /dev/null || true
[ -f "$work/.complete" ] || { echo "no floor table at $work" >&2; exit 2; }

v=$(printf '%020d' "$commits")
cp "$log/_last_checkpoint" "$work/last_checkpoint.base"
reset() {
  rm -f "$log/$v".checkpoint.* "$log/_sidecars/$v".checkpoint.*
  cp "$work/last_checkpoint.base" "$log/_last_checkpoint"
}
reset
out="$work/ckpt-write"; rm -rf "$out"; mkdir -p "$out/in"
results="$out/results.jsonl"; : > "$results"
for r in $(seq 1 "$runs"); do
  line=$("$bench/measure.sh" -n 1 --warmup 0 -- "$loom" checkpoint "$t")
  echo "{\"engine\":\"loom\",\"round\":$r,\"m\":$line}" | tee -a "$results"
  if [ "$r" = 1 ]; then   # DuckDB's input: the rows loom wrote
    cp "$log/$v".checkpoint.*parquet "$out/in/" 2> /dev/null || true
    cp "$log/_sidecars/$v".checkpoint.* "$out/in/" 2> /dev/null || true
  fi
  reset
  line=$("$bench/measure.sh" -n 1 --warmup 0 -- node "$here/bench/checkpoint_write_duckdb.cjs" "$out/duck.parquet" "$out"/in/*.parquet)
  echo "{\"engine\":\"duckdb\",\"round\":$r,\"m\":$line}" | tee -a "$results"
  rm -f "$out/duck.parquet"
done
if grep -v '"exit_codes": \[0\]' "$results"; then echo "a run failed" >&2; exit 1; fi
python3 - "$results" "$files" "$kind" "$(cat "$out"/in/*.parquet | wc -c)" <<'PY'
import json, statistics, sys
results, files, kind, nbytes = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
by = {}
for l in open(results):
    r = json.loads(l); by.setdefault(r["engine"], []).append(r["m"])
med = lambda e, k: statistics.median(m[k]["median"] for m in by[e])
print(f"\n### {files:,} files, {kind} ({nbytes/1e6:.0f} MB of checkpoint Parquet, {len(by['loom'])} rounds)\n")
print("| engine | wall s | cpu s | peak RSS MiB | B/file |")
print("| --- | --- | --- | --- | --- |")
for e in ("loom", "duckdb"):
    rss = med(e, "peak_rss_MB")
    print(f"| {e} | {med(e, 'wall_s'):.2f} | {med(e, 'cpu_s'):.2f} | {rss:.0f} | {rss * 1048576 / files:.0f} |")
ratio = statistics.median(a["wall_s"]["median"] / b["wall_s"]["median"] for a, b in zip(by["loom"], by["duckdb"]))
print(f"\nwall loom / DuckDB (median of per-round ratios): {ratio:.2f} (floor: 1.5)")
PY
