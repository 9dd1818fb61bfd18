#!/usr/bin/env bash
# loom compaction and Z-order of the shared bench set on GCS (the tests'
# server: firebase-tools' Storage emulator behind the precondition front,
# on loopback) against the same on local disk, in one run, side by side
# (local compact, GCS compact, local zorder, GCS zorder, round after round):
# wall, CPU, peak RSS and, for GCS, the requests each operation sent.
#
#   DATA=small|big RUNS=3 MEMORY=1GiB [LOOM_ARGS=...] bench/gcs_bench.sh
#
# LOOM_ARGS: extra `loom compact` options for both sides. The input
# (../shared/bench/gen_data.cjs output in $HOME/loom-bench/data/$DATA) is
# copied to $WORK and made a Delta table (bench/lib.sh), then uploaded by
# Google's @google-cloud/storage to a server started here
# (tests/tools/gcs/gcs.sh; LOOM_GCS_DEPS from scripts/install-gcs.sh,
# build/gcs-deps by default). Before each run, untimed, the previous run's
# commit and output files are removed (locally with rm, on GCS through the
# same client), so every run starts from the converted table. The
# server's CPU during each GCS run is recorded (server_cpu_s: the node
# process of the emulator and its front), as in s3_bench.sh. Prints one
# JSON line per run and markdown tables of the medians and of the median
# per-round ratios GCS/local (bench/lib.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source "$here/bench/lib.sh" gcs
MEMORY="${MEMORY:-1GiB}"
export LOOM_SOURCE_DIR="$here" LOOM_BIN="$LOOM"
export LOOM_GCS_DEPS="${LOOM_GCS_DEPS:-$here/build/gcs-deps}"
bench_node_path="$NODE_PATH"
unset NODE_PATH
source "$here/tests/tools/lib.sh"
source "$here/tests/tools/gcs/gcs.sh"
export NODE_PATH="$bench_node_path"

bench_prepare
gcs_start # loom finds it through STORAGE_EMULATOR_HOST (no auth)
gcsc upload "$WORK/table" bench/table
uri=gs://bench/table

reset_local() { bash -c "$(bench_reset)"; }
reset_gcs() { # the converted state again: no version 1, no output file
  local k
  for k in $(gcsc ls bench/table | cut -f1 |
             grep -E '^_delta_log/0+1\.json$|^part-00000-.*-c000\.snappy\.parquet$' || true); do
    gcsc rm "bench/table/$k"
  done
}
# server_cpu: CPU seconds the server's node process has used so far
server_cpu() { bench_cpu_of "$GCS_PID"; }

read -r -a compact_args <<< "${LOOM_ARGS:-}"
bench_store_rounds gcs reset_local reset_gcs "$uri" "${compact_args[@]+"${compact_args[@]}"}"
bench_store_summary gcs
