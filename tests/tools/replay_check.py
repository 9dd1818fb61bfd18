#!/usr/bin/env python3
"""replay_check.py LOOM_JSON ORACLE_JSON DUCKDB_JSON: a snapshot loom
loaded (`loom inspect --json --files`) against the independent oracle's
(`oracle snapshot`) and DuckDB's reconciliation of the same log
(bench/log_replay_duckdb.cjs state). Prints one line per figure compared
and "mismatch" lines for any difference; exits 1 on a difference."""
import json
import sys

loom, oracle, duck = (json.load(open(p)) for p in sys.argv[1:4])
ok = True


def same(what, a, b, c=None):
    global ok
    agree = a == b and (c is None or a == c)
    if agree:
        print(f"same: {what}: {len(a) if isinstance(a, list) else a}")
    else:
        print(f"MISMATCH: {what}: loom {str(a)[:300]}, oracle {str(b)[:300]}"
              + ("" if c is None else f", DuckDB {str(c)[:300]}"))
    ok = ok and agree


def records(files):
    return sum(f["numRecords"] if "numRecords" in f else (f.get("stats") or {}).get("numRecords", 0) for f in files)


same("version", loom["version"], oracle["version"], duck["version"])
same("live files", loom["numFiles"], oracle["numFiles"], duck["numFiles"])
same("their bytes", loom["totalBytes"], oracle["totalBytes"], duck["totalBytes"])
same("their numRecords", loom["numRecords"], records(oracle["files"]), duck["numRecords"])
same("numRecords over loom's file list", records(loom["files"]), loom["numRecords"])
same("the live paths", sorted(f["path"] for f in loom["files"]), sorted(f["path"] for f in oracle["files"]))
same("tombstones", loom["tombstones"]["count"], len(oracle["tombstones"]))
same("txns", loom["txns"], oracle["txns"])
sys.exit(0 if ok else 1)
