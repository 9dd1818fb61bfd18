#!/usr/bin/env node
// gen_copy_files.cjs DIR: Parquet files written by DuckDB (the independent
// writer) for the compaction copy-through test, unpartitioned:
//   big-<i>.parquet   4 files, one row group of 60,000 rows each (> 1 MiB,
//                     snappy): row groups compaction copies as they are;
//   small.parquet     60,000 rows in row groups of 5,000 (< 1 MiB each):
//                     decoded and merged;
//   zstd.parquet      one large row group, zstd: another codec, re-encoded.
// Columns: id BIGINT, v DOUBLE, s VARCHAR (high cardinality), c VARCHAR
// (low cardinality: dictionary pages), d DATE, dec DECIMAL(18,2),
// b BOOLEAN, ts TIMESTAMPTZ, l INTEGER[], st STRUCT(a INTEGER, b VARCHAR);
// ~5 % NULLs.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

const select = (i, rows) => `SELECT (${i} * 1000000 + r)::BIGINT AS id,
    CASE WHEN hash(r, ${i}, 1) % 20 = 0 THEN NULL ELSE (hash(r, ${i}, 2) % 1000000) / 100.0 END::DOUBLE AS v,
    CASE WHEN hash(r, ${i}, 3) % 20 = 0 THEN NULL ELSE md5((r + ${i} * 7919)::VARCHAR) END AS s,
    CASE WHEN hash(r, ${i}, 8) % 20 = 0 THEN NULL ELSE 'c' || (hash(r, ${i}, 4) % 40)::VARCHAR END AS c,
    (DATE '2020-01-01' + (hash(r, ${i}, 6) % 1000)::INT) AS d,
    ((hash(r, ${i}, 7) % 2000000)::BIGINT - 1000000)::DECIMAL(18,2) / 100 AS dec,
    CASE WHEN r % 23 = 0 THEN NULL ELSE hash(r, ${i}, 9) % 3 = 0 END AS b,
    (TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds((hash(r, ${i}, 5) % 86400000000)::BIGINT)) AS ts,
    CASE WHEN r % 7 = 0 THEN NULL ELSE [r::INT, (r * 2)::INT] END AS l,
    {'a': r::INT, 'b': CASE WHEN r % 11 = 0 THEN NULL ELSE 'b' || r::VARCHAR END} AS st
  FROM range(${rows}) t(r)`;

async function main() {
  const dir = process.argv[2];
  fs.mkdirSync(dir, { recursive: true });
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const copy = (i, file, opts) => conn.run(`COPY (${select(i, 60000)}) TO '${path.join(dir, file)}' (FORMAT parquet, ${opts})`);
  for (let i = 0; i < 4; i++)
    await copy(i, `big-${i}.parquet`, 'COMPRESSION snappy, ROW_GROUP_SIZE 100000');
  await copy(4, 'small.parquet', 'COMPRESSION snappy, ROW_GROUP_SIZE 5000');
  await copy(5, 'zstd.parquet', 'COMPRESSION zstd, ROW_GROUP_SIZE 100000');
}
main().catch(e => { console.error(e.message); process.exit(2); });
