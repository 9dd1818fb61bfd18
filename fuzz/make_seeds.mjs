// fuzz/make_seeds.mjs OUT_DIR - seed inputs for the Delta, YAML and value
// fuzz targets, taken from the fixtures (../shared/fixtures/delta), the
// example and test configs, and the project's docs. Each target gets a
// folder OUT_DIR/<target>/. The committed corpora (fuzz/corpus/<target>)
// are these seeds plus what the fuzzers found, minimized (fuzz/README.md).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = path.resolve(here, '..');
const fixtures = path.resolve(src, '../shared/fixtures/delta');
const out = process.argv[2];
if (!out) throw new Error('usage: make_seeds.mjs OUT_DIR');

let n = 0;
function seed(target, data) {
  const dir = path.join(out, target);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `seed-${String(n++).padStart(5, '0')}`), data);
}

function walk(dir, f) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, f); else f(p);
  }
}

const be32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32BE(v >>> 0); return b; };
const typesOf = new Map();   // partition column -> Delta type name, per table
const seenLine = new Set();

walk(fixtures, (p) => {
  const base = path.basename(p);
  const table = path.relative(fixtures, p).split(path.sep)[0];
  if (p.includes(`${path.sep}_delta_log${path.sep}`) || p.includes('_sidecars')) {
    if (base.endsWith('.parquet')) { seed('fuzz_delta_checkpoint', fs.readFileSync(p)); return; }
    if (!base.endsWith('.json') || fs.statSync(p).size > 200000) return;
    const text = fs.readFileSync(p, 'utf8');
    // one line per seed (and a few neighbouring pairs): small inputs keep
    // the fuzzer fast (run with -max_len=4096)
    const lines = text.split('\n').filter((l) => l.trim());
    lines.forEach((l, i) => {
      const key = l.replace(/[0-9]/g, '').slice(0, 300);
      if (seenLine.has(key) || l.length > 4000) return;
      seenLine.add(key);
      seed('fuzz_delta_actions', l);
      if (i + 1 < lines.length && l.length + lines[i + 1].length < 4000) seed('fuzz_delta_actions', `${l}\n${lines[i + 1]}`);
    });
    seed('fuzz_values', Buffer.concat([Buffer.from([2]), Buffer.from(base)]));
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let a;
      try { a = JSON.parse(line); } catch { continue; }
      if (a.metaData && a.metaData.schemaString) {
        seed('fuzz_delta_schema', a.metaData.schemaString);
        const schema = JSON.parse(a.metaData.schemaString);
        for (const f of schema.fields) if (typeof f.type === 'string') typesOf.set(`${table}/${f.name}`, f.type);
      }
      const file = a.add || a.remove;
      if (!file) continue;
      if (file.stats) seed('fuzz_values', Buffer.concat([Buffer.from([3]), Buffer.from(file.stats)]));
      for (const [k, v] of Object.entries(file.partitionValues || {})) {
        if (v === null || seenLine.has(`${k}=${v}`)) continue;
        seenLine.add(`${k}=${v}`);
        seed('fuzz_values', Buffer.concat([Buffer.from([1]), Buffer.from(v)]));
        const t = typesOf.get(`${table}/${k}`);
        const names = ['string', 'long', 'integer', 'short', 'byte', 'float', 'double', 'boolean', 'binary',
          'date', 'timestamp', 'timestamp_ntz', 'decimal(10,2)'];
        const i = Math.max(0, names.indexOf(t && t.startsWith('decimal') ? 'decimal(10,2)' : t));
        seed('fuzz_values', Buffer.concat([Buffer.from([(i * 5) % 256]), Buffer.from(v)]));
      }
      const dv = file.deletionVector;
      if (dv) {
        const type = { u: 0, p: 1, i: 2 }[dv.storageType] ?? 0;
        const head = Buffer.concat([Buffer.from([type | (dv.offset !== undefined ? 0x80 : 0)]),
          be32(dv.offset ?? 0), be32(dv.sizeInBytes), be32(dv.cardinality), Buffer.from(dv.pathOrInlineDv), Buffer.from([0])]);
        let body = Buffer.alloc(0);
        if (dv.storageType === 'u') {
          const bin = fs.readdirSync(path.join(fixtures, table)).find((f) => f.startsWith('deletion_vector_'));
          if (bin) body = fs.readFileSync(path.join(fixtures, table, bin));
        }
        seed('fuzz_delta_dv', Buffer.concat([head, body]));
      }
    }
    return;
  }
  if (base.startsWith('deletion_vector_') && base.endsWith('.bin')) {
    const body = fs.readFileSync(p);
    seed('fuzz_delta_dv', Buffer.concat([Buffer.from([0x80]), be32(1), be32(Math.max(0, body.length - 9)), be32(1),
      Buffer.from('ab^-aqEH.-t@S}K{vb[*k^'), Buffer.from([0]), body]));
  }
});

for (const s of ['128MiB', '1GB', '1.5 GiB', '512', '0', '-1', '1e3KB', '9223372036854775807', 'interval 7 days',
  'interval 1 hour', '30 days', 'interval 2 weeks 3 days 4 hours', 'INTERVAL 168 HOURS', '1 day', 'interval -1 day'])
  seed('fuzz_values', Buffer.concat([Buffer.from([4]), Buffer.from(s)]));
for (const s of ['a b', 'x=1/y', '%41', '100%', 'ü/ß', '__HIVE_DEFAULT_PARTITION__', '{[]}^*?#"\'\\'])
  seed('fuzz_values', Buffer.concat([Buffer.from([1]), Buffer.from(s)]));
for (const s of ['00000000000000000010.checkpoint.parquet', '00000000000000000010.checkpoint.0000000001.0000000002.parquet',
  '00000000000000000003.00000000000000000007.compacted.json', '00000000000000000002.crc', '_last_checkpoint',
  '00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json'])
  seed('fuzz_values', Buffer.concat([Buffer.from([2]), Buffer.from(s)]));

const yamls = [];
walk(path.join(src, 'tests/resources/config'), (p) => yamls.push(p));
walk(path.join(src, 'examples'), (p) => { if (p.endsWith('.yaml')) yamls.push(p); });
for (const p of yamls) seed(/plan/.test(path.basename(p)) ? 'fuzz_plan_yaml' : 'fuzz_config_yaml', fs.readFileSync(p));
// the YAML blocks of the docs
for (const doc of ['docs/storage-config.md', 'docs/plan-file.md']) {
  const text = fs.readFileSync(path.join(src, doc), 'utf8');
  for (const m of text.matchAll(/```yaml\n([\s\S]*?)```/g))
    seed(doc.includes('plan') ? 'fuzz_plan_yaml' : 'fuzz_config_yaml', m[1]);
}
seed('fuzz_config_yaml', 'storage:\n  defaults:\n    table_path:\n      uri: ${oc.env:LAKE,/lake}\n      storage_options: {AWS_SECRET_ACCESS_KEY: "${oc.env:AWS_SECRET_ACCESS_KEY}"}\n  maintenance:\n    schemas: [raw]\n    vacuum: {retention_hours: 1}\n    z_order_by: [a, b]\n');
console.log(`${n} seeds in ${out}`);
