#!/usr/bin/env bash
# Log replay on S3 (Ceph RGW) of the generated table of 3,000 commits
# without a checkpoint that tests/scripts/log_replay_generated.sh loads
# locally (issue 30's log-replay floor at CI size), through
# tests/tools/fault_proxy.py adding 30 ms to every request:
#  - loom's snapshot equals the independent oracle's and DuckDB's
#    reconciliation of the same log (version, live paths, bytes,
#    numRecords, tombstones, txns);
#  - every commit is fetched exactly once, and the proxy's trace shows at
#    least 16 commit GETs in flight at once (src/delta/log_fetch.c keeps
#    32 in flight on a sliding window);
#  - _delta_log/ is listed in version ranges side by side after its first
#    page (src/delta/log_list_split.c): 2 or more LISTs in flight at once,
#    5 at most (one plain listing takes 3).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
bucket=$(s3_new_bucket replay) || { fail "cannot create a bucket"; finish; exit 1; }
t="$TEST_TMP/t"
expect "generate 3,000 commits" node "$LOOM_SOURCE_DIR/bench/log_replay_gen.cjs" "$t" 3000 30 > /dev/null
expect "upload the log" s3_upload "$t" "s3://$bucket/t"
oracle snapshot "$t" > "$TEST_TMP/oracle.json"
node "$LOOM_SOURCE_DIR/bench/log_replay_duckdb.cjs" state "$t" > "$TEST_TMP/duckdb.json"

python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 --port-file "$TEST_TMP/proxy.port" \
  --delay-rate 1 --delay-ms 30 --trace "$TEST_TMP/trace.jsonl" > /dev/null 2>> "$TEST_TMP/proxy.err" &
proxy_pid=$!
on_exit 'kill "$proxy_pid" 2> /dev/null'
for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy.port" ] && break; sleep 0.05; done
expect "loom inspect through 30 ms per request" env AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TEST_TMP/proxy.port")" \
  "$LOOM_BIN" inspect "s3://$bucket/t" --json --files > "$TEST_TMP/loom.json"
kill "$proxy_pid" 2> /dev/null; wait "$proxy_pid" 2> /dev/null || true
expect "loom's snapshot from S3 equals the oracle's and DuckDB's (below)" \
  python3 "$TOOLS/replay_check.py" "$TEST_TMP/loom.json" "$TEST_TMP/oracle.json" "$TEST_TMP/duckdb.json"

python3 - "$TEST_TMP/trace.jsonl" > "$TEST_TMP/overlap.txt" <<'PY'
import json, re, sys
commit = re.compile(r"_delta_log(/|%2F)[0-9]{20}\.json$")
rs = [json.loads(l) for l in open(sys.argv[1])]
def most_at_once(reqs):
    most, ends = 0, []
    for r in sorted(reqs, key=lambda r: r["start"]):
        ends = [e for e in ends if e > r["start"]] + [r["end"]]
        most = max(most, len(ends))
    return most
gets = [r for r in rs if r["method"] == "GET" and commit.search(r["target"].split("?")[0])]
lists = [r for r in rs if r.get("prefix") is not None and r["prefix"].endswith("_delta_log/")]
print(len(gets), len({r["target"] for r in gets}), most_at_once(gets), len(lists), most_at_once(lists))
PY
read -r n_gets n_distinct most_gets n_lists most_lists < "$TEST_TMP/overlap.txt"
expect "each of the 3,000 commits fetched once: $n_gets GETs of $n_distinct commits" \
  test "$n_gets" = 3000 -a "$n_distinct" = 3000
expect "commits fetched side by side: $most_gets GETs in flight at once, 16 or more expected" test "$most_gets" -ge 16
expect "the log listed in ranges side by side: $n_lists LISTs, $most_lists in flight at once, 2 or more expected" \
  test "$most_lists" -ge 2 -a "$n_lists" -le 5
finish
