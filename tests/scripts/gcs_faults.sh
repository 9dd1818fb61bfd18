#!/usr/bin/env bash
# Faults between loom and GCS: tests/tools/fault_proxy.py (--flavor gcs)
# in front of the GCS server of the tests (tests/tools/gcs/gcs.sh) answers a
# share of requests with 429 rateLimitExceeded (delta-rs#2451: GCS throttles
# writers under contention), 503 and 500, resets connections before
# forwarding, truncates response bodies, delays responses, and resets after
# forwarding (the request took effect, loom cannot know). Through it,
# rounds of inspect, compaction and Z-order (resumable uploads in 256 KiB
# chunks), checkpoint, VACUUM FULL and log cleanup run on a table loom
# converted on the server (LOOM_GCS_FAULT_ROUNDS, default 3; 1 in the
# sanitizer pass; LOOM_GCS_FAULT_SEED shifts the proxy's seeds). Every
# command completes or fails with a clear error (exit 1; never a crash);
# afterwards the table, downloaded directly
# by @google-cloud/storage, has its original rows (oracle fingerprint),
# verify is clean, and no partial object is visible: every Parquet object
# the log does not name is a whole Parquet file. Then, one at a time:
#  - failed resumable chunks (500, reset, lost answers): the writer asks
#    the session what it holds and resumes there; rows unchanged;
#  - the last chunk of a resumable upload (the one that publishes the
#    object) lands but its answer is lost: curl resends it unseen on a new
#    connection, the finished session refuses it (the emulator: 400), and
#    the object with the writer's id in its metadata shows the upload was
#    loom's: the Z-order commits both partitions, rows unchanged. (This
#    once lost a partition: the session's cancel cleared the failure's
#    error record and the pipeline re-raised the empty record as success,
#    a unit finished with no file, its inputs removed.)
#  - a commit whose create-only upload landed but whose answer was lost is
#    recognized as loom's own on the retry (412 from the front -> read
#    back -> same bytes): one commit, not two;
#  - retries are bounded: with every request answered 429 a command gives
#    up after exactly max_retries + 1 attempts, saying so, in bounded time.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/gcs/gcs.sh"
ROUNDS="${LOOM_GCS_FAULT_ROUNDS:-3}"
[ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ] && ROUNDS=1
gcs_start
unset STORAGE_EMULATOR_HOST  # loom goes through the proxy (an endpoint: no auth)

uri=gs://faults/t
up() { gcsc upload "$1" faults/t; }
down() { gcsc download faults/t "$1"; }
source "$TOOLS/fault_ops.sh"
fault_table "$uri" up down GOOGLE_STORAGE_ENDPOINT="$GCS_URL"

PROXY_UPSTREAM="${GCS_URL#http://}" PROXY_FLAVOR=gcs
on_exit stop_proxy

# loom through the proxy, with short backoffs so the test stays quick
via_proxy() {
  GOOGLE_STORAGE_ENDPOINT="http://127.0.0.1:$proxy_port" \
    LOOM_RETRY_BASE_DELAY=20ms LOOM_RETRY_MAX_DELAY=300ms \
    LOOM_TIMEOUT=5s LOOM_MULTIPART_PART_SIZE=262144 LOOM_STORE_STATS="$TEST_TMP/stats.jsonl" "$@"
}
CLEAR='HTTP [0-9]{3}|after [0-9]+ attempts|cut short|reset|closed the connection|timed out|cannot connect|arrived of|no progress'

fault_rounds "${LOOM_GCS_FAULT_SEED:-0}" --error-rate 0.03 --slowdown-rate 0.03 --reset-rate 0.03 \
  --truncate-rate 0.03 --delay-rate 0.03 --delay-ms 200 --ambiguous-rate 0.02 --throttle-rate 0.04
fault_rounds_checks "resumable uploads" 's.store_requests.OTHER >= 1 && s.store_requests.PUT > 4' error slowdown reset truncate delay ambiguous throttle

# failed resumable chunks: errors, resets and lost answers on the chunk
# PUTs of a Z-order's data files; each time the writer asks the session
# what it holds and goes on from there
start_proxy --match '^PUT /upload/.*upload_id' --seed 7 --error-rate 0.2 --reset-rate 0.1 --ambiguous-rate 0.1 \
  --throttle-rate 0.1 --max-faults 12 --log "$TEST_TMP/chunks.jsonl"
rm -f "$TEST_TMP/stats.jsonl"
if via_proxy "$LOOM_BIN" zorder "$uri" --columns s,v --target-size 64MiB > /dev/null 2> "$TEST_TMP/chunks.err"; then
  pass
else
  fail "zorder with failed resumable chunks: $(cat "$TEST_TMP/chunks.err")"
fi
stop_proxy
expect "chunk PUTs failed ($(wc -l < "$TEST_TMP/chunks.jsonl") faults) and were resumed" test "$(wc -l < "$TEST_TMP/chunks.jsonl")" -ge 3
expect "the retries were counted" jsq --assert <(tail -1 "$TEST_TMP/stats.jsonl") 'd.retries >= 3'

# a lost answer to the last chunk of a resumable upload: the first chunk
# that names the object's size is forwarded (the object is published) and
# its connection reset instead of answered
start_proxy --match '^PUT /upload/.*upload_id' --match-header 'content-range=^bytes [0-9]+-[0-9]+/[0-9]+$' \
  --ambiguous-rate 1.0 --max-faults 1 --log "$TEST_TMP/last.jsonl"
if via_proxy "$LOOM_BIN" zorder "$uri" --columns v,s --target-size 64MiB > "$TEST_TMP/last.out" 2> "$TEST_TMP/last.err"; then
  pass
else
  fail "zorder with the answer to a last chunk lost: $(cat "$TEST_TMP/last.err")"
fi
stop_proxy
expect "the answer to one last chunk was lost" test "$(grep -c ambiguous "$TEST_TMP/last.jsonl")" = 1
expect "both partitions were rewritten, a file each: $(cat "$TEST_TMP/last.out")" \
  grep -qE 'z-ordered [0-9]+ files .* into 2 files .* in 2 partitions' "$TEST_TMP/last.out"
gcsc download faults/t "$TEST_TMP/dlast"
oracle fingerprint "$TEST_TMP/dlast" > "$TEST_TMP/fplast.json"
expect "rows unchanged by it (oracle, on a direct download)" \
  test "$(jsq "$TEST_TMP/fplast.json" 'd.hash + "/" + d.rows')" = "$fp0"

# a lost answer to a commit: the create-only upload lands, the connection
# is reset, the retry gets 412 (from the front) and finds its own bytes
v0=$(jsq <(GOOGLE_STORAGE_ENDPOINT="$GCS_URL" "$LOOM_BIN" inspect "$uri" --json) 'd.version')
start_proxy --match '^POST /upload/.*_delta_log%2F[0-9]+\.json' --ambiguous-rate 1.0 --max-faults 1 --log "$TEST_TMP/amb.jsonl"
if via_proxy "$LOOM_BIN" zorder "$uri" --columns s --target-size 64MiB > /dev/null 2> "$TEST_TMP/amb.err"; then
  pass
else
  fail "zorder with its commit's answer lost: $(cat "$TEST_TMP/amb.err")"
fi
stop_proxy
expect "the commit's answer was lost once" test "$(grep -c ambiguous "$TEST_TMP/amb.jsonl")" = 1
expect "one commit, version $((v0 + 1)), not two" \
  test "$(jsq <(GOOGLE_STORAGE_ENDPOINT="$GCS_URL" "$LOOM_BIN" inspect "$uri" --json) 'd.version')" = $((v0 + 1))

# judged on the server directly
gcsc download faults/t "$TEST_TMP/d1"
oracle fingerprint "$TEST_TMP/d1" > "$TEST_TMP/fp1.json"
fp1=$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')
expect "rows unchanged after the faulty rounds ($fp0 -> $fp1)" test "$fp0" = "$fp1"
expect "oracle verify" oracle verify "$TEST_TMP/d1" > /dev/null
# no partial object: what the log does not name must still be whole files
cat "$TEST_TMP"/d1/_delta_log/*.json | grep -o '"path":"[^"]*"' | cut -d'"' -f4 | python3 -c \
  'import sys, urllib.parse; [print(urllib.parse.unquote(l.strip())) for l in sys.stdin]' | sort -u > "$TEST_TMP/named"
(cd "$TEST_TMP/d1" && find . -name '*.parquet' ! -path './_delta_log/*' | sed 's|^\./||' | sort) > "$TEST_TMP/objects"
partial=0
for f in $(comm -23 "$TEST_TMP/objects" "$TEST_TMP/named"); do
  oracle fingerprint-parquet "$TEST_TMP/d1/$f" > /dev/null 2>&1 || { partial=$((partial + 1)); echo "partial: $f" >&2; }
done
expect "no partial object visible ($(comm -23 "$TEST_TMP/objects" "$TEST_TMP/named" | wc -l) unnamed objects, all whole)" test "$partial" = 0

# bounded retries: every request answered 429
pqkey=$(gcsc ls faults/t | cut -f1 | grep '\.parquet$' | head -1)
start_proxy --throttle-rate 1.0 --log "$TEST_TMP/all429.jsonl"
t0=$(now_ms)
if GOOGLE_STORAGE_ENDPOINT="http://127.0.0.1:$proxy_port" LOOM_MAX_RETRIES=3 LOOM_RETRY_BASE_DELAY=50ms \
    "$LOOM_BIN" parquet meta "$uri/$pqkey" > /dev/null 2> "$TEST_TMP/429.err"; then
  fail "parquet meta succeeded with every request answered 429"
else
  ms=$(( $(now_ms) - t0 ))
  expect "the error names the bucket, the object, 429 and the attempts: $(cat "$TEST_TMP/429.err")" \
    grep -qE "bucket \"faults\" object \"t/.*HTTP 429 \(.*rate limit.*after 4 attempts" "$TEST_TMP/429.err"
  expect "exactly max_retries + 1 = 4 requests were sent ($(wc -l < "$TEST_TMP/all429.jsonl"))" \
    test "$(wc -l < "$TEST_TMP/all429.jsonl")" = 4
  expect "it gave up in bounded time (${ms} ms)" test "$ms" -lt 20000
fi
stop_proxy
expect "loom reads the table directly" env GOOGLE_STORAGE_ENDPOINT="$GCS_URL" "$LOOM_BIN" inspect "$uri" > /dev/null
finish
