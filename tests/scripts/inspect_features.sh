#!/usr/bin/env bash
# `loom inspect` (text and --json) shows the clustering columns, the row
# tracking high-water mark, the checkpoint kind with its sidecar count and
# the in-commit timestamp state, judged by tests/tools/inspect_check.cjs
# against the oracle's snapshot of the same version (domainMetadata,
# protocol, configuration, checkpoint) and the log files:
#  1. the fixtures that have these features (liquid clustering + row
#     tracking, ICT, V2 JSON/Parquet checkpoints with and without sidecars,
#     a classic-named V2 checkpoint, classic and multi-part checkpoints) and
#     one that has none;
#  2. a clustered table (GA name) whose clustering domain goes through
#     Spark's path form, PROTOCOL.md's name form, CLUSTER BY NONE and
#     removal, each version inspected with --version; physical names under
#     column mapping (top-level and nested) shown with their logical paths;
#  3. row tracking supported, then enabled with a higher mark, then read
#     back through a checkpoint loom wrote (the domain travels in it);
#  4. in-commit timestamps enabled at a later version, loom's own commits
#     after it (vacuum), before and after the enablement;
#  5. a V2 checkpoint loom wrote with several sidecars.
source "$(dirname "$0")/../tools/lib.sh"
# inspect_check.cjs reads Parquet checkpoints with the oracle's DuckDB
export NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"

check() { # TABLE [VERSION]: inspect (text + JSON) against the oracle's snapshot
  local t=$1 v=${2:-} vo=() tag
  [ -n "$v" ] && vo=(--version "$v")
  tag="$(basename "$t")${v:+@$v}"
  if ! oracle snapshot "$t" "${vo[@]}" > "$TEST_TMP/o.json" 2> "$TEST_TMP/err"; then
    fail "$tag: oracle snapshot: $(cat "$TEST_TMP/err")"; return
  fi
  if ! "$LOOM_BIN" inspect "$t" "${vo[@]}" --json > "$TEST_TMP/l.json" 2> "$TEST_TMP/err" ||
     ! "$LOOM_BIN" inspect "$t" "${vo[@]}" > "$TEST_TMP/l.txt" 2> "$TEST_TMP/err"; then
    fail "$tag: loom inspect: $(cat "$TEST_TMP/err")"; return
  fi
  expect "$tag: inspect agrees with the oracle" \
    node "$TOOLS/inspect_check.cjs" "$t" "$TEST_TMP/o.json" "$TEST_TMP/l.json" "$TEST_TMP/l.txt"
}
edit() { node "$TOOLS/delta_edit.cjs" "$@"; }

# ---- 1. fixtures ----------------------------------------------------------
for name in table_with_liquid_clustering cdc_ict_table v2-checkpoints-json-with-sidecars \
    v2-parquet-sidecars-struct-stats-only v2-checkpoints-parquet-without-sidecars \
    v2-classic-checkpoint-parquet checkpoint-v2-table simple_table_with_checkpoint \
    parquet_row_group_skipping simple_table; do
  check "$LOOM_FIXTURES_DIR/delta/$name"
done
# an older version of an ICT table (time travel: that commit's timestamp)
check "$LOOM_FIXTURES_DIR/delta/cdc_ict_table" 1

# ---- 2. clustering domain forms ------------------------------------------
t=$(copy_table simple_table)
v1=$(edit "$t" --features w:domainMetadata,w:clustering \
  --domain 'delta.clustering={"clusteringColumns":[["id"],["s","x"]],"domainName":"delta.clustering"}')
v2=$(edit "$t" --domain 'delta.clustering={"clusteringColumns":["col-5abe0e80","id"]}')
v3=$(edit "$t" --domain 'delta.clustering={"clusteringColumns":[]}')
v4=$(edit "$t" --remove-domain delta.clustering)
for v in $v1 $v2 $v3 $v4; do check "$t" "$v"; done
expect "2: the path form shows dotted paths" \
  sh -c "'$LOOM_BIN' inspect '$t' --version $v1 | grep -qx 'clustered by: id, s.x (not in the schema)'"
expect "2: no clustering after the domain is removed" \
  sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.clustering === null'"

# column mapping: physical names (a top-level column and a nested field)
# shown with their logical paths
t=$(copy_table stats-writing-all-types)
edit "$t" --features w:domainMetadata,w:clustering --domain 'delta.clustering={"clusteringColumns":[["col-6c805ddb-539c-4ed3-bada-ac7a2082c889"],["col-481c7590-d3b8-4e9c-b40e-7b7128a972f4","col-7f2f94cf-7082-430c-bba7-852bc6c5215e"]]}' > /dev/null
check "$t"
expect "2: logical names under column mapping" sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.clustering.logicalColumns.join() === \"long_col,nested_struct.inner_int\"'"

# ---- 3. row tracking through a checkpoint ---------------------------------
t=$(copy_table simple_table)
v1=$(edit "$t" --features w:domainMetadata,w:rowTracking \
  --domain 'delta.rowTracking={"rowIdHighWaterMark":41,"domainName":"delta.rowTracking"}')
v2=$(edit "$t" --set delta.enableRowTracking=true --domain 'delta.rowTracking={"rowIdHighWaterMark":1234567890123}')
check "$t" "$v1"
"$LOOM_BIN" checkpoint "$t" > /dev/null
# the commits up to the checkpoint go: the mark can only come from it
find "$t/_delta_log" -name '*.json' ! -name "$(printf '%020d' "$v2").json" -delete
check "$t"
expect "3: the mark is read from loom's checkpoint" \
  sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.rowTracking.highWaterMark === 1234567890123 && d.checkpoint.version === $v2 && d.commitsReplayed === 0'"

# ---- 4. in-commit timestamps enabled later --------------------------------
t=$(copy_table simple_table)
ena=$(( $(date +%s%3N) - 60000 ))
v1=$(edit "$t" --features w:inCommitTimestamp --ict "$ena" --ict-enable)
"$LOOM_BIN" vacuum "$t" --full --no-dry-run > /dev/null   # VACUUM START/END: loom's commits
last=$(ls "$t/_delta_log" | grep -E '^[0-9]{20}\.json$' | sort | tail -1); last=$((10#${last%.json}))
expect "4: loom committed after the enablement" test "$last" -gt "$v1"
for v in $((v1 - 1)) $v1 $last; do check "$t" "$v"; done

# ---- 5. a V2 checkpoint loom wrote with sidecars --------------------------
t=$(copy_table v2-checkpoints-json-with-sidecars)
v=$(edit "$t" --set loom.test=1)   # a new version to checkpoint
"$LOOM_BIN" checkpoint "$t" --part-size 25 > /dev/null
check "$t"
expect "5: 101 files in 5 sidecars" \
  sh -c "'$LOOM_BIN' inspect '$t' --json | node '$TOOLS/jsq.cjs' --assert - 'd.checkpoint.version === $v && d.checkpoint.kind === \"v2-json\" && d.checkpoint.sidecars === 5'"
finish
