#!/usr/bin/env bash
# Install the independent judges of loom's observability output (issue 29),
# only those missing (safe to run again). Needs root or sudo for apt-get.
#   prometheus  promtool check metrics, and a real Prometheus that scrapes
#               the metrics files the tests write
#   chromium    headless Chromium renders the HTML report (DOM, screenshot)
set -euo pipefail

packages=(prometheus chromium)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-observe-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# never two apt-gets at once: wait for another one to finish
for _ in $(seq 1 120); do
  pgrep -x apt-get >/dev/null 2>&1 || pgrep -x dpkg >/dev/null 2>&1 || break
  sleep 5
done
echo "install-observe-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# the Debian prometheus package starts a service where systemd runs; the
# tests start their own on loopback, so policy-rc.d keeps it from starting
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
