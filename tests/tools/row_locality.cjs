#!/usr/bin/env node
// row_locality.cjs COLS FILE...: how far apart consecutive rows of the
// given Parquet files lie in the space of the columns COLS ("a,b"), read by
// DuckDB: every value is replaced by its percent rank over all the files,
// and the step between two consecutive rows of one file is the largest
// rank difference over the columns. Prints {"pairs": N, "mean_step": X}.
// Rows in random order step about 1/3; rows along a space-filling curve
// over the columns step little -- so a test can see that a Z-order
// clustered a file even when it wrote only one, without trusting loom.
const { DuckDBInstance } = require('@duckdb/node-api');

const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const ident = (s) => `"${String(s).replaceAll('"', '""')}"`;

async function main() {
  const [colArg, ...files] = process.argv.slice(2);
  if (!colArg || files.length === 0) throw new Error('usage: row_locality.cjs COLS FILE...');
  const cols = colArg.split(',');
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const ranks = cols.map((c, i) => `percent_rank() OVER (ORDER BY ${ident(c)}) AS p${i}`).join(', ');
  const diffs = cols.map((_, i) => `abs(p${i} - lag(p${i}) OVER w) AS d${i}`).join(', ');
  const sql = `
    WITH r AS (SELECT filename, file_row_number AS rn, ${ranks}
               FROM read_parquet([${files.map(lit).join(', ')}], filename = true,
                                 file_row_number = true, hive_partitioning = false)),
         s AS (SELECT ${diffs} FROM r WINDOW w AS (PARTITION BY filename ORDER BY rn))
    SELECT count(*) AS pairs, avg(greatest(${cols.map((_, i) => `d${i}`).join(', ')})) AS mean_step
    FROM s WHERE d0 IS NOT NULL`;
  const [row] = (await conn.runAndReadAll(sql)).getRowObjects();
  process.stdout.write(JSON.stringify({ pairs: Number(row.pairs), mean_step: Number(row.mean_step) }) + '\n');
}
main().catch((e) => { console.error(e.message || e); process.exit(2); });
