// oracle_warm.mjs - the independent Delta oracle (../shared/tools/delta-oracle)
// run many times in one node process, for loops that judge hundreds of
// tables (fault walk, crash and race campaigns). Each call evaluates the
// unmodified oracle.mjs afresh (a new module instance per call, so no state
// is shared between calls) with the given arguments and captures the JSON it
// prints; only the node start-up and the DuckDB load are saved (~30 ms a
// call instead of ~250 ms).
//
//   import { oracle } from './oracle_warm.mjs';
//   const { code, json } = await oracle('fingerprint', dir);
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const src = process.env.LOOM_SOURCE_DIR || path.resolve(here, '../..');
export const ORACLE = path.resolve(src, '../shared/tools/delta-oracle/oracle.mjs');

let runs = 0;
let queue = Promise.resolve();

async function runOnce(args) {
  const savedArgv = process.argv;
  const savedWrite = process.stdout.write;
  let out = '';
  process.argv = [savedArgv[0], ORACLE, ...args];
  process.stdout.write = (chunk) => { out += chunk; return true; };
  process.exitCode = 0;
  try {
    await import(`${pathToFileURL(ORACLE).href}?run=${runs++}`);
  } finally {
    process.stdout.write = savedWrite;
    process.argv = savedArgv;
  }
  const code = process.exitCode ?? 0;
  process.exitCode = 0;
  let json;
  try { json = JSON.parse(out); } catch { json = { error: `unparsable oracle output: ${out.slice(0, 300)}` }; }
  return { code, json };
}

// One call at a time: the oracle owns process.argv and stdout while it runs.
export function oracle(...args) {
  const p = queue.then(() => runOnce(args));
  queue = p.catch(() => {});
  return p;
}

export function oracleRuns() { return runs; }
