#!/usr/bin/env node
// Read every data file a loom commit added with three independent Parquet
// readers: DuckDB, Polars and parquet-wasm (arrow-rs).
//   node read_new_files.cjs MANIFEST
// MANIFEST: one line per commit to check, "LABEL<TAB>TABLE_DIR<TAB>COMMIT_JSON".
// Every add action of each commit names a file; per file:
//  1. each reader reads it and finds exactly the add's stats.numRecords rows;
//  2. values: Polars and parquet-wasm each write back what they read (their
//     own writers) and DuckDB checksums every column of that copy and of the
//     original; the sums must be equal. A column whose type the engine
//     changed (e.g. a Delta map Polars holds as a list of structs) is
//     compared by its text form, and left out only when even that differs
//     (counted and reported as "not comparable").
// All files are checked in this one process (node start and module loading
// dominate for tiny files). Zero files is a failure: the caller's run must
// have produced something to check. Exit 0 only if every check passed.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');
let pl = null, pw = null;
try { pl = require('nodejs-polars'); } catch (e) { console.error('polars unavailable: ' + e.message); }
try { pw = require('parquet-wasm'); } catch (e) { console.error('parquet-wasm unavailable: ' + e.message); }

let failures = 0;
function fail(msg) { failures++; if (failures <= 60) console.error('FAIL ' + msg); }

const sqlStr = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;
// The file alone: no Hive partition columns guessed from its directory.
const readParquet = (file) => `read_parquet(${sqlStr(file)}, hive_partitioning = false)`;

// The files a commit added: absolute path and numRecords.
function addedFiles(table, commit) {
  const out = [];
  for (const line of fs.readFileSync(commit, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const a = JSON.parse(line).add;
    if (!a) continue;
    const p = /^[a-z][a-z0-9+.-]*:/i.test(a.path) ? new URL(a.path).pathname : a.path;
    const file = path.isAbsolute(p) ? decodeURIComponent(p) : path.join(table, decodeURIComponent(p));
    let n = null;
    try { n = a.stats ? JSON.parse(a.stats).numRecords : null; } catch (e) { /* reported below */ }
    out.push({ file, rel: a.path, numRecords: n });
  }
  return out;
}

async function columns(conn, file) {
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${readParquet(file)}`);
  return r.getRowObjects().map((x) => ({ name: x.column_name, type: x.column_type }));
}

// Row count and one checksum per column: of the values, or of their text
// form (a MAP as its list of {key, value} entries, which is how Polars
// holds a map).
async function sums(conn, file, cols, asText) {
  const exprs = cols.map((c, i) => {
    let v = ident(c.name);
    if (asText[i]) v = `CAST(${c.type.startsWith('MAP(') ? `map_entries(${v})` : v} AS VARCHAR)`;
    return `CAST(sum(hash(${v})) AS VARCHAR) AS c${i}`;
  });
  const r = await conn.runAndReadAll(`SELECT count(*) AS n${exprs.length ? ', ' + exprs.join(', ') : ''} FROM ${readParquet(file)}`);
  const row = r.getRowObjects()[0];
  return { n: Number(row.n), c: cols.map((_, i) => row['c' + i]) };
}

// rows: files whose row count the reader got right; values: files whose
// column checksums all matched DuckDB's (or were not comparable).
const stats = { files: 0, rows: { duckdb: 0, polars: 0, 'parquet-wasm': 0 }, values: { polars: 0, 'parquet-wasm': 0 },
  compared: { polars: 0, 'parquet-wasm': 0 }, byText: { polars: 0, 'parquet-wasm': 0 }, skipped: { polars: [], 'parquet-wasm': [] } };

// The copy `copy` a reader wrote of `file` holds the same values.
async function compareCopy(conn, reader, tag, file, copy, orig, origCols) {
  const cols = await columns(conn, copy);
  const names = cols.map((c) => c.name).join(',');
  if (names !== origCols.map((c) => c.name).join(',')) { fail(`${tag}: ${reader} read columns [${names}], DuckDB [${origCols.map((c) => c.name)}]`); return false; }
  const textCols = origCols.map((c, i) => c.type !== cols[i].type);
  const got = await sums(conn, copy, cols, textCols);
  const origText = textCols.some((x) => x) ? await sums(conn, file, origCols, textCols) : orig;
  if (got.n !== orig.n) { fail(`${tag}: ${reader} wrote back ${got.n} rows, DuckDB read ${orig.n}`); return false; }
  let ok = true;
  origCols.forEach((c, i) => {
    if (got.c[i] === origText.c[i]) { stats.compared[reader]++; if (textCols[i]) stats.byText[reader]++; return; }
    if (textCols[i]) { stats.skipped[reader].push(`${c.name} (${c.type} -> ${cols[i].type})`); return; }
    fail(`${tag}: ${reader} read other values in column ${c.name} (${c.type}) than DuckDB`);
    ok = false;
  });
  return ok;
}

async function checkFile(conn, f, tmp, k) {
  const tag = `${f.label}: ${f.rel}`;
  const before = failures;
  stats.files++;
  if (!Number.isInteger(f.numRecords)) { fail(`${tag}: add action without stats.numRecords`); return; }
  let origCols = null, orig = null;
  try {
    origCols = await columns(conn, f.file);
    orig = await sums(conn, f.file, origCols, origCols.map(() => false));
    if (orig.n !== f.numRecords) fail(`${tag}: DuckDB read ${orig.n} rows, numRecords ${f.numRecords}`);
    else stats.rows.duckdb++;
  } catch (e) { fail(`${tag}: DuckDB cannot read it: ${e.message}`); orig = null; }
  if (pl) {
    const copy = path.join(tmp, `${k}.polars.parquet`);
    let df = null;
    try { df = pl.readParquet(f.file); } catch (e) { fail(`${tag}: Polars cannot read it: ${e.message}`); }
    if (df && df.height !== f.numRecords) fail(`${tag}: Polars read ${df.height} rows, numRecords ${f.numRecords}`);
    else if (df) {
      stats.rows.polars++;
      if (orig) try {
        df.writeParquet(copy, { compression: 'uncompressed' });
        if (await compareCopy(conn, 'polars', tag, f.file, copy, orig, origCols)) stats.values.polars++;
      } catch (e) { fail(`${tag}: Polars read it, writing/checking its copy failed: ${e.message}`); }
    }
  }
  if (pw) {
    const copy = path.join(tmp, `${k}.pwasm.parquet`);
    let table = null;
    try { table = pw.readParquet(fs.readFileSync(f.file)); } catch (e) { fail(`${tag}: parquet-wasm cannot read it: ${e.message || e}`); }
    if (table) {
      let n = 0;
      for (const b of table.recordBatches()) { n += b.numRows; b.free(); }
      if (n !== f.numRecords) { fail(`${tag}: parquet-wasm read ${n} rows, numRecords ${f.numRecords}`); table.free(); }
      else {
        stats.rows['parquet-wasm']++;
        if (!orig) table.free();
        else try {
          const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.UNCOMPRESSED).build();
          fs.writeFileSync(copy, pw.writeParquet(table, props));
          if (await compareCopy(conn, 'parquet-wasm', tag, f.file, copy, orig, origCols)) stats.values['parquet-wasm']++;
        } catch (e) { fail(`${tag}: parquet-wasm read it, writing/checking its copy failed: ${e.message || e}`); }
      }
    }
  }
  if (failures !== before) console.error(`     in ${f.file}`);
}

async function main() {
  const manifest = process.argv[2];
  const files = [];
  for (const line of fs.readFileSync(manifest, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const [label, table, commit] = line.split('\t');
    for (const f of addedFiles(table, commit)) files.push({ label, ...f });
  }
  const tmp = fs.mkdtempSync(path.join(require('os').tmpdir(), 'loom-readers-'));
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  try {
    for (let k = 0; k < files.length; k++) await checkFile(conn, files[k], tmp, k);
  } finally { fs.rmSync(tmp, { recursive: true, force: true }); }
  if (files.length === 0) fail(`no added files in the commits of ${manifest}: nothing was checked`);
  if (!pl || !pw) {
    const marker = (process.env.NODE_PATH || '').split(':').map((d) => path.join(d, '..', 'INSTALL_FAILED')).find((m) => fs.existsSync(m));
    if (marker) console.error(`SKIPPED ${!pl ? 'polars ' : ''}${!pw ? 'parquet-wasm' : ''}: the npm registry install failed (${marker})`);
    else fail('an independent reader (polars / parquet-wasm) is missing');
  }
  const sk = (r) => stats.skipped[r].length ? `, not comparable: ${[...new Set(stats.skipped[r])].join(', ')}` : '';
  const r = stats.rows;
  console.log(`new files: ${stats.files}; read with rows = numRecords by duckdb ${r.duckdb}, polars ${r.polars}, parquet-wasm ${r['parquet-wasm']}`);
  for (const x of ['polars', 'parquet-wasm'])
    console.log(`  ${x}: values equal to DuckDB's in ${stats.values[x]} files (${stats.compared[x]} column checksums, ${stats.byText[x]} by text form)${sk(x)}`);
  console.log(`${failures ? `${failures} failure(s)` : 'all new files read by every reader'} (${process.uptime().toFixed(1)} s with node start)`);
  process.exit(failures ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
