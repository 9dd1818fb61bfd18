#!/usr/bin/env node
// gen_appends.cjs DIR NCOMMITS SEED: an append-heavy Delta table as many
// writers leave it. DIR must be a table loom converted from
// DIR/p=<0..3>/seed.parquet (written here first when DIR has no log:
// run once with NCOMMITS = 0, convert, then run again). Each later commit
// is one blind append of a file written by DuckDB into a random partition,
// named part-00000-<uuid>-c000.snappy.parquet like any engine's output:
// mostly small (a few KiB to ~40 KiB), one in four large (~150 KiB). The
// add carries partitionValues, size, modificationTime and numRecords.
const { DuckDBInstance } = require('@duckdb/node-api');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const rowsSql = (n, seed) => `SELECT (${seed} * 100000 + r)::BIGINT AS id,
    md5((r * 31 + ${seed})::VARCHAR) AS s,
    CASE WHEN hash(r, ${seed}) % 10 = 0 THEN NULL ELSE (hash(r, ${seed}, 2) % 100000) / 100.0 END::DOUBLE AS v
  FROM range(${n}) t(r)`;

async function main() {
  const [dir, ncommits, seed0] = [process.argv[2], +process.argv[3], +process.argv[4]];
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const log = path.join(dir, '_delta_log');
  if (!fs.existsSync(log)) {
    for (let p = 0; p < 4; p++) {
      fs.mkdirSync(path.join(dir, `p=${p}`), { recursive: true });
      await conn.run(`COPY (${rowsSql(100, p)}) TO '${path.join(dir, `p=${p}`, 'seed.parquet')}' (FORMAT parquet, COMPRESSION snappy)`);
    }
    return;
  }
  let version = Math.max(...fs.readdirSync(log).filter(f => /^\d{20}\.json$/.test(f)).map(f => +f.slice(0, 20)));
  let rnd = seed0 >>> 0;
  const next = () => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0) / 4294967296;
  const t0 = Date.now();
  for (let i = 0; i < ncommits; i++) {
    const p = Math.floor(next() * 4);
    const rows = next() < 0.25 ? 4000 : 50 + Math.floor(next() * 800);
    const name = `part-00000-${crypto.randomUUID()}-c000.snappy.parquet`;
    const rel = `p=${p}/${name}`;
    await conn.run(`COPY (${rowsSql(rows, seed0 + i + 1)}) TO '${path.join(dir, rel)}' (FORMAT parquet, COMPRESSION snappy)`);
    const size = fs.statSync(path.join(dir, rel)).size;
    const add = { path: rel, partitionValues: { p: String(p) }, size, modificationTime: t0 + i,
                  dataChange: true, stats: JSON.stringify({ numRecords: rows }) };
    const ci = { timestamp: t0 + i, operation: 'WRITE', operationParameters: { mode: 'Append' }, isBlindAppend: true };
    version++;
    fs.writeFileSync(path.join(log, String(version).padStart(20, '0') + '.json'),
                     JSON.stringify({ commitInfo: ci }) + '\n' + JSON.stringify({ add }) + '\n', { flag: 'wx' });
  }
}
main().catch(e => { console.error(e.message); process.exit(2); });
