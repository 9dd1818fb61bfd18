#!/usr/bin/env bash
# Install what the GCS tests run: firebase-tools' Storage emulator (the
# GCS JSON API server, behind ../shared/tools/object-store/gcs/gcs-front.cjs,
# which adds preconditions and multi-chunk resumable uploads) and Google's
# @google-cloud/storage client, pinned in tests/tools/gcs/package-lock.json,
# into BUILD_DIR/gcs-deps with `npm ci` (~3 min the first time, ~310 MB).
# Skips the install when that lock file is already installed; concurrent
# callers wait for one install (flock).
#   scripts/install-gcs.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
src="$here/tests/tools/gcs"
front="$here/../shared/tools/object-store/gcs/gcs-front.cjs"
dest="$build/gcs-deps"
installed() {
  [ -d "$dest/node_modules/firebase-tools/lib/emulator/storage" ] &&
    [ -d "$dest/node_modules/@google-cloud/storage" ] &&
    cmp -s "$src/package-lock.json" "$dest/package-lock.json" &&
    cmp -s "$front" "$dest/gcs-front.cjs"
}
if installed; then
  echo "install-gcs: already installed in $dest"
  exit 0
fi
mkdir -p "$dest"
exec 9> "$dest.lock"
flock 9
if installed; then
  echo "install-gcs: installed meanwhile in $dest"
  exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
# the front finds the emulator in node_modules beside it
cp "$front" "$dest/gcs-front.cjs"
# the registry sometimes resets a connection mid-download: 3 tries
for try in 1 2 3; do
  (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error) && break
  [ "$try" = 3 ] && { echo "install-gcs: npm ci failed 3 times" >&2; exit 1; }
  echo "install-gcs: npm ci failed (try $try of 3), retrying" >&2; sleep $((try * 10))
done
echo "install-gcs: installed into $dest/node_modules"
