#!/usr/bin/env bash
# loom compaction and Z-order of the shared bench set on S3 (a loopback
# Ceph RGW) against the same on local disk, in one run, side by side
# (local compact, S3 compact, local zorder, S3 zorder, round after round):
# wall, CPU, peak RSS and, for S3, the requests each operation sent.
#
#   DATA=small|big RUNS=3 MEMORY=1GiB [LOOM_ARGS=...] bench/s3_bench.sh
#
# LOOM_ARGS: extra `loom compact` options for both sides, e.g.
# LOOM_ARGS="--copy-row-group-min off" (decode and re-encode every row
# group: the compaction does the work of a peer engine's).
#
# The input (../shared/bench/gen_data.cjs output in $HOME/loom-bench/data/
# $DATA) is copied to $WORK and made a Delta table (bench/lib.sh), then
# uploaded by awscli to a bucket of a private RGW started here
# (tests/tools/rgw.sh; its memstore OSD keeps objects in RAM, sized by
# RGW_MEMSTORE_BYTES: 6 GiB by default, enough for the 1 GB set and a
# rewrite of it; the deleted rewrites are garbage-collected between runs). Before each run, untimed, the
# previous run's commit and output files are removed (locally with rm, on
# S3 with awscli), so every run starts from the converted table. Prints one
# JSON line per run and markdown tables of the medians and of the median
# per-round ratios S3/local. Floor (issue 12): S3 compaction wall <= 1.5x
# local, at the same peak RSS. The server's CPU during each S3 run is
# recorded too (server_cpu_s): RGW runs on the same cores as loom, so
# (loom cpu + server cpu) / cores is the least wall any client could reach
# here, printed as a ratio to the local wall beside the measured one. Needs scripts/install-s3-test-deps.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh" s3
MEMORY="${MEMORY:-1GiB}"
RGW_SH="$bench_src/tests/tools/rgw.sh"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
if [ -x /usr/bin/aws ]; then AWS_BIN=/usr/bin/aws; else AWS_BIN=aws; fi

bench_prepare
rgw="$WORK/rgw"
trap 'bash "$RGW_SH" stop "$rgw" > /dev/null 2>&1 || true' EXIT
RGW_MEMSTORE_BYTES="${RGW_MEMSTORE_BYTES:-6442450944}" bash "$RGW_SH" start "$rgw"
# shellcheck disable=SC1091
source "$rgw/env"
s3cli() { "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }
s3cli s3api create-bucket --bucket bench > /dev/null
s3cli s3 cp --recursive --quiet --only-show-errors "$WORK/table" s3://bench/table
uri=s3://bench/table

reset_local() {
  rm -f "$WORK/table/_delta_log/00000000000000000001.json" "$WORK/table"/part-00000-*-c000.snappy.parquet
}
reset_s3() {
  s3cli s3 rm --recursive --quiet s3://bench/table --exclude '*' \
    --include '_delta_log/00000000000000000001.json' --include 'part-00000-*-c000.snappy.parquet'
  # RGW frees a deleted object's data only when its garbage collector runs
  # (hours later by default): run it now, or the rounds' rewrites fill the
  # memstore OSD and a full Ceph blocks every write
  bash "$RGW_SH" admin "$rgw" gc process --include-all > /dev/null
}

# server_cpu: CPU seconds (user + system) the RGW cluster's daemons
# (monitor, OSD, gateway) have used so far, from /proc/PID/stat. The server
# shares the machine's cores with loom, so its CPU during a run bounds the
# wall any client could reach: (client cpu + server cpu) / cores.
server_cpu() {
  local p ticks=0 tck
  tck=$(getconf CLK_TCK)
  for p in $(cat "$rgw"/run/*.pid 2> /dev/null); do
    [ -r "/proc/$p/stat" ] || continue
    ticks=$((ticks + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat")))
  done
  awk -v t="$ticks" -v h="$tck" 'BEGIN { printf "%.3f", t / h }'
}

results="$WORK/results.jsonl"; : > "$results"
measure() { # measure OP WHERE COMMAND...: one run, one JSON line
  local op="$1" where="$2" line stats="$WORK/stats.json" cpu0 cpu1
  shift 2
  rm -f "$stats"
  cpu0=$(server_cpu)
  line=$(LOOM_STORE_STATS="$stats" MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- "$@")
  cpu1=$(server_cpu)
  echo "{\"op\":\"$op\",\"where\":\"$where\",\"round\":$r,\"m\":$line,\"server_cpu_s\":$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.3f", b - a }'),\"requests\":$(cat "$stats" 2> /dev/null || echo null)}" |
    tee -a "$results"
}
read -r -a compact_args <<< "${LOOM_ARGS:-}"
for r in $(seq 1 "$RUNS"); do
  reset_local; measure compact local "$LOOM" compact "$WORK/table" --target-size 128MiB "${compact_args[@]}"
  reset_s3; measure compact s3 "$LOOM" compact "$uri" --target-size 128MiB "${compact_args[@]}"
  reset_local; measure zorder local "$LOOM" zorder "$WORK/table" --columns customer_id,event_ts \
    --target-size 128MiB --memory "$MEMORY"
  reset_s3; measure zorder s3 "$LOOM" zorder "$uri" --columns customer_id,event_ts \
    --target-size 128MiB --memory "$MEMORY"
done
grep -v '"exit_codes": \[0\]' "$results" && { echo "a loom run failed" >&2; exit 1; }

python3 - "$results" "$DATA" "$bytes" "$(nproc)" <<'PY'
import json, statistics, sys
results, data, nbytes, cores = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = [json.loads(l) for l in open(results)]
def runs(op, where): return [r for r in rows if r["op"] == op and r["where"] == where]
def med(xs, k): return statistics.median(x["m"][k]["median"] for x in xs)
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(runs('compact', 'local'))} rounds)\n")
print("| op | where | wall s | cpu s | peak RSS MiB | server cpu s | requests (median run) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for op in ("compact", "zorder"):
    for where in ("local", "s3"):
        xs = runs(op, where)
        req = ""
        if where == "s3":
            q = xs[len(xs) // 2]["requests"] or {}
            req = ", ".join(f"{k} {v}" for k, v in (q.get("store_requests") or {}).items() if v)
            req += f"; retries {q.get('retries', 0)}; {q.get('bytes_read', 0)/1e6:.0f} MB in, {q.get('bytes_written', 0)/1e6:.0f} MB out"
        srv = f"{statistics.median(x['server_cpu_s'] for x in xs):.2f}" if where == "s3" else ""
        print(f"| {op} | {where} | {med(xs, 'wall_s'):.2f} | {med(xs, 'cpu_s'):.2f} | {med(xs, 'peak_rss_MB'):.0f} | {srv} | {req} |")
# The last column: the least S3 wall this machine allows, (loom cpu + server
# cpu) / cores, over the local wall; the wall ratio cannot go below it.
print(f"\n| ratio S3/local (median of per-round ratios) | wall | cpu | peak RSS | bound: (loom + server cpu) / {cores} cores, over local wall |")
print("| --- | --- | --- | --- | --- |")
for op in ("compact", "zorder"):
    a, b = runs(op, "s3"), runs(op, "local")
    rr = lambda k: statistics.median(x["m"][k]["median"] / y["m"][k]["median"] for x, y in zip(a, b))
    bound = statistics.median((x["m"]["cpu_s"]["median"] + x["server_cpu_s"]) / cores / y["m"]["wall_s"]["median"]
                              for x, y in zip(a, b))
    print(f"| {op} | {rr('wall_s'):.2f} | {rr('cpu_s'):.2f} | {rr('peak_rss_MB'):.2f} | {bound:.2f} |")
PY
