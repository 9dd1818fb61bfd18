#!/usr/bin/env bash
# loom compact vs DuckDB and Polars doing the same compaction job, side by
# side in the same session (A B C A B C ...), on the shared bench workload.
#
#   DATA=small|big RUNS=3 bench/compact_bench.sh
#
# The input (made by ../shared/bench/gen_data.cjs into $HOME/loom-bench/data/
# $DATA) is COPIED to $WORK (never modified) and made a Delta table with
# `loom convert`. Each loom run first drops the previous run's commit and
# output files (inside the timed command, a few ms), then runs
# `loom compact --target-size 128MiB` (bins of <= 128 MiB of input bytes, in
# name order: the same bins as the peers' `compact` job). Peers write to
# $WORK/out-* and read the original input folder (read only). Prints one JSON line per run and a markdown table of the
# medians and of the median per-round ratios loom/peer (wall, peak RSS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
DATA="${DATA:-small}"
RUNS="${RUNS:-3}"
BENCH="${BENCH:-$src/../shared/bench}"
BENCH_DIR="${BENCH_DIR:-$HOME/loom-bench}"
LOOM="${LOOM_BIN:-$src/build/loom}"
WORK="${WORK:-/tmp/loom-compact-bench-$DATA}"
export NODE_PATH="$BENCH_DIR/node_modules"
in="$BENCH_DIR/data/$DATA"
[ -d "$in" ] || { echo "no input at $in (run gen_data.cjs)" >&2; exit 2; }

rm -rf "$WORK"; mkdir -p "$WORK/table"
cp "$in"/*.parquet "$WORK/table/"
"$LOOM" convert "$WORK/table" > /dev/null
bytes=$(cat "$WORK/table"/*.parquet | wc -c)
cat "$WORK/table"/*.parquet > /dev/null

reset_and_compact="rm -f '$WORK/table/_delta_log/00000000000000000001.json' '$WORK/table'/part-00000-*-c000.snappy.parquet; exec '$LOOM' compact '$WORK/table' --target-size 128MiB"
results="$WORK/results.jsonl"; : > "$results"
for r in $(seq 1 "$RUNS"); do
  for eng in loom polars duckdb; do
    case $eng in
      loom) cmd=(bash -c "$reset_and_compact") ;;
      polars) cmd=(node "$BENCH/polars_job.cjs" compact "$in" "$WORK/out-polars") ;;
      duckdb) cmd=(node "$BENCH/duckdb_job.cjs" compact "$in" "$WORK/out-duckdb") ;;
    esac
    line=$(MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- "${cmd[@]}")
    echo "{\"engine\":\"$eng\",\"round\":$r,\"m\":$line}" | tee -a "$results"
  done
done
# correctness of loom's output is what tests/scripts/compact_*.sh check
# (oracle fingerprint + verify); here only that the command succeeded:
grep '"engine":"loom"' "$results" | grep -q '"exit_codes": \[0\]' || { echo "a loom run failed" >&2; exit 1; }

python3 - "$results" "$DATA" "$bytes" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
data, nbytes = sys.argv[2], int(sys.argv[3])
by = {}
for r in rows:
    by.setdefault(r["engine"], []).append(r)
def med(eng, k): return statistics.median(x["m"][k]["median"] for x in by[eng])
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(by['loom'])} rounds)\n")
print("| engine | wall s | cpu s | peak RSS MiB | input MB/s |")
print("| --- | --- | --- | --- | --- |")
for e in ("loom", "polars", "duckdb"):
    w = med(e, "wall_s")
    print(f"| {e} | {w:.2f} | {med(e, 'cpu_s'):.2f} | {med(e, 'peak_rss_MB'):.0f} | {nbytes/1e6/w:.0f} |")
print("\n| ratio loom/peer (median of per-round ratios) | wall | cpu | peak RSS |")
print("| --- | --- | --- | --- |")
for e in ("polars", "duckdb"):
    rr = lambda k: statistics.median(a["m"][k]["median"] / b["m"][k]["median"] for a, b in zip(by["loom"], by[e]))
    print(f"| loom / {e} | {rr('wall_s'):.2f} | {rr('cpu_s'):.2f} | {rr('peak_rss_MB'):.2f} |")
PY
