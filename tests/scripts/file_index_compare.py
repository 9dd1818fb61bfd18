#!/usr/bin/env python3
"""Compare the compact file index's view of each Delta fixture table
(file_index_dump: built from the loaded snapshot's files, and filled by the
loader itself) with the independent oracle's `snapshot`. Expectations
come from the oracle only.

Usage: file_index_compare.py DUMP_BIN ORACLE_SH FIXTURES_DIR MANIFEST
       file_index_compare.py --table DUMP_BIN ORACLE_SH PARENT_DIR NAME
"""
import json
import os
from decimal import Decimal, InvalidOperation
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from delta_snapshot_compare import oracle_command  # noqa: E402

failures = []


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env)
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    err = p.stderr.strip().splitlines()
    return p.returncode, out, err[-1] if err else ""


def dv_key(dv):
    if not dv:
        return None
    return (dv["storageType"], dv["pathOrInlineDv"], dv.get("offset"), dv["sizeInBytes"],
            dv["cardinality"])


def dv_id(dv):
    return "" if not dv else dv["storageType"] + dv["pathOrInlineDv"]


def num_records(stats):
    nr = (stats or {}).get("numRecords")
    return int(nr) if nr is not None else -1


def same_stats(o, x):
    """Stats equal as values. The oracle keeps a number JavaScript cannot
    hold exactly (a long, a decimal) as its text; the index's side is read
    with exact numbers, so such a pair is compared as decimals."""
    if isinstance(o, dict) and isinstance(x, dict):
        return o.keys() == x.keys() and all(same_stats(o[k], x[k]) for k in o)
    if isinstance(o, list) and isinstance(x, list):
        return len(o) == len(x) and all(same_stats(a, b) for a, b in zip(o, x))
    if isinstance(o, str) and isinstance(x, (int, Decimal)) and not isinstance(x, bool):
        try:
            return Decimal(o) == Decimal(x)
        except InvalidOperation:
            return False
    if isinstance(o, (int, float)) and isinstance(x, Decimal) and not isinstance(o, bool):
        return Decimal(repr(o)) == x or float(x) == o
    return o == x


def compare_file(table, o, x):
    where = f"{table}: {o['path']}"
    if o["size"] != x["size"]:
        return f"{where}: size {x['size']} != oracle {o['size']}"
    if (o["partitionValues"] or {}) != x["partitionValues"]:
        return f"{where}: partitionValues {x['partitionValues']} != oracle {o['partitionValues']}"
    if dv_key(o.get("deletionVector")) != dv_key(x["deletionVector"]):
        return f"{where}: DV {x['deletionVector']} != oracle {o.get('deletionVector')}"
    if o.get("modificationTime") != x["modificationTime"]:
        return f"{where}: modificationTime {x['modificationTime']} != oracle {o.get('modificationTime')}"
    if (o.get("dataChange") if o.get("dataChange") is not None else True) != x["dataChange"]:
        return f"{where}: dataChange {x['dataChange']} != oracle {o.get('dataChange')}"
    ostats = o.get("stats")
    if x["stats"] is not None and x["statsParsed"]:
        # made by loom's checkpoint reader from stats_parsed, as the oracle
        # reads it raw: only numRecords is comparable
        pass
    elif x["stats"] is not None:
        try:
            xs = json.loads(x["stats"], parse_float=Decimal)
        except json.JSONDecodeError as e:
            return f"{where}: the index's stats are not JSON ({e})"
        if not same_stats(ostats, xs):
            return f"{where}: stats {xs} != oracle {ostats}"
    elif ostats is not None and not x["statsParsed"]:
        return f"{where}: no stats from the index; oracle has {ostats}"
    if ostats is not None and num_records(ostats) != x["numRecords"]:
        return f"{where}: numRecords {x['numRecords']} != oracle {num_records(ostats)}"
    return None


def check(table, dump, oracle_sh, fixtures, mode, shared_oracle=True):
    path = f"{fixtures}/{table}"
    if not shared_oracle:
        fixtures = None  # not a fixture table: ask the oracle itself
    table = f"{table} ({mode})"
    rc, x, err = run([dump, *(["--loader"] if mode == "loader" else []), path])
    if rc != 0 or x is None:
        failures.append(f"{table}: file_index_dump failed: {err}")
        return
    rc, o, err = run(*oracle_command(oracle_sh, fixtures, ["snapshot", path]))
    if rc == 0 and o is not None and x["checkpointVersion"] < 0 and o.get("checkpoint"):
        rc, o, err = run(*oracle_command(oracle_sh, fixtures,
                                         ["snapshot", path, "--ignore-checkpoints"]))
    if rc != 0 or o is None:
        failures.append(f"{table}: oracle snapshot failed: {err}")
        return
    if o["version"] != x["version"]:
        failures.append(f"{table}: version {x['version']} != oracle {o['version']}")
        return
    op = [f["path"] for f in o["files"]]
    xp = [f["path"] for f in x["files"]]
    if sorted(op) != sorted(xp):
        failures.append(f"{table}: live paths differ: missing {sorted(set(op) - set(xp))[:3]}, "
                        f"extra {sorted(set(xp) - set(op))[:3]}")
        return
    if [p.encode() for p in xp] != sorted(p.encode() for p in xp):
        failures.append(f"{table}: the index's files are not in byte order of their paths")
    by_path = {f["path"]: f for f in x["files"]}
    for of in o["files"]:
        msg = compare_file(table, of, by_path[of["path"]])
        if msg:
            failures.append(msg)
            break
    # a remove may omit size and deletionTimestamp: null there, -1 here
    ot = {(t["path"], dv_id(t.get("deletionVector"))):
          (-1 if t["size"] is None else t["size"],
           -1 if t["deletionTimestamp"] is None else t["deletionTimestamp"])
          for t in o["tombstones"]}
    xt = {(t["path"], dv_id(t["deletionVector"])): (t["size"], t["deletionTimestamp"])
          for t in x["tombstones"]}
    if ot != xt or len(xt) != len(x["tombstones"]):
        diff = sorted(set(ot.items()) ^ set(xt.items()), key=str)[:3]
        failures.append(f"{table}: tombstones differ ({len(xt)} vs oracle {len(ot)}): {diff}")
    xtp = [(t["path"].encode(), dv_id(t["deletionVector"]).encode()) for t in x["tombstones"]]
    if xtp != sorted(xtp):
        failures.append(f"{table}: the index's tombstones are not in path order")


def main():
    if sys.argv[1] == "--table":
        # one table DIR/NAME, both modes
        dump, oracle_sh, parent, name = sys.argv[2:6]
        for mode in ("snapshot", "loader"):
            check(name, dump, oracle_sh, parent, mode, shared_oracle=False)
        for f in failures:
            print("FAIL:", f)
        print(f"file index vs oracle: {name}, {len(failures)} failures")
        return 1 if failures else 0
    dump, oracle_sh, fixtures, manifest = sys.argv[1:5]
    tables = []
    with open(manifest) as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 2 and cols[1] == "delta" and cols[2].startswith("delta/"):
                tables.append(cols[2][len("delta/"):])
    if len(tables) < 30:
        print(f"only {len(tables)} delta fixtures found in {manifest}")
        return 1
    # the index built from the snapshot's files, and the index the loader
    # fills itself
    for t in sorted(tables):
        for mode in ("snapshot", "loader"):
            check(t, dump, oracle_sh, fixtures, mode)
    for f in failures:
        print("FAIL:", f)
    print(f"file index vs oracle: {len(tables)} tables, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
