// fault_walk.mjs - a failing store at every call of a maintenance run.
//
// For each scenario (tests/tools/rel_scenarios.mjs) a clean run first counts
// the store calls of each kind (LOOM_FAULT_TALLY); then, for every call
// number N of every kind (or a sample of them) and every fault mode that
// kind can suffer, a fresh copy of the table is run with LOOM_FAULTS=KIND@N:MODE
// (src/store/fault.h). After each faulted run the oracle must see the same
// rows, `verify` must be clean and no temp file may be left; then a run
// without faults must finish the job (the scenario's `done`, judged by the
// oracle too) with the rows still unchanged.
//
//   node fault_walk.mjs [--scenarios vacuum,compact] [--sample K] [--seed S]
//                       [--modes-per-kind all|first] [--budget-s SECONDS]
// --sample K: at most K call numbers per kind (the first, the last and a
// seeded spread between); without it every call number is walked.
// --modes-per-kind first: one mode per call number, cycling through the
// kind's modes from one call number to the next.
// Prints one line per failure and a summary; exit 1 on any failure.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOOM, scenarios, tempFiles } from './rel_scenarios.mjs';
import { openLocation } from './rel_location.mjs';
import { oracleRuns } from './oracle_warm.mjs';

// transient: a timeout or throttling the store's own retries did not
// outlast (LOOM_ETRANSIENT); enospc+: the disk stays full from that call on
const MODES = {
  read: ['eio', 'short', 'transient'],
  write: ['eio', 'enospc+', 'transient'],
  'put-if-absent': ['eio', 'after', 'transient'],
  list: ['eio', 'partial', 'transient'],
  delete: ['eio', 'after', 'partial', 'transient'],
  stat: ['eio', 'transient'],
};

function parseArgs(argv) {
  const o = { scenarios: Object.keys(scenarios), sample: 0, seed: Date.now() % 100000, modes: 'all', budget: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--scenarios') o.scenarios = v().split(',');
    else if (a === '--sample') o.sample = +v();
    else if (a === '--seed') o.seed = +v();
    else if (a === '--modes-per-kind') o.modes = v();
    else if (a === '--budget-s') o.budget = +v();
    else throw new Error(`unknown argument ${a}`);
  }
  for (const s of o.scenarios) if (!scenarios[s]) throw new Error(`unknown scenario ${s}`);
  return o;
}

function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

// Call numbers to walk among 1..count.
function pick(count, sample, rand) {
  const all = Array.from({ length: count }, (_, i) => i + 1);
  if (!sample || count <= sample) return all;
  const chosen = new Set([1, count]);
  const step = count / (sample - 1);
  const off = rand() * step;
  for (let k = 0; chosen.size < sample && k < sample * 2; k++) chosen.add(Math.min(count, 1 + Math.floor(off + k * step)));
  return [...chosen].sort((a, b) => a - b);
}

function digest(dir) {
  const h = crypto.createHash('sha1');
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else { h.update(r); h.update('\0'); h.update(fs.readFileSync(path.join(d, e.name))); h.update('\0'); }
    }
  };
  walk(dir, '');
  return h.digest('hex');
}

function runLoom(sc, uri, faults, tally) {
  const env = { ...process.env, ...(sc.env ? sc.env(uri) : {}) };
  delete env.LOOM_FAULTS;
  delete env.LOOM_FAULT_TALLY;
  if (faults !== null) env.LOOM_FAULTS = faults;
  if (tally) env.LOOM_FAULT_TALLY = tally;
  const r = spawnSync(LOOM, sc.args(uri), { env, encoding: 'utf8', timeout: 300000 });
  return { status: r.status, signal: r.signal, stderr: r.stderr || '', stdout: r.stdout || '' };
}

function readTally(file) {
  const t = {};
  if (!fs.existsSync(file)) return t;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [k, v] = line.split(' ');
    if (k) t[k] = +v;
  }
  return t;
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'loom-faultwalk-'));
  // interrupted (Ctrl-C, a CTest timeout): leave nothing behind
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { fs.rmSync(scratch, { recursive: true, force: true }); process.exit(130); });
  const loc = openLocation(scratch);
  const rand = rng(opt.seed);
  const started = Date.now();
  const failures = [];
  const summary = {};
  const judged = new Map();   // digest of a table copy -> the oracle's judgment
  const fail = (what) => { failures.push(what); console.error(`FAIL: ${what}`); };
  console.log(`fault walk: seed ${opt.seed}, sample ${opt.sample || 'all'}, modes ${opt.modes}, location ${loc.kind}`);

  const judge = async (sc, view) => {
    const d = digest(view);
    if (!judged.has(d)) judged.set(d, await sc.judge(view));
    return judged.get(d);
  };

  try {
    for (const name of opt.scenarios) {
      const sc = scenarios[name];
      const t0 = Date.now();
      const template = path.join(scratch, `${name}-template`);
      fs.mkdirSync(template, { recursive: true });
      await sc.build(template);
      const base = await sc.judge(template);
      if (base.error) { fail(`${name}: the template is not readable: ${base.error}`); continue; }
      const baseTemps = new Set(tempFiles(template));

      // a clean run: counts the calls and shows the job can be done
      const probe = loc.put(template, name);
      const tallyFile = path.join(scratch, 'tally');
      fs.rmSync(tallyFile, { force: true });
      const clean = runLoom(sc, probe, '', tallyFile);
      const counts = readTally(tallyFile);
      const pv = loc.view(probe);
      const pj = await sc.judge(pv);
      if (clean.status !== 0 || pj.error || pj.key !== base.key || !pj.done) {
        fail(`${name}: the clean run failed (exit ${clean.status}: ${clean.stderr.trim().slice(0, 300)}; ${pj.error || pj.detail})`);
        continue;
      }
      loc.drop(probe);
      const s = summary[name] = { calls: counts, trials: 0, failedCleanly: 0, succeeded: 0, notReached: 0, byKind: {} };

      const trials = [];
      for (const kind of Object.keys(MODES)) {
        const ns = pick(counts[kind] || 0, opt.sample, rand);
        ns.forEach((n, i) => {
          const modes = opt.modes === 'first' ? [MODES[kind][i % MODES[kind].length]] : MODES[kind];
          for (const m of modes) trials.push({ kind, n, mode: m });
        });
      }
      for (const t of trials) {
        if (opt.budget && (Date.now() - started) / 1000 > opt.budget) { s.truncated = true; break; }
        const plus = t.mode.endsWith('+');
        const mode = plus ? t.mode.slice(0, -1) : t.mode;
        const spec = `${t.kind}@${t.n}${plus ? '+' : ''}:${mode}`;
        const what = `${name} ${spec}`;
        const uri = loc.put(template, name);
        fs.rmSync(tallyFile, { force: true });
        const r = runLoom(sc, uri, spec, tallyFile);
        const fired = readTally(tallyFile).fired || 0;
        s.trials++;
        const bk = s.byKind[t.kind] = s.byKind[t.kind] || { trials: 0, failedCleanly: 0, succeeded: 0 };
        bk.trials++;
        if (r.signal || (r.status !== 0 && r.status !== 1)) {
          fail(`${what}: loom ended with ${r.signal || `exit ${r.status}`}: ${r.stderr.trim().slice(-600)}`);
          loc.drop(uri);
          continue;
        }
        // the CLI's message: stderr, or the failed table's line of `maintain`'s report
        if (r.status === 1 && !r.stderr.trim() && !/FAILED/.test(r.stdout)) fail(`${what}: failed without a message`);
        if (!fired) s.notReached++;
        else if (r.status === 1) { s.failedCleanly++; bk.failedCleanly++; }
        else { s.succeeded++; bk.succeeded++; }

        let view = loc.view(uri);
        const left = tempFiles(view).filter((f) => !baseTemps.has(f));
        if (left.length) fail(`${what}: temp files left: ${left.join(', ')}`);
        const j1 = await judge(sc, view);
        if (j1.error) fail(`${what}: after the faulted run (exit ${r.status}): ${j1.error}`);
        else if (j1.key !== base.key) fail(`${what}: rows changed by the faulted run (exit ${r.status}): ${j1.key} != ${base.key}`);

        const again = runLoom(sc, uri, null, null);
        view = loc.view(uri);
        const j2 = await judge(sc, view);
        // a job the faulted run finished may be refused as done (convert: "already a Delta table")
        const refusedAsDone = again.status === 1 && j1.done && sc.alreadyDone && sc.alreadyDone.test(again.stderr);
        if (again.status !== 0 && !refusedAsDone) fail(`${what}: the run after the fault failed: ${(again.stderr.trim() || again.stdout).slice(0, 400)}`);
        else if (j2.error) fail(`${what}: after the run that followed: ${j2.error}`);
        else if (j2.key !== base.key) fail(`${what}: rows changed by the run that followed`);
        else if (!j2.done) fail(`${what}: the run that followed did not finish the job: ${j2.detail}`);
        const left2 = tempFiles(view).filter((f) => !baseTemps.has(f));
        if (left2.length) fail(`${what}: temp files left after the run that followed: ${left2.join(', ')}`);
        loc.drop(uri);
      }
      s.seconds = Math.round((Date.now() - t0) / 100) / 10;
      console.log(`${name}: calls ${JSON.stringify(counts)}; ${s.trials} trials: ${s.failedCleanly} failed cleanly, ${s.succeeded} completed despite the fault, ${s.notReached} never reached the call; ${s.seconds} s${s.truncated ? ' (time budget reached)' : ''}`);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const total = Object.values(summary).reduce((a, s) => a + s.trials, 0);
  console.log(`fault walk: ${total} faulted runs over ${Object.keys(summary).length} scenarios, ${oracleRuns()} oracle calls, ${failures.length} failures, ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(`summary ${JSON.stringify(summary)}`);
  process.exitCode = failures.length ? 1 : 0;
}

await main();
