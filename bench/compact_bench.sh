#!/usr/bin/env bash
# loom compact vs DuckDB and Polars doing the same compaction job, side by
# side in the same session (A B C A B C ...), on the shared bench workload.
#
#   DATA=small|big RUNS=3 [PEERS="polars duckdb cp-sync"] [LOOM_ARGS=...] bench/compact_bench.sh
#
# The input (made by ../shared/bench/gen_data.cjs into $HOME/loom-bench/data/
# $DATA) is COPIED to $WORK (never modified) and made a Delta table with
# `loom convert`. Each loom run first drops the previous run's commit and
# output files (inside the timed command, a few ms), then runs
# `loom compact --target-size 128MiB` (bins of <= 128 MiB of input bytes, in
# name order: the same bins as the peers' `compact` job). Peers write to
# $WORK/out-* and read the original input folder (read only). Prints one
# JSON line per run and a markdown table of the medians and of the median
# per-round ratios loom/peer (wall, peak RSS). Shared parts: bench/lib.sh.
# PEERS: the peers to run (default all three); LOOM_ARGS: extra `loom compact`
# options, e.g. LOOM_ARGS="--copy-row-group-min off" (re-encode every row
# group) to measure what copy-through saves.
# The peer cp-sync is the reference of issue 33's copy-through floor: `cp`
# of the same input files to $WORK/out-cp, then one `sync` of the copies
# (fsync of each copied file, as loom makes every file durable before its
# commit; not the whole machine's dirty data).
set -euo pipefail
source "$(dirname "$0")/lib.sh" compact

bench_prepare
loom_cmd="$(bench_reset) exec '$LOOM' compact '$WORK/table' --target-size 128MiB ${LOOM_ARGS:-}"
read -r -a peers <<< "${PEERS:-polars duckdb cp-sync}"
bench_cmd() {
  case $1 in
    loom) cmd=(bash -c "$loom_cmd") ;;
    polars) cmd=(node "$BENCH/polars_job.cjs" compact "$in" "$WORK/out-polars") ;;
    duckdb) cmd=(node "$BENCH/duckdb_job.cjs" compact "$in" "$WORK/out-duckdb") ;;
    cp-sync) rm -rf "$WORK/out-cp"; mkdir "$WORK/out-cp"
             cmd=(bash -c "cp '$in'/*.parquet '$WORK/out-cp/' && sync '$WORK/out-cp'/*.parquet") ;;
  esac
}
bench_run loom "${peers[@]}"
bench_summary --mbps loom "${peers[@]}"
