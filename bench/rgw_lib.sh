# bench/rgw_lib.sh - what the benches on a private loopback Ceph RGW share
# (sourced by log_replay.sh, vacuum_listing_s3.sh, lake_scale_s3.sh): the
# server started and stopped on exit, the AWS CLI on it, and
# tests/tools/fault_proxy.py in front of it. Objects are put by
# bench/put_objects.py (anonymous PUTs into a public-read-write bucket).
#   source "$here/bench/rgw_lib.sh"
#   rgw_start DIR [MEMSTORE_BYTES]   start an RGW in DIR, source DIR/env
#                                    (AWS_*, RGW_PORT); stopped on EXIT
#   s3cli ARGS...                    the AWS CLI against it
#   rgw_public_bucket NAME           a public-read-write bucket
#   proxy_start WORK ARGS...         fault_proxy.py on it (ARGS: its options,
#                                    e.g. --delay-ms 30 --trace F); sets
#                                    proxy_port; killed on EXIT
rgw_lib_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
if [ -x /usr/bin/aws ]; then rgw_aws=/usr/bin/aws; else rgw_aws=aws; fi
rgw_dir="" proxy_pid="" proxy_port=""

rgw_cleanup() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2> /dev/null || true; fi
  if [ -n "$rgw_dir" ]; then bash "$rgw_lib_src/tests/tools/rgw.sh" stop "$rgw_dir" > /dev/null 2>&1 || true; fi
}

rgw_start() {
  rgw_dir=$1
  trap rgw_cleanup EXIT
  bash "$rgw_lib_src/tests/tools/rgw.sh" stop "$rgw_dir" > /dev/null 2>&1 || true
  RGW_MEMSTORE_BYTES="${2:-2147483648}" bash "$rgw_lib_src/tests/tools/rgw.sh" start "$rgw_dir" > /dev/null
  # shellcheck disable=SC1091
  source "$rgw_dir/env"
}

s3cli() { "$rgw_aws" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; }

rgw_public_bucket() { s3cli s3api create-bucket --bucket "$1" --acl public-read-write > /dev/null; }

proxy_start() {
  local work=$1; shift
  rm -f "$work/proxy.port"
  python3 "$rgw_lib_src/tests/tools/fault_proxy.py" --upstream "127.0.0.1:$RGW_PORT" --flavor s3 \
    --port-file "$work/proxy.port" "$@" > /dev/null 2> "$work/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 1 100); do [ -s "$work/proxy.port" ] && break; sleep 0.05; done
  proxy_port=$(cat "$work/proxy.port")
}
