#!/usr/bin/env node
// checkpoint_write_duckdb.cjs OUT FILE...: the peer of bench/checkpoint_write.sh,
// DuckDB's COPY of a checkpoint's rows (every column of every row of the given
// Parquet checkpoint parts or sidecars) back to one Parquet file (DuckDB's
// defaults: snappy, its own row groups and threads). Prints {"rows":N}.
// Needs @duckdb/node-api (NODE_PATH, e.g. $HOME/loom-bench/node_modules).
'use strict';
const { DuckDBInstance } = require('@duckdb/node-api');

async function main() {
  const [out, ...files] = process.argv.slice(2);
  if (!out || files.length === 0) {
    console.error('usage: checkpoint_write_duckdb.cjs OUT FILE...');
    process.exit(2);
  }
  const q = (s) => `'${s.replace(/'/g, "''")}'`;
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const r = await con.runAndReadAll(
    `COPY (SELECT * FROM read_parquet([${files.map(q).join(', ')}])) TO ${q(out)} (FORMAT parquet)`);
  console.log(JSON.stringify({ rows: Number(r.rowsChanged) }));
}
main().catch((e) => { console.error(e); process.exit(1); });
