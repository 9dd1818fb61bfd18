#!/usr/bin/env bash
# Compaction copies large row groups that need no change into the new files
# without decoding them (same codec, same columns, exact statistics), and
# decodes and merges the rest, in one file. DuckDB writes the inputs
# (tests/tools/gen_copy_files.cjs: four files of one > 1 MiB snappy row
# group, one of small row groups, one zstd); loom converts and compacts
# them into one file. Judged by:
#  - the oracle: fingerprint unchanged, verify (stats against DuckDB's
#    reading of the data) passes;
#  - DuckDB's parquet_metadata: the new file holds row groups whose column
#    chunks have exactly the input row groups' sizes, encodings and
#    statistics (copied), and others that are not (merged);
#  - DuckDB, Polars and parquet-wasm read every new file (read_new_files).
source "$(dirname "$0")/../tools/lib.sh"
NODE_PATH="${LOOM_ORACLE_NODE_PATH:-$LOOM_SOURCE_DIR/build/oracle-deps/node_modules}"
export NODE_PATH

t="$TEST_TMP/copy"
node "$TOOLS/gen_copy_files.cjs" "$t"
cp "$t"/big-*.parquet "$TEST_TMP/"
expect "convert" "$LOOM_BIN" convert "$t" --json > "$TEST_TMP/conv.json"
oracle fingerprint "$t" > "$TEST_TMP/fp0.json"
expect "compaction" "$LOOM_BIN" compact "$t" --target-size 64MiB --json > "$TEST_TMP/c.json"
expect "six files into one" jsq --assert "$TEST_TMP/c.json" 'd.num_files_removed === 6 && d.num_files_added === 1'
oracle fingerprint "$t" > "$TEST_TMP/fp1.json"
expect "fingerprint unchanged" test "$(jsq "$TEST_TMP/fp0.json" 'd.hash + "/" + d.rows')" = "$(jsq "$TEST_TMP/fp1.json" 'd.hash + "/" + d.rows')"
if oracle verify "$t" > "$TEST_TMP/v1.json"; then pass; else fail "verify after compaction: $(head -c 800 "$TEST_TMP/v1.json")"; fi

new=$(ls "$t"/part-00000-*.parquet)
expect "copied and merged row groups, as DuckDB reads the footer" node -e '
const { DuckDBInstance } = require("@duckdb/node-api");
(async () => {
  const conn = await (await DuckDBInstance.create(":memory:")).connect();
  const groups = async (f) => {
    const r = await conn.runAndReadAll(`SELECT row_group_id, row_group_num_rows, column_id, total_compressed_size,
        encodings, stats_min_value, stats_max_value, stats_null_count
      FROM parquet_metadata(${"\x27"}${f}${"\x27"}) ORDER BY row_group_id, column_id`);
    const g = new Map();
    for (const x of r.getRowObjects()) {
      const k = Number(x.row_group_id);
      if (!g.has(k)) g.set(k, { rows: Number(x.row_group_num_rows), cols: [] });
      g.get(k).cols.push([x.total_compressed_size, x.encodings, x.stats_min_value, x.stats_max_value, x.stats_null_count].map(String).join("|"));
    }
    return [...g.values()].map(v => v.rows + ":" + v.cols.join(";"));
  };
  const out = await groups(process.argv[1]);
  const inputs = [];
  for (const f of process.argv.slice(2)) inputs.push(...await groups(f));
  const copied = out.filter(g => inputs.includes(g)).length;
  console.log(`new file: ${out.length} row groups, ${copied} identical to an input row group`);
  process.exit(copied === inputs.length && out.length > copied ? 0 : 1);
})().catch(e => { console.error(e.message); process.exit(2); });' "$new" "$TEST_TMP"/big-*.parquet

oracle snapshot "$t" > "$TEST_TMP/s1.json"
printf 'copy\t%s\t%s\n' "$t" "$t/_delta_log/$(printf '%020d' "$(jsq "$TEST_TMP/s1.json" 'd.version')").json" > "$TEST_TMP/new_files.tsv"
read_new_files "$TEST_TMP/new_files.tsv"
finish
