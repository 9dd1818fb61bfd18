#!/usr/bin/env bash
# One CPU budget per process (src/util/cpu_budget.h): `loom maintain
# --jobs 3` compacts 4 tables, 3 at once, and the threads that compute (the
# pipelines' workers, named "loom-cpu") never number more than
# max(cores, 3), whatever each pipeline would take on its own (every CPU:
# 6 on 2 cores without the budget).
# Counted from outside: /proc/PID/task/*/comm sampled while the run lasts.
# The tables' rows are unchanged (oracle).
source "$(dirname "$0")/../tools/lib.sh"

jobs=3
base="$TEST_TMP/base"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}" \
  node "$TOOLS/gen_small_files.cjs" "$base" 4 160 4000 > /dev/null
expect "convert the generated files" "$LOOM_BIN" convert "$base" --partition-by p,q
fp0=$(oracle fingerprint "$base" | jsq - 'd.hash + "/" + d.rows')
mkdir -p "$TEST_TMP/lake/raw"
for t in t1 t2 t3 t4; do cp -r "$base" "$TEST_TMP/lake/raw/$t"; done
cat > "$TEST_TMP/storage.yaml" <<YAML
storage:
  tables:
    - {name: raw.t1, path: {uri: "$TEST_TMP/lake/raw/t1"}}
    - {name: raw.t2, path: {uri: "$TEST_TMP/lake/raw/t2"}}
    - {name: raw.t3, path: {uri: "$TEST_TMP/lake/raw/t3"}}
    - {name: raw.t4, path: {uri: "$TEST_TMP/lake/raw/t4"}}
  maintenance:
    schemas: [raw]
    compact:
      target_size: 64MiB
YAML

"$LOOM_BIN" maintain --config "$TEST_TMP/storage.yaml" --jobs "$jobs" --json > "$TEST_TMP/run.json" 2> "$TEST_TMP/run.err" &
pid=$!
peak=0 samples=0
while kill -0 "$pid" 2> /dev/null; do
  n=$(cat /proc/"$pid"/task/*/comm 2> /dev/null | grep -c '^loom-cpu$' || true)
  [ "${n:-0}" -gt "$peak" ] && peak=$n
  [ "${n:-0}" -gt 0 ] && samples=$((samples + 1))
  sleep 0.005
done
wait "$pid"; rc=$?
cores=$(nproc)
bound=$(( cores > jobs ? cores : jobs ))
expect "maintain --jobs $jobs succeeded (exit $rc: $(head -c 300 "$TEST_TMP/run.err"))" test "$rc" -eq 0
expect "computing threads seen while it ran ($samples samples)" test "$samples" -gt 0
expect "at most max(cores=$cores, jobs=$jobs) = $bound computing threads at once (peak $peak)" test "$peak" -le "$bound"
for t in t1 t2 t3 t4; do
  expect "raw.$t compacted" jsq --assert "$TEST_TMP/run.json" \
    "d.tables.some(x => x.ref === 'raw.$t' && x.ops.compact.num_files_removed === 160)"
  expect "raw.$t rows unchanged (oracle)" test "$fp0" = "$(oracle fingerprint "$TEST_TMP/lake/raw/$t" | jsq - 'd.hash + "/" + d.rows')"
done
finish
