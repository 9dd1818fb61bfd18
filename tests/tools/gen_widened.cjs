#!/usr/bin/env node
// gen_widened.cjs DIR KIND: a type-widening Delta table written by DuckDB
// (files) and by hand (log), as Spark leaves one after ALTER COLUMN TYPE:
//   nested  - struct field s.x, map value m, array element a and top-level
//             n widened integer -> long; file 0 written before the change
//             (INT32), file 1 after (INT64); 40 rows each
//   bad     - column c (two files) stored as DOUBLE while the table says long (no
//             widening allows it): a rewrite must refuse
const { DuckDBInstance } = require('@duckdb/node-api');
const fs = require('fs');
const path = require('path');

const q = (s) => `'${s}'`;
async function main() {
  const [dir, kind] = process.argv.slice(2);
  fs.mkdirSync(path.join(dir, '_delta_log'), { recursive: true });
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const field = (name, type, changes) => ({ name, type, nullable: true,
    metadata: changes ? { 'delta.typeChanges': changes } : {} });
  const files = [];
  let schema0, schema1;
  if (kind === 'nested') {
    for (let i = 0; i < 2; i++) {
      const t = i === 0 ? 'INTEGER' : 'BIGINT';
      const f = `part-${i}.parquet`;
      await conn.run(`COPY (SELECT ((r * 7919 + ${i}) % 100000 - 50000)::${t} AS n,
          {'x': (r * 31 + ${i})::${t}, 'y': r::VARCHAR} AS s,
          MAP {'k' || r: (r * 1000003 % 70000)::${t}} AS m,
          [r::${t}, (-r)::${t}, NULL] AS a
        FROM range(40) t(r)) TO ${q(path.join(dir, f))} (FORMAT parquet)`);
      files.push(f);
    }
    const st = (x) => ({ type: 'struct', fields: [field('x', x), field('y', 'string')] });
    schema0 = { type: 'struct', fields: [field('n', 'integer'), field('s', st('integer')),
      field('m', { type: 'map', keyType: 'string', valueType: 'integer', valueContainsNull: true }),
      field('a', { type: 'array', elementType: 'integer', containsNull: true })] };
    const ch = (fieldPath) => [{ fromType: 'integer', toType: 'long', ...(fieldPath ? { fieldPath } : {}) }];
    const st1 = { type: 'struct', fields: [field('x', 'long', ch()), field('y', 'string')] };
    schema1 = { type: 'struct', fields: [field('n', 'long', ch()), field('s', st1),
      field('m', { type: 'map', keyType: 'string', valueType: 'long', valueContainsNull: true }, ch('value')),
      field('a', { type: 'array', elementType: 'long', containsNull: true }, ch('element'))] };
  } else {
    for (let i = 0; i < 2; i++)
      await conn.run(`COPY (SELECT (r + ${i})::DOUBLE / 3 AS c FROM range(10) t(r)) TO ${q(path.join(dir, `part-${i}.parquet`))} (FORMAT parquet)`);
    files.push('part-0.parquet');
    schema0 = { type: 'struct', fields: [field('c', 'double')] };
    schema1 = { type: 'struct', fields: [field('c', 'long', [{ fromType: 'double', toType: 'long' }])] };
  }
  const rows = kind === 'nested' ? 40 : 10;
  const md = (schema) => ({ id: 'gen-widened', format: { provider: 'parquet', options: {} },
    schemaString: JSON.stringify(schema), partitionColumns: [], configuration: { 'delta.enableTypeWidening': 'true' },
    createdTime: 1700000000000 });
  const add = (f, t) => ({ add: { path: f, partitionValues: {}, size: fs.statSync(path.join(dir, f)).size,
    modificationTime: t, dataChange: true, stats: JSON.stringify({ numRecords: rows }) } });
  const proto = { protocol: { minReaderVersion: 3, minWriterVersion: 7, readerFeatures: ['typeWidening'],
    writerFeatures: ['typeWidening'] } };
  const commits = [
    [{ commitInfo: { timestamp: 1700000000000, operation: 'WRITE' } }, proto, { metaData: md(schema0) }, add(files[0], 1700000000000),
      ...(kind === 'bad' ? [add('part-1.parquet', 1700000000000)] : [])],
    [{ commitInfo: { timestamp: 1700000001000, operation: 'CHANGE COLUMN' } }, { metaData: md(schema1) }],
  ];
  if (files[1]) commits.push([{ commitInfo: { timestamp: 1700000002000, operation: 'WRITE' } }, add(files[1], 1700000002000)]);
  commits.forEach((c, v) => fs.writeFileSync(path.join(dir, '_delta_log', String(v).padStart(20, '0') + '.json'),
    c.map((a) => JSON.stringify(a)).join('\n') + '\n'));
}
main().catch((e) => { console.error(e.message); process.exit(1); });
