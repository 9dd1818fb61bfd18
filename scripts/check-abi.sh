#!/usr/bin/env bash
# The ABI of libloom.so, held against the committed baseline abi/libloom.abi
# (abidw's description of the public types and functions, from the headers
# in include/). Run by .ci/run after the tests, on the tests' build.
#
#   scripts/check-abi.sh BUILD_DIR            compare; fail on a break
#   scripts/check-abi.sh BUILD_DIR --update   write the baseline anew
#
# What fails: any change abidiff sees in the public types and functions
# (a function or variable removed, a public struct's size or layout or a
# function's signature changed, enumerators renumbered); functions only
# added pass. abidiff cannot tell an append to a versioned options struct
# (compatible under ops.h's version rule) from a break, so every change is
# made on purpose: the baseline rewritten with --update in the same commit,
# and, when the change breaks callers (a field moved or removed, a
# signature changed, a function removed), the SONAME bumped too (the major
# of project VERSION in CMakeLists.txt, which sets SOVERSION). docs/api.md
# says more.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:?usage: check-abi.sh BUILD_DIR [--update]}"
lib="$build/libloom.so"
baseline=abi/libloom.abi
[ -f "$lib" ] || { echo "check-abi: $lib not built"; exit 1; }
command -v abidiff > /dev/null || { echo "check-abi: abidiff missing (Debian abigail-tools: scripts/install-deps.sh)"; exit 1; }
lib=$(readlink -f "$lib")

if [ "${2:-}" = "--update" ]; then
  abidw --headers-dir include --no-corpus-path --no-comp-dir-path --out-file "$baseline" "$lib"
  echo "check-abi: wrote $baseline from $lib ($(grep -c '<elf-symbol ' "$baseline") symbols)"
  exit 0
fi
[ -f "$baseline" ] || { echo "check-abi: no baseline $baseline (write one with --update)"; exit 1; }
set +e
abidiff --headers-dir2 include --no-added-syms "$baseline" "$lib" > "$build/abidiff.txt" 2>&1
rc=$?
set -e
# abidiff's status is a bit set: 1 error, 2 usage, 4 a change, 8 an
# incompatible change
if [ $((rc & 3)) -ne 0 ]; then
  cat "$build/abidiff.txt"
  echo "check-abi: abidiff could not compare (status $rc)"
  exit 1
fi
if [ $((rc & 12)) -ne 0 ]; then
  sed -n '1,80p' "$build/abidiff.txt"
  echo "check-abi: libloom.so's ABI differs from $baseline (above)."
  echo "check-abi: if on purpose: scripts/check-abi.sh $build --update, and bump the SONAME"
  echo "check-abi: when the change breaks callers (docs/api.md)"
  exit 1
fi
echo "check-abi: libloom.so matches $baseline"
