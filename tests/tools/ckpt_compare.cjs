#!/usr/bin/env node
// Checks for the checkpoint tests (independent of loom: reads oracle output
// and DuckDB only).
//   ckpt_compare.cjs snap REF.json GOT.json [--numrecords-only]
//       GOT (oracle snapshot through loom's checkpoint) must equal REF (oracle
//       snapshot without it): version, protocol, metadata, txns, domains,
//       live files (path, size, partitionValues, stats, DV, modificationTime),
//       and REF's tombstones whose deletionTimestamp is newer than now -
//       delta.deletedFileRetentionDuration (the expired ones must be gone);
//       with --same all of REF's tombstones.
//   ckpt_compare.cjs loom ORACLE.json LOOM_INSPECT.json
//       loom's own snapshot lists the same files (path, size, partition
//       values, numRecords, DV) as the oracle's.
//   ckpt_compare.cjs duck FILE.parquet ACTIONS ADDS
//       DuckDB reads the checkpoint directly: ACTIONS rows, ADDS add rows,
//       every row exactly one non-null action struct.
const fs = require('fs');
const [mode, ...args] = process.argv.slice(2);
const fail = (msg) => { console.error('ckpt_compare: ' + msg); process.exit(1); };
const canon = (v) => JSON.stringify(v, (k, x) => (x && typeof x === 'object' && !Array.isArray(x))
  ? Object.keys(x).sort().reduce((o, kk) => { o[kk] = x[kk]; return o; }, {}) : x);
const eq = (a, b) => canon(a) === canon(b);

function intervalMs(s) {
  if (!s) return 7 * 86400000;
  const units = { millisecond: 1, second: 1000, minute: 60000, hour: 3600000, day: 86400000, week: 604800000 };
  let total = 0, m; const re = /(-?\d+)\s*(millisecond|second|minute|hour|day|week)s?/gi;
  while ((m = re.exec(s))) total += Number(m[1]) * units[m[2].toLowerCase()];
  return total;
}

function fileKey(f) { return f.path + '|' + canon(f.deletionVector || null); }

if (mode === 'snap') {
  const ref = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const got = JSON.parse(fs.readFileSync(args[1], 'utf8'));
  const nrOnly = args.includes('--numrecords-only');
  const errs = [];
  // A null field and an absent one are the same action (a checkpoint has a
  // column for every field; "any missing column should be treated as null").
  const strip = (v) => JSON.parse(JSON.stringify(v ?? null, (k, x) => (x === null && k !== '') ? undefined : x));
  for (const k of ['version', 'protocol', 'metadata', 'txns', 'domainMetadata', 'numFiles', 'totalBytes'])
    if (!eq(strip(ref[k]), strip(got[k]))) errs.push(`${k}: ${canon(ref[k]).slice(0, 300)} != ${canon(got[k]).slice(0, 300)}`);
  const norm = (f) => ({ path: f.path, size: f.size, partitionValues: f.partitionValues || {},
    stats: nrOnly ? (f.stats ? f.stats.numRecords : null) : f.stats, dv: f.deletionVector || null,
    modificationTime: f.modificationTime });
  const rf = new Map(ref.files.map((f) => [fileKey(f), norm(f)]));
  const gf = new Map(got.files.map((f) => [fileKey(f), norm(f)]));
  for (const [k, f] of rf) if (!gf.has(k)) errs.push('file missing: ' + k); else if (!eq(f, gf.get(k))) errs.push(`file differs: ${canon(f)} != ${canon(gf.get(k))}`);
  for (const k of gf.keys()) if (!rf.has(k)) errs.push('extra file: ' + k);
  // --same: both sides are snapshots of the same log state (before/after a
  // cleanup): tombstones must be identical, none is expired by the test.
  const cutoff = args.includes('--same') ? -Infinity : Date.now() - intervalMs((ref.metadata.configuration || {})['delta.deletedFileRetentionDuration']);
  const tn = (t) => ({ path: t.path, deletionTimestamp: t.deletionTimestamp, size: t.size, dv: t.deletionVector || null });
  const rt = new Map(ref.tombstones.filter((t) => Number(t.deletionTimestamp || 0) > cutoff).map((t) => [fileKey(t), tn(t)]));
  const gt = new Map(got.tombstones.map((t) => [fileKey(t), tn(t)]));
  for (const [k, t] of rt) if (!gt.has(k)) errs.push('tombstone missing: ' + k); else if (!eq(t, gt.get(k))) errs.push(`tombstone differs: ${canon(t)} != ${canon(gt.get(k))}`);
  for (const k of gt.keys()) if (!rt.has(k)) errs.push('expired or unknown tombstone kept: ' + k);
  if (errs.length) fail(errs.slice(0, 10).join('\n'));
  console.log(`same state: version ${got.version}, ${got.files.length} files, ${gt.size} tombstones (${ref.tombstones.length - rt.size} expired dropped)`);
} else if (mode === 'loom') {
  const o = JSON.parse(fs.readFileSync(args[0], 'utf8'));
  const l = JSON.parse(fs.readFileSync(args[1], 'utf8'));
  const errs = [];
  if (o.version !== l.version) errs.push(`version ${o.version} != ${l.version}`);
  const on = (f) => canon({ path: f.path, size: f.size, pv: f.partitionValues || {}, nr: f.stats ? (f.stats.numRecords ?? null) : null, dv: f.deletionVector ? f.deletionVector.storageType + f.deletionVector.pathOrInlineDv + '#' + f.deletionVector.cardinality : null });
  const ln = (f) => canon({ path: f.path, size: f.size, pv: f.partitionValues || {}, nr: f.numRecords ?? null, dv: f.deletionVector ? f.deletionVector.storageType + f.deletionVector.pathOrInlineDv + '#' + f.deletionVector.cardinality : null });
  const a = o.files.map(on).sort(), b = l.files.map(ln).sort();
  if (a.length !== b.length) errs.push(`${a.length} files != ${b.length}`);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) { errs.push(`${a[i]} != ${b[i]}`); break; }
  if (errs.length) fail(errs.join('\n'));
  console.log(`loom lists the same ${b.length} files`);
} else if (mode === 'duck') {
  const api = require('@duckdb/node-api');
  (async () => {
    const inst = await api.DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
    const f = args[0].replace(/'/g, "''");
    const cols = (await q(`SELECT name FROM parquet_schema('${f}') WHERE name IN ('txn','add','remove','metaData','protocol','domainMetadata','checkpointMetadata')`)).map((r) => r.name);
    const nonNull = cols.map((c) => `(CASE WHEN "${c}" IS NULL THEN 0 ELSE 1 END)`).join('+');
    const r = (await q(`SELECT count(*) AS n, count("add") AS adds, count(*) FILTER (WHERE ${nonNull} <> 1) AS bad, count("protocol") AS p, count("metaData") AS m FROM read_parquet('${f}')`))[0];
    const errs = [];
    if (Number(r.n) !== Number(args[1])) errs.push(`rows ${r.n} != ${args[1]}`);
    if (Number(r.adds) !== Number(args[2])) errs.push(`adds ${r.adds} != ${args[2]}`);
    if (Number(r.bad) !== 0) errs.push(`${r.bad} rows without exactly one action`);
    if (Number(r.p) !== 1 || Number(r.m) !== 1) errs.push(`protocol rows ${r.p}, metaData rows ${r.m}`);
    if (errs.length) fail(errs.join('\n'));
    console.log(`duckdb: ${r.n} rows, ${r.adds} adds, one action per row`);
  })().catch((e) => fail(String(e)));
} else {
  fail('usage: snap|loom|duck ...');
}
