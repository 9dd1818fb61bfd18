#!/usr/bin/env bash
# Reading ahead on S3 (src/ops/pipeline/pipe_ahead.c), seen from the wire: a
# compaction of 6 one-row-group files through tests/tools/fault_proxy.py,
# which delays every GET response by 150 ms (a far object store's first
# byte) and traces when each request came and was answered. While one
# file's row group is copied, the next files' row groups are already being
# fetched: at least two row-group GETs of different files are in flight at
# the same moment (without the read-ahead the copy asks for one at a time:
# at most one, and this test fails), and no row group is fetched twice (6
# ranged GETs, one per file). A Z-order of the same files reads each
# footer once for its two passes (with the footers read per pass, 12 footer
# GETs instead of 6). The rewritten tables, downloaded by awscli straight
# from RGW, have the same rows (oracle) and verify.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
bucket=$(s3_new_bucket ahead) || { fail "cannot create a bucket"; finish; exit 1; }

NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
  node "$TOOLS/gen_copy_files.cjs" "$TEST_TMP/gen" > /dev/null
mkdir -p "$TEST_TMP/t"
for f in "$TEST_TMP/gen"/big-*.parquet; do   # 4 files, and 2 more copies: 6
  cp "$f" "$TEST_TMP/t/"
done
cp "$TEST_TMP/gen/big-0.parquet" "$TEST_TMP/t/again-0.parquet"
cp "$TEST_TMP/gen/big-1.parquet" "$TEST_TMP/t/again-1.parquet"
nfiles=$(ls "$TEST_TMP/t"/*.parquet | wc -l)
"$LOOM_BIN" convert "$TEST_TMP/t" > /dev/null
fp0=$(oracle fingerprint "$TEST_TMP/t" | jsq - 'd.hash + "/" + d.rows')
expect "upload $nfiles files" s3_upload "$TEST_TMP/t" "s3://$bucket/t"

python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 --port-file "$TEST_TMP/proxy.port" \
  --delay-rate 1 --delay-ms 150 --match '^GET ' --trace "$TEST_TMP/trace.jsonl" > /dev/null 2>> "$TEST_TMP/proxy.err" &
proxy_pid=$!
on_exit 'kill "$proxy_pid" 2> /dev/null'
for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy.port" ] && break; sleep 0.05; done
AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TEST_TMP/proxy.port")" \
  "$LOOM_BIN" compact "s3://$bucket/t" --target-size 64MiB --json > "$TEST_TMP/compact.json"
expect "$nfiles files into 1" jsq --assert "$TEST_TMP/compact.json" "d.num_files_removed === $nfiles && d.num_files_added === 1"
kill "$proxy_pid" 2> /dev/null; wait "$proxy_pid" 2> /dev/null || true

# row-group GETs: ranged GETs of a data file that do not reach its last
# byte (the footer read does: the last 64 KiB, or a suffix range)
(cd "$TEST_TMP/t" && stat -c '%n %s' ./*.parquet) > "$TEST_TMP/sizes.txt"
python3 - "$TEST_TMP/trace.jsonl" "$TEST_TMP/sizes.txt" > "$TEST_TMP/overlap.txt" <<'PY'
import json, sys
trace, sizes = sys.argv[1], dict(l.split() for l in open(sys.argv[2]))
def row_group_get(r):
    name = "./" + r["target"].rsplit("/", 1)[-1]
    if r["method"] != "GET" or name not in sizes or not r["range"].startswith("bytes="):
        return False
    first, _, last = r["range"][len("bytes="):].partition("-")
    return first != "" and last != "" and int(last) < int(sizes[name]) - 1
gets = [r for r in map(json.loads, open(trace)) if row_group_get(r)]
files = {r["target"] for r in gets}
most = 0
for r in gets:   # how many row-group GETs of other files were in flight while r was
    at_once = {o["target"] for o in gets if o["start"] < r["end"] and r["start"] < o["end"]}
    most = max(most, len(at_once))
print(len(gets), len(files), most)
PY
read -r ranged distinct most < "$TEST_TMP/overlap.txt"
expect "one row-group GET per file: $ranged GETs of $distinct files, $nfiles expected" \
  test "$ranged" = "$nfiles" -a "$distinct" = "$nfiles"
expect "row groups of different files fetched at once: at most $most in flight together, 2 or more expected" \
  test "$most" -ge 2

# Z-order reads each footer once: the sorting pass reuses the footers the
# sampling pass fetched (ops/pipeline/pipeline.h, pipe_unit.footers).
# Footer GETs are the ranged GETs of a data file that reach its last byte.
expect "upload the $nfiles files again" s3_upload "$TEST_TMP/t" "s3://$bucket/z"
python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 --port-file "$TEST_TMP/proxy-z.port" \
  --trace "$TEST_TMP/trace-z.jsonl" > /dev/null 2>> "$TEST_TMP/proxy.err" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy-z.port" ] && break; sleep 0.05; done
AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TEST_TMP/proxy-z.port")" \
  "$LOOM_BIN" zorder "s3://$bucket/z" --columns id --target-size 64MiB --json > "$TEST_TMP/zorder.json"
expect "Z-order: $nfiles files into 1" jsq --assert "$TEST_TMP/zorder.json" "d.num_files_removed === $nfiles && d.num_files_added === 1"
kill "$proxy_pid" 2> /dev/null; wait "$proxy_pid" 2> /dev/null || true
python3 - "$TEST_TMP/trace-z.jsonl" "$TEST_TMP/sizes.txt" > "$TEST_TMP/footers.txt" <<'PY'
import collections, json, sys
trace, sizes = sys.argv[1], dict(l.split() for l in open(sys.argv[2]))
def footer_get(r):
    name = "./" + r["target"].rsplit("/", 1)[-1]
    if r["method"] != "GET" or name not in sizes or not r["range"].startswith("bytes="):
        return None
    first, _, last = r["range"][len("bytes="):].partition("-")
    whole = int(sizes[name])
    return name if first == "" or (last != "" and int(last) >= whole - 1) else None
per_file = collections.Counter(n for n in map(footer_get, map(json.loads, open(trace))) if n)
print(sum(per_file.values()), len(per_file), max(per_file.values(), default=0))
PY
read -r footer_gets footer_files most_per_file < "$TEST_TMP/footers.txt"
expect "Z-order: one footer GET per file ($footer_gets GETs of $footer_files files, at most $most_per_file per file; $nfiles files)" \
  test "$footer_gets" = "$nfiles" -a "$footer_files" = "$nfiles"
expect "download the Z-ordered table" s3_download "s3://$bucket/z" "$TEST_TMP/zdown"
expect "Z-ordered rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/zdown" | jsq - 'd.hash + "/" + d.rows')"

expect "download the compacted table" s3_download "s3://$bucket/t" "$TEST_TMP/down"
expect "compacted rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/down" | jsq - 'd.hash + "/" + d.rows')"
expect "compacted table verifies" oracle verify "$TEST_TMP/down" > /dev/null
finish
