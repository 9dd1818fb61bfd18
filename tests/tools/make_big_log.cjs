#!/usr/bin/env node
// make_big_log.cjs DIR NFILES NTOMB: a log-only Delta table (no data files)
// with a large state, for crash tests: commit 0 = protocol + metaData,
// commit 1 = NFILES adds (with stats), commit 2 = removes of the first
// NTOMB of them with a recent deletionTimestamp (kept tombstones) and a
// txn, commit 3 = a domainMetadata-free append of one more file.
const fs = require('fs');
const [dir, nfiles, ntomb] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
fs.mkdirSync(dir + '/_delta_log', { recursive: true });
const v = (n) => String(n).padStart(20, '0');
const now = Date.now();
const schema = JSON.stringify({ type: 'struct', fields: [{ name: 'id', type: 'long', nullable: true, metadata: {} }, { name: 'p', type: 'string', nullable: true, metadata: {} }] });
const add = (i) => JSON.stringify({ add: { path: `p=${i % 7}/f-${i}.parquet`, partitionValues: { p: String(i % 7) }, size: 1000 + i,
  modificationTime: now - 1000, dataChange: true, stats: JSON.stringify({ numRecords: i % 100, minValues: { id: i }, maxValues: { id: i + 5 }, nullCount: { id: 0 } }),
  tags: i % 3 === 0 ? { INSERTION_TIME: String(now) } : undefined } });
fs.writeFileSync(`${dir}/_delta_log/${v(0)}.json`, [
  JSON.stringify({ commitInfo: { timestamp: now, operation: 'CREATE TABLE' } }),
  JSON.stringify({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }),
  JSON.stringify({ metaData: { id: 'big-log-table', format: { provider: 'parquet', options: {} }, schemaString: schema, partitionColumns: ['p'], configuration: {}, createdTime: now } }),
].join('\n') + '\n');
const lines = []; for (let i = 0; i < nfiles; i++) lines.push(add(i));
fs.writeFileSync(`${dir}/_delta_log/${v(1)}.json`, lines.join('\n') + '\n');
const rm = [JSON.stringify({ txn: { appId: 'big-app', version: 7, lastUpdated: now } })];
for (let i = 0; i < ntomb; i++) rm.push(JSON.stringify({ remove: { path: `p=${i % 7}/f-${i}.parquet`, deletionTimestamp: now - 1000, dataChange: true, extendedFileMetadata: true, partitionValues: { p: String(i % 7) }, size: 1000 + i } }));
fs.writeFileSync(`${dir}/_delta_log/${v(2)}.json`, rm.join('\n') + '\n');
fs.writeFileSync(`${dir}/_delta_log/${v(3)}.json`, add(nfiles) + '\n');
