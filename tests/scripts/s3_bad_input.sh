#!/usr/bin/env bash
# Bad input on S3 (Ceph RGW): wrong credentials, a missing bucket, an
# endpoint that is down, and a user without permission (a second RGW user
# that a bucket policy lets read, and write the log, but not delete). Each
# command fails with one clear error naming the bucket, the key and the
# HTTP status (or the endpoint it could not reach), exits 1 as for any
# failure, and changes nothing (the bucket's keys and ETags, listed by
# awscli, are the same before and after). Every byte of every output, and
# every commit in the bucket, is searched for the secret keys: never found.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

bucket=$(s3_new_bucket badinput) || { fail "cannot create a bucket"; finish; exit 1; }
t=$(copy_table delta-0.8.0-partitioned)
echo orphan > "$t/orphan.parquet"
expect "table uploaded" s3_upload "$t" "s3://$bucket/t"
uri="s3://$bucket/t"
state() { s3cli s3api list-objects-v2 --bucket "$bucket" --query 'Contents[].[Key,ETag]' --output text | sort | sha1sum; }
before=$(state)

out="$TEST_TMP/out"
mkdir -p "$out"
n=0
run() { # run NAME PATTERN CMD...: exit 1 and stderr matching PATTERN
  local what="$1" pattern="$2" rc=0
  shift 2
  n=$((n + 1))
  "$@" > "$out/$n.out" 2> "$out/$n.err" || rc=$?
  if [ "$rc" != 1 ]; then
    fail "$what: exit $rc, expected 1: $(head -c 300 "$out/$n.err")"
  elif grep -qE "$pattern" "$out/$n.err"; then
    pass
  else
    fail "$what: the error does not match /$pattern/: $(head -c 500 "$out/$n.err")"
  fi
}

# 1. wrong credentials
wrong="WRONGSECRET-5c1e9a77"
for verb in inspect compact checkpoint; do
  run "$verb with a wrong secret" "bucket \"$bucket\" key \"t/_delta_log/[^\"]*\": HTTP 403 \(SignatureDoesNotMatch" \
    env AWS_SECRET_ACCESS_KEY="$wrong" "$LOOM_BIN" "$verb" "$uri"
done
run "vacuum with an unknown access key" "bucket \"$bucket\" key \"t/_delta_log/[^\"]*\": HTTP 403 \(InvalidAccessKeyId" \
  env AWS_ACCESS_KEY_ID=NOSUCHKEY AWS_SECRET_ACCESS_KEY="$wrong" "$LOOM_BIN" vacuum "$uri" --full \
  --retention-hours 0 --no-retention-check --no-dry-run

# 2. a missing bucket
nb="loom-no-such-bucket-$RANDOM$RANDOM"
run "inspect of a missing bucket" "bucket \"$nb\" key \"t/_delta_log/[^\"]*\": HTTP 404 \(NoSuchBucket" \
  "$LOOM_BIN" inspect "s3://$nb/t"
run "vacuum of a missing bucket" "bucket \"$nb\".*HTTP 404 \(NoSuchBucket" \
  "$LOOM_BIN" vacuum "s3://$nb/t" --no-dry-run

# 3. an endpoint that is down (a port nobody listens on)
down=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
t0=$(date +%s)
run "inspect with the endpoint down" "bucket \"$bucket\" key \"t/_delta_log/[^\"]*\": cannot connect at http://127.0.0.1:$down" \
  env AWS_ENDPOINT_URL="http://127.0.0.1:$down" "$LOOM_BIN" inspect "$uri"
expect "gave up within bounded retries ($(( $(date +%s) - t0 )) s)" test $(( $(date +%s) - t0 )) -lt 60
run "plain http refused without AWS_ALLOW_HTTP" "AWS_ALLOW_HTTP=true" \
  env -u AWS_ALLOW_HTTP "$LOOM_BIN" inspect "$uri"

# 4. a user the bucket policy lets read and write the log, but not delete
user_secret="USER2SECRET-b71f0c3e"
reader="loomreader$RANDOM$RANDOM"   # unique: the run's RGW is shared
expect "a second RGW user" bash "$RGW_SH" user "$RGW_DIR" "$reader" "KEY$reader" "$user_secret"
cat > "$TEST_TMP/policy.json" <<JSON
{"Version": "2012-10-17", "Statement": [
  {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam:::user/$reader"]},
   "Action": ["s3:GetObject", "s3:ListBucket"],
   "Resource": ["arn:aws:s3:::$bucket", "arn:aws:s3:::$bucket/*"]},
  {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam:::user/$reader"]},
   "Action": ["s3:PutObject"], "Resource": ["arn:aws:s3:::$bucket/t/_delta_log/*"]}]}
JSON
expect "bucket policy set" s3cli s3api put-bucket-policy --bucket "$bucket" --policy "file://$TEST_TMP/policy.json"
as_reader() { env AWS_ACCESS_KEY_ID="KEY$reader" AWS_SECRET_ACCESS_KEY="$user_secret" "$@"; }
expect "the reader can inspect" as_reader "$LOOM_BIN" inspect "$uri" > "$out/reader.out"
run "zorder without permission to write data" "bucket \"$bucket\" key \"t/[^\"]*\.parquet\": HTTP 403 \(AccessDenied" \
  as_reader "$LOOM_BIN" zorder "$uri" --columns value
before_vacuum=$(state)
run "vacuum without permission to delete" "bucket \"$bucket\" key \"t/orphan.parquet\".*(HTTP 403 \(|: )AccessDenied" \
  as_reader "$LOOM_BIN" vacuum "$uri" --full --retention-hours 0 --no-retention-check --no-dry-run
expect "nothing deleted: the orphan is still there" s3cli s3api head-object --bucket "$bucket" --key t/orphan.parquet > /dev/null
# (as the reader: the commits it wrote are its objects, which S3 does not
# let even the bucket owner read without an ACL)
expect "download" as_reader "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" s3 cp --recursive --quiet \
  --only-show-errors "$uri" "$TEST_TMP/d"
expect "the failed vacuum is recorded as such (VACUUM END FAILED)" grep -q '"status":"FAILED"' "$TEST_TMP"/d/_delta_log/*.json
expect "the table still verifies" oracle verify "$TEST_TMP/d" > /dev/null

# nothing else changed (the vacuum's START/END commits aside)
[ "$before" = "$before_vacuum" ] && pass || fail "a failed command changed the bucket"

for s in "$AWS_SECRET_ACCESS_KEY" "$wrong" "$user_secret"; do
  found=$(grep -rlF -- "$s" "$out" "$TEST_TMP/d" 2> /dev/null || true)
  expect "secret ${s:0:4}... printed or committed nowhere (found in: $found)" test -z "$found"
done
finish
