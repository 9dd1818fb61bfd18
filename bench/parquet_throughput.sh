#!/usr/bin/env bash
# Parquet decode ("read": every column of every file) and decode+encode
# ("rewrite": each file read and written again, snappy) throughput of
# loom's engine, side by side with DuckDB and Polars on the same files in
# the same run, as ratios of median wall time and peak RSS.
#   bench/parquet_throughput.sh [small|big] [RUNS]
# Needs ../shared/bench/setup.sh run once (BENCH_DIR, default $HOME/loom-bench)
# and the data generated there (gen_data.cjs --preset small|big).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
peers="$here/../shared/bench"
BENCH_DIR="${BENCH_DIR:-$HOME/loom-bench}"
export NODE_PATH="$BENCH_DIR/node_modules"
set_name="${1:-small}"; runs="${2:-3}"
data="$BENCH_DIR/data/$set_name"
out="$BENCH_DIR/out"; mkdir -p "$out"
tool="$here/build/pq_throughput"
[ -x "$tool" ] || cmake --build "$here/build" --target pq_throughput > /dev/null
cat "$data"/*.parquet > /dev/null   # page cache, as the peers' runs do
MEASURE_IN_BYTES=$(du -cb "$data"/*.parquet | tail -1 | cut -f1)
export MEASURE_IN_BYTES

# The peers' jobs take JOB IN_DIR OUT_DIR even for `read` (shared/bench
# common.cjs parseArgs wants exactly three positionals and empties OUT_DIR
# first), so each gets its own scratch folder; without it they exit 1.
m() { echo "-- $1"; shift; "$peers/measure.sh" -n "$runs" --warmup 1 -- "$@"; }
echo "== read ($set_name)"
m loom "$tool" read "$data"
m duckdb node "$peers/duckdb_job.cjs" read "$data" "$out/duckdb-read"
m polars node "$peers/polars_job.cjs" read "$data" "$out/polars-read"
echo "== rewrite ($set_name): loom rewrites each file; the peers' closest job is compact"
m loom bash -c "rm -rf '$out/loom' && mkdir -p '$out/loom' && '$tool' rewrite '$data' '$out/loom'"
m duckdb bash -c "rm -rf '$out/duckdb' && node '$peers/duckdb_job.cjs' compact '$data' '$out/duckdb'"
m polars bash -c "rm -rf '$out/polars' && node '$peers/polars_job.cjs' compact '$data' '$out/polars'"
node "$peers/verify.cjs" "$data" "$out/loom" | head -c 300; echo
