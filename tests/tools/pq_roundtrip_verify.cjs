#!/usr/bin/env node
// Judge loom's rewrite of independently written Parquet files (the round-trip
// test, tests/scripts/parquet_roundtrip.sh).
//   NODE_PATH=... node pq_roundtrip_verify.cjs DIR
// DIR/cases.tsv names the files; DIR/orig/NAME was written by DuckDB, Polars
// or arrow-rs (pq_roundtrip_gen.cjs), DIR/loom/NAME is loom's read + write of
// it. Per file:
//  1. DuckDB: loom's file has the same column types and the same rows, in
//     order, value by value (exact: NaN, -0.0, +-inf, nested values, the
//     DuckDB value class of every value);
//  2. statistics: for every column chunk of loom's file, min / max /
//     null_count from DuckDB's parquet_metadata() equal what DuckDB
//     computes over the chunk's rows (min()/max() in the logical type's
//     order: unsigned ints unsigned, strings and binary by bytes, decimals by
//     value; NaN left out of float min/max; a zero min stored as -0.0 and a
//     zero max as +0.0; no min/max for INTERVAL, which has no order);
//  3. Polars and 4. parquet-wasm (arrow-rs): each reads the original and
//     loom's file; what it read must be equal. Both readings are written
//     back by that engine's own writer (uncompressed) and compared by DuckDB
//     as in 1, so values are compared exactly whatever the engine's types.
// Prints one line per file and a summary; exits 1 on any failure.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance, DuckDBTypeId: T } = require('@duckdb/node-api');
const pl = require('nodejs-polars');
const pw = require('parquet-wasm');
const { tdecode } = require('./thrift_compact.cjs');

// What an engine cannot read, with the reason; everything else is read.
//  columns: left out of that engine's reading of both files (projection).
//  files:   the engine cannot read the original at all; its reading of
//           loom's file is compared with its reading of a substitute that
//           holds the same values (checked by DuckDB): `duckdb-v1` DuckDB's
//           PARQUET_VERSION V1 copy of the original, `pwasm` arrow-rs's
//           uncompressed copy of it.
// Each entry is re-checked: when the engine does read the thing, the test
// fails so that this table is kept true.
const CANNOT = {
  duckdb: {
    columns: {},
    files: [[/^arrowrs_lz4_V1/, 'pwasm', 'DuckDB 1.5.6 does not read Hadoop-framed LZ4 (codec LZ4, only LZ4_RAW)']],
  },
  polars: {
    columns: { iv: 'Polars 0.54 has no INTERVAL type: reading FIXED_LEN_BYTE_ARRAY(12) INTERVAL panics ("could not import from month_day_millisecond_interval")' },
    files: [[/^arrowrs_.*_V2/, 'pwasm', 'Polars 0.54 does not decode DELTA_BYTE_ARRAY pages of FIXED_LEN_BYTE_ARRAY columns, which arrow-rs writes for uid with writer version 2 when it has no dictionary or its dictionary falls back']],
  },
  pwasm: {
    columns: {},
    // parquet-wasm 0.8 ignores its `columns` option, so a file it cannot
    // read cannot be projected either.
    files: [[/^duckdb_.*_V2/, 'duckdb-v1', "arrow-rs rejects DuckDB's DELTA_BINARY_PACKED INT32 pages (columns i32, u32) whose min_delta lies outside the int32 range ('min_delta' too large)"]],
  },
};

let failures = 0;
let fileFailures = 0;
function fail(msg) { failures++; if (++fileFailures <= 12) console.error('FAIL ' + msg); }
const q = (name) => `"${name.replace(/"/g, '""')}"`;
const lit = (s) => `'${String(s).replace(/'/g, "''")}'`;

async function describe(con, file) {
  const r = await con.runAndReadAll(`SELECT * FROM read_parquet(${lit(file)}) LIMIT 0`);
  return { names: r.columnNames(), ctypes: r.columnTypes(), types: r.columnTypes().map(String) };
}

// DuckDB compares two files row by row, in file order (POSITIONAL JOIN after
// equal row counts). Columns holding FLOAT, DOUBLE or INTERVAL anywhere are
// compared as their VARCHAR rendering, which is exact for equal types
// (shortest round-trip digits; -0.0, nan, inf distinct; intervals not
// normalised) where DuckDB's equality is not (-0.0 = 0.0, '1 month' =
// '30 days'); all other columns with IS DISTINCT FROM, which is exact for
// them (strings and blobs by bytes, nested values element by element).
// sanityChecks proves both comparisons see what a broken round trip changes.
function inexact(t) {
  return t.typeId === T.FLOAT || t.typeId === T.DOUBLE || t.typeId === T.INTERVAL ||
    (t.valueType !== undefined && inexact(t.valueType)) || (t.keyType !== undefined && inexact(t.keyType)) ||
    (t.entryTypes !== undefined && t.entryTypes.some(inexact));
}
const differs = (t, a, b) => (inexact(t) ? `${a}::VARCHAR IS DISTINCT FROM ${b}::VARCHAR` : `${a} IS DISTINCT FROM ${b}`);

async function compareFiles(con, tag, ref, got) {
  const before = failures;
  const a = await describe(con, ref), b = await describe(con, got);
  if (a.names.join('\u0001') !== b.names.join('\u0001')) {
    fail(`${tag}: columns ${b.names.join(',')}, expected ${a.names.join(',')}`);
    return false;
  }
  for (let c = 0; c < a.names.length; c++)
    if (a.types[c] !== b.types[c]) fail(`${tag}: column ${a.names[c]} has type ${b.types[c]}, expected ${a.types[c]}`);
  if (failures !== before) return false;
  const counts = (await con.runAndReadAll(`SELECT (SELECT count(*) FROM read_parquet(${lit(ref)})),
      (SELECT count(*) FROM read_parquet(${lit(got)}))`)).getRows()[0];
  if (counts[0] !== counts[1]) { fail(`${tag}: ${counts[1]} rows, expected ${counts[0]}`); return false; }
  if (!a.names.length) return true;
  const cond = a.names.map((n, i) => differs(a.ctypes[i], `ref.${q(`c${i}`)}`, `got.${q(`c${i}`)}`));
  const show = a.names.map((n, i) => `CASE WHEN ${cond[i]} THEN ${lit(n)} || ': ' || coalesce(got.${q(`c${i}`)}::VARCHAR, 'NULL') ||
      ', expected ' || coalesce(ref.${q(`c${i}`)}::VARCHAR, 'NULL') END`);
  const cols = a.names.map((n, i) => `${q(n)} AS ${q(`c${i}`)}`).join(', ');
  const r = await con.runAndReadAll(`SELECT ref.rn, concat_ws('; ', ${show.join(', ')}) AS what
    FROM (SELECT file_row_number AS rn, ${cols} FROM read_parquet(${lit(ref)}, file_row_number = true)) ref
    POSITIONAL JOIN (SELECT file_row_number AS rn, ${cols} FROM read_parquet(${lit(got)}, file_row_number = true)) got
    WHERE ref.rn IS DISTINCT FROM got.rn OR ${cond.join(' OR ')} LIMIT 4`);
  for (const row of r.getRowObjects()) fail(`${tag}: row ${row.rn}: ${row.what.slice(0, 400)}`);
  return failures === before;
}

// The comparison above must be able to fail: renderings that differ in
// exactly what a broken round trip would change.
async function sanityChecks(con) {
  const pairs = [
    [`'-0.0'::DOUBLE`, `0.0::DOUBLE`], [`'nan'::DOUBLE`, `NULL::DOUBLE`], [`'inf'::FLOAT`, `'-inf'::FLOAT`],
    [`0.1::DOUBLE`, `nextafter(0.1::DOUBLE, 1::DOUBLE)`], [`1.1::FLOAT`, `nextafter(1.1::FLOAT, 2::FLOAT)`],
    [`['a, b']`, `['a', 'b']`], [`[NULL]::VARCHAR[]`, `['NULL']`], [`{'x': [1, NULL]}`, `{'x': [1]}`],
    [`'\\x00'::BLOB`, `''::BLOB`], [`[-0.0::DOUBLE]`, `[0.0::DOUBLE]`], [`{'c': -0.0::DOUBLE}`, `{'c': 0.0::DOUBLE}`],
    [`map(['k'], [NULL::INTEGER])`, `map(['k'], [0])`], [`[]::INTEGER[]`, `NULL::INTEGER[]`],
    [`make_timestamp_ns(1)`, `make_timestamp_ns(2)`], [`'1.0000000001'::DECIMAL(38,10)`, `'1.0000000002'::DECIMAL(38,10)`],
  ];
  // values that compareFiles must tell apart (either way it compares them)
  const exact = [
    [`'a'`, `'a '`], [`'\\x00'::BLOB`, `'\\x00\\x00'::BLOB`], [`[1, NULL]`, `[1]`], [`[NULL::INTEGER]`, `[]::INTEGER[]`],
    [`{'x': NULL::INTEGER}`, `NULL::STRUCT(x INTEGER)`], [`map(['k'], [NULL::INTEGER])`, `map(['k'], [0])`],
    [`'1.0000000001'::DECIMAL(38,10)`, `'1.0000000002'::DECIMAL(38,10)`], [`make_timestamp_ns(1)`, `make_timestamp_ns(2)`],
    [`'1 month'::INTERVAL`, `'30 days'::INTERVAL`], [`18446744073709551615::UBIGINT`, `18446744073709551614::UBIGINT`],
  ];
  const probe = async (x, y) => {
    const t = (await con.runAndReadAll(`SELECT ${x} AS v LIMIT 0`)).columnTypes()[0];
    return (await con.runAndReadAll(`SELECT ${differs(t, `(${x})`, `(${y})`)}`)).getRows()[0][0];
  };
  for (const [x, y] of [...pairs, ...exact]) if (!(await probe(x, y))) fail(`sanity: the comparison takes ${x} and ${y} for equal`);
  if (await probe(`'-0.0'::DOUBLE`, `'-0.0'::DOUBLE`)) fail('sanity: the comparison finds -0.0 unequal to itself');
  if (await probe(`'nan'::FLOAT`, `'nan'::FLOAT`)) fail('sanity: the comparison finds NaN unequal to itself');
}

// ---- statistics --------------------------------------------------------------
const FLOATS = new Set([T.FLOAT, T.DOUBLE]);
const NESTED = new Set([T.LIST, T.STRUCT, T.MAP, T.ARRAY]);

// SQL giving the list of a leaf's level slots for one row: one entry per
// slot, NULL where the slot has no value (a null anywhere on the path, an
// empty list or map). `comps` is the rest of the leaf's path_in_schema.
function slotsSql(expr, type, comps, depth) {
  if (!NESTED.has(type.typeId)) {
    if (comps.length) throw new Error(`path continues (${comps.join('.')}) below a ${type}`);
    return { sql: `[${expr}]`, leaf: type };
  }
  const x = `x${depth}`;
  if (type.typeId === T.STRUCT) {
    const k = type.entryNames.indexOf(comps[0]);
    if (k < 0) throw new Error(`no field ${comps[0]} in ${type}`);
    return slotsSql(`(${expr}).${q(comps[0])}`, type.entryTypes[k], comps.slice(1), depth + 1);
  }
  let list, inner;
  if (type.typeId === T.MAP) {
    if (comps[1] !== 'key' && comps[1] !== 'value') throw new Error(`map leaf ${comps.join('.')}`);
    list = comps[1] === 'key' ? `map_keys(${expr})` : `map_values(${expr})`;
    inner = slotsSql(x, comps[1] === 'key' ? type.keyType : type.valueType, comps.slice(2), depth + 1);
  } else {
    list = expr;
    inner = slotsSql(x, type.valueType, comps.slice(2), depth + 1);
  }
  return {
    sql: `(CASE WHEN ${expr} IS NULL OR len(${list}) = 0 THEN [NULL] ` +
      `ELSE flatten(list_transform(${list}, lambda ${x}: ${inner.sql})) END)`,
    leaf: inner.leaf,
  };
}

// Float min/max straight from the footer (Statistics.min_value/max_value),
// for the chunks whose bounds DuckDB's parquet_metadata() leaves NULL: it
// does so for +-inf bounds. Returns {`${rg}#${path}`: [min, max]} as numbers.
function footerFloatBounds(file) {
  const buf = fs.readFileSync(file);
  const flen = buf.readUInt32LE(buf.length - 8);
  const fmd = tdecode(buf, buf.length - 8 - flen).o;
  const out = {};
  (fmd[4] || []).forEach((rg, g) => {
    for (const cc of rg[1]) {
      const md = cc[3], st = md[12] || {};
      if (md[1] !== 4 && md[1] !== 5) continue;
      const rd = (b) => (b === undefined ? null : md[1] === 4 ? b.readFloatLE(0) : b.readDoubleLE(0));
      out[`${g}#${md[3].map(String).join(', ')}`] = [rd(st[6]), rd(st[5])];
    }
  });
  return out;
}
const numOf = (s) => (s === 'inf' ? Infinity : s === '-inf' ? -Infinity : Number(s));

async function checkStats(con, tag, file) {
  const md = (await con.runAndReadAll(`SELECT row_group_id, row_group_num_rows, path_in_schema, stats_min_value,
      stats_max_value, stats_null_count FROM parquet_metadata(${lit(file)}) ORDER BY row_group_id, column_id`)).getRowObjects();
  const info = await describe(con, file);
  const rgRows = [];
  for (const m of md) rgRows[Number(m.row_group_id)] = Number(m.row_group_num_rows);
  let acc = 0;
  const rgOf = `CASE ${rgRows.map((n, g) => { acc += n; return `WHEN file_row_number < ${acc} THEN ${g}`; }).join(' ')} END`;
  const parts = [];
  const leafType = {};
  for (const leaf of [...new Set(md.map((m) => m.path_in_schema))]) {
    const comps = leaf.split(', ');
    const c = info.names.indexOf(comps[0]);
    let s;
    try {
      if (c < 0) throw new Error('no such column');
      s = slotsSql(q(comps[0]), info.ctypes[c], comps.slice(1), 0);
    } catch (e) { fail(`${tag}: leaf ${leaf}: ${e.message}`); continue; }
    leafType[leaf] = s.leaf;
    const filt = FLOATS.has(s.leaf.typeId) ? ' FILTER (WHERE NOT isnan(v))' : '';
    parts.push(`SELECT ${lit(leaf)} AS leaf, rg, (min(v)${filt})::VARCHAR AS mn, (max(v)${filt})::VARCHAR AS mx,
        count(*) - count(v) AS nulls FROM (SELECT unnest(${s.sql}) AS v, ${rgOf} AS rg
        FROM read_parquet(${lit(file)}, file_row_number = true)) GROUP BY rg`);
  }
  if (!parts.length) return 0;
  const want = {};
  for (const r of (await con.runAndReadAll(parts.join('\nUNION ALL\n'))).getRowObjects()) want[`${r.rg}#${r.leaf}`] = r;
  let footer = null, n = 0;
  for (const m of md) {
    const leaf = m.path_in_schema, key = `${Number(m.row_group_id)}#${leaf}`;
    const t = want[key];
    if (!t) { if (leafType[leaf]) fail(`${tag}: ${leaf} row group ${m.row_group_id}: no rows`); continue; }
    n++;
    const where = `${tag}: ${leaf} row group ${m.row_group_id}`;
    const lt = leafType[leaf];
    let mn = t.mn, mx = t.mx;
    if (lt.typeId === T.INTERVAL) mn = mx = null;   // no defined order: no min/max
    if (m.stats_null_count === null || Number(m.stats_null_count) !== Number(t.nulls))
      fail(`${where}: null_count ${m.stats_null_count}, DuckDB counts ${t.nulls}`);
    if (FLOATS.has(lt.typeId)) {
      let smin = m.stats_min_value, smax = m.stats_max_value;
      if (mn !== null && (smin === null || smax === null)) {   // DuckDB hides infinite bounds
        footer = footer || footerFloatBounds(file);
        const fb = footer[key] || [null, null];
        smin = fb[0] === null ? null : String(fb[0]);
        smax = fb[1] === null ? null : String(fb[1]);
        if (smin !== null) smin = Object.is(fb[0], -0) ? '-0' : smin;
      }
      // a zero min is stored as -0.0, a zero max as +0.0
      const wmin = mn === null ? null : numOf(mn) === 0 ? -0 : numOf(mn);
      const wmax = mx === null ? null : numOf(mx) === 0 ? 0 : numOf(mx);
      const got = (x) => (x === null ? null : x === '-0' ? -0 : numOf(x));
      const fr = lt.typeId === T.FLOAT ? Math.fround : (x) => x;
      const same = (w, g) => (w === null || g === null ? w === g : Object.is(fr(w), fr(g)));
      if (!same(wmin, got(smin))) fail(`${where}: min ${smin}, DuckDB computes ${mn} (a zero min must be -0.0)`);
      if (!same(wmax, got(smax))) fail(`${where}: max ${smax}, DuckDB computes ${mx} (a zero max must be +0.0)`);
      continue;
    }
    if (m.stats_min_value !== mn) fail(`${where}: min ${m.stats_min_value}, DuckDB computes ${mn}`);
    if (m.stats_max_value !== mx) fail(`${where}: max ${m.stats_max_value}, DuckDB computes ${mx}`);
  }
  return n;
}

// ---- Polars and parquet-wasm ---------------------------------------------------
// The engine reads `file` and writes what it read to `out` (uncompressed).
function engineCopy(engine, file, out, columns) {
  if (engine === 'polars') {
    pl.readParquet(file, columns ? { columns } : {}).writeParquet(out, { compression: 'uncompressed' });
    return;
  }
  const table = pw.readParquet(fs.readFileSync(file));
  const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.UNCOMPRESSED).build();
  fs.writeFileSync(out, pw.writeParquet(table, props));
}

// What an engine's reading of loom's file is compared with: its reading of
// the original, or of the substitute CANNOT names (with a note). For DuckDB
// a file it reads directly; for Polars and parquet-wasm the engine's copy
// (engineCopy) of that file. null when there is none (a failure is noted).
async function reference(con, engine, name, orig, tmp, notes) {
  const sub = CANNOT[engine].files.find(([re]) => re.test(name));
  const copy = path.join(tmp, `${engine}.ref.parquet`);
  const cols = engine === 'polars' ? await polarsColumns(con, orig).catch(() => null) : null;
  // DuckDB's reading of the original happens in compareFiles (whose errors
  // are failures); it is only probed where CANNOT says it fails.
  if (engine === 'duckdb' && !sub) return orig;
  let err = null;
  try {
    if (engine === 'duckdb') await con.runAndReadAll(`SELECT * FROM read_parquet(${lit(orig)})`);
    else engineCopy(engine, orig, copy, cols);
  } catch (e) { err = String(e.message).split('\n')[0]; }
  if (!sub) {
    if (err) fail(`${engine} ${name}: ${engine} cannot read the original (${err}); if that is the engine's limit, add it to CANNOT with the reason`);
    return err ? null : engine === 'duckdb' ? orig : copy;
  }
  if (!err) { fail(`${engine} ${name}: ${engine} now reads the original: drop its CANNOT entry`); return null; }
  const alt = path.join(tmp, `${engine}.subst.parquet`);
  if (sub[1] === 'duckdb-v1') {
    // no dictionary: DuckDB's dictionary merges -0.0 and 0.0
    await con.run(`COPY (SELECT * FROM read_parquet(${lit(orig)})) TO ${lit(alt)} (FORMAT parquet, PARQUET_VERSION V1, COMPRESSION uncompressed, DICTIONARY_SIZE_LIMIT 0)`);
    notes.push(`${engine} compared with DuckDB's V1 copy (${sub[2]})`);
  } else {
    engineCopy('pwasm', orig, alt);
    notes.push(`${engine} compared with arrow-rs's copy (${sub[2]})`);
  }
  if (engine === 'duckdb') return alt;
  // the substitute must hold the original's values
  if (!(await compareFiles(con, `${engine} ${name}: substitute`, orig, alt))) return null;
  try { engineCopy(engine, alt, copy, cols); } catch (e) { fail(`${engine} ${name}: ${engine} cannot read the substitute: ${String(e.message).split('\n')[0]}`); return null; }
  return copy;
}

async function polarsColumns(con, file) {
  return (await describe(con, file)).names.filter((n) => !(n in CANNOT.polars.columns));
}

// `refCopy`: the engine's copy of the reference (see reference()).
async function checkEngine(con, engine, name, refCopy, loom, tmp) {
  const tag = `${engine} ${name}`;
  const cols = engine === 'polars' ? await polarsColumns(con, loom) : null;
  const lo = path.join(tmp, `${engine}.loom.parquet`);
  try { engineCopy(engine, loom, lo, cols); } catch (e) { fail(`${tag}: ${engine} cannot read loom's file: ${String(e.message).split('\n')[0]}`); return; }
  await compareFiles(con, `${tag} (read by ${engine}, written back, compared by DuckDB)`, refCopy, lo);
}

// Each CANNOT column must still be unreadable by its engine (else the
// table is stale and the column should be compared).
async function checkCannotColumns(con, dir, names, tmp) {
  const f = path.join(dir, 'orig', names.find((n) => /^duckdb_/.test(n)));
  for (const c of Object.keys(CANNOT.polars.columns)) {
    let ok = true;
    try { pl.readParquet(f, { columns: [c] }); } catch (e) { ok = false; }
    if (ok) fail(`polars now reads column ${c}: drop its CANNOT entry`);
  }
}

// ---- coverage: the files must hold what the test claims to exercise -------
// Codecs and encodings from the footers, page kinds from the first page
// header of every column chunk, row groups per file.
function footerFacts(file, acc) {
  const buf = fs.readFileSync(file);
  const fmd = tdecode(buf, buf.length - 8 - buf.readUInt32LE(buf.length - 8)).o;
  const CODEC = ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZO', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW'];
  const ENC = { 0: 'PLAIN', 2: 'PLAIN_DICTIONARY', 3: 'RLE', 5: 'DELTA_BINARY_PACKED', 6: 'DELTA_LENGTH_BYTE_ARRAY', 7: 'DELTA_BYTE_ARRAY', 8: 'RLE_DICTIONARY', 9: 'BYTE_STREAM_SPLIT' };
  const PAGE = { 0: 'DATA_PAGE', 2: 'DICTIONARY_PAGE', 3: 'DATA_PAGE_V2' };
  if (fmd[4].length > 1) acc.add('several row groups');
  for (const rg of fmd[4]) {
    for (const cc of rg[1]) {
      const md = cc[3];
      acc.add(CODEC[md[4]]);
      for (const e of md[2]) if (ENC[e]) acc.add(ENC[e]);
      // walk the chunk's pages: their kinds, and whether data pages of one
      // chunk mix dictionary indexes with PLAIN values (a dictionary that
      // fell back to PLAIN midway)
      let pos = Number(md[11] !== undefined && md[11] > 0 && md[11] < md[9] ? md[11] : md[9]);
      const end = pos + Number(md[7]);
      const dataEnc = new Set();
      while (pos < end) {
        const ph = tdecode(buf, pos);
        const t = ph.o[1];
        acc.add(PAGE[t] || `page type ${t}`);
        if (t === 0) dataEnc.add(ph.o[5][2]);
        if (t === 3) dataEnc.add(ph.o[8][4]);
        pos = ph.end + ph.o[3];
      }
      if (dataEnc.has(0) && (dataEnc.has(2) || dataEnc.has(8))) acc.add('dictionary fallback within a chunk');
      if (pos !== end) throw new Error(`pages of ${md[3].join('.')} end at ${pos}, chunk at ${end}`);
    }
  }
}

function checkCoverage(dir, names) {
  const want = {
    orig: ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'LZ4', 'ZSTD', 'LZ4_RAW', 'PLAIN', 'PLAIN_DICTIONARY', 'RLE_DICTIONARY',
      'DELTA_BINARY_PACKED', 'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY', 'BYTE_STREAM_SPLIT', 'DATA_PAGE', 'DATA_PAGE_V2',
      'DICTIONARY_PAGE', 'several row groups', 'dictionary fallback within a chunk'],
    loom: ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'BROTLI', 'ZSTD', 'LZ4_RAW', 'PLAIN', 'RLE_DICTIONARY', 'DATA_PAGE', 'DATA_PAGE_V2',
      'DICTIONARY_PAGE', 'several row groups', 'dictionary fallback within a chunk'],
  };
  for (const side of ['orig', 'loom']) {
    const acc = new Set();
    for (const n of names) {
      try { footerFacts(path.join(dir, side, n), acc); } catch (e) { fail(`coverage ${side}/${n}: ${e.message}`); }
    }
    const missing = want[side].filter((x) => !acc.has(x));
    if (missing.length) fail(`coverage: the ${side} files lack ${missing.join(', ')}`);
    console.log(`${side} files hold: ${[...acc].sort().join(' ')}`);
  }
}

async function main() {
  const dir = process.argv[2];
  const names = fs.readFileSync(path.join(dir, 'cases.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t')[0]);
  const tmp = fs.mkdtempSync(path.join(dir, 'verify-'));
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const con = await db.connect();
  await con.run(`SET TimeZone = 'UTC'`);
  await sanityChecks(con);
  await checkCannotColumns(con, dir, names, tmp);
  checkCoverage(dir, names);
  let chunks = 0;
  const engines = ['duckdb', 'polars', 'pwasm'];
  const spent = { duckdb: 0, polars: 0, pwasm: 0 };
  for (const name of names) {
    fileFailures = 0;
    const orig = path.join(dir, 'orig', name), loom = path.join(dir, 'loom', name);
    const before = failures;
    const notes = [];
    let n = 0, rows = '?';
    for (const engine of engines) {
      const t0 = Date.now();
      try {
        const ref = await reference(con, engine, name, orig, tmp, notes);
        if (!ref) continue;
        if (engine === 'duckdb') {
          await compareFiles(con, `duckdb ${name}`, ref, loom);
          rows = String((await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(loom)})`)).getRows()[0][0]);
          n = await checkStats(con, `stats ${name}`, loom);
          chunks += n;
        } else {
          await checkEngine(con, engine, name, ref, loom, tmp);
        }
      } catch (e) { fail(`${engine} ${name}: ${String(e.message).split('\n')[0]}`); }
      spent[engine] += Date.now() - t0;
    }
    console.log(`${failures === before ? 'ok  ' : 'FAIL'} ${name}: ${rows} rows equal as read by duckdb, polars, parquet-wasm; ` +
      `stats of ${n} column chunks${notes.length ? '; NOTE ' + notes.join('; ') : ''}`);
  }
  for (const [c, why] of Object.entries(CANNOT.polars.columns)) console.log(`NOTE polars: column ${c} not compared: ${why}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(`time per engine (ms): ${JSON.stringify(spent)}`);
  console.log(`${names.length} files, ${chunks} column chunks' statistics; ${failures ? failures + ' failure(s)' : 'all equal'}`);
  process.exit(failures ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
