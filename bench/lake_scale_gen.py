#!/usr/bin/env python3
"""bench/lake_scale_gen.py - a lake of many small Delta tables written
straight to a loopback S3 server (issue 30, "A lake"), deterministic in SEED.

  lake_scale_gen.py PORT BUCKET/ROOT TABLES SEED TEMPLATES.jsonl OUT_DIR

TEMPLATES.jsonl: one line per template Parquet file (bench/lake_gen.cjs
stats: path, size, numRecords, min/max/nullCount of id, u1, u2, s, ts); every
data file of the lake is a copy of one of them, so DuckDB writes the data
and this script only the logs. Table i is ROOT/sSSS/tIIIII (name
sSSS.tIIIII, 100 tables a schema); its shape is drawn from its own random
stream (SEED, i), so the first N tables are the same whatever TABLES is:
  healthy 70%  one commit, 1-2 files: nothing to do
  small   10%  6 commits of one file each: compaction (4 small files or more)
  longlog  5%  12 commits of one file each: compaction, and a checkpoint
               (10 commits since none)
  tomb    15%  4 files, then a commit removing 2 of them (still stored) long
               ago, delta.deletedFileRetentionDuration 1 second: vacuum
Objects go up through bench/put_objects.py while they are made. Writes
OUT_DIR/tables.tsv (name, shape, data files live, data files stored,
commits) and prints the objects put.
"""
import json
import os
import random
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import put_objects  # noqa: E402

SHAPES = (("healthy", 70), ("small", 10), ("longlog", 5), ("tomb", 15))
T0 = 1767225600000  # 2026-01-01T00:00:00Z: every commit time (a fixed lake)
SCHEMA = {"type": "struct", "fields": [
    {"name": n, "type": t, "nullable": True, "metadata": {}}
    for n, t in (("id", "long"), ("u1", "double"), ("u2", "long"), ("s", "string"), ("ts", "timestamp"))]}


def table_name(i):
    return "s%03d.t%05d" % (i // 100, i)


def shape_of(rng):
    x = rng.randrange(100)
    for name, pct in SHAPES:
        if x < pct:
            return name
        x -= pct
    raise AssertionError


def commit(version, actions):
    info = {"commitInfo": {"timestamp": T0 + version * 1000, "operation": "WRITE" if version == 0 else "APPEND",
                           "engineInfo": "lake_scale_gen.py"}}
    return "\n".join(json.dumps(a, separators=(",", ":")) for a in [info] + actions) + "\n"


def add(name, tpl, version):
    st = {k: tpl[k] for k in ("numRecords", "minValues", "maxValues", "nullCount")}
    return {"add": {"path": name, "partitionValues": {}, "size": tpl["size"],
                    "modificationTime": T0 + version * 1000, "dataChange": True,
                    "stats": json.dumps(st, separators=(",", ":"))}}


def table_objects(i, seed, templates, root, out):
    """The objects of table i; appends its line to `out` (tables.tsv)."""
    rng = random.Random("%d:%d" % (seed, i))
    shape = shape_of(rng)
    prefix = "%s/%s/" % (root, table_name(i).replace(".", "/"))
    config = {"delta.deletedFileRetentionDuration": "interval 1 seconds"} if shape == "tomb" else {}
    meta = [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": {"id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                          "format": {"provider": "parquet", "options": {}},
                          "schemaString": json.dumps(SCHEMA, separators=(",", ":")),
                          "partitionColumns": [], "configuration": config, "createdTime": T0}}]
    files = []   # (name, template)

    def new_file():
        tpl = templates[rng.randrange(len(templates))]
        name = "part-%05d-%s-c000.snappy.parquet" % (len(files), uuid.UUID(int=rng.getrandbits(128), version=4))
        files.append((name, tpl))
        return name, tpl

    commits = []
    if shape == "healthy":
        commits.append(meta + [add(*new_file(), 0) for _ in range(rng.randint(1, 2))])
    elif shape in ("small", "longlog"):
        for v in range(6 if shape == "small" else 12):
            commits.append((meta if v == 0 else []) + [add(*new_file(), v)])
    else:
        commits.append(meta + [add(*new_file(), 0) for _ in range(4)])
        commits.append([{"remove": {"path": name, "deletionTimestamp": T0 + 1000, "dataChange": True,
                                    "extendedFileMetadata": True, "partitionValues": {}, "size": tpl["size"]}}
                        for name, tpl in files[:2]])
    live = len(files) - (2 if shape == "tomb" else 0)
    out.write("%s\t%s\t%d\t%d\t%d\n" % (table_name(i), shape, live, len(files), len(commits)))
    for name, tpl in files:
        yield prefix + name, tpl["path"]
    for v, actions in enumerate(commits):
        yield prefix + "_delta_log/%020d.json" % v, commit(v, actions).encode()


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__)
    port, target, n, seed, tpl_file, out_dir = sys.argv[1:]
    bucket, _, root = target.partition("/")
    templates = [json.loads(line) for line in open(tpl_file) if line.strip()]
    cache = {}
    for t in templates:   # read each template once
        with open(t["path"], "rb") as f:
            cache[t["path"]] = f.read()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "tables.tsv"), "w") as out:
        def items():
            for i in range(int(n)):
                for key, body in table_objects(i, int(seed), templates, root.strip("/"), out):
                    yield key, cache.get(body, body) if isinstance(body, str) else body
        print(put_objects.put_all(int(port), bucket, items()))


if __name__ == "__main__":
    main()
