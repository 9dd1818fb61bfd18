#!/usr/bin/env bash
# Faults between loom and S3: tests/tools/fault_proxy.py in front of Ceph
# RGW answers a share of requests with 500 InternalError or 503 SlowDown,
# resets connections before forwarding, truncates response bodies, delays
# responses, and resets after forwarding (the request took effect, the
# client cannot know). Through it, rounds of inspect, compaction and
# Z-order (multipart uploads of 5 MiB parts), checkpoint, VACUUM FULL and
# log cleanup run on a generated table. Every command either completes or
# fails with a clear error (exit 1, naming the request and what happened;
# never a crash); afterwards the table, downloaded from RGW directly by
# awscli, has its original rows (oracle fingerprint), verify is clean and
# no multipart upload is left open. Retries are bounded: with every
# request answered 503, a command gives up after exactly max_retries + 1
# attempts, saying so, in bounded time.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
ROUNDS="${LOOM_S3_FAULT_ROUNDS:-3}"
SEED0="${LOOM_S3_FAULT_SEED:-0}"   # seeds of the rounds: SEED0 + 1, 2, ...
[ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ] && ROUNDS=1

bucket=$(s3_new_bucket faults) || { fail "cannot create a bucket"; finish; exit 1; }
uri="s3://$bucket/t"
up() { s3_upload "$1" "$uri"; }
down() { s3_download "$uri" "$1"; }
source "$TOOLS/fault_ops.sh"
fault_table "$uri" up down

PROXY_UPSTREAM="127.0.0.1:$RGW_PORT" PROXY_FLAVOR=s3
trap 'stop_proxy; [ -n "$s3_own_rgw" ] && bash "$RGW_SH" stop "$s3_own_rgw" > /dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT

# loom through the proxy, with short backoffs so the test stays quick
via_proxy() {
  AWS_ENDPOINT_URL="http://127.0.0.1:$proxy_port" LOOM_RETRY_BASE_DELAY=20ms LOOM_RETRY_MAX_DELAY=300ms \
    LOOM_TIMEOUT=5s LOOM_MULTIPART_PART_SIZE=5242880 LOOM_STORE_STATS="$TEST_TMP/stats.jsonl" "$@"
}
CLEAR='HTTP [0-9]{3}|after [0-9]+ attempts|cut short|reset|closed the connection|timed out|gave up|cannot connect'

fault_rounds "$SEED0" --error-rate 0.04 --slowdown-rate 0.04 --reset-rate 0.03 \
  --truncate-rate 0.03 --delay-rate 0.03 --delay-ms 200 --ambiguous-rate 0.02
fault_rounds_checks "multipart uploads" 's.store_requests.OTHER >= 2' error slowdown reset truncate delay ambiguous

# judged on RGW directly
expect "no multipart upload left open" test "$(s3_open_uploads "$bucket")" = 0
s3_download "$uri" "$TEST_TMP/d1"
oracle fingerprint "$TEST_TMP/d1" > "$TEST_TMP/fp1.json"
expect "rows unchanged after the faulty rounds" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
expect "oracle verify" oracle verify "$TEST_TMP/d1" > /dev/null
expect "loom reads it directly too" "$LOOM_BIN" inspect "$uri" > /dev/null

# bounded retries: every request answered 503 SlowDown (a Parquet footer:
# one request to make)
pqkey=$(s3_keys "$uri" | grep '\.parquet$' | head -1)
start_proxy --slowdown-rate 1.0 --log "$TEST_TMP/all503.jsonl"
t0=$(date +%s%N)
if AWS_ENDPOINT_URL="http://127.0.0.1:$proxy_port" LOOM_MAX_RETRIES=3 LOOM_RETRY_BASE_DELAY=50ms \
    "$LOOM_BIN" parquet meta "$uri/$pqkey" > /dev/null 2> "$TEST_TMP/503.err"; then
  fail "parquet meta succeeded with every request answered 503"
else
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  expect "the error names the bucket, the status, SlowDown and the attempts: $(cat "$TEST_TMP/503.err")" \
    grep -qE "bucket \"$bucket\".*HTTP 503 \(SlowDown.*after 4 attempts" "$TEST_TMP/503.err"
  expect "exactly max_retries + 1 = 4 requests were sent ($(wc -l < "$TEST_TMP/all503.jsonl"))" \
    test "$(wc -l < "$TEST_TMP/all503.jsonl")" = 4
  expect "it gave up in bounded time (${ms} ms)" test "$ms" -lt 20000
fi
stop_proxy
finish
