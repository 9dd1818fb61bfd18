#!/usr/bin/env bash
# A classic checkpoint whose one row group holds 70,000 adds - more than the
# 65,536 rows the checkpoint reader decodes at a time, so it is read in
# slices (pq_reader_slices_begin_nested) - with two partition columns,
# Spark-style names, DVs on 1% of the files and stats: the compact file
# index the loader fills (file_index_dump --loader) and `loom inspect`
# both equal the independent oracle's snapshot of it.
source "$(dirname "$0")/../tools/lib.sh"
t="$TEST_TMP/t"
mkdir -p "$t/_delta_log"
node -e '
  const fs = require("fs");
  const [dir, n] = [process.argv[1], +process.argv[2]];
  const schema = JSON.stringify({type: "struct", fields: [
    {name: "id", type: "long", nullable: true, metadata: {}},
    {name: "date", type: "string", nullable: true, metadata: {}},
    {name: "region", type: "string", nullable: true, metadata: {}}]});
  const f = ["deletionVectors"];
  let out = JSON.stringify({protocol: {minReaderVersion: 3, minWriterVersion: 7, readerFeatures: f, writerFeatures: f}}) + "\n" +
    JSON.stringify({metaData: {id: "big-row-group", format: {provider: "parquet", options: {}}, schemaString: schema,
      partitionColumns: ["date", "region"], configuration: {"delta.enableDeletionVectors": "true"}, createdTime: 0}}) + "\n";
  const hex = (i, w) => (i >>> 0).toString(16).padStart(w, "0").slice(-w);
  for (let i = 0; i < n; i++) {
    const date = "2026-01-" + String(1 + i % 28).padStart(2, "0"), region = ["a", "b", "c"][i % 3];
    const uuid = `${hex(i * 2654435761, 8)}-${hex(i, 4)}-4${hex(i >> 4, 3)}-8${hex(i >> 8, 3)}-${hex(i * 40503, 12)}`;
    const add = {path: `date=${date}/region=${region}/part-${String(i % 100).padStart(5, "0")}-${uuid}-c000.snappy.parquet`,
      partitionValues: {date, region: i % 101 === 0 ? null : region}, size: 1000 + i, modificationTime: 1700000000000 + i,
      dataChange: true, stats: JSON.stringify({numRecords: 10 + i % 90, minValues: {id: i}, maxValues: {id: i + 9}, nullCount: {id: 0}})};
    if (i % 100 === 3) add.deletionVector = {storageType: "i", pathOrInlineDv: "wi5b=000010000siXQKl0rr91000f55c8Xg0@zo", sizeInBytes: 40, cardinality: 3};
    out += JSON.stringify({add}) + "\n";
  }
  fs.writeFileSync(dir + "/_delta_log/00000000000000000000.json", out);' "$t" 70000
expect "loom checkpoint" "$LOOM_BIN" checkpoint "$t"
rm "$t/_delta_log/00000000000000000000.json"   # the checkpoint must carry the state
expect "DuckDB sees one row group of more than 65,536 rows (70,000 adds, protocol, metadata)" node -e '
  const { DuckDBInstance } = require("@duckdb/node-api");
  (async () => {
    const c = await (await DuckDBInstance.create(":memory:")).connect();
    const r = await c.runAndReadAll(`SELECT count(DISTINCT row_group_id), max(row_group_num_rows)
      FROM parquet_metadata(\x27${process.argv[1]}\x27)`);
    const [[groups, rows]] = r.getRows();
    process.exit(Number(groups) === 1 && Number(rows) > 65536 ? 0 : 1);
  })();' "$t/_delta_log/00000000000000000000.checkpoint.parquet"
expect "the loader's index equals the oracle's snapshot" \
  python3 "$LOOM_SOURCE_DIR/tests/scripts/file_index_compare.py" --table \
  "${LOOM_BUILD_DIR:-$LOOM_SOURCE_DIR/build}/tests/file_index_dump" "$TOOLS/oracle.sh" "$TEST_TMP" t
finish
