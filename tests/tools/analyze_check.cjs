#!/usr/bin/env node
// analyze_check.cjs TABLE SNAPSHOT_JSON - the string statistics `loom
// analyze` wrote, checked exactly against DuckDB (issue 32). The oracle's
// verify takes string bounds as bounds only (min <= true min, max >= true
// max); Delta's rule is exact: minValues = the first 32 code points of the
// file's true min; maxValues = the true max when it has at most 32 code
// points, else a string starting with its first 32 code points and longer
// (a tie-breaker appended). Bounds are over every stored row of the file
// (a file with a DV carries tightBounds false). Top-level string columns
// of the stats (physical names = the Parquet names), every live file.
// Exit 1 naming file, column and values on a mismatch.
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

const PREFIX = 32;
const cut = (s) => Array.from(s).slice(0, PREFIX).join('');
const q = (s) => `'${s.replace(/'/g, "''")}'`;
const ident = (s) => `"${s.replace(/"/g, '""')}"`;

(async () => {
  const [table, snapFile] = process.argv.slice(2);
  const snap = JSON.parse(fs.readFileSync(snapFile, 'utf8'));
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const problems = [];
  let checked = 0;
  for (const f of snap.files) {
    const st = f.stats;
    if (!st || !st.minValues) continue;
    const file = path.join(table, f.path);
    const cols = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`)).getRowObjectsJS();
    for (const c of cols) {
      if (c.column_type !== 'VARCHAR') continue;
      const name = c.column_name;
      if (!(name in (st.minValues || {})) && !(name in (st.maxValues || {}))) continue;
      const [r] = (await conn.runAndReadAll(`SELECT min(${ident(name)}) AS mn, max(${ident(name)}) AS mx
        FROM read_parquet(${q(file)})`)).getRowObjectsJS();
      checked++;
      const smin = st.minValues[name], smax = st.maxValues && st.maxValues[name];
      if (r.mn !== null && smin !== cut(r.mn))
        problems.push(`${f.path} ${name}: minValues ${JSON.stringify(smin)}, want ${JSON.stringify(cut(r.mn))}`);
      if (r.mx !== null && smax !== undefined) {
        const ok = Array.from(r.mx).length <= PREFIX ? smax === r.mx
          : smax.startsWith(cut(r.mx)) && Array.from(smax).length > PREFIX;
        if (!ok) problems.push(`${f.path} ${name}: maxValues ${JSON.stringify(smax)} for a true max of ${JSON.stringify(r.mx)}`);
      }
    }
  }
  if (problems.length) { console.error(problems.join('\n')); process.exit(1); }
  console.log(`${checked} string columns exact`);
})().catch((e) => { console.error(e.message); process.exit(2); });
