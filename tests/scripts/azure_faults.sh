#!/usr/bin/env bash
# Faults between loom and Azure Blob Storage: tests/tools/fault_proxy.py
# (--flavor azure) in front of Azurite answers a share of requests with 500
# InternalError or 503 ServerBusy, resets connections before forwarding,
# truncates response bodies, delays responses, and resets after forwarding
# (the request took effect, loom cannot know). Through it, rounds of
# inspect, compaction and Z-order (64 KiB blocks, several in flight),
# checkpoint, VACUUM FULL (Blob Batch deletes) and log cleanup run on a
# table loom converted on Azurite (Hive partitions with a space and an
# escaped ':' in their names). Every command completes or fails with a clear
# error (exit 1, naming what happened; never a crash); afterwards the table,
# downloaded from Azurite directly by Microsoft's SDK, has its original rows
# (oracle fingerprint) and verify is clean. A commit whose create-only Put
# Blob landed but whose answer was lost is recognized as loom's own on the
# retry (409 -> read back -> same bytes): one commit, not two. Retries are
# bounded: with every request answered 503 ServerBusy a command gives up
# after exactly max_retries + 1 attempts, saying so, in bounded time.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/azure/azurite.sh"
ROUNDS="${LOOM_AZ_FAULT_ROUNDS:-3}"
[ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ] && ROUNDS=1
azurite_start
direct="$AZURE_STORAGE_ENDPOINT"

uri=az://faults/t
up() { azblob upload "$1" faults/t; }
down() { azblob download faults/t "$1"; }
source "$TOOLS/fault_ops.sh"
fault_table "$uri" up down

PROXY_UPSTREAM="${AZURITE_URL#http://}" PROXY_FLAVOR=azure
on_exit stop_proxy

# loom through the proxy, with short backoffs so the test stays quick
via_proxy() {
  AZURE_STORAGE_ENDPOINT="http://127.0.0.1:$proxy_port/devstoreaccount1" \
    LOOM_RETRY_BASE_DELAY=20ms LOOM_RETRY_MAX_DELAY=300ms \
    LOOM_TIMEOUT=5s LOOM_MULTIPART_PART_SIZE=65536 LOOM_STORE_STATS="$TEST_TMP/stats.jsonl" "$@"
}
CLEAR='HTTP [0-9]{3}|after [0-9]+ attempts|cut short|reset|closed the connection|timed out|cannot connect'

fault_rounds 0 --error-rate 0.04 --slowdown-rate 0.04 --reset-rate 0.03 \
  --truncate-rate 0.03 --delay-rate 0.03 --delay-ms 200 --ambiguous-rate 0.02
fault_rounds_checks "block uploads" 's.store_requests.OTHER >= 1 && s.store_requests.PUT > 4' error slowdown reset truncate delay ambiguous

# a lost answer to a commit: the Put Blob lands, the connection is reset,
# the retry gets 409 BlobAlreadyExists and finds its own bytes there
v0=$(jsq <("$LOOM_BIN" inspect "$uri" --json) 'd.version')
start_proxy --match 'PUT .*_delta_log/[0-9]+\.json' --ambiguous-rate 1.0 --max-faults 1 --log "$TEST_TMP/amb.jsonl"
if via_proxy "$LOOM_BIN" zorder "$uri" --columns s --target-size 64MiB > /dev/null 2> "$TEST_TMP/amb.err"; then
  pass
else
  fail "zorder with its commit's answer lost: $(cat "$TEST_TMP/amb.err")"
fi
stop_proxy
expect "the commit's answer was lost once" test "$(grep -c ambiguous "$TEST_TMP/amb.jsonl")" = 1
expect "one commit, version $((v0 + 1)), not two" test "$(jsq <("$LOOM_BIN" inspect "$uri" --json) 'd.version')" = $((v0 + 1))

# judged on Azurite directly
azblob download faults/t "$TEST_TMP/d1"
oracle fingerprint "$TEST_TMP/d1" > "$TEST_TMP/fp1.json"
expect "rows unchanged after the faulty rounds" test "$fp0" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
expect "oracle verify" oracle verify "$TEST_TMP/d1" > /dev/null

# bounded retries: every request answered 503 ServerBusy
pqkey=$(azblob ls faults/t | cut -f1 | grep '\.parquet$' | head -1)
start_proxy --slowdown-rate 1.0 --log "$TEST_TMP/all503.jsonl"
t0=$(date +%s%N)
if AZURE_STORAGE_ENDPOINT="http://127.0.0.1:$proxy_port/devstoreaccount1" LOOM_MAX_RETRIES=3 LOOM_RETRY_BASE_DELAY=50ms \
    "$LOOM_BIN" parquet meta "$uri/$pqkey" > /dev/null 2> "$TEST_TMP/503.err"; then
  fail "parquet meta succeeded with every request answered 503"
else
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  expect "the error names the container, the status, ServerBusy and the attempts: $(cat "$TEST_TMP/503.err")" \
    grep -qE "container \"faults\" blob \"t/.*HTTP 503 \(ServerBusy.*after 4 attempts" "$TEST_TMP/503.err"
  expect "exactly max_retries + 1 = 4 requests were sent ($(wc -l < "$TEST_TMP/all503.jsonl"))" \
    test "$(wc -l < "$TEST_TMP/all503.jsonl")" = 4
  expect "it gave up in bounded time (${ms} ms)" test "$ms" -lt 20000
fi
stop_proxy
expect "loom reads the table directly" env AZURE_STORAGE_ENDPOINT="$direct" "$LOOM_BIN" inspect "$uri" > /dev/null
finish
