#!/usr/bin/env bash
# The copy-through threshold is a setting: input row groups of at least
# `copy_row_group_min_size` (the location's writer setting, or the CLI's
# --copy-row-group-min, which wins) are copied into the compacted file as
# they are; `off` re-encodes every row group. The inputs are
# tests/tools/gen_copy_files.cjs's (DuckDB: four files of one 4 MiB
# snappy row group, one of small row groups, one zstd). Judged by DuckDB's
# parquet_metadata (how many row groups of the new file are identical to an
# input's: size, encodings, statistics), the oracle's fingerprint (rows
# unchanged) and verify; a bad value is refused naming the setting, with
# the table unchanged.
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH

node "$TOOLS/gen_copy_files.cjs" "$TEST_TMP/gen"
"$LOOM_BIN" convert "$TEST_TMP/gen" > /dev/null
fp0=$(oracle fingerprint "$TEST_TMP/gen" | jsq - 'd.hash + "/" + d.rows')

# row groups of `new` identical to one of the big inputs' (prints the count)
cat > "$TEST_TMP/copied.cjs" <<'JS'
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const groups = async (f) => {
    const r = await conn.runAndReadAll(`SELECT row_group_id, row_group_num_rows, column_id, total_compressed_size,
        encodings, stats_min_value, stats_max_value, stats_null_count
      FROM parquet_metadata(${JSON.stringify(f).replace(/"/g, "'")}) ORDER BY row_group_id, column_id`);
    const g = new Map();
    for (const x of r.getRowObjects()) {
      const k = Number(x.row_group_id);
      if (!g.has(k)) g.set(k, { rows: Number(x.row_group_num_rows), cols: [] });
      g.get(k).cols.push([x.total_compressed_size, x.encodings, x.stats_min_value, x.stats_max_value, x.stats_null_count].map(String).join("|"));
    }
    return [...g.values()].map(v => v.rows + ":" + v.cols.join(";"));
  };
  const out = await groups(process.argv[2]);
  const inputs = [];
  for (const f of process.argv.slice(3)) inputs.push(...await groups(f));
  console.log(out.filter(g => inputs.includes(g)).length);
})().catch(e => { console.error(e.message); process.exit(2); });
JS

# run NAME EXPECTED_COPIED [compact args...]: compact a fresh copy, judge it
run() {
  local name="$1" want="$2"; shift 2
  local t="$TEST_TMP/lake/x/$name"
  mkdir -p "$TEST_TMP/lake/x"; cp -r "$TEST_TMP/gen" "$t"
  if ! "$LOOM_BIN" compact "$@" --target-size 64MiB --json > "$TEST_TMP/$name.json" 2> "$TEST_TMP/err"; then
    fail "$name: compaction failed: $(head -c 300 "$TEST_TMP/err")"; return
  fi
  expect "$name: six files into one" jsq --assert "$TEST_TMP/$name.json" 'd.num_files_removed === 6 && d.num_files_added === 1'
  expect "$name: fingerprint unchanged" test "$fp0" = "$(oracle fingerprint "$t" | jsq - 'd.hash + "/" + d.rows')"
  if oracle verify "$t" > "$TEST_TMP/v.json"; then pass; else fail "$name: verify: $(head -c 600 "$TEST_TMP/v.json")"; fi
  local copied
  copied=$(node "$TEST_TMP/copied.cjs" "$(ls "$t"/part-00000-*.parquet)" "$TEST_TMP"/gen/big-*.parquet)
  expect "$name: $copied row groups copied as they are (want $want, DuckDB parquet_metadata)" test "$copied" = "$want"
}

config() { # config FILE WRITER_YAML
  cat > "$1" <<YAML
storage:
  defaults:
    table_path:
      uri: $TEST_TMP/lake
      writer: $2
YAML
}

# the default is compact_copy.sh's case too: the sanitizer pass skips it here
grep -q __asan_init "$LOOM_BIN" || run default 4 "$TEST_TMP/lake/x/default"
run cli_off 0 "$TEST_TMP/lake/x/cli_off" --copy-row-group-min off
config "$TEST_TMP/big.yaml" '{copy_row_group_min_size: 1GiB}'
run yaml_1gib 0 x.yaml_1gib --config "$TEST_TMP/big.yaml"
config "$TEST_TMP/off.yaml" '{copy_row_group_min_size: "off"}'
run yaml_off_cli_1mib 4 x.yaml_off_cli_1mib --config "$TEST_TMP/off.yaml" --copy-row-group-min 1MiB

# bad values: refused, naming the setting, nothing written
t="$TEST_TMP/lake/x/bad"; cp -r "$TEST_TMP/gen" "$t"; before=$(tree_digest "$t")
config "$TEST_TMP/bad.yaml" '{copy_row_group_min_size: lots}'
if "$LOOM_BIN" compact x.bad --config "$TEST_TMP/bad.yaml" > /dev/null 2> "$TEST_TMP/err"; then
  fail "bad yaml value accepted"
else
  expect "bad yaml value: the error names the setting ($(head -c 200 "$TEST_TMP/err"))" grep -q "copy_row_group_min_size" "$TEST_TMP/err"
fi
if "$LOOM_BIN" compact "$t" --copy-row-group-min -5 > /dev/null 2> "$TEST_TMP/err"; then
  fail "bad CLI value accepted"
else
  expect "bad CLI value: the error names the option" grep -q -- "--copy-row-group-min" "$TEST_TMP/err"
fi
expect "bad values: table unchanged" test "$before" = "$(tree_digest "$t")"
finish
