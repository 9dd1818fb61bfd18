#!/usr/bin/env node
// parquet_codecs.cjs FILE...: for each Parquet file, what DuckDB's
// parquet_metadata() says about it -- {"FILE": {"codecs": [...distinct
// column-chunk codecs], "row_groups": N, "max_group_rows": N}} -- so tests
// can check writer settings without trusting loom's own reader.
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const out = {};
  for (const f of process.argv.slice(2)) {
    const lit = `'${f.replace(/'/g, "''")}'`;
    const rows = (await conn.runAndReadAll(
      `SELECT list(DISTINCT compression ORDER BY compression) AS codecs,
              count(DISTINCT row_group_id) AS groups, max(row_group_num_rows) AS max_rows
       FROM parquet_metadata(${lit})`)).getRowObjects();
    const r = rows[0];
    out[f] = { codecs: r.codecs.items.map(String), row_groups: Number(r.groups),
               max_group_rows: Number(r.max_rows) };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}
main().catch((e) => { console.error(e); process.exit(2); });
