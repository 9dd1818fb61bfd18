#!/usr/bin/env node
// The independent Azure Blob client of loom's Azure tests (Microsoft's
// @azure/storage-blob SDK, pinned in package.json): it uploads fixtures,
// downloads what loom wrote for the oracle, lists, and mints SAS tokens.
// Nothing here uses loom.
//
//   AZURITE_URL=http://127.0.0.1:PORT node azblob.cjs COMMAND ...
//   (AZBLOB_ACCOUNT and AZBLOB_KEY: another account than devstoreaccount1)
//
//   mkcontainer NAME
//   upload LOCAL_DIR CONTAINER[/PREFIX]     every file under LOCAL_DIR
//   download CONTAINER[/PREFIX] LOCAL_DIR   every blob under the prefix
//   ls CONTAINER[/PREFIX]                   "name<TAB>size" lines, sorted
//   exists CONTAINER/BLOB                   exit 0 if it exists, 1 if not
//   put CONTAINER/BLOB FILE                 one blob from a file
//   cat CONTAINER/BLOB                      a blob to stdout
//   rm CONTAINER/BLOB
//   sas CONTAINER SECONDS [PERMISSIONS]     a container SAS query valid for
//                                           SECONDS from now (negative:
//                                           already expired), default
//                                           permissions racwdl
"use strict";
const fs = require("fs");
const path = require("path");
const {
  BlobServiceClient, StorageSharedKeyCredential, ContainerSASPermissions,
  generateBlobSASQueryParameters,
} = require("@azure/storage-blob");

// Azurite's well-known account, or one given to it in AZURITE_ACCOUNTS
const ACCOUNT = process.env.AZBLOB_ACCOUNT || "devstoreaccount1";
const KEY = process.env.AZBLOB_KEY ||
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const base = process.env.AZURITE_URL;
if (!base) {
  console.error("azblob: set AZURITE_URL=http://127.0.0.1:PORT");
  process.exit(2);
}
const cred = new StorageSharedKeyCredential(ACCOUNT, KEY);
const service = new BlobServiceClient(`${base.replace(/\/$/, "")}/${ACCOUNT}`, cred);

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

// Run fn over items with at most `limit` in flight.
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

async function listNames(container, prefix) {
  const c = service.getContainerClient(container);
  const out = [];
  for await (const b of c.listBlobsFlat({ prefix: prefix ? `${prefix}/` : undefined })) {
    out.push({ name: b.name, size: b.properties.contentLength });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  switch (cmd) {
    case "mkcontainer": {
      await service.getContainerClient(args[0]).createIfNotExists();
      break;
    }
    case "upload": {
      const [dir, spec] = args;
      const [container, prefix] = split(spec);
      const c = service.getContainerClient(container);
      await c.createIfNotExists();
      await pool(walk(dir), 16, async (rel) => {
        const name = prefix ? `${prefix}/${rel}` : rel;
        await c.getBlockBlobClient(name).uploadFile(path.join(dir, rel));
      });
      break;
    }
    case "download": {
      const [spec, dir] = args;
      const [container, prefix] = split(spec);
      const c = service.getContainerClient(container);
      const blobs = await listNames(container, prefix);
      await pool(blobs, 16, async (b) => {
        const rel = prefix ? b.name.slice(prefix.length + 1) : b.name;
        const dst = path.join(dir, rel);
        fs.mkdirSync(path.dirname(dst), { recursive: true });
        await c.getBlobClient(b.name).downloadToFile(dst);
      });
      fs.mkdirSync(dir, { recursive: true });
      break;
    }
    case "ls": {
      const [container, prefix] = split(args[0]);
      for (const b of await listNames(container, prefix)) {
        process.stdout.write(`${prefix ? b.name.slice(prefix.length + 1) : b.name}\t${b.size}\n`);
      }
      break;
    }
    case "exists": {
      const [container, blob] = split(args[0]);
      const ok = await service.getContainerClient(container).getBlobClient(blob).exists();
      process.exit(ok ? 0 : 1);
      break;
    }
    case "put": {
      const [container, blob] = split(args[0]);
      await service.getContainerClient(container).getBlockBlobClient(blob).uploadFile(args[1]);
      break;
    }
    case "cat": {
      const [container, blob] = split(args[0]);
      const buf = await service.getContainerClient(container).getBlobClient(blob).downloadToBuffer();
      process.stdout.write(buf);
      break;
    }
    case "rm": {
      const [container, blob] = split(args[0]);
      await service.getContainerClient(container).getBlobClient(blob).deleteIfExists();
      break;
    }
    case "sas": {
      const [container, seconds, perms] = args;
      const now = Date.now();
      const expiresOn = new Date(now + Number(seconds) * 1000);
      const startsOn = new Date(Math.min(now, expiresOn.getTime()) - 3600 * 1000);
      const q = generateBlobSASQueryParameters({
        containerName: container,
        permissions: ContainerSASPermissions.parse(perms || "racwdl"),
        startsOn, expiresOn, version: "2021-08-06",
      }, cred);
      process.stdout.write(q.toString() + "\n");
      break;
    }
    default:
      console.error(`azblob: unknown command ${cmd}`);
      process.exit(2);
  }
}

main().catch((e) => {
  console.error(`azblob: ${e.message}`);
  process.exit(1);
});
