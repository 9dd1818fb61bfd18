#!/usr/bin/env node
// log_replay_gen.cjs DIR [COMMITS] [SEED]: a Delta table of COMMITS commits
// (default 100,000; versions 0..COMMITS-1) and no checkpoint, written as
// Spark writes them, for the log-replay benchmark (issue 30). Deterministic:
// the same COMMITS and SEED give the same bytes.
//
// Version 0 creates the table (commitInfo, protocol, metaData). Every later
// version is one of:
//   - an append (about 80%): commitInfo and 1-4 adds in date/region
//     partitions, each with stats (numRecords, minValues, maxValues,
//     nullCount) and, for some, Databricks' insertion-time tags; one in 20
//     carries a streaming txn (appId, version);
//   - a DELETE (about 10%): 1-2 live files removed, one rewritten file
//     added (dataChange true);
//   - an OPTIMIZE (about 10%): 2-8 live files removed and one compacted
//     file added (dataChange false),
// so a file's last action decides and the replay has something to
// reconcile. Only the log is written: no data file exists (a snapshot load
// reads the log alone). Prints one JSON line: what was written.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.argv[2];
const commits = Number(process.argv[3] || 100000);
let seed = Number(process.argv[4] || 30) >>> 0;
if (!dir || !(commits >= 1)) {
  console.error('usage: log_replay_gen.cjs DIR [COMMITS] [SEED]');
  process.exit(2);
}

// mulberry32: small, seeded, the same sequence on every platform
function rand() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const hex = (n) => { let s = ''; while (s.length < n) s += (int(0, 0xffff) | 0x10000).toString(16).slice(1); return s.slice(0, n); };
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

const T0 = Date.UTC(2024, 0, 1);           // the first commit's time
const REGIONS = ['us-east', 'us-west', 'eu-central', 'ap-south'];
const NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const logDir = path.join(dir, '_delta_log');
fs.mkdirSync(logDir, { recursive: true });

const schema = JSON.stringify({ type: 'struct', fields: [
  { name: 'id', type: 'long', nullable: true, metadata: {} },
  { name: 'ts', type: 'timestamp', nullable: true, metadata: {} },
  { name: 'amount', type: 'double', nullable: true, metadata: {} },
  { name: 'name', type: 'string', nullable: true, metadata: {} },
  { name: 'date', type: 'string', nullable: true, metadata: {} },
  { name: 'region', type: 'string', nullable: true, metadata: {} }] });

const live = [];                           // files not removed yet
let nextId = 0, adds = 0, removes = 0, txns = 0;

function isoDay(ms) { return new Date(ms).toISOString().slice(0, 10); }

function newFile(v, now, rows) {
  const day = isoDay(T0 + Math.floor(v / 300) * 86400000);
  const region = REGIONS[int(0, REGIONS.length - 1)];
  const firstId = nextId; nextId += rows;
  const minTs = new Date(now - int(0, 3600000)).toISOString();
  const f = {
    path: `date=${day}/region=${region}/part-${String(int(0, 199)).padStart(5, '0')}-${uuid()}.c000.snappy.parquet`,
    partitionValues: { date: day, region },
    size: 2000 + rows * int(18, 40),
    modificationTime: now,
    dataChange: true,
    stats: JSON.stringify({
      numRecords: rows,
      minValues: { id: firstId, ts: minTs, amount: int(0, 999) / 10, name: NAMES[int(0, 3)] },
      maxValues: { id: firstId + rows - 1, ts: new Date(now).toISOString(), amount: int(1000, 99999) / 10, name: NAMES[int(4, 7)] },
      nullCount: { id: 0, ts: 0, amount: int(0, 3), name: int(0, 9) } }),
  };
  if (rand() < 0.3) {
    const t = String(now * 1000);
    f.tags = { INSERTION_TIME: t, MIN_INSERTION_TIME: t, MAX_INSERTION_TIME: t, OPTIMIZE_TARGET_SIZE: '268435456' };
  }
  return f;
}

function takeLive() {
  const i = int(0, live.length - 1);
  const f = live[i];
  live[i] = live[live.length - 1];
  live.pop();
  return f;
}

function remove(f, now, dataChange) {
  removes++;
  return JSON.stringify({ remove: { path: f.path, deletionTimestamp: now, dataChange,
    extendedFileMetadata: true, partitionValues: f.partitionValues, size: f.size, stats: f.stats } });
}

function add(f) {
  adds++;
  live.push(f);
  return JSON.stringify({ add: f });
}

function commitInfo(v, now, operation, params, metrics, blind) {
  return JSON.stringify({ commitInfo: { timestamp: now, operation, operationParameters: params,
    readVersion: v > 0 ? v - 1 : undefined, isolationLevel: 'Serializable', isBlindAppend: blind,
    operationMetrics: metrics, engineInfo: 'Apache-Spark/3.5.1 Delta-Lake/3.2.0', txnId: uuid() } });
}

const name = (v) => path.join(logDir, String(v).padStart(20, '0') + '.json');
for (let v = 0; v < commits; v++) {
  const now = T0 + v * 1000;
  const lines = [];
  if (v === 0) {
    lines.push(commitInfo(0, now, 'CREATE TABLE', { isManaged: 'false', description: null,
      partitionBy: '["date","region"]', properties: '{}' }, {}, true));
    lines.push(JSON.stringify({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }));
    lines.push(JSON.stringify({ metaData: { id: uuid(), format: { provider: 'parquet', options: {} },
      schemaString: schema, partitionColumns: ['date', 'region'], configuration: {}, createdTime: now } }));
  } else {
    const kind = rand();
    if (kind < 0.8 || live.length < 10) {
      const n = int(1, 4), files = [];
      let rows = 0, bytes = 0;
      for (let i = 0; i < n; i++) {
        const r = int(1000, 200000), f = newFile(v, now, r);
        files.push(f); rows += r; bytes += f.size;
      }
      lines.push(commitInfo(v, now, 'WRITE', { mode: 'Append', partitionBy: '["date","region"]' },
        { numFiles: String(n), numOutputRows: String(rows), numOutputBytes: String(bytes) }, true));
      if (v % 20 === 0) {
        txns++;
        lines.push(JSON.stringify({ txn: { appId: `stream-${v % 3}`, version: v, lastUpdated: now } }));
      }
      for (const f of files) lines.push(add(f));
    } else if (kind < 0.9) {
      const gone = [], n = int(1, 2);
      for (let i = 0; i < n; i++) gone.push(takeLive());
      const f = newFile(v, now, int(500, 100000));
      lines.push(commitInfo(v, now, 'DELETE', { predicate: `["(id#1L < ${int(0, nextId)})"]` },
        { numRemovedFiles: String(n), numAddedFiles: '1', numDeletedRows: String(int(1, 999)) }, false));
      for (const g of gone) lines.push(remove(g, now, true));
      lines.push(add(f));
    } else {
      const gone = [], n = int(2, 8);
      for (let i = 0; i < n; i++) gone.push(takeLive());
      const f = newFile(v, now, gone.reduce((s, g) => s + JSON.parse(g.stats).numRecords, 0));
      f.dataChange = false;
      lines.push(commitInfo(v, now, 'OPTIMIZE', { predicate: '[]', zOrderBy: '[]' },
        { numRemovedFiles: String(n), numAddedFiles: '1' }, false));
      for (const g of gone) lines.push(remove(g, now, false));
      lines.push(add(f));
    }
  }
  fs.writeFileSync(name(v), lines.join('\n') + '\n');
}
console.log(JSON.stringify({ commits, adds, removes, txns, live: live.length }));
