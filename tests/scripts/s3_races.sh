#!/usr/bin/env bash
# Races on S3 (Ceph RGW): LOOM_S3_WRITERS (4) processes commit
# LOOM_S3_COMMITS (100) blind appends each to one table at the same time
# (tests/helpers/append_commits over s3://), while another process runs
# `loom compact` and `loom checkpoint` in a loop against them - every commit
# a create-only PUT (If-None-Match: *) racing the others. Judged on the
# table downloaded by awscli: every version has exactly one winner (the
# versions the processes report are disjoint and are exactly the log's,
# contiguous), no append lost or committed twice, the oracle's state read
# through loom's newest checkpoint equals the replay of the commits alone,
# the rows equal base + appends x rows per copy, and verify is clean.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
CMP="$TOOLS/ckpt_compare.cjs"
HELPER="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/append_commits"
WRITERS="${LOOM_S3_WRITERS:-4}"
# the sanitizer pass (which samples the fixtures) races fewer commits: the
# regular pass runs the full 400
if [ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ]; then COMMITS="${LOOM_S3_COMMITS:-25}"; else COMMITS="${LOOM_S3_COMMITS:-100}"; fi
TOTAL=$((WRITERS * COMMITS))

bucket=$(s3_new_bucket races) || { fail "cannot create a bucket"; finish; exit 1; }
t=$(copy_table simple_table)
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
base_rows=$(jsq "$TEST_TMP/fp0.json" 'd.rows')
oracle snapshot "$t" > "$TEST_TMP/snap0.json"
per_copy=0
for src in $(jsq "$TEST_TMP/snap0.json" 'd.files.map(f => f.path).join(" ")'); do
  oracle fingerprint-parquet "$t/$src" > "$TEST_TMP/src.json"
  per_copy=$(jsq "$TEST_TMP/src.json" 'd.rows')
  [ "$per_copy" -gt 0 ] && break
done
expect "a live data file with rows to copy" test "$per_copy" -gt 0
uri="s3://$bucket/race"
expect "table uploaded" s3_upload "$t" "$uri"
echo "base: $base_rows rows; $WRITERS writers x $COMMITS appends of $src ($per_copy rows) on $uri"
start=$(date +%s)

pids=()
for w in $(seq 1 "$WRITERS"); do
  "$HELPER" "$uri" "$src" "w$w" "$COMMITS" "$per_copy" > "$TEST_TMP/versions.$w" 2> "$TEST_TMP/err.$w" &
  pids+=($!)
done
( runs=0; bad=0
  while :; do
    alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
    if "$LOOM_BIN" compact "$uri" --json >> "$TEST_TMP/compact.jsonl" 2>> "$TEST_TMP/compact.err"; then
      runs=$((runs + 1))
    else
      bad=$((bad + 1))
    fi
    "$LOOM_BIN" checkpoint "$uri" --json >> "$TEST_TMP/ck.jsonl" 2>> "$TEST_TMP/ck.err" || bad=$((bad + 1))
    [ $alive -eq 0 ] && break
  done
  echo "$runs $bad" > "$TEST_TMP/maint.counts" ) &
mpid=$!
for w in $(seq 1 "$WRITERS"); do
  if wait "${pids[$((w - 1))]}"; then pass; else fail "writer $w failed: $(tail -3 "$TEST_TMP/err.$w")"; fi
done
wait $mpid
read -r runs bad < "$TEST_TMP/maint.counts"
touch "$TEST_TMP/compact.err" "$TEST_TMP/ck.err"
echo "$TOTAL appends, $runs compactions in $(( $(date +%s) - start )) s; failed maintenance runs: $bad"
# A compaction that keeps losing the race to the appenders gives up after
# its bounded commit attempts (ECONFLICT, table unchanged, its files
# deleted); any other failure fails the test.
LOST='gave up after [0-9]+ commit attempts lost to concurrent writers'
echo "compactions that gave up to the appenders: $(grep -cE "$LOST" "$TEST_TMP/compact.err" || true)"
expect "no other compaction failure: $(grep -vE "$LOST" "$TEST_TMP/compact.err" | head -c 300)" \
  test -z "$(grep -vE "$LOST" "$TEST_TMP/compact.err")"
expect "no checkpoint failed: $(head -c 300 "$TEST_TMP/ck.err")" test ! -s "$TEST_TMP/ck.err"
node -e 'const fs = require("fs");
  const v = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)
    .map(l => JSON.parse(l).metrics.version).filter(x => x >= 0);
  console.log(v.join("\n"));' "$TEST_TMP/compact.jsonl" > "$TEST_TMP/versions.compact"
compactions=$(wc -l < "$TEST_TMP/versions.compact")
expect "compactions committed while appends ran ($compactions)" test "$compactions" -ge 1

d="$TEST_TMP/down"
expect "table downloaded" s3_download "$uri" "$d"
cat "$TEST_TMP"/versions.* | sort -n > "$TEST_TMP/all_versions"
expect "$TOTAL appends + $compactions compactions reported" \
  test "$(wc -l < "$TEST_TMP/all_versions")" -eq $((TOTAL + compactions))
expect "no version won twice" test -z "$(uniq -d "$TEST_TMP/all_versions")"
ls "$d/_delta_log" | grep -E '^[0-9]{20}\.json$' | sed 's/\.json$//; s/^0*\([0-9]\)/\1/' | sort -n > "$TEST_TMP/log_versions"
latest=$(tail -1 "$TEST_TMP/log_versions")
expect "versions contiguous 0..$latest" test "$(wc -l < "$TEST_TMP/log_versions")" -eq $((latest + 1))
expect "the log is exactly the reported versions after the base (4)" \
  test "$(awk '$1 > 4' "$TEST_TMP/log_versions" | sort -n)" = "$(sort -n "$TEST_TMP/all_versions")"
cat "$d"/_delta_log/*.json | grep -o '"add":{"path":"w[0-9]*-[0-9]*\.parquet"' | sort > "$TEST_TMP/adds"
expect "$TOTAL appends in the log" test "$(wc -l < "$TEST_TMP/adds")" -eq "$TOTAL"
expect "no append committed twice" test -z "$(uniq -d "$TEST_TMP/adds")"

oracle snapshot "$d" > "$TEST_TMP/snap.json"
oracle snapshot "$d" --ignore-checkpoints > "$TEST_TMP/ref.json"
echo "oracle reads from checkpoint $(jsq "$TEST_TMP/snap.json" 'd.checkpoint && d.checkpoint.version'), version $(jsq "$TEST_TMP/snap.json" 'd.version')"
expect "the state through loom's checkpoint == the commits' replay" node "$CMP" snap "$TEST_TMP/ref.json" "$TEST_TMP/snap.json"
oracle fingerprint "$d" > "$TEST_TMP/fp1.json"
expect "rows = $base_rows + $TOTAL x $per_copy" jsq --assert "$TEST_TMP/fp1.json" "d.rows === $base_rows + $TOTAL * $per_copy"
expect "oracle verify" oracle verify "$d" > /dev/null
finish
