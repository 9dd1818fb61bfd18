#!/usr/bin/env node
// jsq FILE|- 'EXPR': print the value of a JavaScript expression over the
// JSON document `d` (strings raw, everything else as JSON). Exit 1 if the
// expression is false/undefined and --assert is given:
//   node jsq.cjs out.json 'd.files.length'
//   node jsq.cjs --assert out.json 'd.rows === 8'
//
// A script test makes hundreds of these queries; starting node for each
// cost ~0.15 s of CPU, most of a fixture sweep's own work. So lib.sh starts
// one server per test script instead:
//   node jsq.cjs --serve PID PORTFILE
// listens on a loopback port (written to PORTFILE) and answers queries
// until process PID (the test's shell) is gone. A query is NUL-separated
// fields: the argument count, the caller's directory, the arguments, the
// byte length of the caller's stdin, then those bytes; the answer is the
// exit status, NUL, stderr, NUL, stdout (see jsq() in lib.sh).
const fs = require('fs');
const path = require('path');

// evaluate ARGS (as on the command line) with STDIN as the text of '-';
// returns { code, out, err } instead of exiting.
function query(args, cwd, stdin) {
  let assert = false;
  if (args[0] === '--assert') { assert = true; args = args.slice(1); }
  const [file, expr] = args;
  try {
    const text = file === '-' ? stdin : fs.readFileSync(path.resolve(cwd, file), 'utf8');
    const d = JSON.parse(text);
    const v = Function('d', `return (${expr});`)(d);
    if (assert) return v ? { code: 0, out: '', err: '' } : { code: 1, out: '', err: `assertion failed: ${expr}\n` };
    if (v === undefined) return { code: 1, out: '', err: '' };
    return { code: 0, out: `${typeof v === 'string' ? v : JSON.stringify(v)}\n`, err: '' };
  } catch (e) {
    return { code: 1, out: '', err: `jsq: ${e && e.message ? e.message : e}\n` };
  }
}

function serve(pid, portFile) {
  const net = require('net');
  const server = net.createServer((sock) => {
    let buf = Buffer.alloc(0);
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      // fields: nargs, cwd, args..., stdin length; then the stdin bytes
      const fields = [];
      let at = 0;
      while (fields.length < 2 || fields.length < 3 + Number(fields[0])) {
        const nul = buf.indexOf(0, at);
        if (nul < 0) return; // wait for more
        fields.push(buf.subarray(at, nul).toString('utf8'));
        at = nul + 1;
      }
      const nargs = Number(fields[0]);
      const len = Number(fields[2 + nargs]);
      if (buf.length - at < len) return;
      const r = query(fields.slice(2, 2 + nargs), fields[1], buf.subarray(at, at + len).toString('utf8'));
      sock.end(Buffer.concat([Buffer.from(`${r.code}\0${r.err}\0`), Buffer.from(r.out)]));
    });
    sock.on('error', () => {});
  });
  server.listen(0, '127.0.0.1', () => {
    fs.writeFileSync(`${portFile}.tmp`, `${server.address().port}\n`);
    fs.renameSync(`${portFile}.tmp`, portFile);
  });
  // gone with the test's shell
  setInterval(() => {
    try { process.kill(pid, 0); } catch (e) { process.exit(0); }
  }, 500);
}

let args = process.argv.slice(2);
if (args[0] === '--serve') {
  serve(Number(args[1]), args[2]);
} else {
  const file = args[0] === '--assert' ? args[1] : args[0];
  const stdin = file === '-' ? fs.readFileSync(0, 'utf8') : '';
  const r = query(args, process.cwd(), stdin);
  process.stdout.write(r.out);
  process.stderr.write(r.err);
  process.exitCode = r.code;
}
