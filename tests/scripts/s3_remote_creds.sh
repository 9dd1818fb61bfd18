#!/usr/bin/env bash
# S3 credentials from the services a job on AWS gets them from, with no key
# in loom's environment or files: EC2 instance metadata (IMDSv2, and v1 only
# when allowed), the container credentials endpoint (ECS, EKS pod identity)
# and STS AssumeRoleWithWebIdentity (EKS IRSA). tests/tools/aws_creds_standin.py
# plays the three services on loopback and hands out the RGW's real keys, so
# every S3 request loom signs with them reaches a real server. Judged by the
# stand-in's request log, the RGW's answers and, for the table loom
# compacts and vacuums with instance credentials, the oracle on an awscli
# download. Credentials expiring during a run are fetched again (and a
# failed refresh keeps the old ones while valid); services that refuse or
# are down give one error naming the service and its answer; no key, token
# or session token is ever printed.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

PROBE="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/store_probe"
bucket=$(s3_new_bucket creds) || { fail "cannot create a bucket"; finish; exit 1; }
cp -r "$LOOM_FIXTURES_DIR/delta/simple_table" "$TEST_TMP/t"
chmod -R u+w "$TEST_TMP/t"
fp0=$(oracle fingerprint "$TEST_TMP/t" | jsq - 'd.hash + "/" + d.rows')
echo old > "$TEST_TMP/t/orphan.parquet"
touch -d '10 days ago' "$TEST_TMP/t/orphan.parquet"
expect "table uploaded" s3_upload "$TEST_TMP/t" "s3://$bucket/t"
table="s3://$bucket/t"

key="$AWS_ACCESS_KEY_ID" secret="$AWS_SECRET_ACCESS_KEY"
session="SESSION-$(date +%s%N)-token"
web_token="WEBTOKEN-$(date +%s%N)"
auth_token="AUTHTOKEN-$(date +%s%N)"
out="$TEST_TMP/out"
mkdir -p "$out" "$TEST_TMP/home"

# start_standin NAME ARGS...: a stand-in logging to $out/NAME.log; sets PORT
standin_pids=()
start_standin() {
  local name="$1" i
  shift
  rm -f "$out/$name.port"
  python3 "$TOOLS/aws_creds_standin.py" --port-file "$out/$name.port" --log "$out/$name.log" \
    --access-key "$key" --secret-key "$secret" --session-token "$session" "$@" &
  standin_pids+=($!)
  for i in $(seq 100); do [ -s "$out/$name.port" ] && break; sleep 0.1; done
  PORT=$(cat "$out/$name.port")
}
on_exit 'kill "${standin_pids[@]}" 2> /dev/null'

# no AWS keys anywhere: not in the environment, no profile files
noaws=(env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE
       -u AWS_EC2_METADATA_DISABLED HOME="$TEST_TMP/home")
n=0
ok() { # ok WHAT CMD...: the command succeeds
  local what="$1"; shift
  n=$((n + 1))
  if "${noaws[@]}" "$@" > "$out/$n.out" 2> "$out/$n.err"; then pass; else fail "$what: $(head -c 600 "$out/$n.err")"; fi
}
refused() { # refused WHAT PATTERN CMD...: the command fails, its error matching PATTERN
  local what="$1" pat="$2"; shift 2
  n=$((n + 1))
  if "${noaws[@]}" "$@" > "$out/$n.out" 2> "$out/$n.err"; then
    fail "$what: succeeded"
  else
    expect "$what: error names it ($(head -c 600 "$out/$n.err"))" grep -qE "$pat" "$out/$n.err"
  fi
}
count() { grep -c "$2" "$out/$1.log" 2> /dev/null || true; }

# ---- IMDSv2 -------------------------------------------------------------------
start_standin imds
imds=(AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT")
ok "inspect with instance credentials" "${imds[@]}" "$LOOM_BIN" inspect "$table"
expect "IMDSv2: a session token first" test "$(head -1 "$out/imds.log" | jsq - 'd.method + " " + d.path')" = "PUT /latest/api/token"
expect "IMDSv2: the role, then its credentials" grep -q '"path": "/latest/meta-data/iam/security-credentials/loom-test-role", "service": "imds", "status": 200' "$out/imds.log"
expect "IMDSv2: no request refused (every one carried the session token)" test "$(grep -vc '"status": 200' "$out/imds.log")" = 0
ok "compact with instance credentials" "${imds[@]}" "$LOOM_BIN" compact "$table"
ok "vacuum with instance credentials" "${imds[@]}" "$LOOM_BIN" vacuum "$table" --full --retention-hours 0 \
  --no-retention-check --no-dry-run
expect "table downloaded" s3_download "$table" "$TEST_TMP/down"
expect "rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/down" | jsq - 'd.hash + "/" + d.rows')"
expect "verify clean" oracle verify "$TEST_TMP/down" > /dev/null
expect "the orphan was deleted" test ! -e "$TEST_TMP/down/orphan.parquet"
expect "compaction committed" grep -q '"operation":"OPTIMIZE"' "$TEST_TMP"/down/_delta_log/*.json
before=$(count imds .)
refused "disabled metadata service: no credentials" "no AWS credentials" \
  "${imds[@]}" AWS_EC2_METADATA_DISABLED=true "$LOOM_BIN" inspect "$table"
expect "disabled: the service was not asked" test "$(count imds .)" = "$before"

# IMDSv1 only: refused unless the fallback is asked for
start_standin imdsv1 --imds-v1
refused "IMDSv1 only: refused by default" "no AWS credentials.*instance metadata.*403" \
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" "$LOOM_BIN" inspect "$table"
ok "IMDSv1 with AWS_EC2_METADATA_V1_FALLBACK" AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" \
  AWS_EC2_METADATA_V1_FALLBACK=true "$LOOM_BIN" inspect "$table"

# an instance without a role, and no service at all
start_standin norole --no-role
refused "no role attached" "no IAM role is attached" \
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" "$LOOM_BIN" inspect "$table"
t0=$(date +%s)
refused "metadata service down" "no AWS credentials.*instance metadata.*(connect|Connect)" \
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:1" "$LOOM_BIN" inspect "$table"
expect "a missing metadata service fails fast ($(( $(date +%s) - t0 )) s)" test $(( $(date +%s) - t0 )) -le 10
refused "an outside metadata endpoint is refused" "AWS_EC2_METADATA_SERVICE_ENDPOINT" \
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://example.com" "$LOOM_BIN" inspect "$table"

# ---- refresh ---------------------------------------------------------------------
# keys living 4 s are fetched again after half their life
start_standin refresh --lifetime 4
ok "expiring keys are fetched again" AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" \
  "$PROBE" "$table" put probe/a hello sleep 2600 get probe/a sleep 2600 list probe/
expect "three fetches for three half-lives ($(count refresh loom-test-role))" \
  test "$(count refresh 'loom-test-role", "service": "imds", "status": 200')" -ge 3
# a refresh that fails keeps the old keys while they are valid, then fails
start_standin flaky --lifetime 4 --fail-after 1
ok "a failed refresh keeps the valid keys" AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" \
  "$PROBE" "$table" get probe/a sleep 2600 get probe/a
expect "the refresh was tried" grep -q '"status": 500' "$out/flaky.log"
start_standin flaky2 --lifetime 4 --fail-after 1
refused "expired keys and no refresh: named" "instance metadata.*HTTP 500" \
  AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT" "$PROBE" "$table" get probe/a sleep 4200 get probe/a
expect "the first get was served" grep -q '^get probe/a' "$out/$n.out"

# ---- container credentials ----------------------------------------------------------
start_standin container --auth-token "$auth_token"
cont=(AWS_CONTAINER_CREDENTIALS_FULL_URI="http://127.0.0.1:$PORT/container-creds")
ok "container credentials" "${cont[@]}" AWS_CONTAINER_AUTHORIZATION_TOKEN="$auth_token" "$LOOM_BIN" inspect "$table"
printf '%s\n' "$auth_token" > "$TEST_TMP/auth-token"
ok "container credentials, token from a file" "${cont[@]}" \
  AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$TEST_TMP/auth-token" "$LOOM_BIN" inspect "$table"
refused "container: a wrong authorization token" "container.*HTTP 403" \
  "${cont[@]}" AWS_CONTAINER_AUTHORIZATION_TOKEN=WRONG "$LOOM_BIN" inspect "$table"
refused "container: plain http to another host is refused" "AWS_CONTAINER_CREDENTIALS_FULL_URI" \
  AWS_CONTAINER_CREDENTIALS_FULL_URI="http://example.com/creds" "$LOOM_BIN" inspect "$table"
expect "container: the service was asked 3 times" test "$(count container '"service": "container"')" = 3

# ---- web identity (STS) ----------------------------------------------------------------
start_standin sts --web-token "$web_token" --role-arn "arn:aws:iam::123456789012:role/lake"
printf '%s\n' "$web_token" > "$TEST_TMP/web-token"
sts=(AWS_ENDPOINT_URL_STS="http://127.0.0.1:$PORT/" AWS_ROLE_ARN="arn:aws:iam::123456789012:role/lake")
ok "web identity credentials" "${sts[@]}" AWS_WEB_IDENTITY_TOKEN_FILE="$TEST_TMP/web-token" \
  "$LOOM_BIN" inspect "$table"
expect "web identity: one AssumeRoleWithWebIdentity" test "$(count sts '"status": 200')" = 1
echo "stale-token" > "$TEST_TMP/bad-token"
refused "web identity: a refused token" "web identity.*HTTP 403" \
  "${sts[@]}" AWS_WEB_IDENTITY_TOKEN_FILE="$TEST_TMP/bad-token" "$LOOM_BIN" inspect "$table"
refused "web identity: a missing token file" "web identity token file" \
  "${sts[@]}" AWS_WEB_IDENTITY_TOKEN_FILE="$TEST_TMP/none" "$LOOM_BIN" inspect "$table"

# the same through a storage YAML's storage_options
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  defaults:
    table_path:
      uri: s3://$bucket
      storage_options:
        AWS_ENDPOINT_URL: $AWS_ENDPOINT_URL
        AWS_ALLOW_HTTP: "true"
        AWS_CONTAINER_CREDENTIALS_FULL_URI: http://127.0.0.1:$(cat "$out/container.port")/container-creds
        AWS_CONTAINER_AUTHORIZATION_TOKEN: \${oc.env:CONTAINER_TOKEN}
  tables:
    - name: raw.t
      path: {uri: "$table"}
YAML
ok "container credentials from storage_options" CONTAINER_TOKEN="$auth_token" \
  "$LOOM_BIN" inspect raw.t --config "$TEST_TMP/storage.yaml"

found=$(grep -rlF -e "$secret" -e "$session" -e "$web_token" -e "$auth_token" "$out"/*.out "$out"/*.err \
  "$TEST_TMP/down/_delta_log" 2> /dev/null || true)
expect "no key or token printed or committed (found in: $found)" test -z "$found"
finish
