#!/usr/bin/env bash
# Install what the S3 tests and benches need from Debian, only what is
# missing (safe to run again): a real S3 server (Ceph RGW: ceph-mon,
# ceph-osd, radosgw; tests/tools/rgw.sh starts it) and awscli, the
# independent client the tests upload and download tables with. Needs root
# or sudo for apt-get. scripts/test.sh calls it.
set -euo pipefail

packages=(ceph-mon ceph-osd radosgw awscli)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-s3-test-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-s3-test-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
