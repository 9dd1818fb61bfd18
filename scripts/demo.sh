#!/usr/bin/env bash
# The main job. Until the maintenance commands land, this builds loom and
# shows its version; it will create the example lake and run `loom maintain`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target loom
build/loom --version
