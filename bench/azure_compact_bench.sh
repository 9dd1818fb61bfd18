#!/usr/bin/env bash
# loom compact on Azure Blob Storage (Azurite on loopback, data in memory)
# against the same compaction on local disk, side by side in one session
# (local azure local azure ...), on the shared bench workload.
#
#   DATA=small|big RUNS=3 bench/azure_compact_bench.sh
#
# The input (../shared/bench/gen_data.cjs output in $HOME/loom-bench/data/
# $DATA) is copied to $WORK/table and made a Delta table with `loom
# convert` (bench/lib.sh); Microsoft's SDK uploads that table to Azurite.
# Each run compacts it with `--target-size 128MiB` from the converted
# state: the previous run's commit and output files are dropped before the
# run (outside the timing on Azure: a delete through the SDK). Measured per
# run: wall, CPU and peak RSS of the loom process (../shared/bench/
# measure.sh), and on Azure the requests (LOOM_STORE_STATS). Azurite runs
# on the same 2 cores, so its CPU competes with loom's: the ratio is an
# upper bound of what a remote service would cost in CPU, and a lower bound
# in latency (loopback).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/bench/lib.sh" azure-compact
export LOOM_SOURCE_DIR="$here" LOOM_BIN="$LOOM"
bench_node_path="$NODE_PATH"
unset NODE_PATH
source "$here/tests/tools/lib.sh"
source "$here/tests/tools/azure/azurite.sh"
export NODE_PATH="$bench_node_path"

bench_prepare
azurite_start
azblob upload "$WORK/table" bench/t
uri=az://bench/t
reset_local() { bash -c "$(bench_reset)"; }
reset_azure() { # the converted state again: no version 1, no output file
  local k
  for k in $(azblob ls bench/t | cut -f1 | grep -E '^_delta_log/0+1\.json$|^part-00000-.*-c000\.snappy\.parquet$' || true); do
    azblob rm "bench/t/$k"
  done
}

results="$WORK/results.jsonl"; : > "$results"
for r in $(seq 1 "$RUNS"); do
  reset_local
  line=$(MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- \
    env LOOM_STORE_STATS="$WORK/local.$r.stats" "$LOOM" compact "$WORK/table" --target-size 128MiB)
  echo "{\"engine\":\"local\",\"round\":$r,\"m\":$line,\"stats\":$(cat "$WORK/local.$r.stats")}" | tee -a "$results"
  reset_azure
  line=$(MEASURE_IN_BYTES=$bytes "$BENCH/measure.sh" -n 1 --warmup 0 -- \
    env LOOM_STORE_STATS="$WORK/azure.$r.stats" "$LOOM" compact "$uri" --target-size 128MiB)
  echo "{\"engine\":\"azure\",\"round\":$r,\"m\":$line,\"stats\":$(cat "$WORK/azure.$r.stats")}" | tee -a "$results"
done
grep -q '"exit_codes": \[0\]' "$results" || { echo "a run failed" >&2; exit 1; }
# the output is the same table: compare the downloaded result's rows
azblob download bench/t "$WORK/azure-result"
python3 - "$results" "$DATA" "$bytes" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
data, nbytes = sys.argv[2], int(sys.argv[3])
by = {}
for r in rows:
    by.setdefault(r["engine"], []).append(r)
med = lambda e, k: statistics.median(x["m"][k]["median"] for x in by[e])
print(f"\n### {data} set ({nbytes/1e6:.1f} MB, {len(by['azure'])} rounds)\n")
print("| store | wall s | cpu s | peak RSS MiB | GET | PUT | LIST | other | MB read | MB written |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for e in ("local", "azure"):
    s = by[e][-1]["stats"]
    q = s["store_requests"]
    print(f"| {e} | {med(e, 'wall_s'):.2f} | {med(e, 'cpu_s'):.2f} | {med(e, 'peak_rss_MB'):.0f} | "
          f"{q['GET']} | {q['PUT']} | {q['LIST']} | {q['HEAD'] + q['DELETE'] + q['OTHER']} | "
          f"{s['bytes_read']/1e6:.0f} | {s['bytes_written']/1e6:.0f} |")
rr = lambda k: statistics.median(a["m"][k]["median"] / b["m"][k]["median"] for a, b in zip(by["azure"], by["local"]))
print(f"\n| ratio azure/local (median of per-round ratios) | wall {rr('wall_s'):.2f} | cpu {rr('cpu_s'):.2f} | peak RSS {rr('peak_rss_MB'):.2f} |")
PY
a=$(LOOM_ORACLE_NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$here/build/oracle-deps/node_modules}" "$here/tests/tools/oracle.sh" fingerprint "$WORK/azure-result" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["hash"], d["rows"])')
l=$(LOOM_ORACLE_NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$here/build/oracle-deps/node_modules}" "$here/tests/tools/oracle.sh" fingerprint "$WORK/table" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["hash"], d["rows"])')
echo "oracle fingerprint: azure result $a, local result $l ($([ "$a" = "$l" ] && echo same || echo DIFFERENT))"
