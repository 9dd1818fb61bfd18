#!/usr/bin/env bash
# GCS credentials and bad input. The GCS server of the tests checks no
# credentials, so a loopback front (tests/tools/gcs/auth_front.py) stands
# in for Google's token endpoint and a GCE metadata server and lets only
# requests with a bearer token it issued (and that is still alive) reach
# the server; its rules answer 403 (no permission) and 404 (no bucket).
#  - a service account key file (GOOGLE_SERVICE_ACCOUNT), the key's JSON in
#    an option (GOOGLE_SERVICE_ACCOUNT_KEY) and an authorized user's file
#    (GOOGLE_APPLICATION_CREDENTIALS): the JWT is RS256-signed with the key
#    (the stand-in checks the signature with openssl, iss, aud, scope and
#    times), the token is fetched once and again before it expires;
#  - the metadata server (GCE_METADATA_HOST) gives the token when nothing
#    else does, and off GCP (nothing there) the error says what to set,
#    quickly;
#  - bad input: a key the account does not have, a wrong refresh token, an
#    expired (revoked) token, no permission, a missing bucket, a server
#    that is down: each one clear error naming the bucket, the object and
#    the status, exit 1, the table as it was (the SDK's listing unchanged);
#  - no secret (private key, refresh token, client secret, tokens) in any
#    output.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/gcs/gcs.sh"
PROBE="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/store_probe"
gcs_start
# loom goes through the front; only the SDK talks to the server directly
unset STORAGE_EMULATOR_HOST

k="$TEST_TMP/keys"
mkdir -p "$k"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$k/sa.pem" 2> /dev/null
openssl pkey -in "$k/sa.pem" -pubout -out "$k/sa.pub" 2> /dev/null
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$k/other.pem" 2> /dev/null
EMAIL=loom-test@demo-loom.iam.gserviceaccount.com
SECRET=GOCSPX-client-secret-8d1e
REFRESH=1//refresh-token-5c2a9f

# start_front NAME ARGS...: an auth front; sets FRONT (its base URL)
start_front() {
  local pf="$TEST_TMP/front.$1.port"
  shift
  python3 "$TOOLS/gcs/auth_front.py" --upstream "${GCS_URL#http://}" --sa-email "$EMAIL" \
    --sa-pubkey "$k/sa.pub" --client-id loom-client.apps.googleusercontent.com \
    --client-secret "$SECRET" --refresh-token "$REFRESH" --port-file "$pf" "$@" 2> "$pf.err" &
  on_exit "kill $! 2> /dev/null"
  for _ in $(seq 1 100); do [ -s "$pf" ] && break; sleep 0.1; done
  FRONT="http://127.0.0.1:$(cat "$pf")"
}
# sa_file PATH KEY_PEM TOKEN_URI: a service account key file
sa_file() {
  python3 - "$1" "$2" "$3" "$EMAIL" <<'EOF'
import json, sys
out, pem, uri, email = sys.argv[1:5]
json.dump({"type": "service_account", "project_id": "demo-loom", "private_key_id": "0123abcd",
           "private_key": open(pem).read(), "client_email": email, "client_id": "1234567890",
           "token_uri": uri}, open(out, "w"))
EOF
}
user_file() {
  python3 - "$1" "$2" "$3" "$SECRET" <<'EOF'
import json, sys
out, uri, refresh, secret = sys.argv[1:5]
json.dump({"type": "authorized_user", "client_id": "loom-client.apps.googleusercontent.com",
           "client_secret": secret, "refresh_token": refresh, "token_uri": uri}, open(out, "w"))
EOF
}

# ---- a service account key file, tokens refreshed --------------------------
start_front main --lifetime 4
MAIN="$FRONT"
sa_file "$k/sa.json" "$k/sa.pem" "$MAIN/token"
export GOOGLE_STORAGE_ENDPOINT="$MAIN"
# token lifetime 4 s: fetched at the first request, refreshed from 2 s on
if GOOGLE_SERVICE_ACCOUNT="$k/sa.json" "$PROBE" gs://sec/t put a hello get a sleep 2500 get a sleep 4500 get a stats \
    > "$TEST_TMP/sa.out" 2> "$TEST_TMP/sa.err"; then
  pass
else
  fail "requests with a service account's token: $(cat "$TEST_TMP/sa.err")"
fi
expect "three reads of what was put" test "$(grep -c '^get a 5 ' "$TEST_TMP/sa.out")" = 3
expect "three tokens: the first and two refreshes" jsq --assert <(tail -1 "$TEST_TMP/sa.out") 'd.store_requests.OTHER === 3'
expect "the stand-in checked three signed JWTs" jsq --assert <(curl -s "$MAIN/_stats") 'd.jwt === 3 && d.refused === 0 && d.denied === 0'
expect "the SDK reads what loom put with a token" test "$(gcsc cat sec/t/a)" = hello

# the key's JSON in an option, and GOOGLE_SERVICE_ACCOUNT_PATH
gcsc upload "$LOOM_FIXTURES_DIR/delta/simple_table" sec/simple
expect "GOOGLE_SERVICE_ACCOUNT_KEY (the JSON itself): inspect" \
  env GOOGLE_SERVICE_ACCOUNT_KEY="$(cat "$k/sa.json")" "$LOOM_BIN" inspect gs://sec/simple
expect "GOOGLE_SERVICE_ACCOUNT_PATH: inspect" env GOOGLE_SERVICE_ACCOUNT_PATH="$k/sa.json" "$LOOM_BIN" inspect gs://sec/simple
expect "GOOGLE_APPLICATION_CREDENTIALS with a service account: inspect" \
  env GOOGLE_APPLICATION_CREDENTIALS="$k/sa.json" "$LOOM_BIN" inspect gs://sec/simple

# ---- an authorized user (gcloud auth application-default login) -------------
user_file "$k/user.json" "$MAIN/token" "$REFRESH"
before=$(curl -s "$MAIN/_stats" | jsq - 'd.refresh')
expect "GOOGLE_APPLICATION_CREDENTIALS with an authorized user: inspect" \
  env GOOGLE_APPLICATION_CREDENTIALS="$k/user.json" "$LOOM_BIN" inspect gs://sec/simple
expect "one refresh-token exchange" test "$(curl -s "$MAIN/_stats" | jsq - 'd.refresh')" = $((before + 1))

# ---- the metadata server -----------------------------------------------------
before=$(curl -s "$MAIN/_stats" | jsq - 'd.metadata')
expect "the metadata server's token when nothing else is set: inspect" \
  env GCE_METADATA_HOST="${MAIN#http://}" "$LOOM_BIN" inspect gs://sec/simple
expect "one metadata token (Metadata-Flavor: Google)" test "$(curl -s "$MAIN/_stats" | jsq - 'd.metadata')" = $((before + 1))
dead=$(gcs_free_port)
t0=$(now_ms)
if env -u GOOGLE_STORAGE_ENDPOINT GCE_METADATA_HOST="127.0.0.1:$dead" HOME="$TEST_TMP" "$LOOM_BIN" inspect gs://sec/simple \
    > /dev/null 2> "$TEST_TMP/md.err"; then
  fail "no credentials and no metadata server: inspect succeeded"
else
  expect "off GCP: the error says what to set: $(cat "$TEST_TMP/md.err")" grep -q 'no GCS credentials: set GOOGLE_SERVICE_ACCOUNT' "$TEST_TMP/md.err"
  expect "off GCP: it fails fast ($(( $(now_ms) - t0 )) ms)" test $(( $(now_ms) - t0 )) -lt 5000
fi

# ---- bad input -----------------------------------------------------------------
export GOOGLE_SERVICE_ACCOUNT="$k/sa.json"
t=$(copy_table delta-0.8.0-partitioned)
echo planted > "$t/orphan.parquet"
gcsc upload "$t" data/t
uri=gs://data/t
listing() { gcsc ls data/t | sha1sum; }
before=$(listing)
out="$TEST_TMP/out"
mkdir -p "$out"
n=0
# run_bad DESCRIPTION GREP_PATTERN ENV... -- COMMAND...: must fail with
# status 1 and the pattern on stderr (one error line)
run_bad() {
  local what="$1" pattern="$2" envs=() rc=0
  shift 2
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  n=$((n + 1))
  env "${envs[@]+"${envs[@]}"}" "$@" > "$out/$n.out" 2> "$out/$n.err" || rc=$?
  if [ $rc -ne 1 ]; then
    fail "$what: exit $rc, expected 1: $(cat "$out/$n.err")"
  elif ! grep -qE "$pattern" "$out/$n.err"; then
    fail "$what: error does not match /$pattern/: $(cat "$out/$n.err")"
  elif [ "$(wc -l < "$out/$n.err")" -ne 1 ]; then
    fail "$what: more than one error line: $(cat "$out/$n.err")"
  else
    pass
  fi
}
vacuum="vacuum $uri --full --retention-hours 0 --no-retention-check --no-dry-run"

# a key the service account does not have: the token endpoint refuses the JWT
sa_file "$k/wrong.json" "$k/other.pem" "$MAIN/token"
for cmd in "inspect $uri" "$vacuum" "compact $uri" "zorder $uri --columns value" "checkpoint $uri"; do
  # shellcheck disable=SC2086
  run_bad "wrong key: $cmd" "bucket \"data\".*token endpoint .*/token\"?: HTTP 400 \\(invalid_grant: Invalid JWT Signature" \
    GOOGLE_SERVICE_ACCOUNT="$k/wrong.json" -- "$LOOM_BIN" $cmd
done
user_file "$k/baduser.json" "$MAIN/token" "1//not-the-refresh-token"
run_bad "wrong refresh token" 'HTTP 400 \(invalid_grant' -u GOOGLE_SERVICE_ACCOUNT \
  GOOGLE_APPLICATION_CREDENTIALS="$k/baduser.json" -- "$LOOM_BIN" "inspect" "$uri"
echo "not json" > "$k/broken.json"
run_bad "a key file that is not JSON" 'option google_service_account \(.*broken.json\): the credentials are not a JSON object' \
  GOOGLE_SERVICE_ACCOUNT="$k/broken.json" -- "$LOOM_BIN" inspect "$uri"
run_bad "a key file that is missing" 'cannot read the credentials file .*nosuch.json' \
  GOOGLE_SERVICE_ACCOUNT="$k/nosuch.json" -- "$LOOM_BIN" inspect "$uri"

# an expired token: the front lets a token live 1 s though it says 1 hour
start_front expired --lifetime 3600 --server-lifetime 1
sa_file "$k/sa-exp.json" "$k/sa.pem" "$FRONT/token"
n=$((n + 1))
if GOOGLE_SERVICE_ACCOUNT="$k/sa-exp.json" GOOGLE_STORAGE_ENDPOINT="$FRONT" "$PROBE" gs://data/t get _delta_log/00000000000000000000.json \
    sleep 1500 get _delta_log/00000000000000000000.json > "$out/$n.out" 2> "$out/$n.err"; then
  fail "an expired token was accepted"
else
  expect "an expired token: 401 naming bucket and object: $(cat "$out/$n.err")" \
    grep -q 'GET bucket "data" object "t/_delta_log/00000000000000000000.json": HTTP 401 (Invalid Credentials)' "$out/$n.err"
fi

# no permission to write: a rule of the front answers 403 on uploads
start_front ro --forbid '^(POST|PUT) /upload/'
sa_file "$k/sa-ro.json" "$k/sa.pem" "$FRONT/token"
for cmd in "zorder $uri --columns value" "checkpoint $uri"; do
  # shellcheck disable=SC2086
  run_bad "no permission: $cmd" 'POST bucket "data" object "t/.*": HTTP 403 \(.*storage.objects.create' \
    GOOGLE_STORAGE_ENDPOINT="$FRONT" GOOGLE_SERVICE_ACCOUNT="$k/sa-ro.json" -- "$LOOM_BIN" $cmd
done
start_front nobucket --missing-bucket data
sa_file "$k/sa-nb.json" "$k/sa.pem" "$FRONT/token"
run_bad "a missing bucket" 'bucket "data".*HTTP 404 \(The specified bucket does not exist' \
  GOOGLE_STORAGE_ENDPOINT="$FRONT" GOOGLE_SERVICE_ACCOUNT="$k/sa-nb.json" -- "$LOOM_BIN" $vacuum
# the server down: nothing listens there; the retries are bounded
t0=$(now_ms)
run_bad "the server down" 'bucket "data".*(refused|connect)' GOOGLE_STORAGE_ENDPOINT="http://127.0.0.1:$dead" \
  LOOM_MAX_RETRIES=2 LOOM_RETRY_BASE_DELAY=50ms -- "$LOOM_BIN" $vacuum
expect "the server down: bounded retries, quick ($(( $(now_ms) - t0 )) ms)" test $(( $(now_ms) - t0 )) -lt 10000
run_bad "a bad bucket name" 'not a GCS bucket name' -- "$LOOM_BIN" inspect gs://Bad_Bucket!/t
expect "the table as it was (SDK listing unchanged)" test "$(listing)" = "$before"
expect "the orphan is still there (no vacuum ran)" gcsc exists data/t/orphan.parquet

# ---- then the same commands succeed ----------------------------------------------
expect "vacuum with the right key" "$LOOM_BIN" $vacuum
expect "the orphan is gone now" test "$(gcsc exists data/t/orphan.parquet && echo yes || echo no)" = no

# ---- no secret printed ---------------------------------------------------------------
key_line=$(sed -n 5p "$k/sa.pem")
other_line=$(sed -n 5p "$k/other.pem")
leaks=$(cat "$out"/* "$TEST_TMP"/*.err "$TEST_TMP"/*.out 2> /dev/null | grep -c -F -e "$key_line" -e "$other_line" \
  -e "$SECRET" -e "$REFRESH" -e "ya29.loom" || true)
expect "no private key, client secret, refresh token or token in any output" test "$leaks" = 0
finish
