#!/usr/bin/env node
// dup_files.cjs TABLE SNAPSHOT_JSON: give every partition of a table (per
// the oracle's snapshot) a second file: copy its first file without a
// deletion vector to "dup-<name>" in the same directory and commit an add
// for it (dataChange=true, same partition values and stats). The table then
// holds those rows twice, which its fingerprint reflects; compaction must
// keep exactly that. Prints the number of files added.
const fs = require('fs');
const path = require('path');
const [table, snapFile] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(snapFile, 'utf8'));
const seen = new Set();
const lines = [JSON.stringify({ commitInfo: { operation: 'WRITE', operationParameters: { mode: 'Append' }, isBlindAppend: true } })];
let n = 0;
for (const f of d.files) {
  const key = JSON.stringify(f.partitionValues);
  if (seen.has(key) || f.deletionVector || /^[a-z]+:|^\//.test(f.path)) continue;
  seen.add(key);
  const dir = path.dirname(f.path), base = path.basename(f.path);
  const rel = (dir === '.' ? '' : dir + '/') + 'dup-' + base;
  fs.copyFileSync(path.join(table, f.path), path.join(table, rel));
  const add = { path: rel.split('/').map(encodeURIComponent).join('/'), partitionValues: f.partitionValues,
    size: f.size, modificationTime: Date.now(), dataChange: true };
  if (f.stats) add.stats = JSON.stringify(f.stats);
  lines.push(JSON.stringify({ add }));
  n++;
}
const v = String(d.version + 1).padStart(20, '0');
fs.writeFileSync(path.join(table, '_delta_log', v + '.json'), lines.join('\n') + '\n', { flag: 'wx' });
console.log(n);
