#!/usr/bin/env bash
# CTest's fixture for the S3 tests: one Ceph RGW serves every S3 test of a
# run (tests s3_rgw_start / s3_rgw_stop, FIXTURES_SETUP / CLEANUP rgw).
#   rgw_fixture.sh start ENV_LINK   start one in a fresh temp dir and link
#                                   its env file at ENV_LINK
#   rgw_fixture.sh stop ENV_LINK    stop it and remove the link
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
link="${2:?usage: rgw_fixture.sh start|stop ENV_LINK}"
case "$1" in
  start)
    if [ -L "$link" ]; then  # a run that died before its cleanup
      bash "$here/rgw.sh" stop "$(dirname "$(readlink "$link")")" || true
      rm -f "$link"
    fi
    d=$(mktemp -d "${TMPDIR:-/tmp}/loom-rgw-XXXXXX")
    bash "$here/rgw.sh" start "$d"
    ln -s "$d/env" "$link" ;;
  stop)
    if [ -L "$link" ]; then
      bash "$here/rgw.sh" stop "$(dirname "$(readlink "$link")")"
      rm -f "$link"
    fi ;;
  *) echo "usage: rgw_fixture.sh start|stop ENV_LINK" >&2; exit 2 ;;
esac
