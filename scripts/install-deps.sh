#!/usr/bin/env bash
# Install loom's build and test dependencies from Debian packages, only
# those missing (safe to run again). Needs root or sudo for apt-get.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang
  zlib1g-dev libsnappy-dev libzstd-dev liblz4-dev libbrotli-dev
  libjansson-dev libyaml-dev uuid-dev libroaring-dev
  libcurl4-openssl-dev libssl-dev libexpat1-dev ca-certificates openssl
  nodejs npm
  # the Python package's tests: `pip install ./python` into a venv, the
  # parsed-YAML form of a storage config, mypy --strict
  python3-venv python3-yaml python3-mypy
  # libloom.dask and its tests: Dask distributed (LocalCluster of worker
  # processes), Debian's build
  python3-distributed
  # the ABI check of libloom.so against abi/libloom.abi (scripts/check-abi.sh)
  abigail-tools
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# python3 (test comparison scripts, the Python package) may come from
# outside Debian too; it must be 3.11 or newer (CMake checks).
if ! command -v python3 >/dev/null 2>&1; then
  missing+=(python3)
fi
# Node and npm may come from outside Debian (already on the machine).
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  filtered=()
  for p in "${missing[@]}"; do
    [ "$p" = nodejs ] || [ "$p" = npm ] || filtered+=("$p")
  done
  missing=("${filtered[@]+"${filtered[@]}"}")
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
