#!/usr/bin/env node
// Checks a UUID-named V2 checkpoint as PROTOCOL.md describes it, without
// loom's code: the JSON top-level file is parsed here, the sidecars are
// read by DuckDB, and the _last_checkpoint checksum is recomputed from the
// "JSON checksum" rules (canonical text, MD5 from node's crypto).
//   v2_check.cjs TABLE_DIR VERSION FILES TOMBSTONES
//     FILES / TOMBSTONES: the live files and kept tombstones the checkpoint
//     must hold (from the oracle's snapshot through it).
// Exit 1 with the reasons on stderr when anything is off.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const [dir, versionArg, filesArg, tombsArg] = process.argv.slice(2);
const version = Number(versionArg);
const logDir = path.join(dir, '_delta_log');
const errs = [];
const pad = (n, w) => String(n).padStart(w, '0');

// PROTOCOL.md "JSON checksum", with Delta Spark's ordering of the pairs.
function checksum(obj) {
  const enc = (s) => '"' + Array.from(Buffer.from(String(s), 'utf8')).map((b) =>
    /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b)
      : '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('') + '"';
  const pairs = [];
  const walk = (v, p, top) => {
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v)) {
        if (top && k === 'checksum') continue;
        walk(x, [...p, Array.isArray(v) ? String(k) : enc(k)], false);
      }
    } else {
      pairs.push(p.join('+') + '=' + (typeof v === 'string' ? enc(v) : String(v)));
    }
  };
  walk(obj, [], true);
  pairs.sort();
  return crypto.createHash('md5').update(pairs.join(',')).digest('hex');
}

const tops = fs.readdirSync(logDir).filter((n) =>
  new RegExp(`^${pad(version, 20)}\\.checkpoint\\.[0-9a-f-]{36}\\.json$`).test(n));
if (tops.length !== 1) errs.push(`expected one UUID-named JSON checkpoint of ${version}, found ${tops.length}`);
const top = tops[0];
const lines = top ? fs.readFileSync(path.join(logDir, top), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)) : [];
const kinds = lines.map((a) => Object.keys(a)[0]);
const cms = lines.filter((a) => a.checkpointMetadata).map((a) => a.checkpointMetadata);
if (cms.length !== 1 || cms[0].version !== version) errs.push(`checkpointMetadata: ${JSON.stringify(cms)}`);
if (lines.some((a) => Object.keys(a).length !== 1)) errs.push('a line with more than one action');
if (kinds.includes('add') || kinds.includes('remove')) errs.push('file actions inline in a checkpoint with sidecars');
for (const k of ['commitInfo', 'cdc']) if (kinds.includes(k)) errs.push(`${k} in a checkpoint`);
if (kinds.filter((k) => k === 'protocol').length !== 1 || kinds.filter((k) => k === 'metaData').length !== 1)
  errs.push('protocol / metaData not exactly once');
const sidecars = lines.filter((a) => a.sidecar).map((a) => a.sidecar);
for (const s of sidecars) {
  if (s.path.includes('/')) errs.push(`sidecar path ${s.path} is not a plain name`);
  const st = fs.statSync(path.join(logDir, '_sidecars', decodeURIComponent(s.path)), { throwIfNoEntry: false });
  if (!st) { errs.push(`sidecar ${s.path} missing`); continue; }
  if (st.size !== s.sizeInBytes) errs.push(`sidecar ${s.path}: sizeInBytes ${s.sizeInBytes} != ${st.size}`);
  if (typeof s.modificationTime !== 'number') errs.push(`sidecar ${s.path}: no modificationTime`);
}
const want = Number(filesArg) + Number(tombsArg);
if (want === 0 && sidecars.length) errs.push('sidecars for a table without file actions');

// _last_checkpoint: Spark's fields, the V2 block, a checksum that verifies
let lc = null;
try { lc = JSON.parse(fs.readFileSync(path.join(logDir, '_last_checkpoint'), 'utf8')); } catch (e) { errs.push('_last_checkpoint: ' + e.message); }
if (lc) {
  if (lc.version !== version) errs.push(`_last_checkpoint.version ${lc.version}`);
  if (lc.checksum !== checksum(lc)) errs.push(`_last_checkpoint checksum ${lc.checksum} != ${checksum(lc)}`);
  const v2 = lc.v2Checkpoint || {};
  if (v2.path !== top) errs.push(`v2Checkpoint.path ${v2.path} != ${top}`);
  if (top && v2.sizeInBytes !== fs.statSync(path.join(logDir, top)).size) errs.push('v2Checkpoint.sizeInBytes');
  if (v2.sidecarFiles && JSON.stringify(v2.sidecarFiles) !== JSON.stringify(sidecars)) errs.push('v2Checkpoint.sidecarFiles differ from the file');
  if (lc.numOfAddFiles !== Number(filesArg)) errs.push(`numOfAddFiles ${lc.numOfAddFiles} != ${filesArg}`);
  if (lc.size !== lines.length + want) errs.push(`size ${lc.size} != ${lines.length + want}`);
}

(async () => {
  if (sidecars.length) {
    const api = require('@duckdb/node-api');
    const conn = await (await api.DuckDBInstance.create(':memory:')).connect();
    const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
    const list = '[' + sidecars.map((s) => `'${path.join(logDir, '_sidecars', s.path).replace(/'/g, "''")}'`).join(',') + ']';
    const cols = (await q(`DESCRIBE SELECT * FROM read_parquet(${list})`)).map((r) => r.column_name).sort();
    if (JSON.stringify(cols) !== '["add","remove"]') errs.push(`sidecar columns ${cols}`);
    const r = (await q(`SELECT count(*) n, count("add") a, count("remove") rm,
      count(*) FILTER (WHERE ("add" IS NULL) = ("remove" IS NULL)) bad FROM read_parquet(${list})`))[0];
    if (Number(r.a) !== Number(filesArg) || Number(r.rm) !== Number(tombsArg)) errs.push(`sidecars hold ${r.a} adds, ${r.rm} removes; want ${filesArg}, ${tombsArg}`);
    if (Number(r.bad)) errs.push(`${r.bad} sidecar rows without exactly one action`);
    const tags = cms[0] && cms[0].tags || {};
    if (Number(tags.sidecarNumActions) !== Number(r.n)) errs.push(`tag sidecarNumActions ${tags.sidecarNumActions} != ${r.n}`);
    if (Number(tags.numOfAddFiles) !== Number(filesArg)) errs.push(`tag numOfAddFiles ${tags.numOfAddFiles}`);
    const bytes = sidecars.reduce((a, s) => a + s.sizeInBytes, 0);
    if (Number(tags.sidecarSizeInBytes) !== bytes) errs.push(`tag sidecarSizeInBytes ${tags.sidecarSizeInBytes} != ${bytes}`);
  }
  if (errs.length) { console.error('v2_check: ' + errs.join('\n')); process.exit(1); }
  console.log(`v2 checkpoint ${top}: ${sidecars.length} sidecars, ${want} file actions, checksum ok`);
})().catch((e) => { console.error('v2_check: ' + e); process.exit(1); });
