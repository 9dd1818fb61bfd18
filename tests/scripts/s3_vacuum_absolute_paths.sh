#!/usr/bin/env bash
# Log paths that are absolute S3 URIs inside the table (s3://, s3a:// and
# an upper-case scheme, mixed in one log), on Ceph RGW: VACUUM FULL must
# protect them and their deletion vectors, compaction may rewrite them -
# the shared body tests/tools/vacuum_absolute_paths_body.sh, with awscli
# putting the table up and downloading it for the oracle.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/s3lib.sh"

BACKEND_LABEL=s3
bucket=$(s3_new_bucket abspaths) || { fail "cannot create a bucket"; finish; exit 1; }
backend_prefixes() { echo "s3://$bucket/abs/$1 s3a://$bucket/abs/$1 S3://$bucket/abs/$1"; }
backend_put() {
  s3_upload "$2" "s3://$bucket/abs/$1" || return 1
  echo "s3://$bucket/abs/$1"
}
backend_view() {
  local d="$TEST_TMP/view/$1" p
  s3_download "$2" "$d" || return 1
  for p in $(backend_prefixes "$1"); do
    python3 "$TOOLS/log_paths.py" relocate "$d" "$p" "$d" > /dev/null
  done
  echo "$d"
}
backend_has() { s3cli s3api head-object --bucket "$bucket" --key "abs/$1/$3" > /dev/null 2>&1; }
source "$TOOLS/vacuum_absolute_paths_body.sh"
finish
