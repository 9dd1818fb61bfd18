#!/usr/bin/env bash
# VACUUM aborts the incomplete multipart uploads killed writers leave
# (issue 34), on Ceph RGW, judged by awscli and the oracle:
#  - a compaction killed mid-multipart (5 MiB parts given as
#    LOOM_MULTIPART_PART_SIZE=5MiB; tests/tools/fault_proxy.py holds every
#    part upload's reply so the kill lands while the upload is open) leaves
#    an open upload under the table's prefix, and the table unchanged;
#  - a dry-run vacuum (lite and full) lists it and one awscli opened, with
#    their parts' bytes as awscli's list-parts counts them, and aborts
#    nothing; the default retention (7 days) lists none of these new ones;
#  - vacuum --retention-hours 0 --no-retention-check --no-dry-run aborts
#    them: list-multipart-uploads shows none under the prefix, while the
#    uploads under a neighbouring table ("t2/") and a key that merely
#    starts like the root ("tx") are untouched; the table's fingerprint is
#    unchanged and the rerun compaction completes.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

bucket=$(s3_new_bucket uploads) || { fail "cannot create a bucket"; finish; exit 1; }
uri="s3://$bucket/t"
base="$TEST_TMP/base"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
  node "$TOOLS/gen_small_files.cjs" "$base" 1 12 12000
expect "upload the Parquet files" s3_upload "$base" "$uri"
expect "convert on S3" "$LOOM_BIN" convert "$uri" --partition-by p,q > /dev/null
fingerprint() { # fingerprint NAME: the table as awscli downloads it
  s3_download "$uri" "$TEST_TMP/$1" && oracle fingerprint "$TEST_TMP/$1" | jsq - 'd.hash + "/" + d.rows'
}
fp0=$(fingerprint d0)
expect "the table has rows" test -n "$fp0"

# open uploads under PREFIX, as awscli lists them: "key<TAB>upload id" lines
open_uploads() {
  s3cli s3api list-multipart-uploads --bucket "$bucket" --prefix "$1" \
    --query 'Uploads[].[Key,UploadId]' --output text | { grep -v '^None$' || true; } | sort
}
# bytes awscli's list-parts counts for KEY ID
part_bytes() {
  s3cli s3api list-parts --bucket "$bucket" --key "$1" --upload-id "$2" \
    --query 'sum(Parts[].Size || `[0]`)' --output text
}

# ---- a compaction killed mid-multipart -------------------------------------
proxy_pid=""
# SIGKILL: a held reply would keep the proxy 20 s in its sleep
stop_proxy() { [ -n "$proxy_pid" ] && { kill -9 "$proxy_pid" 2> /dev/null && wait "$proxy_pid" 2> /dev/null; } || true; proxy_pid=""; }
on_exit stop_proxy
# every part upload is stored by RGW, its reply held back 20 s
python3 "$TOOLS/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 \
  --delay-rate 1 --delay-ms 20000 --match '^PUT [^ ]*partNumber=' \
  --port-file "$TEST_TMP/proxy.port" --log "$TEST_TMP/held.jsonl" > /dev/null 2> "$TEST_TMP/proxy.err" &
proxy_pid=$!
for _ in $(seq 1 100); do [ -s "$TEST_TMP/proxy.port" ] && break; sleep 0.05; done
AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TEST_TMP/proxy.port")" LOOM_MULTIPART_PART_SIZE=5MiB \
  "$LOOM_BIN" compact "$uri" --target-size 64MiB > "$TEST_TMP/compact.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -s "$TEST_TMP/held.jsonl" ] && break; sleep 0.1; done
# the proxy logs the hold when the part's request arrives: wait until RGW
# has stored the part (its reply is held for 20 s), then kill
for _ in $(seq 1 30); do
  up=$(open_uploads t/ | head -1)
  [ -n "$up" ] && [ "$(part_bytes "$(echo "$up" | cut -f1)" "$(echo "$up" | cut -f2)")" != 0 ] && break
  sleep 0.2
done
expect "the compaction was still running when a part was sent" kill -9 "$pid"
wait "$pid" 2> /dev/null || true
stop_proxy
expect "a part upload was held (the output went multipart)" test -s "$TEST_TMP/held.jsonl"
killed=$(open_uploads t/)
echo "open after the kill: $killed"
expect "the killed compaction left an open upload under t/" test -n "$killed"
kkey=$(echo "$killed" | head -1 | cut -f1)
kid=$(echo "$killed" | head -1 | cut -f2)
expect "its parts are 5 MiB (LOOM_MULTIPART_PART_SIZE=5MiB)" test "$(s3cli s3api list-parts --bucket "$bucket" \
  --key "$kkey" --upload-id "$kid" --query 'max(Parts[].Size)' --output text)" = 5242880
expect "fingerprint unchanged after the kill" test "$(fingerprint d1)" = "$fp0"

# ---- more open uploads: under the table, a neighbour and a look-alike -----
head -c 100000 /dev/urandom > "$TEST_TMP/part1"
open_one() { # open_one KEY [PART]: an upload of KEY, with one part when PART is given
  local id
  id=$(s3cli s3api create-multipart-upload --bucket "$bucket" --key "$1" --query UploadId --output text) || return 1
  if [ -n "${2:-}" ]; then
    s3cli s3api upload-part --bucket "$bucket" --key "$1" --upload-id "$id" --part-number 1 \
      --body "$2" > /dev/null || return 1
  fi
}
expect "an upload under t/ (one part)" open_one "t/p=0/stray.parquet" "$TEST_TMP/part1"
expect "an upload under t/_delta_log/ (no part)" open_one "t/_delta_log/00000000000000000099.json.tmp"
expect "an upload of a neighbouring table" open_one "t2/part-0.parquet" "$TEST_TMP/part1"
expect "an upload of a look-alike key" open_one "tx" "$TEST_TMP/part1"
ours=$(open_uploads t/)
others=$(open_uploads t2/; open_uploads tx)
expect "three open uploads under t/" test "$(echo "$ours" | wc -l)" = 3

# loom's report of the uploads: "key bytes" lines, sorted
reported() { jsq "$1" 'd.multipart_uploads.uploads.map(u => u.key + " " + u.bytes).join("\n")' | sort; }
# awscli's view of them, relative to the root
expected=$(echo "$ours" | while IFS=$'\t' read -r k id; do echo "${k#t/} $(part_bytes "$k" "$id")"; done | sort)

# ---- dry runs: listed, not aborted -----------------------------------------
expect "dry run, table retention" "$LOOM_BIN" vacuum "$uri" --json > "$TEST_TMP/dry7d.json"
expect "dry run, table retention: the new uploads are inside it" \
  jsq --assert "$TEST_TMP/dry7d.json" 'd.multipart_uploads.count === 0'
for mode in lite full; do
  flag=(); [ "$mode" = full ] && flag=(--full)
  expect "dry run ($mode) with retention 0" "$LOOM_BIN" vacuum "$uri" "${flag[@]}" --retention-hours 0 \
    --no-retention-check --json > "$TEST_TMP/dry-$mode.json"
  expect "dry run ($mode) lists every upload under t/ with awscli's part bytes" \
    test "$(reported "$TEST_TMP/dry-$mode.json")" = "$expected"
  expect "dry run ($mode) counts them" jsq --assert "$TEST_TMP/dry-$mode.json" \
    "d.dry_run && d.multipart_uploads.count === 3 && d.multipart_uploads.bytes === $(echo "$expected" | awk '{s += $NF} END {print s}')"
  expect "dry run ($mode) aborted nothing" test "$(open_uploads t/)" = "$ours"
done
expect "dry run, text" "$LOOM_BIN" vacuum "$uri" --retention-hours 0 --no-retention-check > "$TEST_TMP/dry.txt"
expect "the text report names the killed compaction's upload" grep -q "^would abort multipart upload ${kkey#t/} " "$TEST_TMP/dry.txt"

# ---- vacuum retention 0: aborted -------------------------------------------
expect "vacuum lite, retention 0" "$LOOM_BIN" vacuum "$uri" --retention-hours 0 --no-retention-check \
  --no-dry-run --json > "$TEST_TMP/real.json"
expect "it reports the three aborted" test "$(reported "$TEST_TMP/real.json")" = "$expected"
expect "awscli lists no upload under t/" test -z "$(open_uploads t/)"
expect "the neighbour's and the look-alike's uploads are untouched" \
  test "$(open_uploads t2/; open_uploads tx)" = "$others"
expect "fingerprint unchanged after the vacuum" test "$(fingerprint d2)" = "$fp0"
expect "a second vacuum finds none" "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 \
  --no-retention-check --no-dry-run --json > "$TEST_TMP/again.json"
expect "... and says so" jsq --assert "$TEST_TMP/again.json" 'd.multipart_uploads.count === 0'

# full mode aborts too, also when it deletes files (VACUUM START/END count them)
expect "another upload under t/" open_one "t/p=0/stray2.parquet" "$TEST_TMP/part1"
expect "the rerun compaction completes" "$LOOM_BIN" compact "$uri" --target-size 64MiB > /dev/null
expect "vacuum full, retention 0" "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 \
  --no-retention-check --no-dry-run --json > "$TEST_TMP/full.json"
expect "vacuum full deleted the compacted-away files and aborted the upload" jsq --assert "$TEST_TMP/full.json" \
  'd.num_files > 0 && d.multipart_uploads.count === 1 && d.multipart_uploads.uploads[0].key === "p=0/stray2.parquet" && d.multipart_uploads.uploads[0].bytes === 100000'
expect "awscli lists no upload under t/ after vacuum full" test -z "$(open_uploads t/)"
s3_download "$uri" "$TEST_TMP/d3"
# the log as awscli downloaded it: the last VACUUM END counts the abort
end_metrics=$(python3 - "$TEST_TMP/d3/_delta_log" <<'PY'
import glob, json, sys
last = None
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    for line in open(f):
        ci = json.loads(line).get("commitInfo") if line.strip() else None
        if ci and ci.get("operation") == "VACUUM END":
            last = ci
print(json.dumps(last and {"status": last["operationParameters"]["status"], **last["operationMetrics"]}, sort_keys=True))
PY
)
expect "VACUUM END: COMPLETED, one upload aborted ($end_metrics)" jsq --assert - \
  'd.status === "COMPLETED" && Number(d.numAbortedMultipartUploads) === 1' <<< "$end_metrics"
expect "fingerprint unchanged after compaction and vacuum full" \
  test "$(oracle fingerprint "$TEST_TMP/d3" | jsq - 'd.hash + "/" + d.rows')" = "$fp0"
if oracle verify "$TEST_TMP/d3" > "$TEST_TMP/v.json"; then pass; else fail "verify: $(head -c 500 "$TEST_TMP/v.json")"; fi
expect "the neighbour's uploads are still untouched" test "$(open_uploads t2/; open_uploads tx)" = "$others"
finish
