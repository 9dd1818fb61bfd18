#!/usr/bin/env bash
# The main job: build loom, create the example lake (examples/lake, made
# anew each run), then run the nightly maintenance plan over it with
# `loom maintain` and print the report.
#   scripts/demo.sh [--json]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash scripts/install-deps.sh >/dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target loom loom-example-lake >/dev/null
rm -rf examples/lake
build/loom-example-lake examples/lake
echo
echo "== plan"
build/loom maintain --config examples/storage.yaml --plan examples/plan.yaml --step nightly --explain
echo
echo "== run"
build/loom maintain --config examples/storage.yaml --plan examples/plan.yaml --step nightly "$@"
