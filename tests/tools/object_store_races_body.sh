# tests/tools/object_store_races_body.sh - the body of azure_races.sh and
# gcs_races.sh (sourced after lib.sh and the server's helpers): WRITERS
# processes commit COMMITS blind appends each to one table on the object
# store while another compacts and checkpoints it in a loop; judged on the
# table as the store's own SDK downloads it. The sourcing script sets
# WRITERS, COMMITS, HELPER, RACE_SCHEME (az, gs) and defines
# race_upload DIR NAME / race_download NAME DIR, with its server started.
TOTAL=$((WRITERS * COMMITS))

t=$(copy_table simple_table)
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
base_rows=$(jsq "$TEST_TMP/fp0.json" 'd.rows')
for src in $(oracle snapshot "$t" | jsq - 'd.files.map(f => f.path).join(" ")'); do  # a live file with rows
  per_copy=$(oracle fingerprint-parquet "$t/$src" | jsq - 'd.rows')
  [ "$per_copy" -gt 0 ] && break
done
race_upload "$t" race/t
uri="$RACE_SCHEME://race/t"
echo "base: $base_rows rows; $WRITERS writers x $COMMITS appends of $src ($per_copy rows)"
start=$(date +%s)

pids=()
for w in $(seq 1 "$WRITERS"); do
  "$HELPER" "$uri" "$src" "w$w" "$COMMITS" "$per_copy" > "$TEST_TMP/versions.$w" 2> "$TEST_TMP/err.$w" &
  pids+=($!)
done
( comp=0 ck=0
  while :; do
    alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
    "$LOOM_BIN" compact "$uri" --json >> "$TEST_TMP/compact.jsonl" 2>> "$TEST_TMP/maint.err" && comp=$((comp + 1))
    "$LOOM_BIN" checkpoint "$uri" --json >> "$TEST_TMP/ck.jsonl" 2>> "$TEST_TMP/maint.err" && ck=$((ck + 1))
    [ $alive -eq 0 ] && break
  done
  echo "$comp $ck" > "$TEST_TMP/maint.counts" ) &
mpid=$!
for w in $(seq 1 "$WRITERS"); do
  if wait "${pids[$((w - 1))]}"; then pass; else fail "writer $w failed: $(cat "$TEST_TMP/err.$w")"; fi
done
wait $mpid
read -r comp ck < "$TEST_TMP/maint.counts"
echo "maintenance loop: $comp compactions, $ck checkpoint runs; $(( $(date +%s) - start )) s"
touch "$TEST_TMP/maint.err"
# a compaction that loses its race to a conflicting one stops with a
# conflict (and deletes the files it wrote); anything else fails the test
expect "no maintenance failure other than a lost conflict: $(grep -v ECONFLICT "$TEST_TMP/maint.err" | head -3)" \
  test -z "$(grep -v ECONFLICT "$TEST_TMP/maint.err")"
expect "compactions committed while appends ran" test "$(grep -c '"num_files_removed":[1-9]' "$TEST_TMP/compact.jsonl")" -ge 1
expect "checkpoints written while appends ran" test "$(grep -c '"created":true' "$TEST_TMP/ck.jsonl")" -ge 1

d="$TEST_TMP/down"
race_download race/t "$d"
cat "$TEST_TMP"/versions.* | sort -n > "$TEST_TMP/all_versions"
expect "$TOTAL append versions reported" test "$(wc -l < "$TEST_TMP/all_versions")" -eq "$TOTAL"
expect "no version reported twice" test -z "$(uniq -d "$TEST_TMP/all_versions")"
ls "$d/_delta_log" | grep -E '^[0-9]{20}\.json$' | sed 's/\.json$//; s/^0*\([0-9]\)/\1/' | sort -n > "$TEST_TMP/log_versions"
latest=$(tail -1 "$TEST_TMP/log_versions")
expect "versions contiguous 0..$latest" test "$(wc -l < "$TEST_TMP/log_versions")" -eq $((latest + 1))
expect "every reported version is a commit" test -z "$(comm -23 <(sort "$TEST_TMP/all_versions") <(sort "$TEST_TMP/log_versions"))"
cat "$d"/_delta_log/*.json | grep -o '"add":{"path":"w[0-9]*-[0-9]*\.parquet"' | sort > "$TEST_TMP/adds"
expect "$TOTAL appends in the log" test "$(wc -l < "$TEST_TMP/adds")" -eq "$TOTAL"
expect "no append committed twice" test -z "$(uniq -d "$TEST_TMP/adds")"
oracle fingerprint "$d" > "$TEST_TMP/fp1.json"
expect "rows = $base_rows + $TOTAL x $per_copy" jsq --assert "$TEST_TMP/fp1.json" "d.rows === $base_rows + $TOTAL * $per_copy"
expect "oracle verify" oracle verify "$d" > /dev/null
oracle snapshot "$d" > "$TEST_TMP/snap.json"
oracle snapshot "$d" --ignore-checkpoints > "$TEST_TMP/ref.json"
expect "oracle state through loom's checkpoint == commits replay" node "$TOOLS/ckpt_compare.cjs" snap "$TEST_TMP/ref.json" "$TEST_TMP/snap.json"
echo "final: version $latest, $(jsq "$TEST_TMP/fp1.json" 'd.rows') rows in $(jsq "$TEST_TMP/fp1.json" 'd.files') files"
finish
