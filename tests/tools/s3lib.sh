# tests/tools/s3lib.sh - what the S3 script tests share (sourced after
# lib.sh): a Ceph RGW to talk to, awscli (the independent client) pointed
# at it, and buckets.
#
# The RGW is the run's shared one when CTest's fixture started it
# (LOOM_RGW_ENV: the env file tests/tools/rgw.sh wrote); a test run on its
# own starts a private one and stops it on exit. Either way the test sees
# AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
# AWS_ALLOW_HTTP in its environment, as a user of loom would set them.
RGW_SH="$TOOLS/rgw.sh"
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER="" AWS_CLI_AUTO_PROMPT=off
# Debian's awscli (a pyenv shim may shadow it with another version)
if [ -x /usr/bin/aws ]; then AWS_BIN=/usr/bin/aws; else AWS_BIN=aws; fi

s3_own_rgw=""
if [ -n "${LOOM_RGW_ENV:-}" ] && [ -f "$LOOM_RGW_ENV" ]; then
  # shellcheck disable=SC1090
  source "$LOOM_RGW_ENV"
else
  s3_own_rgw="$TEST_TMP/rgw"
  trap 'bash "$RGW_SH" stop "$s3_own_rgw" >/dev/null 2>&1; chmod -R u+w "$TEST_TMP" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
  bash "$RGW_SH" start "$s3_own_rgw" >&2 || { echo "FAIL: cannot start Ceph RGW" >&2; exit 1; }
  # shellcheck disable=SC1091
  source "$s3_own_rgw/env"
fi

# awscli against the RGW
s3cli() { "$AWS_BIN" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }

# s3_new_bucket NAME: create a bucket unique to this run; prints its name.
s3_new_bucket() {
  local b
  b="loom-$1-$(date +%s%N | tail -c 7)$RANDOM"
  b=$(echo "$b" | tr 'A-Z_' 'a-z-' | cut -c1-63)
  s3cli s3api create-bucket --bucket "$b" > /dev/null || return 1
  echo "$b"
}

# s3_upload LOCAL_DIR s3://bucket/path ; s3_download s3://bucket/path LOCAL_DIR
s3_upload() { s3cli s3 cp --recursive --quiet --only-show-errors "$1" "$2"; }
s3_download() { rm -rf "$2"; mkdir -p "$2"; s3cli s3 cp --recursive --quiet --only-show-errors "$1" "$2"; }

# s3_keys s3://bucket/path: every key below it, relative, sorted.
s3_keys() {
  local b="${1#s3://}" p
  p="${b#*/}"; b="${b%%/*}"
  s3cli s3api list-objects-v2 --bucket "$b" --prefix "$p/" --query 'Contents[].Key' --output text |
    tr '\t' '\n' | grep -v '^None$' | sed "s|^$p/||" | sort
}

# s3_open_uploads BUCKET: how many multipart uploads are still open.
s3_open_uploads() {
  s3cli s3api list-multipart-uploads --bucket "$1" --query 'length(Uploads || `[]`)' --output text
}
