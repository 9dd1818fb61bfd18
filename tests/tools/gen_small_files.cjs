#!/usr/bin/env node
// gen_small_files.cjs DIR NPART NFILES ROWS: many small Parquet files
// written by DuckDB (the independent writer), Hive-partitioned as
// p=<0..NPART/2-1>/q=<'x y' | 'a:b' escaped>/part-<i>.parquet, NFILES in all.
// Columns: id BIGINT, v DOUBLE, s VARCHAR, ts TIMESTAMPTZ, d DATE,
// dec DECIMAL(10,2), l INTEGER[], st STRUCT(a INTEGER, b VARCHAR); ~5% NULLs.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

async function main() {
  const [dir, nPart, nFiles, rows] = [process.argv[2], +process.argv[3], +process.argv[4], +process.argv[5]];
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const qs = ['x y', 'a:b'];
  for (let i = 0; i < nFiles; i++) {
    const part = i % nPart;
    const p = Math.floor(part / 2), q = qs[part % 2];
    const sub = path.join(dir, `p=${p}`, `q=${q.replace(':', '%3A')}`);
    fs.mkdirSync(sub, { recursive: true });
    const base = i * rows;
    const f = path.join(sub, `part-${String(i).padStart(5, '0')}.parquet`);
    await conn.run(`COPY (SELECT (${base} + r)::BIGINT AS id,
        CASE WHEN hash(r, ${i}, 1) % 20 = 0 THEN NULL ELSE (hash(r, ${i}, 2) % 100000) / 100.0 END::DOUBLE AS v,
        CASE WHEN hash(r, ${i}, 3) % 20 = 0 THEN NULL ELSE 'str-' || (hash(r, ${i}, 4) % 5000)::VARCHAR || repeat('z', (hash(r, ${i}, 9) % 40)::INT) END AS s,
        (TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds((hash(r, ${i}, 5) % 86400000000)::BIGINT)) AS ts,
        (DATE '2020-01-01' + (hash(r, ${i}, 6) % 1000)::INT) AS d,
        ((hash(r, ${i}, 7) % 2000000)::BIGINT - 1000000)::DECIMAL(10,2) / 100 AS dec,
        CASE WHEN r % 7 = 0 THEN NULL ELSE [r::INT, (r * 2)::INT] END AS l,
        {'a': r::INT, 'b': CASE WHEN r % 11 = 0 THEN NULL ELSE 'b' || r::VARCHAR END} AS st
      FROM range(${rows}) t(r)) TO '${f}' (FORMAT parquet, COMPRESSION snappy)`);
  }
}
main().catch(e => { console.error(e.message); process.exit(2); });
