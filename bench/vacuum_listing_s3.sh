#!/usr/bin/env bash
# VACUUM FULL's listing on S3 (a private loopback Ceph RGW) behind
# tests/tools/fault_proxy.py adding DELAY_MS to every LIST (a far object
# store), side by side in one run with a sequential listing of the same
# objects through the same proxy (issue 30, "VACUUM full listing"):
#
#   [OBJECTS=1000000] [PREFIXES=1000] [DELAY_MS=30] [RUNS=3] [WIDTHS=16] bench/vacuum_listing_s3.sh
#
# The table: OBJECTS 0-byte objects in PREFIXES partition directories
# (p=0000/ ...), a log naming none of them (every object is an orphan).
# Compared:
#  - loom: `loom vacuum --full --retention-hours 0 --dry-run` (the log
#    read, the listing fanned out over the directories, every object
#    considered);
#  - sequential: ListObjectsV2 pages of 1,000 keys one after the other
#    (a minimal client: Python's http.client, anonymous on a public-read
#    bucket, no XML parsing beyond the continuation token), the floor of
#    any one-listing client;
# each run's LISTs traced by the proxy (most in flight at once), and the
# CPU the RGW daemons spent during it (they share the machine's cores with
# the clients, which bounds how fast any client can list here). loom runs
# once per width of WIDTHS (LOOM_LIST_WIDTH: listings at once) in each
# round. Floor: loom wall <= 1/10 of the sequential listing, >= 16 LISTs
# in flight.
# Needs scripts/install-s3-test-deps.sh and a built loom (LOOM_BIN).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOOM="${LOOM_BIN:-$here/build/loom}"
OBJECTS="${OBJECTS:-1000000}"
PREFIXES="${PREFIXES:-1000}"
DELAY_MS="${DELAY_MS:-30}"
RUNS="${RUNS:-3}"
WIDTHS="${WIDTHS:-16}"
WORK="${WORK:-/tmp/loom-vacuum-listing-s3}"
# shellcheck source=bench/rgw_lib.sh
source "$here/bench/rgw_lib.sh"

rm -rf "$WORK"; mkdir -p "$WORK"
rgw_start "$WORK/rgw"
rgw_public_bucket listing
# shellcheck source=bench/cpu.sh
source "$here/bench/cpu.sh"
# server_cpu: CPU seconds the RGW cluster's daemons have used so far
server_cpu() { bench_cpu_of $(cat "$rgw_dir"/run/*.pid 2> /dev/null); }

# the log: a metaData with partition column p, no files
python3 - "$WORK/log.json" <<'PY'
import json, sys
schema = {"type": "struct", "fields": [{"name": "x", "type": "long", "nullable": True, "metadata": {}},
                                       {"name": "p", "type": "string", "nullable": True, "metadata": {}}]}
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
    f.write(json.dumps({"metaData": {"id": "bench", "format": {"provider": "parquet", "options": {}},
                                     "schemaString": json.dumps(schema), "partitionColumns": ["p"],
                                     "configuration": {}, "createdTime": 0}}) + "\n")
PY
s3cli s3 cp --quiet "$WORK/log.json" s3://listing/t/_delta_log/00000000000000000000.json

# OBJECTS empty objects in PREFIXES directories
echo "creating $OBJECTS objects in $PREFIXES directories ..." >&2
start=$(date +%s)
awk -v n="$OBJECTS" -v p="$PREFIXES" 'BEGIN { per = int((n + p - 1) / p)
  for (i = 0; i < n; i++) printf "p=%04d/part-%07d.parquet\n", int(i / per), i }' |
  python3 "$here/bench/put_objects.py" "$RGW_PORT" listing/t --empty > /dev/null
echo "created in $(( $(date +%s) - start )) s" >&2

proxy_start "$WORK" --delay-rate 1 --delay-ms "$DELAY_MS" --match '^GET /listing\?' --trace "$WORK/trace.jsonl"

# most_in_flight FROM_LINE: the most LISTs in flight at once in the trace
# from line FROM_LINE on
most_in_flight() {
  tail -n +"$1" "$WORK/trace.jsonl" | python3 -c '
import json, sys
rs = sorted((r for r in map(json.loads, sys.stdin) if r.get("prefix") is not None), key=lambda r: r["start"])
most, ends = 0, []
for r in rs:
    ends = [e for e in ends if e > r["start"]] + [r["end"]]
    most = max(most, len(ends))
print(len(rs), most)'
}

cat > "$WORK/sequential.py" <<'PY'
import http.client, re, sys, urllib.parse
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]))
token, keys = None, 0
while True:
    q = {"list-type": "2", "prefix": "t/"}
    if token:
        q["continuation-token"] = token
    c.request("GET", "/listing?" + urllib.parse.urlencode(q))
    body = c.getresponse().read().decode()
    keys += body.count("<Key>")
    m = re.search(r"<NextContinuationToken>([^<]+)</NextContinuationToken>", body)
    if "<IsTruncated>true</IsTruncated>" not in body or not m:
        break
    token = m.group(1)
print(keys)
PY

results="$WORK/results.jsonl"; : > "$results"
for r in $(seq 1 "$RUNS"); do
  for eng in $(for w in $WIDTHS; do echo "loom-$w"; done) sequential; do
    from=$(( $(wc -l < "$WORK/trace.jsonl") + 1 ))
    cpu0=$(server_cpu)
    if [ "$eng" != sequential ]; then
      LOOM_LIST_WIDTH="${eng#loom-}" AWS_ENDPOINT_URL="http://127.0.0.1:$proxy_port" /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" \
        "$LOOM" vacuum s3://listing/t --full --retention-hours 0 --no-retention-check --dry-run --json > "$WORK/out.json"
      python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["num_files"])' "$WORK/out.json" > "$WORK/count"
    else
      /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" python3 "$WORK/sequential.py" "$proxy_port" > "$WORK/count"
    fi
    cpu1=$(server_cpu)
    read -r wall user sys rss < "$WORK/time"
    read -r lists most < <(most_in_flight "$from")
    srv=$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.3f", b - a }')
    line="{\"engine\":\"$eng\",\"round\":$r,\"objects\":$(cat "$WORK/count"),\"wall_s\":$wall,\"user_s\":$user,\"sys_s\":$sys,\"peak_rss_kib\":$rss,\"lists\":$lists,\"most_in_flight\":$most,\"server_cpu_s\":$srv}"
    echo "$line" | tee -a "$results"
  done
done
python3 - "$results" "$OBJECTS" "$PREFIXES" "$DELAY_MS" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n, p, d, load = sys.argv[2:6]
engines = list(dict.fromkeys(r["engine"] for r in rows))
print(f"\n### {int(n):,} objects in {int(p):,} directories, {d} ms added per LIST (load average at the end: {load})\n")
print("| client | objects listed | wall s (median; runs) | cpu s (user+sys) | peak RSS MiB | LISTs | most in flight | RGW cpu s | RGW cpu ms per LIST |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for eng in engines:
    rs = [r for r in rows if r["engine"] == eng]
    med = lambda k: statistics.median(r[k] for r in rs)
    walls = " / ".join(f"{r['wall_s']:.2f}" for r in rs)
    print(f"| {eng} | {rs[0]['objects']:,} | {med('wall_s'):.2f} ({walls}) | {statistics.median(r['user_s'] + r['sys_s'] for r in rs):.2f} "
          f"| {med('peak_rss_kib') / 1024:.0f} | {med('lists'):.0f} | {med('most_in_flight'):.0f} | {med('server_cpu_s'):.2f} "
          f"| {statistics.median(1000 * r['server_cpu_s'] / max(r['lists'], 1) for r in rs):.1f} |")
seq = {r["round"]: r["wall_s"] for r in rows if r["engine"] == "sequential"}
print()
for eng in engines:
    if eng != "sequential":
        ratios = [r["wall_s"] / seq[r["round"]] for r in rows if r["engine"] == eng]
        print(f"{eng} / sequential wall, median of per-round ratios: {statistics.median(ratios):.3f}")
PY
