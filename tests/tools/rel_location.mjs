// rel_location.mjs - where the reliability tests put the table copies they
// break. `local` (the default) is a directory under the test's temp dir.
// Any other store plugs in through three commands (LOOM_REL_LOCATION=command):
//   LOOM_REL_PUT  'cmd SRC_DIR NAME'  uploads a template copy, prints its URI
//   LOOM_REL_GET  'cmd URI DST_DIR'   downloads every object under URI
//   LOOM_REL_DROP 'cmd URI'           deletes everything under URI
// The oracle reads local directories only, so judgments run on the download
// (view), and temp files left in the store show up in it as well.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function run(template, ...args) {
  return execFileSync('bash', ['-c', `${template} "$@"`, 'rel-location', ...args], { encoding: 'utf8' }).trim();
}

export function openLocation(scratch) {
  const kind = process.env.LOOM_REL_LOCATION || 'local';
  let n = 0;
  if (kind === 'local') {
    return {
      kind,
      put(templateDir, name) {
        const dst = path.join(scratch, `${name}-${n++}`);
        fs.cpSync(templateDir, dst, { recursive: true, preserveTimestamps: true });
        return dst;
      },
      view(uri) { return uri; },
      drop(uri) { fs.rmSync(uri, { recursive: true, force: true }); },
    };
  }
  if (kind === 'command') {
    for (const v of ['LOOM_REL_PUT', 'LOOM_REL_GET', 'LOOM_REL_DROP'])
      if (!process.env[v]) throw new Error(`LOOM_REL_LOCATION=command needs ${v}`);
    return {
      kind,
      put(templateDir, name) { return run(process.env.LOOM_REL_PUT, templateDir, `${name}-${n++}`); },
      view(uri) {
        const dst = path.join(scratch, `view-${n++}`);
        fs.rmSync(dst, { recursive: true, force: true });
        run(process.env.LOOM_REL_GET, uri, dst);
        return dst;
      },
      drop(uri) { run(process.env.LOOM_REL_DROP, uri); },
    };
  }
  throw new Error(`LOOM_REL_LOCATION: unknown location ${kind} (local or command)`);
}
