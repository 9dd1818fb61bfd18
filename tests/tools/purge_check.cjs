#!/usr/bin/env node
// purge_check.cjs - are the rows deletion vectors deleted physically gone
// after `loom purge` and a vacuum? Judged with DuckDB and the oracle's DV
// decoding, no loom code (issue 32).
//
//   purge_check.cjs before TABLE DV_JSON STATE_OUT
//     DV_JSON: `oracle dv TABLE`. For every file with a DV: the deleted
//     rows (by file_row_number) as keys = JSON of the columns every DV file
//     has; then how many live rows (every live file, DVs applied) carry
//     each of those keys. Written to STATE_OUT.
//   purge_check.cjs after TABLE STATE
//     Every Parquet file left under TABLE (outside _delta_log), read with
//     DuckDB: the rows carrying a deleted key must be exactly the live
//     ones counted before (a deleted row still on storage adds one), and no
//     file that held a deleted row may remain. Exit 1 naming what is wrong.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

const q = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;

async function rows(conn, sql) {
  const r = await conn.runAndReadAll(sql);
  return r.getRowObjectsJS();
}

async function columnsOf(conn, file) {
  const d = await rows(conn, `DESCRIBE SELECT * FROM read_parquet(${q(file)})`);
  return d.map((c) => c.column_name);
}

// key of a row: the JSON of the key columns (missing ones null)
const keyExpr = (cols) => `CAST(to_json(struct_pack(${cols.map((c) => `${ident(c)} := ${ident(c)}`).join(', ')})) AS VARCHAR)`;

function parquetFiles(dir, rel = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) { if (r !== '_delta_log') out.push(...parquetFiles(dir, r)); }
    else if (e.name.endsWith('.parquet')) out.push(r);
  }
  return out;
}

async function before(conn, table, dvJson, stateOut) {
  const dv = JSON.parse(fs.readFileSync(dvJson, 'utf8'));
  const files = dv.files.filter((f) => f.rows && f.rows.length);
  if (!files.length) throw new Error('no file with deleted rows');
  let cols = null;
  for (const f of files) {
    const c = await columnsOf(conn, path.join(table, f.path));
    cols = cols ? cols.filter((x) => c.includes(x)) : c;
  }
  const deleted = new Set();
  for (const f of files) {
    const file = path.join(table, f.path);
    const r = await rows(conn, `SELECT ${keyExpr(cols)} AS k FROM read_parquet(${q(file)}, file_row_number=true)
      WHERE file_row_number IN (${f.rows.join(',')})`);
    for (const x of r) deleted.add(x.k);
  }
  // live rows with those keys: every live file (snapshot), DVs applied
  const snap = JSON.parse(fs.readFileSync(process.argv[6], 'utf8'));
  const dvRows = new Map(dv.files.map((f) => [f.path, new Set(f.rows || [])]));
  const live = {};
  for (const f of snap.files) {
    const file = path.join(table, f.path);
    const have = await columnsOf(conn, file);
    const sel = cols.map((c) => (have.includes(c) ? `${ident(c)}` : `NULL AS ${ident(c)}`)).join(', ');
    const r = await rows(conn, `SELECT ${keyExpr(cols)} AS k, file_row_number AS n FROM
      (SELECT ${sel}, file_row_number FROM read_parquet(${q(file)}, file_row_number=true))`);
    const del = dvRows.get(f.path) || new Set();
    for (const x of r) if (deleted.has(x.k) && !del.has(Number(x.n))) live[x.k] = (live[x.k] || 0) + 1;
  }
  fs.writeFileSync(stateOut, JSON.stringify({ cols, deleted: [...deleted], live, files: files.map((f) => f.path) }));
  console.log(`${deleted.size} deleted keys in ${files.length} files`);
}

async function after(conn, table, stateFile) {
  const st = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
  const problems = [];
  for (const p of st.files)
    if (fs.existsSync(path.join(table, p))) problems.push(`${p} (held deleted rows) is still on storage`);
  const deleted = new Set(st.deleted), found = {};
  for (const rel of parquetFiles(table)) {
    const file = path.join(table, rel);
    const have = await columnsOf(conn, file);
    const sel = st.cols.map((c) => (have.includes(c) ? `${ident(c)}` : `NULL AS ${ident(c)}`)).join(', ');
    const r = await rows(conn, `SELECT ${keyExpr(st.cols)} AS k FROM (SELECT ${sel} FROM read_parquet(${q(file)}))`);
    for (const x of r) if (deleted.has(x.k)) found[x.k] = (found[x.k] || 0) + 1;
  }
  for (const k of deleted)
    if ((found[k] || 0) !== (st.live[k] || 0))
      problems.push(`key ${k.slice(0, 120)}: ${found[k] || 0} rows on storage, ${st.live[k] || 0} live`);
  if (problems.length) { console.error(problems.join('\n')); process.exit(1); }
  console.log(`${deleted.size} deleted keys: none left on storage beyond the live rows`);
}

(async () => {
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  await conn.run("SET TimeZone = 'UTC'");
  const [mode, table, a, b] = process.argv.slice(2);
  if (mode === 'before') await before(conn, table, a, b);
  else if (mode === 'after') await after(conn, table, a);
  else throw new Error('usage: purge_check.cjs before TABLE DV_JSON STATE_OUT SNAPSHOT_JSON | after TABLE STATE');
})().catch((e) => { console.error(e.message); process.exit(2); });
