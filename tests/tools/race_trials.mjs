// race_trials.mjs - loom's compaction and Z-order racing other writers on one
// table, judged by the oracle.
//
// Each race copies a template (DuckDB-written Parquet in 2 partitions,
// converted by loom, deletion vectors enabled, old unreferenced files for
// vacuum to take) and runs the maintainer (`loom compact` or `loom zorder`)
// against one competitor at the same time:
//   append      a blind append (tests/helpers/race_writer)
//   remove      a DELETE of a whole file
//   dv          a DELETE of rows through an inline deletion vector
//   dv-more     a DELETE of more rows of a file that has one (--template-dvs)
//   vacuum      `loom vacuum --full --no-dry-run`
//   checkpoint  `loom checkpoint`
//   twin        a second run of the same maintainer
// Timing: one of them pauses right before its commit (the fault store's
// delay at its last put-if-absent, or race_writer's PAUSE_MS) while the
// other starts a few ms later, or both start together.
// Judgment, for every version the race committed (oracle fingerprints):
// a maintainer's commit leaves the rows exactly as they were (no row lost,
// resurrected or duplicated); a competitor's changes the row count by what
// it says it did; VACUUM and checkpoint change nothing. The loser of a real
// conflict aborts with a conflict error and leaves no new file behind, or
// retries past the winner (its readVersion shows it). Then `verify` is
// clean and a checkpoint written in the race equals the commits' replay.
//
//   node race_trials.mjs [--races N] [--seed S] [--kinds append,dv] [--maintainers compact,zorder]
//                        [--template-dvs N]   (N files of the template get a DV first)
// N races in all, spread evenly over maintainer x competitor. Exit 1 on any failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOOM, SRC, sh, genSmallFiles, age } from './rel_scenarios.mjs';
import { oracle, oracleRuns } from './oracle_warm.mjs';

const WRITER = path.join(process.env.LOOM_BUILD_DIR || path.join(SRC, 'build'), 'tests/race_writer');
const KINDS = ['append', 'remove', 'dv', 'vacuum', 'checkpoint', 'twin'];
// also: dv-more (a DELETE adding rows to a file's DV; needs --template-dvs)
const MAINTAINERS = {
  compact: (t) => ['compact', t, '--target-size', '64MiB'],
  zorder: (t) => ['zorder', t, '--columns', 'id,v'],
  // issue 32: the purge rewrites the files with DVs (--template-dvs gives
  // the template some), analyze re-states every file's stats
  purge: (t) => ['purge', t],
  analyze: (t) => ['analyze', t, '--all'],
};
const CONFLICT = /conflict|concurrent commit|ECONFLICT/i;

function parseArgs(argv) {
  const o = { races: 60, seed: Date.now() % 100000, kinds: KINDS, maintainers: ['compact', 'zorder'], templateDvs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--races') o.races = +v();
    else if (a === '--seed') o.seed = +v();
    else if (a === '--kinds') o.kinds = v().split(',');
    else if (a === '--maintainers') o.maintainers = v().split(',');
    else if (a === '--template-dvs') o.templateDvs = +v();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

function run(cmd, args, env, delayMs) {
  return new Promise((resolve) => {
    setTimeout(() => {
      const p = spawn(cmd, args, { env: { ...process.env, ...env } });
      let out = '', err = '';
      p.stdout.on('data', (d) => { out += d; });
      p.stderr.on('data', (d) => { err += d; });
      p.on('close', (code, signal) => resolve({ code, signal, out, err }));
    }, delayMs);
  });
}

const pad = (v) => String(v).padStart(20, '0');
function commitInfo(t, v) {
  for (const line of fs.readFileSync(path.join(t, '_delta_log', `${pad(v)}.json`), 'utf8').split('\n'))
    if (line.startsWith('{"commitInfo"')) return JSON.parse(line).commitInfo;
  return {};
}
function latestVersion(t) {
  return Math.max(...fs.readdirSync(path.join(t, '_delta_log')).filter((n) => /^\d{20}\.json$/.test(n)).map((n) => +n.slice(0, 20)));
}

async function fp(t, v) {
  const r = await oracle('fingerprint', t, '--version', String(v));
  if (r.code !== 0) throw new Error(`fingerprint of version ${v}: ${r.json.error}`);
  return r.json;
}

async function buildTemplate(dir, dvs) {
  genSmallFiles(dir, 2, 8, 200);
  sh(`'${LOOM}' convert '${dir}' --partition-by p,q`);
  sh(`'${WRITER}' '${dir}' enable-dv 0`);
  for (let i = 0; i < dvs; i++) sh(`'${WRITER}' '${dir}' dv ${i + 1} 0`);
  fs.mkdirSync(path.join(dir, 'junk'), { recursive: true });
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(dir, 'junk', `orphan-${i}.parquet`), 'x');
  age(dir, "-not -path '*/_delta_log*'", 30);
}

// Calls of each kind a clean run makes (the commit is its last put-if-absent).
async function probe(template, scratch, args) {
  const t = path.join(scratch, 'probe');
  fs.rmSync(t, { recursive: true, force: true });
  fs.cpSync(template, t, { recursive: true, preserveTimestamps: true });
  const tally = path.join(scratch, 'tally');
  const r = await run(LOOM, args(t), { LOOM_FAULTS: '', LOOM_FAULT_TALLY: tally }, 0);
  if (r.code !== 0) throw new Error(`probe ${args(t).join(' ')}: ${r.err}`);
  const counts = Object.fromEntries(fs.readFileSync(tally, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([k, v]) => [k, +v]));
  fs.rmSync(t, { recursive: true, force: true });
  return counts;
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const rand = rng(opt.seed);
  const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'loom-races-'));
  // interrupted (Ctrl-C, a CTest timeout): leave nothing behind
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { fs.rmSync(scratch, { recursive: true, force: true }); process.exit(130); });
  const failures = [];
  const stats = {};
  const started = Date.now();
  const fail = (what) => { failures.push(what); console.error(`FAIL: ${what}`); };
  console.log(`races: ${opt.races}, seed ${opt.seed}`);
  try {
    const template = path.join(scratch, 'template');
    await buildTemplate(template, opt.templateDvs);
    const base = await fp(template, latestVersion(template));
    const baseVersion = latestVersion(template);
    const commitPia = {};
    for (const m of opt.maintainers) commitPia[m] = (await probe(template, scratch, MAINTAINERS[m]))['put-if-absent'];
    const ckPia = (await probe(template, scratch, (t) => ['checkpoint', t]))['put-if-absent'];
    const vacPia = 1;   // VACUUM START is the first commit

    const combos = [];
    for (const m of opt.maintainers) for (const k of opt.kinds) combos.push([m, k]);
    for (let i = 0; i < opt.races; i++) {
      const [m, kind] = combos[i % combos.length];
      const key = `${m}+${kind}`;
      const st = stats[key] = stats[key] || { races: 0, overlapped: 0, maintainerAborted: 0, otherAborted: 0, retried: 0 };
      st.races++;
      const t = path.join(scratch, `race-${i}`);
      fs.cpSync(template, t, { recursive: true, preserveTimestamps: true });
      const timing = Math.floor(rand() * 3);   // 0: maintainer pauses, 1: competitor pauses, 2: neither
      const pause = 80 + Math.floor(rand() * 120), offset = Math.floor(rand() * 40), seed = Math.floor(rand() * 1000);
      const mEnv = timing === 0 ? { LOOM_FAULTS: `put-if-absent@${commitPia[m]}:delay=${pause}` } : {};
      const cPause = timing === 1 ? pause : 0;
      let cCmd, cArgs, cEnv = {};
      if (['append', 'remove', 'dv', 'dv-more'].includes(kind)) {
        cCmd = WRITER; cArgs = [t, kind, String(seed), String(cPause)];
      } else {
        cCmd = LOOM;
        cArgs = kind === 'vacuum' ? ['vacuum', t, '--full', '--no-dry-run']
          : kind === 'checkpoint' ? ['checkpoint', t] : MAINTAINERS[m](t);
        const pia = kind === 'vacuum' ? vacPia : kind === 'checkpoint' ? ckPia : commitPia[m];
        if (cPause) cEnv = { LOOM_FAULTS: `put-if-absent@${pia}:delay=${cPause}` };
      }
      const [mr, cr] = await Promise.all([
        run(LOOM, MAINTAINERS[m](t), mEnv, timing === 1 ? offset : 0),
        run(cCmd, cArgs, cEnv, timing === 1 ? 0 : offset),
      ]);
      const what = `race ${i} (${key}, timing ${timing}, seed ${seed})`;
      // -- how each side ended
      const mAborted = mr.code === 1 && CONFLICT.test(mr.err);
      if (mr.signal || !(mr.code === 0 || mAborted)) { fail(`${what}: ${m} ended with ${mr.signal || mr.code}: ${mr.err.trim().slice(0, 300)}`); continue; }
      let cAborted, cDelta = null, cVersion = null;
      if (cCmd === WRITER) {
        cAborted = cr.code === 3;
        if (cr.code === 0) [, cVersion, cDelta] = cr.out.trim().split(' ').map(Number);
        else if (!cAborted) { fail(`${what}: ${kind} failed: ${cr.err.trim()}`); continue; }
      } else {
        cAborted = cr.code === 1 && CONFLICT.test(cr.err);
        if (cr.signal || !(cr.code === 0 || cAborted)) { fail(`${what}: ${kind} ended with ${cr.signal || cr.code}: ${cr.err.trim().slice(0, 300)}`); continue; }
      }
      if (mAborted) st.maintainerAborted++;
      if (cAborted) st.otherAborted++;
      // -- the rules: appends, vacuum and checkpoints never conflict with a
      // compaction; of two writers that conflict, one wins
      if (['append', 'vacuum', 'checkpoint'].includes(kind) && (mAborted || cAborted))
        fail(`${what}: a writer aborted although ${kind} never conflicts with ${m}: ${(mr.err + cr.err + cr.out).trim().slice(0, 300)}`);
      if (mAborted && cAborted) fail(`${what}: both writers aborted; one must win`);
      // -- every committed version, judged
      const latest = latestVersion(t);
      let prev = base, overlapped = mAborted || cAborted;
      for (let v = baseVersion + 1; v <= latest; v++) {
        const ci = commitInfo(t, v);
        const cur = await fp(t, v);
        if (ci.readVersion !== undefined && ci.readVersion !== v - 1) { overlapped = true; st.retried++; }
        const op = ci.operation || '?';
        if (v === cVersion) {
          if (cur.rows - prev.rows !== cDelta) fail(`${what}: ${kind} at version ${v} changed the rows by ${cur.rows - prev.rows}, it says ${cDelta}`);
        } else if (cur.hash !== prev.hash || cur.rows !== prev.rows) {
          fail(`${what}: ${op} at version ${v} changed the rows (${prev.rows} -> ${cur.rows})`);
        }
        prev = cur;
      }
      if (overlapped) st.overlapped++;
      const v = await oracle('verify', t);
      if (v.code !== 0) fail(`${what}: verify: ${JSON.stringify(v.json.problems ?? v.json.error).slice(0, 400)}`);
      // a loser leaves no new unreferenced file
      const o = await oracle('orphans', t);
      const fresh = (o.json.files || []).filter((f) => !f.tombstone && f.modificationTime > started - 60000 && !/^junk\//.test(f.path));
      if (fresh.length) fail(`${what}: unreferenced new files left: ${fresh.map((f) => f.path).join(', ')}`);
      if (kind === 'checkpoint') {
        const a = await oracle('snapshot', t), b = await oracle('snapshot', t, '--ignore-checkpoints');
        const files = (s) => JSON.stringify((s.json.files || []).map((f) => [f.path, f.deletionVector && f.deletionVector.pathOrInlineDv]));
        if (files(a) !== files(b)) fail(`${what}: the checkpoint's state differs from the commits' replay`);
      }
      fs.rmSync(t, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const total = Object.values(stats).reduce((a, s) => a + s.races, 0);
  const overlapped = Object.values(stats).reduce((a, s) => a + s.overlapped, 0);
  for (const [k, s] of Object.entries(stats))
    console.log(`${k}: ${s.races} races, ${s.overlapped} overlapped (${s.retried} commits retried past a winner, ${s.maintainerAborted} maintainer and ${s.otherAborted} competitor aborts on a conflict)`);
  console.log(`races: ${total} run, ${overlapped} overlapped, ${failures.length} failures, ${oracleRuns()} oracle calls, ${Math.round((Date.now() - started) / 1000)} s`);
  process.exitCode = failures.length ? 1 : 0;
}

await main();
