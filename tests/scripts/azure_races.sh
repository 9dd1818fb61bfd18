#!/usr/bin/env bash
# Racing commits on Azurite: LOOM_AZ_WRITERS (4) processes each commit
# LOOM_AZ_COMMITS (100; 25 in the sanitizer pass) blind appends to one
# az:// table at once - every commit a create-only Put Blob - while another
# process compacts and checkpoints it in a loop. Judged on the table as
# Microsoft's SDK downloads it: versions contiguous from 0 with one commit
# each, every append committed exactly once, the oracle's rows = base rows
# + appends x rows per copy (compaction moves rows, never loses or doubles
# them), `verify` clean, and the oracle's state read through loom's
# newest checkpoint equal to the replay of the commits alone.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/azure/azurite.sh"
HELPER="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/append_commits"
WRITERS="${LOOM_AZ_WRITERS:-4}"
if [ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ]; then COMMITS="${LOOM_AZ_COMMITS:-25}"; else COMMITS="${LOOM_AZ_COMMITS:-100}"; fi
azurite_start
RACE_SCHEME=az
race_upload() { azblob upload "$@"; }
race_download() { azblob download "$@"; }
source "$TOOLS/object_store_races_body.sh"
