# bench/lib.sh - what the side-by-side table benchmarks share (sourced by
# compact_bench.sh and zorder_bench.sh): settings, the input copy made a
# Delta table, the measure loop and the summary tables.
#   source "$(dirname "$0")/lib.sh" NAME     (NAME: compact, zorder)
# Settings (environment): DATA=small|big, RUNS, BENCH (../shared/bench),
# BENCH_DIR ($HOME/loom-bench), LOOM_BIN, WORK (/tmp/loom-NAME-bench-$DATA).
set -euo pipefail
bench_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="${DATA:-small}"
RUNS="${RUNS:-3}"
BENCH="${BENCH:-$bench_src/../shared/bench}"
BENCH_DIR="${BENCH_DIR:-$HOME/loom-bench}"
LOOM="${LOOM_BIN:-$bench_src/build/loom}"
WORK="${WORK:-/tmp/loom-$1-bench-$DATA}"
export NODE_PATH="$BENCH_DIR/node_modules"
in="$BENCH_DIR/data/$DATA"
[ -d "$in" ] || { echo "no input at $in (run gen_data.cjs)" >&2; exit 2; }

# Copy the input to $WORK/table (the original is never modified), make it
# a Delta table with `loom convert`, read it once so every engine starts
# from a warm page cache. Sets `bytes` (input size).
bench_prepare() {
  rm -rf "$WORK"; mkdir -p "$WORK/table"
  cp "$in"/*.parquet "$WORK/table/"
  "$LOOM" convert "$WORK/table" > /dev/null
  bytes=$(cat "$WORK/table"/*.parquet | wc -c)
  cat "$WORK/table"/*.parquet > /dev/null
}

# Prefix of a loom run's `bash -c` command: drop the previous run's commit
# and output files (timed with the run, a few ms) so every run starts from
# the converted table.
bench_reset() {
  echo "rm -f '$WORK/table/_delta_log/00000000000000000001.json' '$WORK/table'/part-00000-*-c000.snappy.parquet;"
}

# bench_run ENGINE...: RUNS rounds, each running every engine once in turn
# (A B C A B C ...); the caller's bench_cmd ENGINE sets the array `cmd`.
# One JSON line per run, to stdout and $WORK/results.jsonl. Exit 1 when a
# loom run failed (the correctness of loom's output is what the
# tests/scripts/ tests check).
bench_run() {
  local r eng line
  results="$WORK/results.jsonl"; : > "$results"
  for r in $(seq 1 "$RUNS"); do
    for eng in "$@"; do
      bench_cmd "$eng"
      line=$(MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- "${cmd[@]}")
      echo "{\"engine\":\"$eng\",\"round\":$r,\"m\":$line}" | tee -a "$results"
    done
  done
  grep '"engine":"loom"' "$results" | grep -q '"exit_codes": \[0\]' || { echo "a loom run failed" >&2; exit 1; }
}

# bench_summary [--mbps] ENGINE...: markdown tables of the medians per
# engine (--mbps: with input MB/s) and of the median per-round ratios
# loom/peer for every engine after the first (loom).
bench_summary() {
  python3 - "$results" "$DATA" "$bytes" "$@" <<'PY'
import json, statistics, sys
args = sys.argv[1:]
results, data, nbytes, args = args[0], args[1], int(args[2]), args[3:]
mbps = bool(args) and args[0] == "--mbps"
engines = args[1:] if mbps else args
rows = [json.loads(l) for l in open(results)]
by = {}
for r in rows:
    by.setdefault(r["engine"], []).append(r)
def med(eng, k): return statistics.median(x["m"][k]["median"] for x in by[eng])
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(by['loom'])} rounds)\n")
if mbps:
    print("| engine | wall s | cpu s | peak RSS MiB | input MB/s |")
    print("| --- | --- | --- | --- | --- |")
else:
    print("| engine | wall s | cpu s | peak RSS MiB |")
    print("| --- | --- | --- | --- |")
for e in engines:
    w = med(e, "wall_s")
    line = f"| {e} | {w:.2f} | {med(e, 'cpu_s'):.2f} | {med(e, 'peak_rss_MB'):.0f} |"
    print(line + (f" {nbytes/1e6/w:.0f} |" if mbps else ""))
print("\n| ratio loom/peer (median of per-round ratios) | wall | cpu | peak RSS |")
print("| --- | --- | --- | --- |")
for e in engines[1:]:
    rr = lambda k: statistics.median(a["m"][k]["median"] / b["m"][k]["median"] for a, b in zip(by["loom"], by[e]))
    print(f"| loom / {e} | {rr('wall_s'):.2f} | {rr('cpu_s'):.2f} | {rr('peak_rss_MB'):.2f} |")
PY
}
