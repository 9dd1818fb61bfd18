#!/usr/bin/env bash
# The run history on an object store (issue 29): two `loom maintain
# --history s3://.../history/` runs at once (two lakes) both land - each
# record its own create-only object - and `loom history --json` equals the
# sum of the two JSON reports (tests/tools/observe/check_history.py, from
# the reports' own fields). `loom history` reads the history with the
# storage options a route of the YAML in the same bucket lends (no AWS_*
# variable in its environment); --table and --since filter; the records
# hold no secret.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"
source "$TOOLS/observe/lake.sh"

bucket=$(s3_new_bucket history) || { fail "cannot create a bucket"; finish; exit 1; }
hist="s3://$bucket/ops/history/"
for x in a b; do
  observe_lake "$TEST_TMP/$x"
done

pids=()
for x in a b; do
  "$LOOM_BIN" maintain --config "$TEST_TMP/$x/storage.yaml" --json --history "$hist" \
    > "$TEST_TMP/$x.json" 2> "$TEST_TMP/$x.err" &
  pids+=($!)
done
for i in 0 1; do
  rc=0; wait "${pids[$i]}" || rc=$?
  expect "concurrent run $i exits 1 (its raw.broken fails)" test $rc -eq 1
done
expect "no run failed to write its history" test ! -s "$TEST_TMP/a.err" -a ! -s "$TEST_TMP/b.err"
s3cli s3 ls "$hist" > "$TEST_TMP/keys"
expect "both runs landed: two records" test "$(grep -c '\.json$' "$TEST_TMP/keys")" -eq 2

# loom history with the YAML's options only
secret="$AWS_SECRET_ACCESS_KEY"
cat > "$TEST_TMP/hist.yaml" <<YAML
storage:
  tables:
    - name: ops.anchor
      path:
        uri: s3://$bucket/ops/anchor
        storage_options:
          AWS_ACCESS_KEY_ID: \${oc.env:H_KEY}
          AWS_SECRET_ACCESS_KEY: \${oc.env:H_SECRET}
          AWS_REGION: us-east-1
          AWS_ENDPOINT_URL: $AWS_ENDPOINT_URL
          AWS_ALLOW_HTTP: "true"
YAML
noaws=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL -u AWS_REGION
       -u AWS_ALLOW_HTTP H_KEY="$AWS_ACCESS_KEY_ID" H_SECRET="$secret")
expect "loom history --json reads the history" \
  "${noaws[@]}" "$LOOM_BIN" history --config "$TEST_TMP/hist.yaml" --history "$hist" --json \
  > "$TEST_TMP/history.json"
expect "the history equals the sum of the two reports" \
  python3 "$TOOLS/observe/check_history.py" "$TEST_TMP/history.json" "$TEST_TMP/a.json" "$TEST_TMP/b.json"
"${noaws[@]}" "$LOOM_BIN" history --config "$TEST_TMP/hist.yaml" --history "$hist" > "$TEST_TMP/history.txt"
expect "the text summary counts two runs" grep -q '^2 run(s), 2 with errors' "$TEST_TMP/history.txt"
expect "... and how raw.events' files moved" grep -q 'raw.events: 2 runs (0 failed).*files 5 -> 1' "$TEST_TMP/history.txt"
"${noaws[@]}" "$LOOM_BIN" history --config "$TEST_TMP/hist.yaml" --history "$hist" --json \
  --table raw.parts --since 7d > "$TEST_TMP/parts.json"
expect "--table keeps one table" jsq --assert "$TEST_TMP/parts.json" \
  'Object.keys(d.tables).join() == "raw.parts" && d.runs == 2 && d.failed_runs == 0'
"${noaws[@]}" "$LOOM_BIN" history --config "$TEST_TMP/hist.yaml" --history "$hist" --json \
  --since 0s > "$TEST_TMP/none.json"
expect "--since 0s keeps no run" jsq --assert "$TEST_TMP/none.json" 'd.runs == 0'
rc=0; "${noaws[@]}" "$LOOM_BIN" history --history "$hist" --since 7x 2> "$TEST_TMP/err" || rc=$?
expect "a bad --since is a usage error" test $rc -eq 2

# the records: loom.run/1 objects, no secret
s3_download "$hist" "$TEST_TMP/records"
expect "records are loom.run/1 with both runs' reports" python3 - "$TEST_TMP/records" <<'PY'
import json, os, sys
d = sys.argv[1]
recs = [json.load(open(os.path.join(d, f))) for f in sorted(os.listdir(d))]
assert len(recs) == 2 and all(r["schema"] == "loom.run/1" for r in recs)
assert len({r["id"] for r in recs}) == 2
assert all(r["report"]["schema"] == "loom.report/1" for r in recs)
PY
expect "no secret in the records" test "$(cat "$TEST_TMP/records"/* | grep -cF -e "$OBSERVE_SECRET" -e "$secret")" -eq 0
expect "no secret in the history output" \
  test "$(cat "$TEST_TMP/history.json" "$TEST_TMP/history.txt" | grep -cF -e "$OBSERVE_SECRET" -e "$secret")" -eq 0
finish
