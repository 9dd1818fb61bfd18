#!/usr/bin/env bash
# What loom sends to S3, counted by LOOM_STORE_STATS (Ceph RGW):
#  - opening a Parquet file whose footer fits the first read is one GET
#    (a suffix range: no HEAD first);
#  - reading a log of N commits after a checkpoint lists from the
#    checkpoint on (start-after, from the _last_checkpoint hint) in
#    ceil(N/1000) LIST requests (ListObjectsV2 pages of 1,000 keys), here
#    N = 1,050: 2 LISTs, whatever the commits before the checkpoint;
#  - those 1,050 commits are read concurrently (src/delta/log_fetch.c),
#    each exactly once: through tests/tools/fault_proxy.py delaying every
#    commit GET by 150 ms (a far object store), its trace shows 8 or more
#    commit GETs in flight at once (one at a time, the replay waited
#    1,050 round trips in a row: 49 s on this RGW, 3.6 s now);
#  - a small table's log: one LIST, each commit read in one GET, plus one
#    GET for the _last_checkpoint hint (absent there: a 404);
#  - compaction copying whole row groups through reads each row group in
#    one GET (not one per column chunk): 4 files of one 11-column row group
#    (DuckDB's, tests/tools/gen_copy_files.cjs) take 1 GET for the commit,
#    1 for the hint, 4 footers and 4 row groups; the rows stay the same
#    (oracle, on an awscli download).
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
bucket=$(s3_new_bucket counts) || { fail "cannot create a bucket"; finish; exit 1; }
stats() { jsq "$1" "d.store_requests.$2"; }

pq="$LOOM_FIXTURES_DIR/parquet/data/alltypes_tiny_pages.parquet"
expect "upload a Parquet file" s3cli s3 cp --quiet "$pq" "s3://$bucket/pq/p=1/file.parquet"
LOOM_STORE_STATS="$TEST_TMP/pq.stats" "$LOOM_BIN" parquet meta "s3://$bucket/pq/p=1/file.parquet" > "$TEST_TMP/s3.json"
"$LOOM_BIN" parquet meta "$pq" > "$TEST_TMP/local.json"
expect "the footer read over S3 equals the local one" cmp -s "$TEST_TMP/s3.json" "$TEST_TMP/local.json"
expect "opening a Parquet file: one GET, no HEAD ($(cat "$TEST_TMP/pq.stats"))" \
  jsq --assert "$TEST_TMP/pq.stats" 'd.store_requests.GET === 1 && d.store_requests.HEAD === 0'

# a small log: one LIST, one GET per commit
t=$(copy_table simple_table)
commits=$(ls "$t/_delta_log/"*.json | wc -l)
expect "upload simple_table" s3_upload "$t" "s3://$bucket/small"
LOOM_STORE_STATS="$TEST_TMP/small.stats" "$LOOM_BIN" inspect "s3://$bucket/small" > /dev/null
expect "a log of $commits commits: one LIST, $commits + 1 GETs ($(cat "$TEST_TMP/small.stats"))" \
  jsq --assert "$TEST_TMP/small.stats" "d.store_requests.LIST === 1 && d.store_requests.GET === $commits + 1"

# 1,050 commits after a checkpoint
N=1050
t=$(copy_table simple_table)
"$LOOM_BIN" checkpoint "$t" > /dev/null
ckpt=$(jsq "$t/_delta_log/_last_checkpoint" 'd.version')
python3 - "$t/_delta_log" "$ckpt" "$N" <<'PY'
import json, sys
log, base, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for v in range(base + 1, base + n + 1):
    with open(f"{log}/{v:020d}.json", "w") as f:
        f.write(json.dumps({"commitInfo": {"timestamp": 1700000000000 + v, "operation": "SET TBLPROPERTIES",
                                           "operationParameters": {}, "readVersion": v - 1}}) + "\n")
PY
expect "upload a log of $N commits after a checkpoint" s3_upload "$t" "s3://$bucket/big"
LOOM_STORE_STATS="$TEST_TMP/big.stats" "$LOOM_BIN" inspect "s3://$bucket/big" --json > "$TEST_TMP/big.json"
expect "loom read every commit: version $((ckpt + N))" jsq --assert "$TEST_TMP/big.json" "d.version === $ckpt + $N"
expect "$N commits after a checkpoint: ceil($N/1000) = 2 LISTs ($(cat "$TEST_TMP/big.stats"))" \
  jsq --assert "$TEST_TMP/big.stats" 'd.store_requests.LIST === 2'
python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 --port-file "$TEST_TMP/proxy.port" \
  --delay-rate 1 --delay-ms 150 --match '^GET .*_delta_log%2F[0-9]+\.json|^GET .*_delta_log/[0-9]+\.json' \
  --trace "$TEST_TMP/trace.jsonl" > /dev/null 2>> "$TEST_TMP/proxy.err" &
proxy_pid=$!
on_exit 'kill "$proxy_pid" 2> /dev/null'
for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy.port" ] && break; sleep 0.05; done
AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TEST_TMP/proxy.port")" \
  "$LOOM_BIN" inspect "s3://$bucket/big" --json > "$TEST_TMP/big-slow.json"
kill "$proxy_pid" 2> /dev/null; wait "$proxy_pid" 2> /dev/null || true
expect "through 150 ms per commit GET: version $((ckpt + N))" jsq --assert "$TEST_TMP/big-slow.json" "d.version === $ckpt + $N"
python3 - "$TEST_TMP/trace.jsonl" > "$TEST_TMP/overlap.txt" <<'PY'
import json, re, sys
commit = re.compile(r"_delta_log(/|%2F)[0-9]{20}\.json$")
gets = sorted((r for r in map(json.loads, open(sys.argv[1]))
               if r["method"] == "GET" and commit.search(r["target"].split("?")[0])), key=lambda r: r["start"])
most, ends = 0, []
for r in gets:   # requests still in flight when r started, r included
    ends = [e for e in ends if e > r["start"]] + [r["end"]]
    most = max(most, len(ends))
print(len(gets), len({r["target"] for r in gets}), most)
PY
read -r n_gets n_distinct most < "$TEST_TMP/overlap.txt"
expect "each of the $N commits fetched once: $n_gets GETs of $n_distinct commits" \
  test "$n_gets" = "$N" -a "$n_distinct" = "$N"
expect "commits fetched concurrently: $most GETs in flight at once, 8 or more expected" test "$most" -ge 8
# compaction: one GET per copied row group
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
  node "$TOOLS/gen_copy_files.cjs" "$TEST_TMP/gen" > /dev/null
mkdir -p "$TEST_TMP/copy"
cp "$TEST_TMP/gen"/big-*.parquet "$TEST_TMP/copy/"
"$LOOM_BIN" convert "$TEST_TMP/copy" > /dev/null
fp0=$(oracle fingerprint "$TEST_TMP/copy" | jsq - 'd.hash + "/" + d.rows')
expect "upload 4 files" s3_upload "$TEST_TMP/copy" "s3://$bucket/copy"
LOOM_STORE_STATS="$TEST_TMP/copy.stats" "$LOOM_BIN" compact "s3://$bucket/copy" --target-size 64MiB --json > "$TEST_TMP/copy.json"
expect "4 files into 1" jsq --assert "$TEST_TMP/copy.json" 'd.num_files_removed === 4 && d.num_files_added === 1'
expect "each copied row group in one GET: 1 + 1 + 4 + 4 = 10 ($(cat "$TEST_TMP/copy.stats"))" \
  jsq --assert "$TEST_TMP/copy.stats" 'd.store_requests.GET === 10'
expect "download the compacted table" s3_download "s3://$bucket/copy" "$TEST_TMP/copy-down"
expect "compacted rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/copy-down" | jsq - 'd.hash + "/" + d.rows')"
expect "compacted table verifies" oracle verify "$TEST_TMP/copy-down" > /dev/null

# Z-order decodes every row group: its column chunks are read with one GET
# per row group too (the sampler's key columns lie apart and take one GET
# each: they are not worth a span of the columns between them)
expect "upload the 4 files again" s3_upload "$TEST_TMP/copy" "s3://$bucket/zo"
LOOM_STORE_STATS="$TEST_TMP/zo.stats" "$LOOM_BIN" zorder "s3://$bucket/zo" --columns id,ts --target-size 64MiB --json > "$TEST_TMP/zo.json"
expect "Z-order: 4 files into 1" jsq --assert "$TEST_TMP/zo.json" 'd.num_files_removed === 4 && d.num_files_added === 1'
# GETs: 18. With the footers read by each of the two passes it was 22
# (4 more), with one GET per column chunk instead of per row group (11
# leaves) 62. tests/scripts/s3_read_ahead.sh counts the footer GETs per file.
expect "Z-order reads a row group in one GET and each footer once: 18 ($(cat "$TEST_TMP/zo.stats"))" \
  jsq --assert "$TEST_TMP/zo.stats" 'd.store_requests.GET === 18 && d.store_requests.LIST === 3'
expect "download the Z-ordered table" s3_download "s3://$bucket/zo" "$TEST_TMP/zo-down"
expect "Z-ordered rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/zo-down" | jsq - 'd.hash + "/" + d.rows')"
expect "Z-ordered table verifies" oracle verify "$TEST_TMP/zo-down" > /dev/null
finish
