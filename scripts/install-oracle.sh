#!/usr/bin/env bash
# Install the independent Delta oracle's node modules (DuckDB) into the
# build tree; shared/ is read-only in CI. Skips the install when present.
#   scripts/install-oracle.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
oracle_dir="$here/../shared/tools/delta-oracle"
dest="$build/oracle-deps"
if [ ! -f "$oracle_dir/oracle.mjs" ]; then
  echo "install-oracle: $oracle_dir/oracle.mjs not found (shared/ must sit beside the repo)" >&2
  exit 1
fi
if [ -d "$dest/node_modules/@duckdb/node-api" ] &&
   cmp -s "$oracle_dir/package-lock.json" "$dest/package-lock.json"; then
  echo "install-oracle: already installed in $dest"
  exit 0
fi
mkdir -p "$dest"
# the registry sometimes resets a connection mid-download: 3 tries
for try in 1 2 3; do
  bash "$oracle_dir/install.sh" "$dest" && break
  [ "$try" = 3 ] && { echo "install-oracle: the oracle's install failed 3 times" >&2; exit 1; }
  echo "install-oracle: install failed (try $try of 3), retrying" >&2; sleep $((try * 10))
done
