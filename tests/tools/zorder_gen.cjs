#!/usr/bin/env node
// zorder_gen.cjs DIR NFILES ROWS [NPART] [ROWGROUP]: Parquet files written by
// DuckDB (the independent writer) for the Z-order tests, rows in random
// order, NFILES files spread over NPART Hive partitions p=0..NPART-1 (no
// partition directories when NPART is 0). Columns:
//   id BIGINT; u1 DOUBLE, u2 BIGINT uniform; zipf BIGINT (power law, most
//   values tiny, a long tail); logn DOUBLE (log-normal); s VARCHAR (customer
//   codes, uneven frequencies); ts TIMESTAMPTZ (a year, clustered in bursts);
//   pay VARCHAR (payload); ~2% NULLs in u1 and s.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

async function main() {
  const [dir, nFiles, rows] = [process.argv[2], +process.argv[3], +process.argv[4]];
  const nPart = process.argv[5] !== undefined ? +process.argv[5] : 0;
  const rg = process.argv[6] !== undefined ? +process.argv[6] : 100000;
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run(`SET threads=1`);
  for (let i = 0; i < nFiles; i++) {
    const sub = nPart > 0 ? path.join(dir, `p=${i % nPart}`) : dir;
    fs.mkdirSync(sub, { recursive: true });
    const f = path.join(sub, `part-${String(i).padStart(5, '0')}.parquet`);
    const u = (k) => `((hash(r, ${i}, ${k}) % 1000000007)::DOUBLE / 1000000007.0 + 1e-9)`;
    await conn.run(`COPY (SELECT (${i * rows} + r)::BIGINT AS id,
        CASE WHEN hash(r, ${i}, 11) % 50 = 0 THEN NULL ELSE ${u(1)} * 1000.0 END AS u1,
        (${u(2)} * 1e9)::BIGINT AS u2,
        floor(1.0 / pow(${u(3)}, 1.3))::BIGINT AS zipf,
        exp(2.0 * sqrt(-2.0 * ln(${u(4)})) * cos(2 * pi() * ${u(5)})) AS logn,
        CASE WHEN hash(r, ${i}, 12) % 50 = 0 THEN NULL
             ELSE 'cust-' || lpad((floor(pow(${u(6)}, 3) * 100000))::BIGINT::VARCHAR, 6, '0') END AS s,
        TIMESTAMPTZ '2024-01-01 00:00:00+00'
          + to_microseconds(((floor(${u(7)} * 40) * 8 * 86400 + ${u(8)} * 2 * 86400) * 1e6)::BIGINT) AS ts,
        md5((${i * rows} + r)::VARCHAR) AS pay
      FROM range(${rows}) t(r)) TO '${f}' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${rg})`);
  }
}
main().catch(e => { console.error(e.message); process.exit(2); });
