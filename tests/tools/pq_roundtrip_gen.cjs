#!/usr/bin/env node
// Randomized Parquet files from three independent writers, for the round-trip
// test (tests/scripts/parquet_roundtrip.sh).
//   NODE_PATH=... node pq_roundtrip_gen.cjs OUTDIR [SEED]
// Writes OUTDIR/orig/*.parquet and OUTDIR/cases.tsv: one line per file,
// "NAME<TAB>pq_rewrite options" (the options loom's rewrite of it uses).
//
// The data come from DuckDB SQL over hash(row, seed, column): a fixed seed
// gives the same values every run. Every file varies row count, row-group
// size, null rate and cardinality (low cardinality gives dictionary pages,
// high cardinality plain pages or a dictionary fallback).
//   DuckDB   COPY ... TO (every codec DuckDB offers, PARQUET_VERSION V1 and
//            V2: V2 means data page v2 + DELTA_* / BYTE_STREAM_SPLIT).
//   Polars   reads a DuckDB-written scratch file (the columns it can hold)
//            and writes it with its own writer, every codec it offers but
//            LZO (Polars refuses to write LZO and loom does not read it).
//            Adds UTC timestamps in ms and ns and a ns TIME, which DuckDB
//            cannot write.
//   arrow-rs (parquet-wasm) reads the scratch file and writes it with
//            writer version 1 and 2 (v2: data page v2, DELTA_* encodings
//            without dictionary), dictionary on and off; it is the only
//            writer of Hadoop-framed LZ4 (codec LZ4) here (DuckDB's and
//            Polars' "lz4" is LZ4_RAW).
// Scratch files are written without dictionary: DuckDB's dictionary encoder
// merges -0.0 and 0.0.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');
const pl = require('nodejs-polars');
const pw = require('parquet-wasm');

const outDir = process.argv[2];
const SEED = Number(process.argv[3] || 20261202);
// LOOM_PQRT_SCALE=N multiplies the row counts (a longer stress run by hand)
const SCALE = Number(process.env.LOOM_PQRT_SCALE || 1);
if (!outDir) { console.error('usage: pq_roundtrip_gen.cjs OUTDIR [SEED]'); process.exit(2); }
const origDir = path.join(outDir, 'orig');
fs.mkdirSync(origDir, { recursive: true });

// One SELECT over range(n) AS t(i). h(k) is a 64-bit hash of (row, seed, k);
// nul(k, e) makes e NULL on about NULLPCT % of rows.
function columns(C) {
  const h = (k) => `hash(i, ${'$seed'}, ${k})`;
  const hj = (k) => `hash(i, ${'$seed'}, ${k}, j)`;
  const nul = (k, e) => `CASE WHEN ${h(k + 1000)} % 100 < $nullpct THEN NULL ELSE (${e}) END`;
  const nulj = (k, e) => `CASE WHEN ${hj(k + 1000)} % 100 < $nullpct THEN NULL ELSE (${e}) END`;
  const md5 = (k) => `md5(${h(k)}::VARCHAR)`;
  const str = (k) => `CASE ${h(k)} % 10 WHEN 0 THEN '' WHEN 1 THEN 'é' || (${h(k + 1)} % ${C}) ` +
    `WHEN 2 THEN 'zz' || (${h(k + 1)} % ${C}) WHEN 3 THEN 'Z€' ELSE 's' || (${h(k + 1)} % ${C}) END`;
  const flt = (k, ty) => `(CASE ${h(k)} % 16 WHEN 0 THEN 'nan'::${ty} WHEN 1 THEN '-0.0'::${ty} ` +
    `WHEN 2 THEN 'inf'::${ty} WHEN 3 THEN '-inf'::${ty} WHEN 4 THEN 0.0::${ty} ` +
    `ELSE ((${h(k + 1)} % ${C})::DOUBLE - ${C / 2}) / 7 END)::${ty}`;
  return [
    ['id', 'i::BIGINT'],
    ['i8', nul(1, `((${h(1)} % 256)::INTEGER - 128)::TINYINT`)],
    ['i16', nul(2, `((${h(2)} % 65536)::INTEGER - 32768)::SMALLINT`)],
    ['i32', nul(3, `((${h(3)} % 4294967296)::BIGINT - 2147483648)::INTEGER`)],
    ['i64', nul(4, `(${h(4)}::HUGEINT - 9223372036854775808)::BIGINT`)],
    ['u8', nul(5, `(${h(5)} % 256)::UTINYINT`)],
    ['u16', nul(6, `(${h(6)} % 65536)::USMALLINT`)],
    ['u32', nul(7, `(${h(7)} % 4294967296)::UINTEGER`)],
    ['u64', nul(8, `${h(8)}::UBIGINT`)],
    ['i32_lc', nul(9, `(${h(9)} % ${C})::INTEGER - ${Math.floor(C / 2)}`)],
    ['u64_lc', nul(10, `(${h(10)} % ${C})::UBIGINT * ${((1n << 64n) - 1n) / BigInt(C)}::UBIGINT`)],
    ['f32', nul(11, flt(11, 'FLOAT'))],
    ['f64', nul(13, flt(13, 'DOUBLE'))],
    // bounds that are zeros: the writer must store a zero min as -0.0 and
    // a zero max as +0.0, whichever zeros the chunk holds
    ['f64_zmin', nul(15, `(CASE ${h(15)} % 5 WHEN 0 THEN '-0.0'::DOUBLE WHEN 1 THEN 0.0 WHEN 2 THEN 'nan'::DOUBLE ELSE (${h(16)} % ${C})::DOUBLE / 3 END)`)],
    ['f64_zmax', nul(67, `(CASE ${h(67)} % 5 WHEN 0 THEN '-0.0'::DOUBLE WHEN 1 THEN 0.0 WHEN 2 THEN 'nan'::DOUBLE ELSE -(${h(68)} % ${C})::DOUBLE / 3 END)`)],
    ['f32_zmin', nul(69, `(CASE ${h(69)} % 4 WHEN 0 THEN '-0.0'::FLOAT WHEN 1 THEN 0.0::FLOAT ELSE (${h(70)} % ${C})::FLOAT / 3 END)`)],
    ['f32_zmax', nul(17, `(CASE ${h(17)} % 4 WHEN 0 THEN '-0.0'::FLOAT WHEN 1 THEN 0.0::FLOAT ELSE -((${h(18)} % ${C})::FLOAT) / 3 END)`)],
    ['f64_nan', `CASE WHEN ${h(19)} % 3 = 0 THEN NULL ELSE 'nan'::DOUBLE END`],
    ['dec4', nul(20, `(((${h(20)} % 19999)::INTEGER - 9999) * 0.01)::DECIMAL(4,2)`)],
    ['dec9', nul(21, `(((${h(21)} % 1999999999)::BIGINT - 999999999) * 0.001)::DECIMAL(9,3)`)],
    ['dec18', nul(22, `(((${h(22)} % 1999999999999999999)::HUGEINT - 999999999999999999) * 0.0001)::DECIMAL(18,4)`)],
    ['dec38', nul(23, `(((${h(23)} % 100000000000000000)::HUGEINT * 100000000000000000000 + ${h(24)} % 100000000000000000000 - 5000000000000000000000000000000000000)::DECIMAL(38,0) * 0.0000000001::DECIMAL(11,10))::DECIMAL(38,10)`)],
    ['str', nul(25, str(25))],
    ['str_long', nul(71, `repeat('ab', (${h(71)} % 150)::INTEGER) || (${h(72)} % ${C})`)],
    ['str_hc', nul(27, `substr(${md5(27)}, 1, (${h(28)} % 33)::INTEGER)`)],
    ['bin', nul(29, `from_hex(substr(md5((${h(29)} % ${C})::VARCHAR), 1, 2 * (${h(30)} % 17)::INTEGER))`)],
    ['dt', nul(31, `DATE '1970-01-01' + ((${h(31)} % ${Math.min(C, 200000) * 2})::INTEGER - ${Math.min(C, 200000)})`)],
    ['ts', nul(32, `make_timestamp((${h(32)} % 1125899906842624)::BIGINT - 562949953421312)`)],
    ['ts_ms', nul(33, `epoch_ms((${h(33)} % 1125899906842624)::BIGINT - 562949953421312)::TIMESTAMP_MS`)],
    ['ts_ns', nul(34, `make_timestamp_ns((${h(34)} % 4611686018427387904)::BIGINT - 2305843009213693952)`)],
    ['ts_tz', nul(35, `make_timestamp((${h(35)} % 1125899906842624)::BIGINT - 562949953421312)::TIMESTAMPTZ`)],
    ['tm', nul(36, `TIME '00:00:00' + to_microseconds((${h(36)} % 86400000000)::BIGINT)`)],
    ['b', nul(37, `${h(37)} % 3 = 0`)],
    ['uid', nul(38, `(substr(${md5(38)}, 1, 8) || '-' || substr(${md5(38)}, 9, 4) || '-' || substr(${md5(38)}, 13, 4) || '-' || substr(${md5(38)}, 17, 4) || '-' || substr(${md5(38)}, 21, 12))::UUID`)],
    ['iv', nul(39, `to_months((${h(39)} % 100)::INTEGER) + to_days((${h(40)} % 40)::INTEGER) + to_microseconds((${h(41)} % 86400000000)::BIGINT)`)],
    ['l_i32', nul(42, `CASE WHEN ${h(42)} % 8 = 0 THEN []::INTEGER[] ELSE list_transform(range((${h(43)} % 5)::BIGINT), lambda j: ${nulj(44, `(${hj(44)} % ${C})::INTEGER`)}) END`)],
    ['l_str', nul(45, `list_transform(range((${h(45)} % 4)::BIGINT), lambda j: ${nulj(46, `'v' || (${hj(46)} % ${C})`)})`)],
    ['s', nul(47, `{'a': ${nul(48, `(${h(48)} % ${C})::INTEGER`)}, 'b': ${nul(49, str(49))}, 'c': ${nul(51, flt(51, 'DOUBLE'))}}`)],
    ['m', nul(53, `map_from_entries(list_transform(range((${h(53)} % 4)::BIGINT), lambda j: {'k': 'k' || j || '_' || (${hj(54)} % ${C}), 'v': ${nulj(55, `(${hj(55)} % 1000)::BIGINT - 500`)}}))`)],
    ['ls', nul(56, `list_transform(range((${h(56)} % 4)::BIGINT), lambda j: CASE WHEN ${hj(57)} % 9 = 0 THEN NULL ELSE {'x': ${nulj(58, `(${hj(58)} % ${C})::INTEGER`)}, 'y': ${nulj(59, `'y' || (${hj(59)} % ${C})`)}} END)`)],
    ['ll', nul(60, `list_transform(range((${h(60)} % 3)::BIGINT), lambda j: CASE WHEN ${hj(61)} % 7 = 0 THEN NULL ELSE list_transform(range((${hj(62)} % 3)::BIGINT), lambda q: (hash(i, j, q, $seed) % ${C})::BIGINT) END)`)],
    ['sl', nul(63, `{'tags': ${nul(64, `list_transform(range((${h(64)} % 3)::BIGINT), lambda j: 't' || (${hj(65)} % ${C}))`)}, 'n': ${nul(66, `(${h(66)} % 100)::SMALLINT`)}}`)],
    ['allnull', 'NULL::INTEGER'],
  ];
}

// Columns Polars cannot hold, with the reason; they are left out of the
// Polars-written files (the DuckDB- and arrow-rs-written files keep them).
const POLARS_DROP = {
  iv: 'Polars has no INTERVAL type (FIXED_LEN_BYTE_ARRAY(12) INTERVAL)',
};
// Columns parquet-wasm (arrow-rs) cannot read from DuckDB's file.
const PWASM_DROP = {};

const CODECS = {
  duckdb: ['uncompressed', 'snappy', 'gzip', 'zstd', 'brotli', 'lz4', 'lz4_raw'],
  polars: ['uncompressed', 'snappy', 'gzip', 'zstd', 'brotli', 'lz4'],
  pwasm: [['SNAPPY', 'V1', true], ['LZ4', 'V1', true], ['ZSTD', 'V2', true], ['GZIP', 'V1', false], ['LZ4_RAW', 'V2', false], ['BROTLI', 'V1', true]],
};
const LOOM_CODECS = ['snappy', 'zstd', 'gzip', 'lz4_raw', 'uncompressed', 'brotli'];
const CARDS = [6, 200, 1000000];
const NULLPCTS = [3, 20, 60];

async function main() {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  await con.run(`SET TimeZone = 'UTC'`);
  const cases = [];
  let fileNo = 0;
  const shape = (f) => ({
    seed: SEED + f * 7919,
    rows: SCALE * (1000 + ((SEED + f * 2654435761) % 2500)),
    card: CARDS[f % CARDS.length],
    nullpct: NULLPCTS[Math.floor(f / CARDS.length) % NULLPCTS.length],
  });
  const loomOpts = (f) => {
    const o = ['--codec', LOOM_CODECS[f % LOOM_CODECS.length]];
    if (f % 4 === 1) o.push('--row-group-bytes', '20000');   // several row groups
    if (f % 3 === 2) o.push('--page-bytes', '4000');          // several pages
    if (f % 5 === 3) o.push('--dict-limit', '600');           // dictionary -> PLAIN fallback
    if (f % 7 === 4) o.push('--no-dict');
    if (f % 4 === 3) o.push('--v2');
    if (f % 3 === 0) o.push('--page-index');
    return o.join(' ');
  };
  const select = (s, cols) => `SELECT ${cols.map(([n, e]) => `${e} AS "${n}"`).join(', ')} FROM range(${s.rows}) t(i)`;
  const bind = (sql, s) => sql.replaceAll('$seed', String(s.seed)).replaceAll('$nullpct', String(s.nullpct));
  const lit = (p) => `'${p.replace(/'/g, "''")}'`;

  // DuckDB
  for (const codec of CODECS.duckdb) {
    for (const ver of ['V1', 'V2']) {
      const f = fileNo++;
      const s = shape(f);
      const name = `duckdb_${codec}_${ver}.parquet`;
      const rg = [1024, 2048, 100000][f % 3];
      await con.run(`COPY (${bind(select(s, columns(s.card)), s)}) TO ${lit(path.join(origDir, name))} ` +
        `(FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION ${ver}, ROW_GROUP_SIZE ${rg})`);
      cases.push([name, loomOpts(f)]);
    }
  }
  // Edge cases: a file without rows (no row group) and a one-row file.
  for (const [name, rows] of [['duckdb_zstd_empty.parquet', 0], ['duckdb_snappy_one_row.parquet', 1]]) {
    const f = fileNo++;
    const s = { ...shape(f), rows };
    await con.run(`COPY (${bind(select(s, columns(s.card)), s)}) TO ${lit(path.join(origDir, name))} (FORMAT parquet)`);
    cases.push([name, loomOpts(f)]);
  }
  // Polars and arrow-rs rewrite a DuckDB-written scratch file.
  const scratch = (s, drop) => {
    const p = path.join(outDir, `scratch_${s.seed}.parquet`);
    // no dictionary: DuckDB's dictionary merges -0.0 and 0.0
    return con.run(`COPY (${bind(select(s, columns(s.card).filter(([n]) => !(n in drop))), s)}) TO ${lit(p)} ` +
      `(FORMAT parquet, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 0)`).then(() => p);
  };
  for (const codec of CODECS.polars) {
    const f = fileNo++;
    const s = shape(f);
    const src = await scratch(s, POLARS_DROP);
    const name = `polars_${codec}.parquet`;
    let df = pl.readParquet(src);
    df = df.withColumns(
      pl.col('ts_ms').cast(pl.Datetime('ms', 'UTC')).alias('ts_ms_utc'),
      pl.col('ts_ns').cast(pl.Datetime('ns', 'UTC')).alias('ts_ns_utc'),
      pl.col('tm').cast(pl.Time).alias('tm_ns'));
    df.lazy().sinkParquet(path.join(origDir, name), {
      compression: codec, rowGroupSize: [700, 1500, 4000][f % 3], dataPagesizeLimit: [2048, 65536, 1 << 20][f % 3],
      statistics: 'full', maintainOrder: true,
    }).collectSync();
    fs.rmSync(src);
    cases.push([name, loomOpts(f)]);
  }
  for (const [codec, ver, dict] of CODECS.pwasm) {
    const f = fileNo++;
    const s = shape(f);
    const src = await scratch(s, PWASM_DROP);
    const name = `arrowrs_${codec.toLowerCase()}_${ver}${dict ? '' : '_nodict'}.parquet`;
    const table = pw.readParquet(fs.readFileSync(src));
    const props = new pw.WriterPropertiesBuilder()
      .setCompression(pw.Compression[codec])
      .setWriterVersion(pw.WriterVersion[ver])
      .setDictionaryEnabled(dict)
      .setMaxRowGroupSize([800, 2000][f % 2])
      .setDataPageSizeLimit([4096, 1 << 20][f % 2])
      .setDictionaryPageSizeLimit([2048, 1 << 20][f % 2])   // small: dictionary falls back to PLAIN midway
      .build();
    fs.writeFileSync(path.join(origDir, name), pw.writeParquet(table, props));
    fs.rmSync(src);
    cases.push([name, loomOpts(f)]);
  }
  fs.writeFileSync(path.join(outDir, 'cases.tsv'), cases.map((c) => c.join('\t')).join('\n') + '\n');
  for (const [n, why] of Object.entries(POLARS_DROP)) console.log(`NOTE Polars-written files lack column ${n}: ${why}`);
  for (const [n, why] of Object.entries(PWASM_DROP)) console.log(`NOTE arrow-rs-written files lack column ${n}: ${why}`);
  console.log(`generated ${cases.length} files (seed ${SEED})`);
}
main().catch((e) => { console.error(e); process.exit(1); });
