#!/usr/bin/env bash
# loom zorder (customer_id, event_ts) vs DuckDB and Polars sorting the same
# data (and DuckDB's 16+16-bit Morton job), side by side in the same session
# (A B C D A B C D ...), on the shared bench workload.
#
#   DATA=small|big RUNS=3 MEMORY=1GiB bench/zorder_bench.sh
#
# The input ($HOME/loom-bench/data/$DATA from ../shared/bench/gen_data.cjs)
# is COPIED to $WORK and made a Delta table with `loom convert`. Each loom
# run first drops the previous run's commit and output files (inside the
# timed command, a few ms), then runs `loom zorder --columns
# customer_id,event_ts --target-size 128MiB --memory $MEMORY`. The peers
# write one sorted file each (see ../shared/bench/README.md). Prints one
# JSON line per run and a markdown table of medians and loom/peer ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
DATA="${DATA:-small}"
RUNS="${RUNS:-3}"
MEMORY="${MEMORY:-1GiB}"
BENCH="${BENCH:-$src/../shared/bench}"
BENCH_DIR="${BENCH_DIR:-$HOME/loom-bench}"
LOOM="${LOOM_BIN:-$src/build/loom}"
WORK="${WORK:-/tmp/loom-zorder-bench-$DATA}"
export NODE_PATH="$BENCH_DIR/node_modules"
in="$BENCH_DIR/data/$DATA"
[ -d "$in" ] || { echo "no input at $in (run gen_data.cjs)" >&2; exit 2; }

rm -rf "$WORK"; mkdir -p "$WORK/table"
cp "$in"/*.parquet "$WORK/table/"
"$LOOM" convert "$WORK/table" > /dev/null
bytes=$(cat "$WORK/table"/*.parquet | wc -c)
cat "$WORK/table"/*.parquet > /dev/null

reset_and_zorder="rm -f '$WORK/table/_delta_log/00000000000000000001.json' '$WORK/table'/part-00000-*-c000.snappy.parquet; exec '$LOOM' zorder '$WORK/table' --columns customer_id,event_ts --target-size 128MiB --memory $MEMORY"
results="$WORK/results.jsonl"; : > "$results"
for r in $(seq 1 "$RUNS"); do
  for eng in loom duckdb-sort duckdb-zorder polars-sort; do
    rm -rf "$WORK/out"
    case $eng in
      loom) cmd=(bash -c "$reset_and_zorder") ;;
      duckdb-sort) cmd=(node "$BENCH/duckdb_job.cjs" sort "$in" "$WORK/out") ;;
      duckdb-zorder) cmd=(node "$BENCH/duckdb_job.cjs" zorder "$in" "$WORK/out") ;;
      polars-sort) cmd=(node "$BENCH/polars_job.cjs" sort "$in" "$WORK/out") ;;
    esac
    line=$(MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- "${cmd[@]}")
    echo "{\"engine\":\"$eng\",\"round\":$r,\"m\":$line}" | tee -a "$results"
  done
done
# correctness of loom's output is what tests/scripts/zorder_*.sh check
grep '"engine":"loom"' "$results" | grep -q '"exit_codes": \[0\]' || { echo "a loom run failed" >&2; exit 1; }

python3 - "$results" "$DATA" "$bytes" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
data, nbytes = sys.argv[2], int(sys.argv[3])
by = {}
for r in rows:
    by.setdefault(r["engine"], []).append(r)
engines = ("loom", "duckdb-sort", "duckdb-zorder", "polars-sort")
def med(eng, k): return statistics.median(x["m"][k]["median"] for x in by[eng])
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(by['loom'])} rounds)\n")
print("| engine | wall s | cpu s | peak RSS MiB |")
print("| --- | --- | --- | --- |")
for e in engines:
    print(f"| {e} | {med(e, 'wall_s'):.2f} | {med(e, 'cpu_s'):.2f} | {med(e, 'peak_rss_MB'):.0f} |")
print("\n| ratio loom/peer (median of per-round ratios) | wall | cpu | peak RSS |")
print("| --- | --- | --- | --- |")
for e in engines[1:]:
    rr = lambda k: statistics.median(a["m"][k]["median"] / b["m"][k]["median"] for a, b in zip(by["loom"], by[e]))
    print(f"| loom / {e} | {rr('wall_s'):.2f} | {rr('cpu_s'):.2f} | {rr('peak_rss_MB'):.2f} |")
PY
