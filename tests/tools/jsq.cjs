#!/usr/bin/env node
// jsq FILE|- 'EXPR': print the value of a JavaScript expression over the
// JSON document `d` (strings raw, everything else as JSON). Exit 1 if the
// expression is false/undefined and --assert is given:
//   node jsq.cjs out.json 'd.files.length'
//   node jsq.cjs --assert out.json 'd.rows === 8'
const fs = require('fs');
let args = process.argv.slice(2);
let assert = false;
if (args[0] === '--assert') { assert = true; args = args.slice(1); }
const [file, expr] = args;
const text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
const d = JSON.parse(text);
const v = Function('d', `return (${expr});`)(d);
if (assert) {
  if (!v) { console.error(`assertion failed: ${expr}`); process.exit(1); }
  process.exit(0);
}
if (v === undefined) process.exit(1);
console.log(typeof v === 'string' ? v : JSON.stringify(v));
