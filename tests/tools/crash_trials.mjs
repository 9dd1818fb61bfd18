// crash_trials.mjs - kill -9 in the middle of maintenance runs, judged by
// the oracle (scenarios: tests/tools/rel_scenarios.mjs).
//
// Each trial copies the scenario's template and kills the run with SIGKILL,
// alternating two ways:
//   time   from outside, at a random moment of a clean run's duration
//          (a slower run this time may finish first: not a kill);
//   call   from inside, at a random store call (the fault store's crash or
//          crash-after mode, src/store/fault.h): before or right after the
//          call reached the store, so every commit and publish boundary is
//          hit, not only the moments a timer happens to fall on.
// After the kill the oracle must read the table with the same rows and a
// clean `verify`. Then an hour is made to pass for the files the killed
// run left (their mtimes are set back) and a normal run must finish the job
// (the scenario's `done`), the rows still unchanged, with no temp file left
// in _delta_log (swept: delta/log_temps.h). Temp files left in data
// directories are counted and reported.
//
//   node crash_trials.mjs [--scenarios a,b] [--runs N] [--seed S]
// N trials per scenario (default 10). Exit 1 on any failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOOM, scenarios, sh, tempFiles } from './rel_scenarios.mjs';
import { openLocation } from './rel_location.mjs';
import { oracleRuns } from './oracle_warm.mjs';

function parseArgs(argv) {
  const o = { scenarios: Object.keys(scenarios), runs: 10, seed: Date.now() % 100000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], v = () => argv[++i];
    if (a === '--scenarios') o.scenarios = v().split(',');
    else if (a === '--runs') o.runs = +v();
    else if (a === '--seed') o.seed = +v();
    else throw new Error(`unknown argument ${a}`);
  }
  for (const s of o.scenarios) if (!scenarios[s]) throw new Error(`unknown scenario ${s}`);
  return o;
}

function rng(seed) {
  let a = seed >>> 0;
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

// Run loom; kill it with SIGKILL after killMs (null: never).
function runLoom(sc, uri, extraEnv, killMs) {
  return new Promise((resolve) => {
    const env = { ...process.env, ...(sc.env ? sc.env(uri) : {}), ...extraEnv };
    if (extraEnv.LOOM_FAULTS === undefined) delete env.LOOM_FAULTS;
    const started = process.hrtime.bigint();
    const p = spawn(LOOM, sc.args(uri), { env });
    let err = '', killed = false;
    p.stderr.on('data', (d) => { err += d; });
    p.stdout.on('data', () => {});
    const timer = killMs === null ? null : setTimeout(() => { killed = p.kill('SIGKILL'); }, killMs);
    p.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, err, killed, ms: Number(process.hrtime.bigint() - started) / 1e6 });
    });
  });
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const rand = rng(opt.seed);
  const scratch = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'loom-crash-'));
  // interrupted (Ctrl-C, a CTest timeout): leave nothing behind
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => { fs.rmSync(scratch, { recursive: true, force: true }); process.exit(130); });
  const loc = openLocation(scratch);
  const failures = [];
  const summary = {};
  const started = Date.now();
  const fail = (what) => { failures.push(what); console.error(`FAIL: ${what}`); };
  console.log(`crash trials: ${opt.runs} per scenario, seed ${opt.seed}, location ${loc.kind}`);
  try {
    for (const name of opt.scenarios) {
      const sc = scenarios[name];
      const template = path.join(scratch, `${name}-template`);
      fs.mkdirSync(template, { recursive: true });
      await sc.build(template);
      const base = await sc.judge(template);
      if (base.error) { fail(`${name}: the template is not readable: ${base.error}`); continue; }
      const baseTemps = new Set(tempFiles(template));
      // a clean run: its duration and its store calls
      const probe = loc.put(template, name);
      const tally = path.join(scratch, 'tally');
      const clean = await runLoom(sc, probe, { LOOM_FAULTS: '', LOOM_FAULT_TALLY: tally }, null);
      if (clean.code !== 0) { fail(`${name}: the clean run failed: ${clean.err.trim()}`); continue; }
      const counts = Object.fromEntries(fs.readFileSync(tally, 'utf8').trim().split('\n').map((l) => l.split(' ')).map(([k, v]) => [k, +v]));
      delete counts.fired;
      loc.drop(probe);
      const kinds = Object.entries(counts).filter(([, n]) => n > 0);
      const totalCalls = kinds.reduce((a, [, n]) => a + n, 0);
      const s = summary[name] = { trials: 0, byTime: 0, byCall: 0, killedMidRun: 0, unreadable: 0, rowsChanged: 0, dataTempsLeft: 0, cleanMs: Math.round(clean.ms) };

      for (let i = 0; i < opt.runs; i++) {
        const uri = loc.put(template, name);
        let how, r;
        if (i % 2 === 0) {
          // within the clean run's duration: a kill after the run ended
          // tests nothing (the summary counts the kills that hit a live run)
          const at = Math.floor(rand() * clean.ms);
          how = `kill -9 after ${at} ms`;
          r = await runLoom(sc, uri, {}, at);
          s.byTime++;
        } else {
          // a store call picked uniformly over all calls of the clean run
          let k = Math.floor(rand() * totalCalls), kind = kinds[0][0];
          for (const [kk, n] of kinds) { if (k < n) { kind = kk; break; } k -= n; }
          const mode = rand() < 0.5 ? 'crash' : 'crash-after';
          const spec = `${kind}@${k + 1}:${mode}`;
          how = `SIGKILL at ${spec}`;
          r = await runLoom(sc, uri, { LOOM_FAULTS: spec }, null);
          s.byCall++;
        }
        s.trials++;
        const midRun = r.signal === 'SIGKILL';
        if (midRun) s.killedMidRun++;
        else if (r.code !== 0) fail(`${name} (${how}): the run ended with ${r.code} before the kill: ${r.err.trim().slice(0, 300)}`);
        const what = `${name} trial ${i} (${how})`;
        let view = loc.view(uri);
        const j1 = await sc.judge(view);
        if (j1.error) { s.unreadable++; fail(`${what}: after the kill: ${j1.error}`); loc.drop(uri); continue; }
        if (j1.key !== base.key) { s.rowsChanged++; fail(`${what}: the rows changed: ${j1.key} != ${base.key}`); }
        // an hour later, a normal run
        if (loc.kind === 'local') {
          for (const f of tempFiles(uri)) if (!baseTemps.has(f)) sh(`touch -h -d '2 hours ago' '${path.join(uri, f)}'`);
        }
        const again = await runLoom(sc, uri, {}, null);
        view = loc.view(uri);
        const j2 = await sc.judge(view);
        const refusedAsDone = again.code === 1 && j1.done && sc.alreadyDone && sc.alreadyDone.test(again.err);
        if (again.code !== 0 && !refusedAsDone) fail(`${what}: the next run failed: ${again.err.trim().slice(0, 300)}`);
        else if (j2.error) fail(`${what}: after the next run: ${j2.error}`);
        else if (j2.key !== base.key) fail(`${what}: the rows changed after the next run`);
        else if (!j2.done) fail(`${what}: the next run did not finish the job: ${j2.detail}`);
        const left = tempFiles(view).filter((f) => !baseTemps.has(f));
        const logLeft = left.filter((f) => f.split('/').includes('_delta_log'));
        if (logLeft.length) fail(`${what}: temp files left in _delta_log after the next run: ${logLeft.join(', ')}`);
        s.dataTempsLeft += left.length - logLeft.length;
        loc.drop(uri);
      }
      console.log(`${name}: ${s.trials} trials (${s.byTime} timed, ${s.byCall} at a store call), ${s.killedMidRun} killed mid-run, ${s.unreadable} unreadable, ${s.rowsChanged} with changed rows, ${s.dataTempsLeft} data-directory temp files left; a clean run takes ${s.cleanMs} ms`);
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  const tot = (k) => Object.values(summary).reduce((a, s) => a + s[k], 0);
  console.log(`crash trials: ${tot('trials')} (${tot('killedMidRun')} killed mid-run), ${tot('unreadable')} unreadable tables, ${tot('rowsChanged')} fingerprint changes, ${failures.length} failures, ${oracleRuns()} oracle calls, ${Math.round((Date.now() - started) / 1000)} s`);
  process.exitCode = failures.length ? 1 : 0;
}

await main();
