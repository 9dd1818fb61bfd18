#!/usr/bin/env bash
# OPTIMIZE and Z-order spread over Dask (libloom.dask, issue 16): what one
# unit costs, how evenly units spread over workers, what the driver's plan
# and commit cost, and the commit of a 100,000-file rewrite; from those, the
# projected wall time of the shared bench workload at 1, 8 and 64 workers.
#
#   DATA=small|big WORKERS=2 UNITS=8 bench/dask_bench.sh
#
# The input (../shared/bench data in $HOME/loom-bench/data/$DATA) is copied
# to $WORK and made a Delta table with `loom convert` (bench/lib.sh). A
# distributed.LocalCluster of WORKERS processes (one thread each) on
# 127.0.0.1 runs the units; absolute scaling is capped by this 2-core
# machine, so the numbers reported are per unit and per step, and the
# projection states its model (bench/dask_bench.py prints it). The commit
# bench uses a generated log-only table (tests/tools/make_big_log.cjs:
# 100,000 files, no data) and unit results made from its plan: the commit
# step reads the plan's version and writes one commit, whatever the files
# hold. Not run in CI.
set -euo pipefail
source "$(dirname "$0")/lib.sh" dask
export LIBLOOM_LIBRARY="${LIBLOOM_LIBRARY:-$bench_src/build/libloom.so}"
export PYTHONPATH="$bench_src/python${PYTHONPATH:+:$PYTHONPATH}"
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3   # Debian's, with python3-distributed
bench_prepare
node "$bench_src/tests/tools/make_big_log.cjs" "$WORK/biglog" 100000 0
exec "$PY" "$bench_src/bench/dask_bench.py" --table "$WORK/table" --biglog "$WORK/biglog" \
  --loom "$LOOM" --workers "${WORKERS:-2}" --units "${UNITS:-8}" --work "$WORK" \
  --big "${BIG_TABLE:-$BENCH_DIR/data/big}"
