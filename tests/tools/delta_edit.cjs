#!/usr/bin/env node
// Appends one commit to a Delta table the way another writer (Spark) would,
// so tests can give fixture copies table features loom must honour. It
// replays the JSON commits itself (no loom code).
//   delta_edit.cjs TABLE [options]
//     --features r:NAME,w:NAME,...  add reader+writer (r:) or writer-only (w:)
//                                   features; a legacy protocol becomes
//                                   reader 3 / writer 7 with the features its
//                                   versions implied listed explicitly
//     --drop-features NAME,...      remove features from both lists (as
//                                   DROP FEATURE does)
//     --set KEY=VALUE               set a table property (repeatable)
//     --ict MS                      commitInfo.inCommitTimestamp (and
//                                   timestamp) = MS; with "now" the clock
//     --ict-enable                  also set delta.enableInCommitTimestamps
//                                   and the enablement version/timestamp
//                                   properties to this commit (needs --ict)
//     --remove-all TS               remove every live file, deletionTimestamp TS
//     --domain NAME=CONFIG          a domainMetadata action (CONFIG: the
//                                   configuration string, JSON text)
//     --remove-domain NAME          a domainMetadata action removing NAME
//                                   (with its last configuration, as Spark)
//     --add PATH=ROWS               add an existing data file (relative path)
//                                   of ROWS rows, dataChange=true (repeatable)
//     --add-provider NAME           the --add files carry clusteringProvider
//                                   NAME (another engine's clustering)
//     --backfill-row-ids            give every live file without baseRowId
//                                   one (high-water mark + 1 on, in path
//                                   order, numRecords rows each) and
//                                   defaultRowCommitVersion = this version,
//                                   re-adding it with dataChange=false, and
//                                   write the delta.rowTracking domain (as
//                                   Delta's row tracking backfill does)
//     --version V                   write version V (default latest + 1)
// Prints the version written.
const fs = require('fs');
const path = require('path');

const args = process.argv.slice(2);
const dir = args.shift();
const logDir = path.join(dir, '_delta_log');
const opt = { features: [], drop: [], set: {}, ict: null, ictEnable: false, removeAll: null, version: null,
  domains: [], adds: [], backfill: false };
while (args.length) {
  const a = args.shift();
  if (a === '--features') opt.features.push(...args.shift().split(','));
  else if (a === '--drop-features') opt.drop.push(...args.shift().split(','));
  else if (a === '--set') { const kv = args.shift(); const i = kv.indexOf('='); opt.set[kv.slice(0, i)] = kv.slice(i + 1); }
  else if (a === '--ict') { const v = args.shift(); opt.ict = v === 'now' ? Date.now() : Number(v); }
  else if (a === '--ict-enable') opt.ictEnable = true;
  else if (a === '--remove-all') opt.removeAll = Number(args.shift());
  else if (a === '--version') opt.version = Number(args.shift());
  else if (a === '--domain') { const kv = args.shift(); const i = kv.indexOf('='); opt.domains.push([kv.slice(0, i), kv.slice(i + 1), false]); }
  else if (a === '--remove-domain') opt.domains.push([args.shift(), null, true]);
  else if (a === '--add') { const kv = args.shift(); const i = kv.lastIndexOf('='); opt.adds.push([kv.slice(0, i), Number(kv.slice(i + 1))]); }
  else if (a === '--backfill-row-ids') opt.backfill = true;
  else if (a === '--add-provider') opt.provider = args.shift();
  else { console.error('delta_edit: unknown option ' + a); process.exit(2); }
}

// replay the JSON commits (no checkpoints: fixture copies keep their commits)
const commits = fs.readdirSync(logDir).filter((n) => /^\d{20}\.json$/.test(n)).sort();
let protocol = null, metadata = null;
const live = new Map();
const domains = new Map();
for (const name of commits) {
  for (const line of fs.readFileSync(path.join(logDir, name), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const a = JSON.parse(line);
    if (a.protocol) protocol = a.protocol;
    if (a.metaData) metadata = a.metaData;
    if (a.add) live.set(a.add.path, a.add);
    if (a.remove) live.delete(a.remove.path);
    if (a.domainMetadata) domains.set(a.domainMetadata.domain, a.domainMetadata.configuration);
  }
}
if (!protocol || !metadata) { console.error('delta_edit: no protocol/metaData in the commits'); process.exit(2); }
const latest = commits.length ? Number(commits[commits.length - 1].slice(0, 20)) : -1;
const version = opt.version ?? latest + 1;

const lines = [];
const now = Date.now();
const info = { timestamp: opt.ict ?? now, operation: 'SET TBLPROPERTIES', operationParameters: {},
  readVersion: latest, isBlindAppend: false, engineInfo: 'delta_edit.cjs' };
if (opt.ict !== null) lines.push({ commitInfo: { inCommitTimestamp: opt.ict, ...info } });
else lines.push({ commitInfo: info });

if (opt.features.length || opt.drop.length) {
  const implied = { reader: { 2: ['columnMapping'] },
    writer: { 2: ['appendOnly', 'invariants'], 3: ['checkConstraints'], 4: ['changeDataFeed', 'generatedColumns'], 5: ['columnMapping'], 6: ['identityColumns'] } };
  const p = { ...protocol };
  let rf = p.readerFeatures ? [...p.readerFeatures] : [];
  let wf = p.writerFeatures ? [...p.writerFeatures] : [];
  if (p.minWriterVersion < 7) for (let v = 2; v <= p.minWriterVersion; v++) wf.push(...(implied.writer[v] || []));
  if (p.minReaderVersion < 3) for (let v = 2; v <= p.minReaderVersion; v++) rf.push(...(implied.reader[v] || []));
  let readerWanted = p.minReaderVersion === 3 || rf.length > 0;
  for (const f of opt.features) {
    const [kind, name] = f.split(':');
    if (kind === 'r') { rf.push(name); readerWanted = true; }
    wf.push(name);
  }
  rf = rf.filter((f) => !opt.drop.includes(f));
  wf = wf.filter((f) => !opt.drop.includes(f));
  const out = { minReaderVersion: readerWanted ? 3 : p.minReaderVersion, minWriterVersion: 7 };
  if (readerWanted) out.readerFeatures = [...new Set(rf)];
  out.writerFeatures = [...new Set(wf)];
  lines.push({ protocol: out });
}
if (Object.keys(opt.set).length || opt.ictEnable) {
  const md = { ...metadata, configuration: { ...metadata.configuration, ...opt.set } };
  if (opt.ictEnable) {
    md.configuration['delta.enableInCommitTimestamps'] = 'true';
    md.configuration['delta.inCommitTimestampEnablementVersion'] = String(version);
    md.configuration['delta.inCommitTimestampEnablementTimestamp'] = String(opt.ict);
  }
  lines.push({ metaData: md });
}
if (opt.removeAll !== null) {
  for (const a of live.values())
    lines.push({ remove: { path: a.path, deletionTimestamp: opt.removeAll, dataChange: true,
      extendedFileMetadata: true, partitionValues: a.partitionValues, size: a.size,
      ...(a.deletionVector ? { deletionVector: a.deletionVector } : {}) } });
}
for (const [p, rows] of opt.adds) {
  const add = { path: p, partitionValues: {}, size: fs.statSync(path.join(dir, p)).size,
    modificationTime: now, dataChange: true, stats: JSON.stringify({ numRecords: rows }),
    ...(opt.provider ? { clusteringProvider: opt.provider } : {}) };
  lines.push({ add });
  live.set(p, add);
}
if (opt.backfill) {
  let hwm = -1;
  if (domains.has('delta.rowTracking')) hwm = JSON.parse(domains.get('delta.rowTracking')).rowIdHighWaterMark;
  for (const a of live.values()) if (a.baseRowId !== undefined) hwm = Math.max(hwm, a.baseRowId + JSON.parse(a.stats).numRecords - 1);
  const paths = [...live.keys()].sort();
  for (const p of paths) {
    const a = live.get(p);
    if (a.baseRowId !== undefined) continue;
    const rows = JSON.parse(a.stats).numRecords;
    const fresh = { ...a, dataChange: false, baseRowId: hwm + 1, defaultRowCommitVersion: version };
    hwm += rows;
    const i = lines.findIndex((l) => l.add && l.add.path === p);
    if (i >= 0) lines[i] = { add: { ...fresh, dataChange: true } };
    else lines.push({ add: fresh });
  }
  lines.push({ domainMetadata: { domain: 'delta.rowTracking', configuration: JSON.stringify({ rowIdHighWaterMark: hwm }), removed: false } });
}
for (const [domain, config, removed] of opt.domains)
  lines.push({ domainMetadata: { domain, configuration: removed ? (domains.get(domain) ?? '{}') : config, removed } });
const file = path.join(logDir, String(version).padStart(20, '0') + '.json');
fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { flag: 'wx' });
console.log(version);
