#!/usr/bin/env bash
# Tables on S3 named in the storage YAML as loom's Python ETL writes it:
# `table_path` with an s3:// URI and `storage_options` carrying the
# credentials (interpolated from the environment with ${oc.env:...}), the
# endpoint and AWS_ALLOW_HTTP - with no AWS_* variable in loom's own
# environment, so the options alone reach the store. `loom maintain` runs
# vacuum and compaction over the schema, then vacuum (retention 0),
# inspect, checkpoint, cleanup-logs, zorder and convert run with --config; the result,
# downloaded by awscli, keeps its rows (oracle fingerprint) and verifies.
# Credentials from a profile file (AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE)
# work too, and `loom parquet cat` reads an s3:// file as it reads the
# local one. No secret appears in any output or commit.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

bucket=$(s3_new_bucket yaml) || { fail "cannot create a bucket"; finish; exit 1; }
lake="$TEST_TMP/lake"
mkdir -p "$lake/raw" "$lake/conv"
cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$lake/raw/events"
cp -r "$LOOM_FIXTURES_DIR/delta/delta-0.8.0-partitioned" "$lake/raw/parts"
cp "$LOOM_FIXTURES_DIR/delta/simple_table/"*.parquet "$lake/conv/"
chmod -R u+w "$lake"
for t in events parts; do
  oracle fingerprint "$lake/raw/$t" | jsq - 'd.hash + "/" + d.rows' > "$TEST_TMP/$t.fp0"
done
echo old > "$lake/raw/events/orphan.parquet"
expect "lake uploaded" s3_upload "$lake" "s3://$bucket/lake"

secret="$AWS_SECRET_ACCESS_KEY"
cat > "$TEST_TMP/storage.yaml" <<YAML
engine: {backend: polars}
storage:
  defaults:
    table_path:
      uri: s3://$bucket/lake
      storage_options:
        AWS_ACCESS_KEY_ID: \${oc.env:LAKE_KEY_ID}
        AWS_SECRET_ACCESS_KEY: \${oc.env:LAKE_SECRET}
        AWS_REGION: us-east-1
        AWS_ENDPOINT_URL: $AWS_ENDPOINT_URL
        AWS_ALLOW_HTTP: "true"
      commit: {custom_metadata: {pipeline: nightly}}
  tables:
    - name: raw.events
      path: {uri: "s3://$bucket/lake/raw/events"}
    - name: raw.parts
      path: {uri: "s3://$bucket/lake/raw/parts"}
  maintenance:
    schemas: [raw]
    vacuum: {retention_hours: 168, dry_run: false, full: true}
    compact: {target_size: 64MiB}
YAML
# loom sees no AWS_* variable: only the YAML's options
noaws=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_ENDPOINT_URL -u AWS_REGION
       -u AWS_ALLOW_HTTP LAKE_KEY_ID="$AWS_ACCESS_KEY_ID" LAKE_SECRET="$secret")
cfg=(--config "$TEST_TMP/storage.yaml")
out="$TEST_TMP/out"
mkdir -p "$out"
n=0
run() {
  n=$((n + 1))
  if "${noaws[@]}" "$@" > "$out/$n.out" 2> "$out/$n.err"; then pass; else fail "$*: $(head -c 400 "$out/$n.err")"; fi
}
run "$LOOM_BIN" maintain "${cfg[@]}"
expect "maintain vacuumed and compacted both tables" grep -qE '^2 tables: 2 ok' "$out/$n.out"
run "$LOOM_BIN" vacuum raw.events "${cfg[@]}" --full --retention-hours 0 --no-retention-check --no-dry-run
run "$LOOM_BIN" inspect raw.parts "${cfg[@]}" --json
run "$LOOM_BIN" checkpoint raw.events "${cfg[@]}" --json
run "$LOOM_BIN" cleanup-logs raw.events "${cfg[@]}" --retention-hours 0
run "$LOOM_BIN" zorder raw.parts "${cfg[@]}" --columns value
run "$LOOM_BIN" convert conv "${cfg[@]}" --json
if "${noaws[@]}" "$LOOM_BIN" inspect "s3://$bucket/lake/raw/events" > /dev/null 2> "$out/noopts.err"; then
  fail "without the YAML (and no AWS_* variable) the store had credentials"
else
  expect "without credentials: named" grep -q "no AWS credentials" "$out/noopts.err"
fi

# a profile file instead
cat > "$TEST_TMP/credentials" <<INI
[default]
aws_access_key_id = NOTTHIS
aws_secret_access_key = NOTTHISEITHER
[lake]
aws_access_key_id = $AWS_ACCESS_KEY_ID
aws_secret_access_key = $secret
INI
expect "credentials from a profile file" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY AWS_PROFILE=lake \
  AWS_SHARED_CREDENTIALS_FILE="$TEST_TMP/credentials" "$LOOM_BIN" inspect "s3://$bucket/lake/raw/events" \
  > "$out/profile.out" 2> "$out/profile.err"

# loom parquet on an s3:// file, against the local file
pq=$(cd "$lake/conv" && ls *.parquet | head -1)
"$LOOM_BIN" parquet cat "$lake/conv/$pq" > "$TEST_TMP/local.rows"
expect "parquet cat s3://" "$LOOM_BIN" parquet cat "s3://$bucket/lake/conv/$pq" > "$TEST_TMP/s3.rows"
expect "same rows over S3" cmp -s "$TEST_TMP/local.rows" "$TEST_TMP/s3.rows"

expect "lake downloaded" s3_download "s3://$bucket/lake" "$TEST_TMP/down"
for t in events parts; do
  expect "raw.$t: rows unchanged" test "$(cat "$TEST_TMP/$t.fp0")" = \
    "$(oracle fingerprint "$TEST_TMP/down/raw/$t" | jsq - 'd.hash + "/" + d.rows')"
  expect "raw.$t: verify" oracle verify "$TEST_TMP/down/raw/$t" > /dev/null
done
expect "the orphan was vacuumed" test ! -e "$TEST_TMP/down/raw/events/orphan.parquet"
expect "convert made a table the oracle reads" oracle verify "$TEST_TMP/down/conv" > /dev/null
expect "a checkpoint was written" test -n "$(ls "$TEST_TMP/down/raw/events/_delta_log/"*.checkpoint.parquet 2> /dev/null)"
expect "commits carry the config's metadata" grep -q '"pipeline":"nightly"' "$TEST_TMP"/down/raw/parts/_delta_log/*.json
found=$(grep -rlF -- "$secret" "$out" "$TEST_TMP/down" 2> /dev/null || true)
expect "the secret printed or committed nowhere (found in: $found)" test -z "$found"
finish
