#!/usr/bin/env node
// Verify Parquet files written by loom's writer with independent engines.
//   node pqwrite_verify.cjs DIR
// DIR holds CASE.parquet + CASE.json pairs written by tests/unit/test_parquet_write.c:
//   { "file": "CASE.parquet", "columns": [{"name", "spec"}], "rows": [{...}],
//     "stats": ["col", ...],            flat columns whose footer stats are checked
//     "min_row_groups": n, "encodings": {"col": ["PLAIN", ...]},
//     "result": {"col": {"has":bool,"min":..,"max":..,"nulls":n}} }  (pq_write_result)
// Values are canonical: ints, dates, decimals (unscaled) and timestamps
// (nanoseconds since the epoch) as decimal strings; floats as strings
// ("NaN", "-0", "%.17g"); binary as hex; maps as [{"key","value"}].
// Checks, per case:
//  1. DuckDB reads every value as generated;
//  2. DuckDB's parquet_metadata(): per row group min/max/null_count equal the
//     true ones of the generated rows (and row-group count / encodings);
//  3. the writer's file-level result stats equal the true ones;
//  4. Polars and parquet-wasm (arrow-rs) read the file: each rewrites what it
//     read with its own writer and DuckDB must find the generated values again.
'use strict';
const fs = require('fs');
const path = require('path');
const { DuckDBInstance } = require('@duckdb/node-api');
let pl = null, pw = null;
try { pl = require('nodejs-polars'); } catch (e) { console.error('polars unavailable: ' + e.message); }
try { pw = require('parquet-wasm'); } catch (e) { console.error('parquet-wasm unavailable: ' + e.message); }

let failures = 0;
function fail(msg) { failures++; if (failures < 60) console.error('FAIL ' + msg); }

function hex(bytes) { return Buffer.from(bytes).toString('hex'); }
function ctor(v) { return v && v.constructor ? v.constructor.name : typeof v; }

// DuckDB value -> canonical form of `spec`.
function norm(spec, v) {
  if (v === null || v === undefined) return null;
  switch (spec.t) {
    case 'int': return BigInt(v).toString();
    case 'bool': return v;
    case 'float': return Number(v);
    case 'str': return v;
    case 'bin': return hex(v.bytes);
    case 'date': return String(v.days);
    case 'ts':
      if (v.nanos !== undefined) return String(v.nanos);
      if (v.micros !== undefined) return String(v.micros * 1000n);
      if (v.millis !== undefined) return String(v.millis * 1000000n);
      if (v.seconds !== undefined) return String(v.seconds * 1000000000n);
      throw new Error('unexpected timestamp value ' + ctor(v));
    case 'dec':
      if (v.scale !== spec.scale) throw new Error(`decimal scale ${v.scale}, expected ${spec.scale}`);
      return String(v.value);
    case 'list': return v.items.map((x) => norm(spec.e, x));
    case 'struct': {
      const o = {};
      for (const k of Object.keys(spec.f)) o[k] = norm(spec.f[k], v.entries[k]);
      return o;
    }
    case 'map': {
      const ents = v.items ? v.items.map((s) => ({ key: s.entries.key, value: s.entries.value })) : v.entries;
      return ents.map((e) => ({ key: norm(spec.k, e.key), value: norm(spec.v, e.value) }));
    }
    default: throw new Error('unknown spec ' + spec.t);
  }
}

function same(spec, exp, act) {
  if (exp === null || act === null) return exp === act;
  switch (spec.t) {
    case 'float': {
      const e = exp === 'NaN' ? NaN : exp === '-0' ? -0 : Number(exp);
      return (Number.isNaN(e) && Number.isNaN(act)) || Object.is(e, act);
    }
    case 'list':
      return Array.isArray(act) && act.length === exp.length && exp.every((x, i) => same(spec.e, x, act[i]));
    case 'struct':
      return Object.keys(spec.f).every((k) => same(spec.f[k], exp[k], act[k]));
    case 'map':
      return act.length === exp.length &&
        exp.every((x, i) => same(spec.k, x.key, act[i].key) && same(spec.v, x.value, act[i].value));
    default: return exp === act;
  }
}

async function readRows(conn, file) {
  const r = await conn.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
  return r.getRowObjects();
}

function compareRows(tag, c, rows, skip = []) {
  if (rows.length !== c.rows.length) { fail(`${tag}: ${rows.length} rows, expected ${c.rows.length}`); return; }
  let bad = 0;
  for (const col of c.columns) {
    if (skip.includes(col.name)) continue;
    for (let i = 0; i < rows.length && bad < 5; i++) {
      let act;
      try { act = norm(col.spec, rows[i][col.name]); } catch (e) { fail(`${tag}: ${col.name} row ${i}: ${e.message}`); bad++; continue; }
      if (!same(col.spec, c.rows[i][col.name], act)) {
        fail(`${tag}: column ${col.name} row ${i}: got ${JSON.stringify(act, (k, x) => typeof x === 'bigint' ? String(x) : x)}, expected ${JSON.stringify(c.rows[i][col.name])}`);
        bad++;
      }
    }
  }
}

// ---- statistics ----------------------------------------------------------
function cmpVals(spec, a, b) {   // canonical non-null values
  switch (spec.t) {
    case 'int': case 'date': case 'ts': case 'dec': { const x = BigInt(a), y = BigInt(b); return x < y ? -1 : x > y ? 1 : 0; }
    case 'float': { const x = Number(a), y = Number(b); return x < y ? -1 : x > y ? 1 : 0; }
    case 'bool': return (a ? 1 : 0) - (b ? 1 : 0);
    case 'str': return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
    case 'bin': return Buffer.compare(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
    default: throw new Error('no order for ' + spec.t);
  }
}
function trueStats(spec, vals) {
  let nulls = 0, mn = null, mx = null;
  for (const v of vals) {
    if (v === null) { nulls++; continue; }
    if (spec.t === 'float' && v === 'NaN') continue;
    if (mn === null || cmpVals(spec, v, mn) < 0) mn = v;
    if (mx === null || cmpVals(spec, v, mx) > 0) mx = v;
  }
  if (spec.t === 'float' && mn !== null) {
    if (Number(mn) === 0) mn = '-0';
    if (Number(mx) === 0) mx = '0';
  }
  return { nulls, min: mn, max: mx };
}
// DuckDB's rendering of a stats value -> canonical
function fromDuck(spec, s) {
  if (s === null || s === undefined) return null;
  switch (spec.t) {
    case 'int': return BigInt(s).toString();
    case 'bool': return s === 'true';
    case 'float': return s;
    case 'str': return s;
    case 'date': return String(Math.round(Date.parse(s + 'T00:00:00Z') / 86400000));
    case 'dec': {
      let neg = s.startsWith('-'); if (neg) s = s.slice(1);
      let [ip, fp = ''] = s.split('.');
      fp = fp.padEnd(spec.scale, '0');
      let v = BigInt(ip + fp); if (neg) v = -v;
      return v.toString();
    }
    case 'ts': {
      const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?/.exec(s);
      if (!m) throw new Error('cannot parse timestamp ' + s);
      const ms = BigInt(Date.parse(`${m[1]}T${m[2]}Z`));
      const frac = BigInt((m[3] || '').padEnd(9, '0'));
      return (ms * 1000000n + frac).toString();
    }
    default: return s;
  }
}
function sameStat(spec, exp, act) {
  if (exp === null || act === null) return exp === act;
  if (spec.t === 'float') {
    // DuckDB prints FLOAT stats with the shortest float32 digits
    const r = spec.f32 ? Math.fround : (x) => x;
    const a = r(Number(act)), e = r(exp === '-0' ? -0 : Number(exp));
    return Object.is(a, e);
  }
  return exp === act;
}

async function checkStats(conn, c, file) {
  const r = await conn.runAndReadAll(`SELECT row_group_id, row_group_num_rows, path_in_schema, stats_min_value,
      stats_max_value, stats_null_count, encodings FROM parquet_metadata('${file}') ORDER BY row_group_id, column_id`);
  const md = r.getRowObjects();
  const rgs = [];
  for (const m of md) rgs[Number(m.row_group_id)] = Number(m.row_group_num_rows);
  if (c.min_row_groups && rgs.length < c.min_row_groups)
    fail(`${c.file}: ${rgs.length} row groups, expected at least ${c.min_row_groups}`);
  const starts = []; let acc = 0;
  for (const n of rgs) { starts.push(acc); acc += n; }
  if (acc !== c.rows.length) fail(`${c.file}: row groups hold ${acc} rows, expected ${c.rows.length}`);
  for (const name of c.stats || []) {
    const col = c.columns.find((x) => x.name === name);
    for (const m of md.filter((x) => x.path_in_schema === name)) {
      const g = Number(m.row_group_id);
      const t = trueStats(col.spec, c.rows.slice(starts[g], starts[g] + rgs[g]).map((row) => row[name]));
      const mn = fromDuck(col.spec, m.stats_min_value), mx = fromDuck(col.spec, m.stats_max_value);
      if (Number(m.stats_null_count) !== t.nulls) fail(`${c.file}: ${name} rg ${g}: null_count ${m.stats_null_count}, expected ${t.nulls}`);
      if (!sameStat(col.spec, t.min, mn)) fail(`${c.file}: ${name} rg ${g}: min ${mn}, expected ${t.min}`);
      if (!sameStat(col.spec, t.max, mx)) fail(`${c.file}: ${name} rg ${g}: max ${mx}, expected ${t.max}`);
    }
  }
  for (const [name, want] of Object.entries(c.encodings || {})) {
    const got = new Set();
    for (const m of md.filter((x) => x.path_in_schema === name)) for (const e of String(m.encodings).split(/[ ,]+/)) if (e) got.add(e);
    for (const e of want) if (!got.has(e)) fail(`${c.file}: ${name}: encodings ${[...got]} lack ${e}`);
  }
  for (const [name, res] of Object.entries(c.result || {})) {
    const col = c.columns.find((x) => x.name === name);
    const t = trueStats(col.spec, c.rows.map((row) => row[name]));
    if (res.nulls !== t.nulls) fail(`${c.file}: result ${name}: null_count ${res.nulls}, expected ${t.nulls}`);
    const rmn = res.has ? res.min : null, rmx = res.has ? res.max : null;
    if (!sameStat(col.spec, t.min, rmn === null ? null : (col.spec.t === 'float' ? Number(rmn === '-0' ? -0 : rmn) : rmn)))
      fail(`${c.file}: result ${name}: min ${rmn}, expected ${t.min}`);
    if (!sameStat(col.spec, t.max, rmx === null ? null : (col.spec.t === 'float' ? Number(rmx === '-0' ? -0 : rmx) : rmx)))
      fail(`${c.file}: result ${name}: max ${rmx}, expected ${t.max}`);
  }
}


// ---- page index ------------------------------------------------------------
const { tdecode } = require('./thrift_compact.cjs');

function plainToCanon(spec, phys, leafSe, b) {
  const lt = leafSe[10] || {};
  const unsigned = (lt[10] && lt[10][2] === false) || [11, 12, 13, 14].includes(leafSe[6]);
  switch (spec.t) {
    case 'bool': return b[0] !== 0;
    case 'float': return phys === 4 ? b.readFloatLE(0) : b.readDoubleLE(0);
    case 'str': return b.toString('utf8');
    case 'bin': return b.toString('hex');
    case 'int': case 'date':
      if (phys === 1) return String(unsigned ? b.readUInt32LE(0) : b.readInt32LE(0));
      return String(unsigned ? b.readBigUInt64LE(0) : b.readBigInt64LE(0));
    case 'ts': {
      const u = lt[8] && lt[8][2] ? (lt[8][2][1] ? 1000000n : lt[8][2][2] ? 1000n : 1n) : 1000n;
      return String(b.readBigInt64LE(0) * u);
    }
    case 'dec':
      if (phys === 1) return String(b.readInt32LE(0));
      if (phys === 2) return String(b.readBigInt64LE(0));
      { let v = 0n; for (const x of b) v = (v << 8n) | BigInt(x); if (b.length && b[0] & 0x80) v -= 1n << BigInt(8 * b.length); return String(v); }
    default: throw new Error('no decoding for ' + spec.t);
  }
}

function checkPageIndex(c, file) {
  const buf = fs.readFileSync(file);
  const flen = buf.readUInt32LE(buf.length - 8);
  const fmd = tdecode(buf, buf.length - 8 - flen).o;
  const schema = fmd[2];
  let rowBase = 0, checkedCi = 0, checkedOi = 0, truncated = 0;
  for (const rg of fmd[4]) {
    for (const cc of rg[1]) {
      const md = cc[3];
      const pathStr = md[3].map((x) => x.toString()).join('.');
      const tag = `${c.file}: page index of ${pathStr}`;
      if (cc[4] === undefined) { fail(`${tag}: no offset index`); continue; }
      const oi = tdecode(buf, Number(cc[4])).o[1];
      checkedOi++;
      let values = 0n, prevRow = -1n, size = 0;
      for (const [i, loc] of oi.entries()) {
        const ph = tdecode(buf, Number(loc[1]));
        if (ph.o[1] !== 0 && ph.o[1] !== 3) fail(`${tag}: page ${i} is not a data page`);
        if (ph.end - Number(loc[1]) + ph.o[3] !== loc[2]) fail(`${tag}: page ${i} size ${loc[2]} != header + body`);
        if (i === 0 && loc[1] !== md[9]) fail(`${tag}: first page at ${loc[1]}, data_page_offset ${md[9]}`);
        if (i === 0 && loc[3] !== 0n) fail(`${tag}: first_row_index ${loc[3]}`);
        if (loc[3] <= prevRow) fail(`${tag}: first_row_index not increasing`);
        prevRow = loc[3];
        values += BigInt(ph.o[1] === 3 ? ph.o[8][1] : ph.o[5][1]);
        if (c.data_page_v2 && ph.o[1] !== 3) fail(`${tag}: page ${i} is not a v2 page`);
        if (ph.o[1] === 3 && i + 1 < oi.length && BigInt(ph.o[8][3]) !== oi[i + 1][3] - loc[3]) fail(`${tag}: v2 page ${i} num_rows ${ph.o[8][3]} disagrees with the offset index`);
        size += loc[2];
      }
      if (values !== md[5]) fail(`${tag}: pages hold ${values} values, chunk ${md[5]}`);
      const dictBytes = md[11] !== undefined ? Number(md[9] - md[11]) : 0;
      if (BigInt(size + dictBytes) !== md[7]) fail(`${tag}: pages ${size} + dict ${dictBytes} bytes != chunk ${md[7]}`);
      const col = c.columns.find((x) => x.name === pathStr);
      const wantCi = col && (c.stats || []).includes(pathStr) && col.name !== 'nanonly';
      if (cc[6] === undefined) { if (wantCi) fail(`${tag}: no column index`); continue; }
      const ci = tdecode(buf, Number(cc[6])).o;
      checkedCi++;
      if (ci[1].length !== oi.length || ci[2].length !== oi.length || ci[5].length !== oi.length) fail(`${tag}: column index has ${ci[1].length} pages, offset index ${oi.length}`);
      const nulls = ci[5].reduce((a, b) => a + b, 0n);
      if (md[12] && nulls !== md[12][3]) fail(`${tag}: page null counts sum ${nulls}, chunk ${md[12][3]}`);
      if (!wantCi) continue;
      const leafSe = schema.find((se) => se[4] && se[4].toString() === pathStr);
      for (let i = 0; i < oi.length; i++) {
        const r0 = rowBase + Number(oi[i][3]);
        const r1 = rowBase + (i + 1 < oi.length ? Number(oi[i + 1][3]) : Number(rg[3]));
        const t = trueStats(col.spec, c.rows.slice(r0, r1).map((row) => row[pathStr]));
        if (Number(ci[5][i]) !== t.nulls) fail(`${tag}: page ${i} null_count ${ci[5][i]}, expected ${t.nulls}`);
        const isNull = t.nulls === r1 - r0;
        if (ci[1][i] !== isNull) fail(`${tag}: page ${i} null_page ${ci[1][i]}`);
        if (isNull) continue;
        const mn = plainToCanon(col.spec, md[1], leafSe, ci[2][i]), mx = plainToCanon(col.spec, md[1], leafSe, ci[3][i]);
        if (col.spec.t === 'str' || col.spec.t === 'bin') {
          // byte strings may be truncated to 64 bytes: min a prefix of the
          // true min, max at least the true max and short
          const enc = col.spec.t === 'str' ? 'utf8' : 'hex';
          const tmn = Buffer.from(t.min, enc), tmx = Buffer.from(t.max, enc);
          const amn = ci[2][i], amx = ci[3][i];
          if (!(amn.equals(tmn) || (amn.length <= 64 && tmn.subarray(0, amn.length).equals(amn))))
            fail(`${tag}: page ${i} min ${mn} is not the true min ${t.min} nor its short prefix`);
          if (!(amx.equals(tmx) || (amx.length <= 64 && Buffer.compare(amx, tmx) > 0)))
            fail(`${tag}: page ${i} max ${mx} is not the true max ${t.max} nor a short bound above it`);
          if (tmn.length > 64 && amn.length > 64) fail(`${tag}: page ${i} min not truncated`);
          if (col.spec.t === 'str' && tmn.length > 64 && amn.toString('utf8') !== mn) fail(`${tag}: bad utf8`);
          if (amn.length < tmn.length || amx.length < tmx.length) truncated++;
          continue;
        }
        if (!sameStat(col.spec, t.min, mn)) fail(`${tag}: page ${i} min ${mn}, expected ${t.min}`);
        if (!sameStat(col.spec, t.max, mx)) fail(`${tag}: page ${i} max ${mx}, expected ${t.max}`);
      }
    }
    rowBase += Number(rg[3]);
  }
  if (!checkedOi) fail(`${c.file}: no page index found`);
  return { checkedCi, checkedOi, truncated };
}

async function main() {
  const dir = process.argv[2];
  const only = process.argv[3];
  const inst = await DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  const cases = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && (!only || f.startsWith(only))).sort();
  if (cases.length === 0) { console.error('no cases in ' + dir); process.exit(1); }
  for (const jf of cases) {
    const c = JSON.parse(fs.readFileSync(path.join(dir, jf), 'utf8'));
    const file = path.join(dir, c.file);
    const before = failures;
    let extra = '';
    try {
      compareRows(`duckdb ${c.file}`, c, await readRows(conn, file));
      await checkStats(conn, c, file);
      if (c.page_index) { const n = checkPageIndex(c, file); extra = ` page index: ${n.checkedOi} offset + ${n.checkedCi} column indexes (${n.truncated} truncated bounds)`; }
      if (c.kv) {
        const r = await conn.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${file}')`);
        const got = Object.fromEntries(r.getRowObjects().map((x) => [x.k, x.v]));
        for (const [k, v] of Object.entries(c.kv)) if (got[k] !== v) fail(`${c.file}: key_value_metadata ${k} = ${got[k]}, expected ${v}`);
      }
      if (c.created_by) {
        const r = await conn.runAndReadAll(`SELECT created_by FROM parquet_file_metadata('${file}')`);
        const got = r.getRowObjects()[0].created_by;
        if (got !== c.created_by) fail(`${c.file}: created_by ${got}, expected ${c.created_by}`);
      }
    } catch (e) { fail(`duckdb ${c.file}: ${e.message}`); }
    if (pl && !c.skip_polars) {
      const out = file + '.polars.parquet';
      try {
        pl.readParquet(file).writeParquet(out, { compression: 'uncompressed' });
        // skip_polars_columns: legacy unannotated repeated fields, which
        // Polars does not read as lists (DuckDB and arrow-rs do, per the spec)
        compareRows(`polars ${c.file}`, c, await readRows(conn, out), c.skip_polars_columns || []);
      } catch (e) { fail(`polars ${c.file}: ${e.message}`); }
    }
    if (pw) {
      const out = file + '.pwasm.parquet';
      try {
        const table = pw.readParquet(fs.readFileSync(file));
        const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.UNCOMPRESSED).build();
        fs.writeFileSync(out, pw.writeParquet(table, props));
        compareRows(`parquet-wasm ${c.file}`, c, await readRows(conn, out));
      } catch (e) { fail(`parquet-wasm ${c.file}: ${e.message}`); }
    }
    console.log(`${failures === before ? 'ok  ' : 'FAIL'} ${c.file} (${c.rows.length} rows, engines: duckdb${pl && !c.skip_polars ? ' polars' : ''}${pw ? ' parquet-wasm' : ''})${extra}`);
  }
  if (!pl || !pw) {
    const marker = (process.env.NODE_PATH || '').split(':').map((d) => path.join(d, '..', 'INSTALL_FAILED')).find((f) => fs.existsSync(f));
    if (marker) console.error(`SKIPPED ${!pl ? 'polars ' : ''}${!pw ? 'parquet-wasm' : ''}: the npm registry install failed (${marker})`);
    else { console.error('an independent reader (polars / parquet-wasm) is missing'); failures++; }
  }
  console.log(failures ? `${failures} failure(s)` : 'all files verified');
  process.exit(failures ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
