// rel_scenarios.mjs - the operations the reliability tests break (fault walk,
// crash and race campaigns), each on a small table built from the fixtures
// or from Parquet files DuckDB writes:
//   build(dir)          make the template table(s) under dir
//   args(uri)           the loom command line for one run on a copy
//   judge(ctx, uri)     the oracle's view of a copy: { key, rows, done } where
//                       `key` must equal the template's (the rows did not
//                       change) and `done` says the job is finished
// A copy lives wherever the location puts it (tests/tools/rel_location.mjs),
// so the same scenarios can run over an object store later.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { oracle } from './oracle_warm.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const SRC = process.env.LOOM_SOURCE_DIR || path.resolve(here, '../..');
export const FIXTURES = process.env.LOOM_FIXTURES_DIR || path.resolve(SRC, '../shared/fixtures');
export const LOOM = process.env.LOOM_BIN || path.join(SRC, 'build/loom');

export function sh(cmd, opts = {}) {
  return execFileSync('bash', ['-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

function copyFixture(name, dst) {
  fs.cpSync(path.join(FIXTURES, 'delta', name), dst, { recursive: true, preserveTimestamps: true });
  sh(`chmod -R u+w '${dst}'`);
}

// Parquet files written by DuckDB (tests/tools/gen_small_files.cjs), Hive
// partitioned p=/q=.
export function genSmallFiles(dst, parts, files, rows) {
  sh(`node '${path.join(here, 'gen_small_files.cjs')}' '${dst}' ${parts} ${files} ${rows}`);
}

export function age(dir, what, days) {
  sh(`find '${dir}' ${what} -exec touch -h -d '${days} days ago' {} +`);
}

// Everything judged in one place: the rows (fingerprint), verify, and the
// snapshot facts the `done` predicates need.
export async function look(dir, { columns } = {}) {
  const fp = await oracle('fingerprint', dir, ...(columns ? ['--columns', columns] : []));
  if (fp.code !== 0 || fp.json.error) return { error: `fingerprint: ${fp.json.error ?? fp.code}` };
  const v = await oracle('verify', dir);
  if (v.code !== 0) return { error: `verify: ${JSON.stringify(v.json.problems ?? v.json.error).slice(0, 400)}` };
  const snap = await oracle('snapshot', dir);
  if (snap.code !== 0) return { error: `snapshot: ${snap.json.error}` };
  return { key: `${fp.json.hash}/${fp.json.rows}`, rows: fp.json.rows, snap: snap.json, fp: fp.json };
}

function logNames(dir) {
  return fs.readdirSync(path.join(dir, '_delta_log')).filter((n) => !n.startsWith('.')).sort();
}

const GEN = { parts: 4, files: 16, rows: 200 };
const CONVERT_COLS = 'id,v,s,ts,d,dec,l,st';

export const scenarios = {
  vacuum: {
    // simple_table: 31 files the log removed years ago, plus unreferenced
    // files in nested folders (old enough for a full vacuum)
    async build(dir) {
      copyFixture('simple_table', dir);
      for (const sub of ['old/a', 'old/b', 'x=1']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
      for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(dir, ['old/a', 'old/b', 'x=1'][i % 3], `orphan-${i}.parquet`), `${i}\n`);
      age(dir, "-not -path '*/_delta_log*'", 30);
    },
    args: (uri) => ['vacuum', uri, '--full', '--no-dry-run'],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      const o = await oracle('orphans', dir);
      return { ...r, done: o.json.count === 0, detail: `${o.json.count} orphans` };
    },
  },
  compact: {
    async build(dir) {
      genSmallFiles(dir, GEN.parts, GEN.files, GEN.rows);
      sh(`'${LOOM}' convert '${dir}' --partition-by p,q`);
    },
    args: (uri) => ['compact', uri, '--target-size', '64MiB'],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      return { ...r, done: r.snap.numFiles === GEN.parts, detail: `${r.snap.numFiles} files` };
    },
  },
  'compact-dv': {
    // a deletion vector purged by the rewrite
    async build(dir) { copyFixture('table-with-dv-small', dir); },
    args: (uri) => ['compact', uri],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      const dvs = r.snap.files.filter((f) => f.deletionVector).length;
      return { ...r, done: dvs === 0, detail: `${dvs} files with a DV` };
    },
  },
  zorder: {
    async build(dir) {
      genSmallFiles(dir, 2, 8, 300);
      sh(`'${LOOM}' convert '${dir}' --partition-by p,q`);
    },
    args: (uri) => ['zorder', uri, '--columns', 'id,v'],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      // every live file written by the Z-order (a DuckDB file's name is part-NNNNN.parquet)
      const old = r.snap.files.filter((f) => /\/part-\d{5}\.parquet$/.test(f.path)).length;
      return { ...r, done: old === 0, detail: `${old} files not rewritten` };
    },
  },
  checkpoint: {
    async build(dir) { copyFixture('delta-0.8.0-partitioned', dir); },
    args: (uri) => ['checkpoint', uri],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      const ck = r.snap.checkpoint;
      return { ...r, done: !!ck && ck.version === r.snap.version && r.snap.lastCheckpoint === r.snap.version,
        detail: `checkpoint ${ck && ck.version}, _last_checkpoint ${r.snap.lastCheckpoint}` };
    },
  },
  'cleanup-logs': {
    // commits 0..4 and a checkpoint at 4, all 60 days old: commits 0..3 expire
    async build(dir) {
      copyFixture('simple_table', dir);
      sh(`'${LOOM}' checkpoint '${dir}'`);
      age(path.join(dir, '_delta_log'), "-type f", 60);
    },
    args: (uri) => ['cleanup-logs', uri, '--no-dry-run'],
    async judge(dir) {
      const r = await look(dir);
      if (r.error) return r;
      const left = logNames(dir).filter((n) => /^\d{20}\.json$/.test(n)).length;
      return { ...r, done: left === 1, detail: `${left} commits left` };
    },
  },
  convert: {
    // No table before: the rows are the Parquet files' (convert never
    // rewrites them). Once a table exists its rows must be theirs.
    async build(dir) { genSmallFiles(dir, GEN.parts, 8, GEN.rows); },
    args: (uri) => ['convert', uri, '--partition-by', 'p,q'],
    alreadyDone: /already a Delta table/,
    async judge(dir) {
      const files = await oracle('fingerprint-parquet', dir);
      if (files.code !== 0) return { error: `fingerprint-parquet: ${files.json.error}` };
      const key = `${files.json.hash}/${files.json.rows}`;
      if (!fs.existsSync(path.join(dir, '_delta_log', '00000000000000000000.json')))
        return { key, rows: files.json.rows, done: false, detail: 'no table yet' };
      const r = await look(dir, { columns: CONVERT_COLS });
      if (r.error) return r;
      const want = await oracle('fingerprint-parquet', dir, '--schema-from', dir, '--columns', CONVERT_COLS);
      if (want.code !== 0) return { error: `fingerprint-parquet --schema-from: ${want.json.error}` };
      if (r.key !== `${want.json.hash}/${want.json.rows}`) return { error: `the table's rows ${r.key} are not its files' ${want.json.hash}/${want.json.rows}` };
      return { key, rows: r.rows, done: r.snap.numFiles === 8, detail: `${r.snap.numFiles} files` };
    },
  },
  maintain: {
    // `loom maintain` over a storage YAML: two tables under ${LAKE}/raw,
    // each vacuumed (full) and compacted by the maintenance block
    async build(dir) {
      for (const t of ['a', 'b']) {
        const d = path.join(dir, 'raw', t);
        genSmallFiles(d, 2, 6, 150);
        sh(`'${LOOM}' convert '${d}' --partition-by p,q`);
        fs.mkdirSync(path.join(d, 'junk'), { recursive: true });
        for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(d, 'junk', `orphan-${i}.parquet`), 'x');
        age(d, "-not -path '*/_delta_log*'", 30);
      }
      fs.writeFileSync(path.join(dir, 'storage.yaml'), [
        'storage:',
        '  defaults:',
        '    table_path:',
        '      uri: ${oc.env:LOOM_REL_LAKE}',
        '  tables:',
        '    - name: raw.a',
        '      path: {uri: "${oc.env:LOOM_REL_LAKE}/raw/a"}',
        '    - name: raw.b',
        '      path: {uri: "${oc.env:LOOM_REL_LAKE}/raw/b"}',
        '  maintenance:',
        '    schemas: [raw]',
        '    vacuum: {retention_hours: 168, dry_run: false, full: true}',
        '    compact: {target_size: 64MiB}',
        '',
      ].join('\n'));
    },
    args: (uri) => ['maintain', '--config', path.join(uri, 'storage.yaml')],
    env: (uri) => ({ LOOM_REL_LAKE: uri }),
    async judge(dir) {
      const keys = [], details = [];
      let done = true, rows = 0;
      for (const t of ['a', 'b']) {
        const d = path.join(dir, 'raw', t);
        const r = await look(d);
        if (r.error) return { error: `raw.${t}: ${r.error}` };
        // files the compaction removed stay until their retention ends
        const o = await oracle('orphans', d);
        // and so do files a failed run left (vacuum takes them after it)
        const junk = o.json.files.filter((f) => !f.tombstone && f.modificationTime < Date.now() - 7 * 86400000).length;
        keys.push(r.key);
        rows += r.rows;
        done = done && r.snap.numFiles === 2 && junk === 0;
        details.push(`raw.${t}: ${r.snap.numFiles} files, ${junk} old unreferenced files`);
      }
      return { key: keys.join('+'), rows, done, detail: details.join('; ') };
    },
  },
};

// Hidden temp files a store writer leaves behind (".<name>.<uuid>.tmp").
export function tempFiles(dir) {
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (/^\..*\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/.test(e.name)) out.push(r);
    }
  };
  walk(dir, '');
  return out;
}
