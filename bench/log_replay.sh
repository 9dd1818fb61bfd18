#!/usr/bin/env bash
# Log replay of a table of COMMITS commits and no checkpoint (issue 30,
# "Log replay"; delta-rs users report 30 s to open 6,000 commits,
# delta-rs#2518):
#
#   [COMMITS=100000] [SEED=30] [RUNS=3] [DELAY_MS=30] [S3=1] bench/log_replay.sh
#
# The table comes from bench/log_replay_gen.cjs (seeded, Spark-shaped
# commits: appends, DELETEs and OPTIMIZEs removing earlier files, txns),
# the log alone (no data file: a snapshot load reads only the log).
#  - local, RUNS rounds alternating: `loom inspect --json` (the CLI's
#    full snapshot load: listing, every commit read and reconciled) and
#    DuckDB's read_ndjson_objects reading the same _delta_log/*.json
#    (bench/log_replay_duckdb.cjs read); wall, cpu (user+sys), peak RSS.
#    Floor: loom's wall <= DuckDB's.
#  - correctness: DuckDB reconciles the log itself (log_replay_duckdb.cjs
#    state: live files, their bytes and numRecords, the version); loom's
#    figures, locally and on S3, must equal them, or the script fails.
#  - S3 (S3=1): the log uploaded to a private loopback Ceph RGW
#    (tests/tools/rgw.sh; bench/put_objects.py), `loom inspect` on the
#    s3:// URI through tests/tools/fault_proxy.py adding DELAY_MS to every
#    request, RUNS times: wall, cpu, RSS, requests (LOOM_STORE_STATS), and
#    from the proxy's trace the LISTs and GETs, the most requests in
#    flight at once and the mean in flight over the replay's GETs. Floor:
#    at least 16 requests in flight.
# Needs node with @duckdb/node-api ($HOME/loom-bench/node_modules, or
# NODE_PATH), scripts/install-s3-test-deps.sh for S3, and a built loom
# (LOOM_BIN). Generated tables are kept in BENCH_DIR (default
# $HOME/loom-bench).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOOM="${LOOM_BIN:-$here/build/loom}"
COMMITS="${COMMITS:-100000}"
SEED="${SEED:-30}"
RUNS="${RUNS:-3}"
DELAY_MS="${DELAY_MS:-30}"
S3="${S3:-1}"
work="${BENCH_DIR:-$HOME/loom-bench}/log-replay-$COMMITS-$SEED"
export NODE_PATH="${NODE_PATH:-$HOME/loom-bench/node_modules}"
t="$work/table"
results="$work/results.jsonl"

if [ ! -f "$work/.complete" ]; then
  rm -rf "$work"; mkdir -p "$work"
  echo "generating $COMMITS commits ..." >&2
  node "$here/bench/log_replay_gen.cjs" "$t" "$COMMITS" "$SEED" > "$work/gen.json"
  touch "$work/.complete"
fi
: > "$results"
status=0

# timed NAME ENGINE ROUND CMD...: run CMD (stdout to $work/out), append a
# result line with its wall, cpu and peak RSS
timed() {
  local name=$1 eng=$2 round=$3; shift 3
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" ||
    { echo "$eng failed:" >&2; cat "$work/err" >&2; exit 1; }
  read -r wall user sys rss < "$work/time"
  echo "{\"where\":\"$name\",\"engine\":\"$eng\",\"round\":$round,\"wall_s\":$wall,\"user_s\":$user,\"sys_s\":$sys,\"peak_rss_kib\":$rss}" >> "$results"
}

# same_state LABEL LOOM_JSON: loom's version, live files, bytes and records
# against DuckDB's reconciliation of the same log
same_state() {
  python3 - "$1" "$2" "$work/duckdb-state.json" <<'PY' || status=1
import json, sys
label, loom, duck = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
keys = ("version", "numFiles", "totalBytes", "numRecords")
got = {k: loom[k] for k in keys}
print(f"{label}: loom {got}")
if got != {k: duck[k] for k in keys}:
    print(f"{label}: MISMATCH with DuckDB {duck}")
    sys.exit(1)
PY
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
find "$t/_delta_log" -name '*.json' -exec cat {} + > /dev/null   # warm the page cache
timed local duckdb-state 0 node "$here/bench/log_replay_duckdb.cjs" state "$t"
cp "$work/out" "$work/duckdb-state.json"
echo "DuckDB:       $(cat "$work/duckdb-state.json")"
for r in $(seq 1 "$RUNS"); do
  timed local loom "$r" "$LOOM" inspect "$t" --json
  [ "$r" = 1 ] && { cp "$work/out" "$work/loom-local.json"; same_state "loom local" "$work/loom-local.json"; }
  timed local duckdb-read "$r" node "$here/bench/log_replay_duckdb.cjs" read "$t"
done

if [ "$S3" = 1 ]; then
  # shellcheck source=bench/rgw_lib.sh
  source "$here/bench/rgw_lib.sh"
  rgw_start "$work/rgw" $((3 << 30))
  rgw_public_bucket replay
  echo "uploading $COMMITS commit files ..." >&2
  start=$(date +%s)
  python3 "$here/bench/put_objects.py" "$RGW_PORT" replay/t/_delta_log --dir "$t/_delta_log" > /dev/null
  echo "uploaded in $(( $(date +%s) - start )) s" >&2

  proxy_start "$work" --delay-rate 1 --delay-ms "$DELAY_MS" --trace "$work/trace.jsonl"
  : > "$work/trace.jsonl"
  for r in $(seq 1 "$RUNS"); do
    from=$(( $(wc -l < "$work/trace.jsonl") + 1 ))
    AWS_ENDPOINT_URL="http://127.0.0.1:$proxy_port" LOOM_STORE_STATS=1 \
      timed s3 loom "$r" "$LOOM" inspect s3://replay/t --json
    [ "$r" = 1 ] && { cp "$work/out" "$work/loom-s3.json"; same_state "loom on S3" "$work/loom-s3.json"; }
    # the requests of this run from the trace: LISTs, GETs, most in
    # flight at once, mean in flight from the first GET to the last
    tail -n +"$from" "$work/trace.jsonl" | python3 -c '
import json, sys
rs = sorted(map(json.loads, sys.stdin), key=lambda r: r["start"])
lists = sum(1 for r in rs if r.get("prefix") is not None)
gets = [r for r in rs if r["method"] == "GET" and r.get("prefix") is None]
most, ends = 0, []
for r in rs:
    ends = [e for e in ends if e > r["start"]] + [r["end"]]
    most = max(most, len(ends))
span = (max(r["end"] for r in gets) - gets[0]["start"]) if gets else 0
mean = sum(r["end"] - r["start"] for r in gets) / span if span else 0
print(json.dumps({"requests": len(rs), "lists": lists, "gets": len(gets), "most_in_flight": most,
                  "mean_in_flight_gets": round(mean, 1)}))' > "$work/trace-run.json"
    python3 - "$results" "$work/trace-run.json" "$work/err" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
row = json.loads(lines[-1])
row.update(json.load(open(sys.argv[2])))
stats = [l for l in open(sys.argv[3]) if l.startswith('{"store_requests"')]
if stats:
    row["store_requests"] = json.loads(stats[-1])["store_requests"]
lines[-1] = json.dumps(row)
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
    tail -n 1 "$results" >&2
  done
fi

python3 - "$results" "$COMMITS" "$DELAY_MS" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, delay, load = int(sys.argv[2]), sys.argv[3], sys.argv[4]
med = lambda rs, f: statistics.median(f(r) for r in rs)
print(f"\n### Log replay of {n:,} commits without a checkpoint (load after: {load})\n")
print("| where | engine | wall s | cpu s (user+sys) | peak RSS MiB | requests | LISTs | GETs | most in flight | mean in flight (GETs) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for where, eng in (("local", "loom"), ("local", "duckdb-read"), ("local", "duckdb-state"), ("s3", "loom")):
    rs = [r for r in rows if r["where"] == where and r["engine"] == eng]
    if not rs:
        continue
    extra = ["-"] * 5
    if where == "s3":
        extra = [f"{med(rs, lambda r: r[k]):.0f}" for k in ("requests", "lists", "gets", "most_in_flight")]
        extra.append(f"{med(rs, lambda r: r['mean_in_flight_gets']):.1f}")
    name = eng if where == "local" else f"loom ({delay} ms per request)"
    print(f"| {where} | {name} | {med(rs, lambda r: r['wall_s']):.2f} | {med(rs, lambda r: r['user_s'] + r['sys_s']):.2f} "
          f"| {med(rs, lambda r: r['peak_rss_kib']) / 1024:.0f} | " + " | ".join(extra) + " |")
loom = [r for r in rows if r["where"] == "local" and r["engine"] == "loom"]
duck = [r for r in rows if r["where"] == "local" and r["engine"] == "duckdb-read"]
ratios = [a["wall_s"] / b["wall_s"] for a, b in zip(loom, duck)]
print(f"\nloom / DuckDB read_ndjson_objects wall, median of per-round ratios: {statistics.median(ratios):.3f} (floor: <= 1)")
PY
exit "$status"
