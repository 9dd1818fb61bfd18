#!/usr/bin/env bash
# Install what the Azure tests run: Azurite (the Azure Blob emulator) and
# Microsoft's @azure/storage-blob client, pinned in
# tests/tools/azure/package-lock.json, into BUILD_DIR/azure-deps with
# `npm ci`. Skips the install when that lock file is already installed;
# concurrent callers wait for one install (flock).
#   scripts/install-azurite.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
src="$here/tests/tools/azure"
dest="$build/azure-deps"
installed() {
  [ -f "$dest/node_modules/azurite/dist/src/blob/main.js" ] &&
    [ -d "$dest/node_modules/@azure/storage-blob" ] &&
    cmp -s "$src/package-lock.json" "$dest/package-lock.json"
}
if installed; then
  echo "install-azurite: already installed in $dest"
  exit 0
fi
mkdir -p "$dest"
exec 9> "$dest.lock"
flock 9
if installed; then
  echo "install-azurite: installed meanwhile in $dest"
  exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
# the registry sometimes resets a connection mid-download: 3 tries
for try in 1 2 3; do
  (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error) && break
  [ "$try" = 3 ] && { echo "install-azurite: npm ci failed 3 times" >&2; exit 1; }
  echo "install-azurite: npm ci failed (try $try of 3), retrying" >&2; sleep $((try * 10))
done
echo "install-azurite: installed into $dest/node_modules"
