#!/usr/bin/env node
// The independent GCS client of loom's GCS tests (Google's
// @google-cloud/storage, pinned in package.json): it uploads fixtures,
// downloads what loom wrote for the oracle, lists and reads objects.
// Nothing here uses loom.
//
//   STORAGE_EMULATOR_HOST=http://127.0.0.1:PORT node gcsclient.cjs COMMAND ...
//
//   upload LOCAL_DIR BUCKET[/PREFIX]     every file under LOCAL_DIR
//   download BUCKET[/PREFIX] LOCAL_DIR   every object under the prefix
//   ls BUCKET[/PREFIX]                   "name<TAB>size" lines, sorted
//   exists BUCKET/OBJECT                 exit 0 if it exists, 1 if not
//   put BUCKET/OBJECT FILE               one object from a file
//   cat BUCKET/OBJECT                    an object to stdout
//   rm BUCKET/OBJECT
"use strict";
const fs = require("fs");
const path = require("path");
const { Storage } = require("@google-cloud/storage");

if (!process.env.STORAGE_EMULATOR_HOST) {
  console.error("gcsclient: set STORAGE_EMULATOR_HOST=http://127.0.0.1:PORT");
  process.exit(2);
}
const storage = new Storage({ projectId: "demo-loom", apiEndpoint: process.env.STORAGE_EMULATOR_HOST });

function split(spec) {
  const i = spec.indexOf("/");
  return i < 0 ? [spec, ""] : [spec.slice(0, i), spec.slice(i + 1).replace(/\/+$/, "")];
}

function walk(dir, rel = "") {
  const out = [];
  for (const name of fs.readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    const st = fs.statSync(path.join(dir, r)); // follows symbolic links
    if (st.isDirectory()) out.push(...walk(dir, r));
    else if (st.isFile()) out.push(r);
  }
  return out;
}

async function pool(items, limit, fn) {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]);
    }
  });
  await Promise.all(workers);
}

async function listNames(bucket, prefix) {
  const [files] = await storage.bucket(bucket).getFiles({ prefix: prefix ? `${prefix}/` : undefined });
  return files.map((f) => ({ name: f.name, size: Number(f.metadata.size) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  switch (cmd) {
    case "upload": {
      const [dir, spec] = args;
      const [bucket, prefix] = split(spec);
      await pool(walk(dir), 16, async (rel) => {
        const name = prefix ? `${prefix}/${rel}` : rel;
        await storage.bucket(bucket).upload(path.join(dir, rel), { destination: name, resumable: false });
      });
      break;
    }
    case "download": {
      const [spec, dir] = args;
      const [bucket, prefix] = split(spec);
      const objs = await listNames(bucket, prefix);
      await pool(objs, 16, async (o) => {
        const rel = prefix ? o.name.slice(prefix.length + 1) : o.name;
        const dst = path.join(dir, rel);
        fs.mkdirSync(path.dirname(dst), { recursive: true });
        await storage.bucket(bucket).file(o.name).download({ destination: dst, validation: false });
      });
      fs.mkdirSync(dir, { recursive: true });
      break;
    }
    case "ls": {
      const [bucket, prefix] = split(args[0]);
      for (const o of await listNames(bucket, prefix)) {
        process.stdout.write(`${prefix ? o.name.slice(prefix.length + 1) : o.name}\t${o.size}\n`);
      }
      break;
    }
    case "exists": {
      const [bucket, name] = split(args[0]);
      const [ok] = await storage.bucket(bucket).file(name).exists();
      process.exit(ok ? 0 : 1);
      break;
    }
    case "put": {
      const [bucket, name] = split(args[0]);
      await storage.bucket(bucket).upload(args[1], { destination: name, resumable: false });
      break;
    }
    case "cat": {
      const [bucket, name] = split(args[0]);
      const [buf] = await storage.bucket(bucket).file(name).download({ validation: false });
      process.stdout.write(buf);
      break;
    }
    case "rm": {
      const [bucket, name] = split(args[0]);
      await storage.bucket(bucket).file(name).delete({ ignoreNotFound: true });
      break;
    }
    default:
      console.error(`gcsclient: unknown command ${cmd}`);
      process.exit(2);
  }
}

main().catch((e) => {
  console.error(`gcsclient: ${e.message}`);
  process.exit(1);
});
