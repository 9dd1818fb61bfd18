#!/usr/bin/env node
// lake_gen.cjs KIND DIR NFILES ROWS SEED: Parquet files for bench/lake_bench.sh,
// written by DuckDB (the independent writer), deterministic in SEED (same
// arguments, same rows). DIR/part-<i>.parquet, NFILES files of ROWS rows.
// Columns: id BIGINT (ascending over the files), u1 DOUBLE and u2 BIGINT
// (uniform, random in every file: what a Z-order on u1,u2 clusters),
// s VARCHAR (md5, incompressible: files reach a size with few rows),
// ts TIMESTAMPTZ. KIND is only a label (kept for the bench's log).
//   With several tables per call: lake_gen.cjs batch FILE, FILE holding one
//   "DIR NFILES ROWS SEED" line per table (one DuckDB for all).
//   lake_gen.cjs stats FILE...: one JSON line per Parquet file, its Delta
//   statistics as DuckDB reads them (numRecords, minValues, maxValues,
//   nullCount; timestamps in UTC to the millisecond), for a log written by
//   hand (bench/lake_scale_gen.py).
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

async function table(conn, dir, nFiles, rows, seed) {
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < nFiles; i++) {
    const f = path.join(dir, `part-${String(i).padStart(5, '0')}.parquet`);
    const base = i * rows;
    await conn.run(`COPY (SELECT (${base} + r)::BIGINT AS id,
        (hash(r, ${i}, ${seed}, 1) % 1000000) / 1000000.0 AS u1,
        (hash(r, ${i}, ${seed}, 2) % 1000000)::BIGINT AS u2,
        md5((r * 31 + ${i} * 7 + ${seed})::VARCHAR) AS s,
        (TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds((hash(r, ${i}, ${seed}, 3) % 86400000000)::BIGINT)) AS ts
      FROM range(${rows}) t(r)) TO '${f}' (FORMAT parquet, COMPRESSION snappy)`);
  }
}

const COLS = ['id', 'u1', 'u2', 's', 'ts'];
const stat = (c, f) => c === 'ts' ? `strftime(${f}(ts) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')` : `${f}(${c})`;

async function stats(conn, file) {
  const sql = `SELECT count(*)::BIGINT AS n, ` +
    COLS.map(c => `${stat(c, 'min')} AS "min_${c}", ${stat(c, 'max')} AS "max_${c}", count(*) - count(${c}) AS "nulls_${c}"`).join(', ') +
    ` FROM read_parquet('${file}')`;
  const row = (await (await conn.run(sql)).getRowObjectsJson())[0];
  const pick = p => Object.fromEntries(COLS.map(c => [c, c === 'id' || c === 'u2' || p === 'nulls_' ? Number(row[p + c]) : row[p + c]]));
  return { path: file, size: fs.statSync(file).size, numRecords: Number(row.n),
           minValues: pick('min_'), maxValues: pick('max_'), nullCount: pick('nulls_') };
}

async function main() {
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  if (process.argv[2] === 'stats') {
    for (const f of process.argv.slice(3)) console.log(JSON.stringify(await stats(conn, f)));
    return;
  }
  if (process.argv[2] === 'batch') {
    for (const line of fs.readFileSync(process.argv[3], 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const [dir, n, rows, seed] = line.trim().split(/\s+/);
      await table(conn, dir, +n, +rows, +seed);
    }
    return;
  }
  const [, dir, n, rows, seed] = process.argv.slice(2);
  await table(conn, dir, +n, +rows, +seed);
}
main().catch(e => { console.error(e.message); process.exit(2); });
