#!/usr/bin/env bash
# loom zorder (customer_id, event_ts) vs DuckDB and Polars sorting the same
# data (and DuckDB's 16+16-bit Morton job), side by side in the same session
# (A B C D A B C D ...), on the shared bench workload.
#
#   DATA=small|big RUNS=3 MEMORY=1GiB [PEERS="duckdb-sort ..."] bench/zorder_bench.sh
#
# The input ($HOME/loom-bench/data/$DATA from ../shared/bench/gen_data.cjs)
# is COPIED to $WORK and made a Delta table with `loom convert`. Each loom
# run first drops the previous run's commit and output files (inside the
# timed command, a few ms), then runs `loom zorder --columns
# customer_id,event_ts --target-size 128MiB --memory $MEMORY`. The peers
# write one sorted file each (see ../shared/bench/README.md). Prints one
# JSON line per run and a markdown table of medians and loom/peer ratios.
# Shared parts: bench/lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh" zorder
MEMORY="${MEMORY:-1GiB}"

bench_prepare
loom_cmd="$(bench_reset) exec '$LOOM' zorder '$WORK/table' --columns customer_id,event_ts --target-size 128MiB --memory $MEMORY"
bench_cmd() {
  rm -rf "$WORK/out"
  case $1 in
    loom) cmd=(bash -c "$loom_cmd") ;;
    duckdb-sort) cmd=(node "$BENCH/duckdb_job.cjs" sort "$in" "$WORK/out") ;;
    duckdb-zorder) cmd=(node "$BENCH/duckdb_job.cjs" zorder "$in" "$WORK/out") ;;
    polars-sort) cmd=(node "$BENCH/polars_job.cjs" sort "$in" "$WORK/out") ;;
  esac
}
# PEERS: the peers to run (default all), e.g. PEERS=duckdb-sort
read -r -a peers <<< "${PEERS:-duckdb-sort duckdb-zorder polars-sort}"
bench_run loom "${peers[@]}"
bench_summary loom "${peers[@]}"
