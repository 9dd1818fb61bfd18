# bench/lib.sh - what the side-by-side table benchmarks share (sourced by
# compact_bench.sh, zorder_bench.sh and the object-store benches
# s3_bench.sh and gcs_bench.sh): settings, the input copy made a Delta
# table, the measure loops and the summary tables.
#   source "$(dirname "$0")/lib.sh" NAME     (NAME: compact, zorder, s3, gcs)
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

# ---- one table on an object store against the same on local disk -------------
# (s3_bench.sh, gcs_bench.sh). The server runs on the same cores as loom,
# so its CPU during a run bounds the wall any client could reach here:
# (loom cpu + server cpu) / cores.

# bench_cpu_of PID...: CPU seconds the processes have used so far
# shellcheck source=bench/cpu.sh
source "$bench_src/bench/cpu.sh"

# bench_store_measure OP WHERE COMMAND...: one run, one JSON line (to stdout
# and $results): measure.sh's figures, the server's CPU during the run (the
# caller's server_cpu prints its CPU seconds so far) and loom's requests
# (LOOM_STORE_STATS). Uses $r (the round) and $bytes.
bench_store_measure() {
  local op="$1" where="$2" line stats="$WORK/stats.json" cpu0 cpu1
  shift 2
  rm -f "$stats"
  cpu0=$(server_cpu)
  line=$(LOOM_STORE_STATS="$stats" MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- "$@")
  cpu1=$(server_cpu)
  echo "{\"op\":\"$op\",\"where\":\"$where\",\"round\":$r,\"m\":$line,\"server_cpu_s\":$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.3f", b - a }'),\"requests\":$(cat "$stats" 2> /dev/null || echo null)}" |
    tee -a "$results"
}

# bench_store_rounds STORE RESET_LOCAL RESET_STORE URI [COMPACT_ARG...]:
# RUNS rounds of local compact, STORE compact, local zorder, STORE zorder
# (--columns customer_id,event_ts, --memory $MEMORY), each run from the
# converted table (the reset commands, untimed, drop the last run's commit
# and files). Exit 1 when a loom run failed.
bench_store_rounds() {
  local store="$1" reset_local="$2" reset_store="$3" uri="$4"
  shift 4
  results="$WORK/results.jsonl"; : > "$results"
  for r in $(seq 1 "$RUNS"); do
    "$reset_local"; bench_store_measure compact local "$LOOM" compact "$WORK/table" --target-size 128MiB "$@"
    "$reset_store"; bench_store_measure compact "$store" "$LOOM" compact "$uri" --target-size 128MiB "$@"
    "$reset_local"; bench_store_measure zorder local "$LOOM" zorder "$WORK/table" --columns customer_id,event_ts \
      --target-size 128MiB --memory "$MEMORY"
    "$reset_store"; bench_store_measure zorder "$store" "$LOOM" zorder "$uri" --columns customer_id,event_ts \
      --target-size 128MiB --memory "$MEMORY"
  done
  if grep -v '"exit_codes": \[0\]' "$results"; then echo "a loom run failed" >&2; exit 1; fi
}

# bench_store_summary STORE: markdown tables of the medians (requests of the
# median STORE run) and of the median per-round ratios STORE/local, with
# the least STORE wall the shared cores allow over the local wall.
bench_store_summary() {
  python3 - "$results" "$DATA" "$bytes" "$(nproc)" "$1" <<'PY'
import json, statistics, sys
results, data, nbytes, cores, store = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = [json.loads(l) for l in open(results)]
def runs(op, where): return [r for r in rows if r["op"] == op and r["where"] == where]
def med(xs, k): return statistics.median(x["m"][k]["median"] for x in xs)
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(runs('compact', 'local'))} rounds)\n")
print("| op | where | wall s | cpu s | peak RSS MiB | server cpu s | requests (median run) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for op in ("compact", "zorder"):
    for where in ("local", store):
        xs = runs(op, where)
        req = ""
        if where == store:
            q = xs[len(xs) // 2]["requests"] or {}
            req = ", ".join(f"{k} {v}" for k, v in (q.get("store_requests") or {}).items() if v)
            req += f"; retries {q.get('retries', 0)}; {q.get('bytes_read', 0)/1e6:.0f} MB in, {q.get('bytes_written', 0)/1e6:.0f} MB out"
        srv = f"{statistics.median(x['server_cpu_s'] for x in xs):.2f}" if where == store else ""
        print(f"| {op} | {where} | {med(xs, 'wall_s'):.2f} | {med(xs, 'cpu_s'):.2f} | {med(xs, 'peak_rss_MB'):.0f} | {srv} | {req} |")
# The last column: the least store wall this machine allows, (loom cpu +
# server cpu) / cores, over the local wall; the wall ratio cannot go below it.
print(f"\n| ratio {store}/local (median of per-round ratios) | wall | cpu | peak RSS | bound: (loom + server cpu) / {cores} cores, over local wall |")
print("| --- | --- | --- | --- | --- |")
for op in ("compact", "zorder"):
    a, b = runs(op, store), runs(op, "local")
    rr = lambda k: statistics.median(x["m"][k]["median"] / y["m"][k]["median"] for x, y in zip(a, b))
    bound = statistics.median((x["m"]["cpu_s"]["median"] + x["server_cpu_s"]) / cores / y["m"]["wall_s"]["median"]
                              for x, y in zip(a, b))
    print(f"| {op} | {rr('wall_s'):.2f} | {rr('cpu_s'):.2f} | {rr('peak_rss_MB'):.2f} | {bound:.2f} |")
PY
}
