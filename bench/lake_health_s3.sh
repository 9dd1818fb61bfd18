#!/usr/bin/env bash
# bench/lake_health_s3.sh LAKE_WORK - `loom health --config --json` of the
# 100 tables of bench/lake_bench.sh's lake on a loopback Ceph RGW (issue 28,
# "Measured"): wall, requests by kind (LOOM_STORE_STATS), and every GET
# traced through tests/tools/fault_proxy.py (no fault injected) to count the
# GETs of data files (*.parquet outside _delta_log: must be 0).
#   bench/lake_health_s3.sh /tmp/loom-lake-bench   (its lake/ and tables.txt)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
LOOM="${LOOM_BIN:-$src/build/loom}"
LW="${1:-/tmp/loom-lake-bench}"
WORK="${WORK:-/tmp/loom-lake-health-s3}"
RUNS="${RUNS:-3}"
RGW_SH="$src/tests/tools/rgw.sh"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
if [ -x /usr/bin/aws ]; then AWS_BIN=/usr/bin/aws; else AWS_BIN=aws; fi
rm -rf "$WORK"; mkdir -p "$WORK"
rgw="$WORK/rgw"; proxy_pid=
trap '[ -n "$proxy_pid" ] && kill "$proxy_pid" 2> /dev/null; bash "$RGW_SH" stop "$rgw" > /dev/null 2>&1 || true' EXIT
RGW_MEMSTORE_BYTES="${RGW_MEMSTORE_BYTES:-1073741824}" bash "$RGW_SH" start "$rgw" > /dev/null
source "$rgw/env"
s3cli() { "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }
s3cli s3 mb s3://lake > /dev/null
s3cli s3 sync --only-show-errors "$LW/lake" s3://lake/ 
python3 "$src/tests/tools/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 \
  --port-file "$WORK/proxy.port" --trace "$WORK/trace.jsonl" > /dev/null &
proxy_pid=$!
for _ in $(seq 50); do [ -s "$WORK/proxy.port" ] && break; sleep 0.1; done
# the lake's storage YAML with s3://lake as the root
sed 's|\${oc.env:LAKE_ROOT}|s3://lake|' "$LW/storage.yaml" > "$WORK/storage.yaml"
logs=$(find "$LW/lake" -path '*_delta_log/*' -type f | wc -l)
data=$(find "$LW/lake" -name '*.parquet' -not -path '*_delta_log*' | wc -l)
# RUNS runs straight to RGW (the wall), then one through the tracing proxy
# (which GETs; the proxy adds its own latency, so its wall is not compared)
for r in $(seq 1 $((RUNS + 1))); do
  ep=$AWS_ENDPOINT_URL; [ "$r" -le "$RUNS" ] || ep="http://127.0.0.1:$(cat "$WORK/proxy.port")"
  : > "$WORK/trace.jsonl"
  AWS_ENDPOINT_URL="$ep" LOOM_STORE_STATS="$WORK/stats.jsonl" \
    /usr/bin/time -f '%e %U %S' -o "$WORK/time.$r" \
    "$LOOM" health --config "$WORK/storage.yaml" --json > "$WORK/health.$r.json"
  cp "$WORK/trace.jsonl" "$WORK/trace.$r.jsonl"
done
python3 - "$WORK" "$RUNS" "$logs" "$data" <<'PY' | tee "$WORK/summary.txt"
import json, re, sys, collections, statistics
W, runs, logs, data = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
st = [json.loads(l) for l in open(f"{W}/stats.jsonl")]
for r in range(1, runs + 2):
    w, u, s = map(float, open(f"{W}/time.{r}").read().split())
    tr = [json.loads(l) for l in open(f"{W}/trace.{r}.jsonl")]
    if not tr:
        print(f"run {r} (direct): wall {w:.2f} s, cpu {u + s:.2f} s ({u:.2f}+{s:.2f}); LOOM_STORE_STATS: "
              + ", ".join(f"{k} {v}" for k, v in st[r - 1]["store_requests"].items() if v) + f", {st[r - 1]['bytes_read']:,} bytes read")
        continue
    by = collections.Counter()
    for t in tr:
        g = t["target"]
        by["LIST" if t["target"].count("/") <= 1 else "checkpoint" if "checkpoint" in g and g.endswith(".parquet") else
           "_last_checkpoint" if g.endswith("_last_checkpoint") else "commit .json" if g.endswith(".json") else "other " + g] += 1
    kinds = collections.Counter(t["method"] for t in tr)
    gets = [t["target"] for t in tr if t["method"] == "GET" and not t["target"].rstrip("/").endswith("lake") and "list-type" not in t["target"]]
    data_gets = [g for g in gets if g.endswith(".parquet") and "/_delta_log/" not in g]
    tables = sum(1 for l in open(f"{W}/health.{r}.json") if l.strip())
    req = ", ".join(f"{k} {v}" for k, v in st[r - 1]["store_requests"].items() if v)
    print(f"traced GETs by object: {dict(by)}")
    print(f"run {r} (traced): wall {w:.2f} s, cpu {u + s:.2f} s ({u:.2f}+{s:.2f}); {tables} tables; LOOM_STORE_STATS: {req}, "
          f"{st[r - 1]['bytes_read']:,} bytes read; traced: {dict(kinds)}; GETs of objects {len(gets)} "
          f"(log objects in the lake: {logs}), of data files {len(data_gets)} (data files in the lake: {data})")
PY
