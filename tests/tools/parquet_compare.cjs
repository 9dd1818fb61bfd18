// parquet_compare.cjs - compare `loom parquet cat FILE` with DuckDB's reading
// of the same file, value by value (nulls included).
//
//   NODE_PATH=build/oracle-deps/node_modules node parquet_compare.cjs LOOM_BIN FILE...
//   ... parquet_compare.cjs --meta LOOM_BIN FILE...   (footer metadata instead)
//
// Prints one line per file: "ok FILE rows=N" or "FAIL FILE: reason" (with
// the first mismatches) and exits 1 if any file failed. DuckDB is the
// independent reference; only representation differences are normalised,
// driven by DuckDB's column type:
//   integers      exact (loom's digits parsed as BigInt, never as doubles)
//   DOUBLE        bit-exact (Object.is on the parsed number; NaN == NaN)
//   FLOAT         bit-exact as float32 (Math.fround of loom's %.9g text)
//   DECIMAL       exact: loom's "123.45" vs DuckDB's unscaled BigInt + scale
//   BLOB          loom's lowercase hex vs DuckDB's bytes
//   TIMESTAMP*    loom's "YYYY-MM-DD HH:MM:SS.f" as nanoseconds, floored or
//                 truncated to the DuckDB type's unit (DuckDB reads INT96 at
//                 micros by flooring, ns with time zone at micros by truncating)
//   TIME          the same, within a day
//   MAP           loom's [{"key","value"}] vs DuckDB's entries
//   GEOMETRY      loom's hex of the WKB vs DuckDB's WKB bytes
'use strict';
const { spawnSync } = require('node:child_process');
const api = require('@duckdb/node-api');
const T = api.DuckDBTypeId;

// ---- a JSON parser that keeps numbers as their text ----
function parseJson(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const fail = (m) => { throw new Error(`loom JSON at ${i}: ${m}`); };
  function value() {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const o = new Map(); ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws(); const k = str(); ws();
        if (text[i++] !== ':') fail('expected :');
        o.set(k, value()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail('expected , or }');
      }
    }
    if (c === '[') {
      i++; const a = []; ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value()); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail('expected , or ]');
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(text.slice(i, i + 64));
    if (!m) fail('bad token');
    i += m[0].length;
    return { num: m[0] };
  }
  function str() {
    if (text[i] !== '"') fail('expected string');
    let j = i + 1, out = '';
    for (;;) {
      const k = text.indexOf('"', j);
      if (k < 0) fail('unterminated string');
      let bs = 0; for (let q = k - 1; q >= j && text[q] === '\\'; q--) bs++;
      if (bs % 2 === 0) { out = JSON.parse(text.slice(i, k + 1)); i = k + 1; return out; }
      j = k + 1;
    }
  }
  const v = value(); ws();
  if (i !== text.length) fail('trailing data');
  return v;
}

const hex = (b) => Buffer.from(b).toString('hex');
const show = (v) => { try { return JSON.stringify(v, (k, x) => typeof x === 'bigint' ? x.toString() : x instanceof Map ? Object.fromEntries(x) : x).slice(0, 200); } catch { return String(v); } };

function numText(l) {
  if (l && typeof l === 'object' && 'num' in l) return l.num;
  if (l === 'NaN' || l === 'Infinity' || l === '-Infinity') return l;
  return undefined;
}

// "YYYY-MM-DD HH:MM:SS.frac" -> nanoseconds since the epoch (BigInt). The
// year may carry a sign and more than four digits ("-0164", "290000"):
// proleptic Gregorian, astronomical numbering (year 0 is 1 BC).
function tsNanos(s) {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$/.exec(s);
  if (!m) return undefined;
  const dt = new Date(0);
  dt.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));  // no 0..99 -> 19xx mapping
  const days = BigInt(Math.floor(dt.getTime() / 86400000));
  const frac = BigInt((m[7] || '').padEnd(9, '0') || '0');
  return ((days * 86400n + BigInt(m[4]) * 3600n + BigInt(m[5]) * 60n + BigInt(m[6])) * 1000000000n) + frac;
}
function todNanos(s) {
  const m = /^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$/.exec(s);
  if (!m) return undefined;
  return (BigInt(m[1]) * 3600n + BigInt(m[2]) * 60n + BigInt(m[3])) * 1000000000n + BigInt((m[4] || '').padEnd(9, '0'));
}
const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

// Returns null when equal, else a description.
function cmp(l, d, type, path) {
  if (d === null || d === undefined) return l === null ? null : `${path}: loom ${show(l)}, DuckDB null`;
  if (l === null) return `${path}: loom null, DuckDB ${show(d)}`;
  const bad = () => `${path}: loom ${show(l)}, DuckDB ${show(d)} (${type.toString()})`;
  switch (type.typeId) {
    case T.BOOLEAN: return l === d ? null : bad();
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT: {
      const t = numText(l);
      if (t === undefined || !/^-?\d+$/.test(t)) return bad();
      return BigInt(t) === BigInt(d) ? null : bad();
    }
    case T.FLOAT: case T.DOUBLE: {
      const t = numText(l);
      if (t === undefined) return bad();
      let x = Number(t);
      if (type.typeId === T.FLOAT) x = Math.fround(x);
      if (Number.isNaN(x) && Number.isNaN(d)) return null;
      return Object.is(x, d) ? null : bad();
    }
    case T.DECIMAL: {
      if (typeof l !== 'string') return bad();
      const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(l);
      if (!m || (m[3] || '').length !== d.scale) return bad();
      return BigInt(m[1] + m[2] + (m[3] || '')) === d.value ? null : bad();
    }
    case T.VARCHAR: case T.ENUM: return l === d ? null : bad();
    case T.BLOB: case T.GEOMETRY: return l === hex(d.bytes) ? null : bad();  // GEOMETRY: WKB bytes
    case T.UUID: return l === d.toString() ? null : bad();
    case T.DATE: return l === d.toString() ? null : bad();
    case T.TIME: { const n = typeof l === 'string' ? todNanos(l) : undefined; return n !== undefined && floorDiv(n, 1000n) === d.micros ? null : bad(); }
    case T.TIME_NS: { const n = typeof l === 'string' ? todNanos(l) : undefined; return n !== undefined && n === d.nanos ? null : bad(); }
    case T.TIMESTAMP: case T.TIMESTAMP_TZ: case T.TIMESTAMP_MS: case T.TIMESTAMP_NS: case T.TIMESTAMP_S: {
      const n = typeof l === 'string' ? tsNanos(l) : undefined;
      if (n === undefined) return bad();
      const want = type.typeId === T.TIMESTAMP_NS ? d.nanos : type.typeId === T.TIMESTAMP_MS ? d.millis * 1000000n
        : type.typeId === T.TIMESTAMP_S ? d.seconds * 1000000000n : d.micros * 1000n;
      const unit = type.typeId === T.TIMESTAMP_NS ? 1n : type.typeId === T.TIMESTAMP_MS ? 1000000n
        : type.typeId === T.TIMESTAMP_S ? 1000000000n : 1000n;
      // DuckDB reads INT96 at micros by flooring, and a nanosecond
      // timestamp with time zone at micros by truncating toward zero
      const trunc = (n / unit) * unit;
      return floorDiv(n, unit) * unit === want || trunc === want ? null : bad();
    }
    case T.INTERVAL: {
      if (!(l instanceof Map)) return bad();
      const ok = BigInt(l.get('months').num) === BigInt(d.months) && BigInt(l.get('days').num) === BigInt(d.days)
        && BigInt(l.get('millis').num) * 1000n === d.micros;
      return ok ? null : bad();
    }
    case T.LIST: case T.ARRAY: {
      if (!Array.isArray(l) || l.length !== d.items.length) return bad();
      for (let k = 0; k < l.length; k++) {
        const r = cmp(l[k], d.items[k], type.valueType, `${path}[${k}]`);
        if (r) return r;
      }
      return null;
    }
    case T.STRUCT: {
      if (!(l instanceof Map) || l.size !== type.entryNames.length) return bad();
      for (let k = 0; k < type.entryNames.length; k++) {
        const name = type.entryNames[k];
        if (!l.has(name)) return `${path}: loom lacks field ${name}`;
        const r = cmp(l.get(name), d.entries[name], type.entryTypes[k], `${path}.${name}`);
        if (r) return r;
      }
      return null;
    }
    case T.MAP: {
      if (!Array.isArray(l) || l.length !== d.entries.length) return bad();
      for (let k = 0; k < l.length; k++) {
        if (!(l[k] instanceof Map)) return bad();
        const r = cmp(l[k].get('key'), d.entries[k].key, type.keyType, `${path}{${k}}.key`)
          || cmp(l[k].get('value'), d.entries[k].value, type.valueType, `${path}{${k}}.value`);
        if (r) return r;
      }
      return null;
    }
    default:
      return `${path}: DuckDB type ${type.toString()} has no comparison rule`;
  }
}

// `spec` is FILE, or "LOOMFILE=DUCKFILE": loom reads the first, DuckDB the
// second (the same data in an encoding DuckDB cannot read); a suffix
// "#a,b#N" selects columns a,b (--columns) and N rows (--limit) on both sides.
async function compareFile(conn, loom, spec) {
  const [fspec, cols, limit] = spec.split('#');
  const eq = fspec.indexOf('=');
  const file = eq < 0 ? fspec : fspec.slice(eq + 1);
  const args = ['parquet', 'cat', eq < 0 ? fspec : fspec.slice(0, eq)];
  if (cols) args.push('--columns', cols);
  if (limit) args.push('--limit', limit);
  const run = spawnSync(loom, args, { maxBuffer: 1 << 30, encoding: 'utf8' });
  if (run.status !== 0) return `loom failed (exit ${run.status}): ${(run.stderr || '').trim().slice(0, 300)}`;
  const lines = run.stdout.split('\n').filter((x) => x.length);
  let res;
  const sel = cols ? cols.split(',').map((c) => `"${c}"`).join(', ') : '*';
  try {
    res = await conn.runAndReadAll(`SELECT ${sel} FROM read_parquet('${file.replace(/'/g, "''")}')${limit ? ` LIMIT ${Number(limit)}` : ''}`);
  } catch (e) {
    return `DuckDB failed: ${e.message.split('\n')[0]}`;
  }
  const names = res.columnNames(), types = res.columnTypes(), rows = res.getRows();
  if (rows.length !== lines.length) return `row count: loom ${lines.length}, DuckDB ${rows.length}`;
  const errs = [];
  for (let r = 0; r < rows.length && errs.length < 5; r++) {
    let obj;
    try { obj = parseJson(lines[r]); } catch (e) { errs.push(`row ${r}: ${e.message}`); continue; }
    if (!(obj instanceof Map) || obj.size !== names.length) { errs.push(`row ${r}: loom has ${obj.size} fields, DuckDB ${names.length}`); continue; }
    for (let c = 0; c < names.length && errs.length < 5; c++) {
      if (!obj.has(names[c])) { errs.push(`row ${r}: loom lacks column ${names[c]}`); continue; }
      const e = cmp(obj.get(names[c]), rows[r][c], types[c], `row ${r} ${names[c]}`);
      if (e) errs.push(e);
    }
  }
  return errs.length ? errs.join('\n    ') : { rows: rows.length };
}

// ---- footer metadata: `loom parquet meta` vs DuckDB's parquet_metadata,
// parquet_schema and parquet_file_metadata ----
const ENC = ['PLAIN', 'GROUP_VAR_INT', 'PLAIN_DICTIONARY', 'RLE', 'BIT_PACKED', 'DELTA_BINARY_PACKED',
  'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY', 'RLE_DICTIONARY', 'BYTE_STREAM_SPLIT'];
const TYPE = { boolean: 'BOOLEAN', int32: 'INT32', int64: 'INT64', int96: 'INT96', float: 'FLOAT', double: 'DOUBLE',
  binary: 'BYTE_ARRAY', fixed_len_byte_array: 'FIXED_LEN_BYTE_ARRAY' };
const txt = (v) => (v === null || v === undefined ? null : v instanceof Map ? '[object]' : typeof v === 'object' && 'num' in v ? v.num : String(v));

async function compareMeta(conn, loom, file) {
  const run = spawnSync(loom, ['parquet', 'meta', file], { maxBuffer: 1 << 28, encoding: 'utf8' });
  if (run.status !== 0) return `loom failed (exit ${run.status}): ${(run.stderr || '').trim().slice(0, 300)}`;
  let m;
  try { m = parseJson(run.stdout.trim()); } catch (e) { return e.message; }
  const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
  const lit = file.replace(/'/g, "''");
  let fm, md, sc;
  try {
    [fm] = await q(`SELECT * FROM parquet_file_metadata('${lit}')`);
    md = await q(`SELECT * FROM parquet_metadata('${lit}') ORDER BY row_group_id, column_id`);
    sc = await q(`SELECT * FROM parquet_schema('${lit}')`);
  } catch (e) { return `DuckDB failed: ${e.message.split('\n')[0]}`; }
  const errs = [];
  const eq = (what, a, b) => { if (String(a) !== String(b)) errs.push(`${what}: loom ${a}, DuckDB ${b}`); };
  eq('num_rows', txt(m.get('num_rows')), fm.num_rows);
  eq('version', txt(m.get('version')), fm.format_version);
  eq('created_by', txt(m.get('created_by')), fm.created_by);
  eq('file_size', txt(m.get('file_size')), fm.file_size_bytes);
  const rgs = m.get('row_groups');
  eq('row groups', rgs.length, fm.num_row_groups);
  const schema = m.get('schema');
  eq('schema elements', schema.length, sc.length);
  for (let i = 0; i < Math.min(schema.length, sc.length); i++) {
    const a = schema[i], b = sc[i], w = `schema[${i}]`;
    eq(`${w}.name`, a.get('name'), b.name);
    eq(`${w}.type`, a.has('type') ? TYPE[a.get('type')] : null, b.type);
    eq(`${w}.repetition`, a.get('repetition') ?? null, b.repetition_type);
    eq(`${w}.num_children`, txt(a.get('num_children')), b.num_children);
    eq(`${w}.converted_type`, a.get('converted_type') ?? null, b.converted_type);
    if (b.type === 'FIXED_LEN_BYTE_ARRAY') eq(`${w}.type_length`, txt(a.get('type_length')), b.type_length);
    if (b.scale !== null || a.has('scale')) { eq(`${w}.scale`, txt(a.get('scale')) ?? '0', b.scale ?? '0'); eq(`${w}.precision`, txt(a.get('precision')) ?? '0', b.precision ?? '0'); }
    eq(`${w}.field_id`, txt(a.get('field_id')), b.field_id);
  }
  let k = 0;
  for (let g = 0; g < rgs.length; g++) {
    const cols = rgs[g].get('columns');
    for (let c = 0; c < cols.length; c++, k++) {
      const a = cols[c], b = md[k], w = `rg ${g} col ${c}`;
      if (!b) { errs.push(`${w}: DuckDB has no such column chunk`); break; }
      eq(`${w} row_group_id`, g, b.row_group_id);
      eq(`${w} column_id`, c, b.column_id);
      eq(`${w} rows`, txt(rgs[g].get('num_rows')), b.row_group_num_rows);
      eq(`${w} path`, a.get('path'), b.path_in_schema.split(', ').join('.'));
      eq(`${w} type`, TYPE[a.get('type')], b.type);
      eq(`${w} codec`, a.get('codec').toUpperCase().replace('LZ4_RAW', 'LZ4_RAW'), b.compression);
      eq(`${w} encodings`, a.get('encodings').map((e) => ENC[Number(e.num)] ?? e.num).join(', '), b.encodings);
      eq(`${w} num_values`, txt(a.get('num_values')), b.num_values);
      eq(`${w} compressed`, txt(a.get('total_compressed_size')), b.total_compressed_size);
      eq(`${w} uncompressed`, txt(a.get('total_uncompressed_size')), b.total_uncompressed_size);
      eq(`${w} data_page_offset`, txt(a.get('data_page_offset')), b.data_page_offset);
      eq(`${w} dictionary_page_offset`, txt(a.get('dictionary_page_offset')), b.dictionary_page_offset);
      eq(`${w} index_page_offset`, txt(a.get('index_page_offset')), b.index_page_offset);
      const st = a.get('statistics');
      eq(`${w} null_count`, st ? txt(st.get('null_count')) : null, b.stats_null_count);
      eq(`${w} distinct_count`, st ? txt(st.get('distinct_count')) : null, b.stats_distinct_count);
      const bf = a.get('bloom_filter');
      eq(`${w} bloom_filter_offset`, bf ? txt(bf[0]) : null, b.bloom_filter_offset);
      // plain integer columns: min/max exactly
      const leaf = schema.find((n) => n.get('name') === a.get('path').split('.').pop());
      if (st && (b.type === 'INT32' || b.type === 'INT64') && leaf && !leaf.has('logical_type') && !leaf.has('converted_type')) {
        for (const [lk, dk] of [['min_value', 'stats_min_value'], ['max_value', 'stats_max_value'], ['min', 'stats_min'], ['max', 'stats_max']])
          eq(`${w} ${lk}`, txt(st.get(lk)), b[dk]);
      }
      if (errs.length > 5) break;
    }
  }
  if (k !== md.length) errs.push(`column chunks: loom ${k}, DuckDB ${md.length}`);
  return errs.length ? errs.slice(0, 6).join('\n    ') : { rows: k };
}

(async () => {
  let [loom, ...files] = process.argv.slice(2);
  let mode = compareFile;
  if (loom === '--meta') { mode = compareMeta; [loom, ...files] = files; }
  const inst = await api.DuckDBInstance.create(':memory:');
  const conn = await inst.connect();
  await conn.run('SET threads=1');
  let failed = 0;
  for (const f of files) {
    const r = await mode(conn, loom, f);
    if (typeof r === 'string') { failed++; console.log(`FAIL ${f}: ${r}`); }
    else console.log(`ok ${f} ${mode === compareMeta ? 'column chunks' : 'rows'}=${r.rows}`);
  }
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(2); });
