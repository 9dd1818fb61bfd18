#!/usr/bin/env node
// Judges what `loom inspect` says about a table's modern features against
// the oracle's snapshot of the same version (and the log files themselves),
// without loom's code:
//   - clustering columns: the oracle's domainMetadata delta.clustering (or
//     the preview's delta.liquid), each column a name, a path of names or
//     {"physicalName": [...]}, shown dot-joined, and the logical path each
//     names in the oracle's schema (physical names under column mapping);
//   - row tracking: writer feature rowTracking (supported), property
//     delta.enableRowTracking (enabled), domain delta.rowTracking's
//     rowIdHighWaterMark;
//   - checkpoint: the oracle's checkpoint version, kind and files; the
//     sidecars counted in the top-level file (JSON lines here, Parquet
//     through DuckDB);
//   - in-commit timestamps: writer feature inCommitTimestamp and
//     delta.enableInCommitTimestamps (enabled), the enablement version and
//     timestamp properties, and the inCommitTimestamp of the version's
//     commit file.
// Both outputs are checked: --json members and the text lines.
//   inspect_check.cjs TABLE_DIR ORACLE_SNAPSHOT.json INSPECT.json INSPECT.txt
// Prints what it checked; exit 1 with the differences on stderr.
const fs = require('fs');
const path = require('path');

const [dir, oraclePath, jsonPath, textPath] = process.argv.slice(2);
const o = JSON.parse(fs.readFileSync(oraclePath, 'utf8'));
const l = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
const text = fs.readFileSync(textPath, 'utf8').split('\n');
const logDir = path.join(dir, '_delta_log');
const errs = [];
const same = (what, got, want) => {
  if (JSON.stringify(got) !== JSON.stringify(want))
    errs.push(`${what}: loom ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
};
const line = (prefix) => text.filter((t) => t.startsWith(prefix));
const textLine = (what, prefix, want) => {
  const got = line(prefix);
  if (want === null) { if (got.length) errs.push(`text: unexpected "${got[0]}"`); return; }
  if (got.length !== 1 || got[0] !== want) errs.push(`text ${what}: "${got.join('|')}", expected "${want}"`);
};
const wf = new Set(o.protocol.writerFeatures || []);
const conf = o.metadata.configuration || {};
const dm = o.domainMetadata || {};
const num = (v) => (v === undefined || v === null ? null : Number(v));

// ---- clustering ----------------------------------------------------------
// a physical path -> the schema's logical path (null: not in the schema);
// physical names may hold dots, so each level takes a whole-name prefix
const mapped = ['id', 'name'].includes(conf['delta.columnMapping.mode']);
const logical = (p) => {
  let type = o.metadata.schema, out = [];
  while (type && type.type === 'struct') {
    let hit = null;
    for (const f of type.fields) {
      const phys = mapped ? f.metadata['delta.columnMapping.physicalName'] : f.name;
      if ((p === phys || p.startsWith(phys + '.')) && (!hit || phys.length > hit[1].length)) hit = [f, phys];
    }
    if (!hit) return null;
    out.push(hit[0].name);
    if (p === hit[1]) return out.join('.');
    p = p.slice(hit[1].length + 1);
    type = hit[0].type;
  }
  return null;
};
let clustering = null;
const cdom = dm['delta.clustering'] !== undefined ? 'delta.clustering'
  : dm['delta.liquid'] !== undefined ? 'delta.liquid' : null;
if (cdom) {
  const cols = JSON.parse(dm[cdom]).clusteringColumns.map((c) => {
    if (c && !Array.isArray(c) && typeof c === 'object') c = c.physicalName;
    return Array.isArray(c) ? c.join('.') : c;
  });
  clustering = { columns: cols, logicalColumns: cols.map(logical), domain: cdom };
}
same('clustering', l.clustering, clustering);
const shown = (c, i) => {
  const lg = clustering.logicalColumns[i];
  return lg === null ? `${c} (not in the schema)` : lg !== c ? `${lg} (physical ${c})` : c;
};
textLine('clustering', 'clustered by:', clustering === null ? null
  : 'clustered by: ' + (clustering.columns.length ? clustering.columns.map(shown).join(', ') : 'none (no clustering columns)'));

// ---- row tracking --------------------------------------------------------
const hwm = dm['delta.rowTracking'] !== undefined ? JSON.parse(dm['delta.rowTracking']).rowIdHighWaterMark : null;
const rt = { supported: wf.has('rowTracking'), enabled: conf['delta.enableRowTracking'] === 'true', highWaterMark: hwm };
same('rowTracking', l.rowTracking, rt);
textLine('row tracking', 'row tracking:', !rt.supported && hwm === null ? null
  : 'row tracking: ' + (rt.enabled ? 'enabled' : 'supported, not enabled') +
    (hwm === null ? '' : `, high-water mark ${hwm}`));

// ---- in-commit timestamps ------------------------------------------------
let latest = null;
const commit = path.join(logDir, String(o.version).padStart(20, '0') + '.json');
if (fs.existsSync(commit)) {
  for (const s of fs.readFileSync(commit, 'utf8').split('\n')) {
    if (!s.trim()) continue;
    const a = JSON.parse(s);
    if (a.commitInfo) { latest = num(a.commitInfo.inCommitTimestamp); break; }
  }
}
const ict = { enabled: wf.has('inCommitTimestamp') && conf['delta.enableInCommitTimestamps'] === 'true',
  enablementVersion: num(conf['delta.inCommitTimestampEnablementVersion']),
  enablementTimestamp: num(conf['delta.inCommitTimestampEnablementTimestamp']), latest };
same('inCommitTimestamps', l.inCommitTimestamps, ict);
const iso = (ms) => new Date(ms).toISOString();
textLine('in-commit timestamps', 'in-commit timestamps:', !ict.enabled ? null
  : 'in-commit timestamps: enabled' +
    (ict.enablementVersion === null ? '' : ` since version ${ict.enablementVersion}`) +
    (ict.enablementTimestamp === null ? '' : ` (${iso(ict.enablementTimestamp)})`) +
    (latest === null ? '' : `; this version ${iso(latest)}`));

// ---- checkpoint ----------------------------------------------------------
(async () => {
  let ck = null;
  if (o.checkpoint) {
    const files = o.checkpoint.files.map((f) => path.join(logDir, f));
    let sidecars = 0;
    if (o.checkpoint.kind === 'v2-json') {
      for (const s of fs.readFileSync(files[0], 'utf8').split('\n'))
        if (s.trim() && JSON.parse(s).sidecar) sidecars++;
    } else {
      const api = require('@duckdb/node-api');
      const conn = await (await api.DuckDBInstance.create(':memory:')).connect();
      const q = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJson();
      const list = '[' + files.map((f) => `'${f.replace(/'/g, "''")}'`).join(',') + ']';
      const cols = (await q(`DESCRIBE SELECT * FROM read_parquet(${list}, union_by_name=true)`)).map((r) => r.column_name);
      if (cols.includes('sidecar'))
        sidecars = Number((await q(`SELECT count(sidecar) n FROM read_parquet(${list}, union_by_name=true)`))[0].n);
    }
    ck = { version: o.checkpoint.version, kind: o.checkpoint.kind, parts: files.length, sidecars };
  }
  same('checkpoint', l.checkpoint, ck);
  const cl = line('checkpoint:');
  if (ck === null) {
    if (cl.length !== 1 || !cl[0].startsWith('checkpoint:   none used')) errs.push(`text checkpoint: "${cl.join('|')}"`);
  } else {
    const s = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
    const want = `checkpoint:   version ${ck.version} (${ck.kind}, ${s(ck.parts, 'file')}, ${s(ck.sidecars, 'sidecar')})`;
    if (cl.length !== 1 || !cl[0].startsWith(want)) errs.push(`text checkpoint: "${cl.join('|')}", expected "${want}..."`);
  }
  same('version', l.version, o.version);
  if (errs.length) { console.error(`inspect_check ${path.basename(dir)}@${o.version}:\n  ` + errs.join('\n  ')); process.exit(1); }
  console.log(`${path.basename(dir)}@${o.version}: clustering ${clustering ? clustering.columns.map(shown).join(',') || '[]' : '-'}, ` +
    `hwm ${hwm ?? '-'}, checkpoint ${ck ? `${ck.version} ${ck.kind} ${ck.parts}p ${ck.sidecars}s` : '-'}, ` +
    `ict ${ict.enabled ? `v${ict.enablementVersion ?? 0} latest ${latest}` : '-'}`);
})().catch((e) => { console.error('inspect_check: ' + e.stack); process.exit(1); });
