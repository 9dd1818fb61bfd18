#!/usr/bin/env bash
# Racing commits on a GCS server: LOOM_GCS_WRITERS (4) processes each commit
# LOOM_GCS_COMMITS (100; 25 in the sanitizer pass) blind appends to one
# gs:// table at once - every commit a create-only upload (ifGenerationMatch=0;
# the 412 of a taken version comes from shared/'s gcs-front.cjs, which adds
# the precondition the emulator ignores) - while another
# process compacts and checkpoints it in a loop. Judged on the table as
# Google's @google-cloud/storage downloads it: versions contiguous from 0 with one commit
# each, every append committed exactly once, the oracle's rows = base rows
# + appends x rows per copy (compaction moves rows, never loses or doubles
# them), `verify` clean, and the oracle's state read through loom's
# newest checkpoint equal to the replay of the commits alone.
source "$(dirname "$0")/../tools/lib.sh"
source "$TOOLS/gcs/gcs.sh"
HELPER="${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/append_commits"
WRITERS="${LOOM_GCS_WRITERS:-4}"
if [ "${LOOM_FIXTURE_SAMPLE:-1}" -gt 1 ]; then COMMITS="${LOOM_GCS_COMMITS:-25}"; else COMMITS="${LOOM_GCS_COMMITS:-100}"; fi
gcs_start
RACE_SCHEME=gs
race_upload() { gcsc upload "$@"; }
race_download() { gcsc download "$@"; }
source "$TOOLS/object_store_races_body.sh"
