#!/usr/bin/env python3
"""Compare `loom inspect --json --files` with the independent Delta oracle
(shared/tools/delta-oracle) for every Delta fixture table and every version
the oracle can rebuild. Expectations come from the oracle only.

Usage: delta_snapshot_compare.py latest|history LOOM_BIN ORACLE_SH FIXTURES_DIR MANIFEST
  latest:  the newest version (state, tombstones, rows, deletion vectors)
  history: every earlier version the oracle can rebuild (time travel)

When loom loaded a version without a checkpoint where the oracle used one,
its reference is the oracle's commits-only state (`--ignore-checkpoints`).

With LOOM_INSPECT_BASE set (an object store URI such as s3://bucket/delta
holding a copy of the fixtures), loom reads each table there while the
oracle reads the local fixture (tests/scripts/s3_inspect_fixtures.sh).
"""
import json
import subprocess
import os
import sys
from concurrent.futures import ThreadPoolExecutor

MODE = LOOM = ORACLE = FIXTURES = MANIFEST = None  # set by main()


failures = []
notes = []


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = None
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        pass
    err = p.stderr.strip().splitlines()
    return p.returncode, out, err[-1] if err else ""


def oracle_command(oracle_sh, fixtures, args):
    """The command and environment that ask the oracle (oracle_sh) ARGS:
    for a table of FIXTURES as shipped, the answer the run's tests share
    (tests/tools/fixture_oracle.sh computes it once)."""
    table = os.path.normpath(args[1]) if len(args) > 1 else ""
    if fixtures and os.path.dirname(table) == os.path.normpath(fixtures):
        env = dict(os.environ, LOOM_FIXTURES_DIR=os.path.dirname(os.path.dirname(table)))
        shared = os.path.join(os.path.dirname(oracle_sh), "fixture_oracle.sh")
        return ["bash", shared, os.path.basename(table), args[0], *args[2:]], env
    return ["bash", oracle_sh, *args], None


def oracle(*args):
    return run(*oracle_command(ORACLE, FIXTURES, args))


def loom(*args):
    return run([LOOM, "inspect", "--json", "--files", *args])


def fail(table, msg):
    failures.append(f"{table}: {msg}")


def dv_id(dv):
    if not dv:
        return ""
    return dv["storageType"] + dv["pathOrInlineDv"]


def oracle_files(snap):
    res = {}
    for f in snap["files"]:
        stats = f.get("stats") or {}
        nr = stats.get("numRecords")
        res[f["path"]] = {
            "size": f["size"],
            "partitionValues": f["partitionValues"],
            "numRecords": int(nr) if nr is not None else None,
            "dv": dv_id(f.get("deletionVector")),
            "dvCardinality": (f["deletionVector"] or {}).get("cardinality", 0)
            if f.get("deletionVector") else 0,
        }
    return res


def loom_files(snap):
    res = {}
    for f in snap["files"]:
        dv = f.get("deletionVector")
        res[f["path"]] = {
            "size": f["size"],
            "partitionValues": f["partitionValues"],
            "numRecords": f["numRecords"],
            "dv": dv_id(dv),
            "dvCardinality": dv["cardinality"] if dv else 0,
        }
    return res


def tomb_key(t):
    return (t["path"], dv_id(t.get("deletionVector")))


def compare(table, label, o, l, tomb_ref):
    """o: oracle snapshot, l: loom inspect; tomb_ref: oracle snapshot whose
    tombstones must match (None: skip)."""
    where = f"{label}"
    if o["version"] != l["version"]:
        fail(table, f"{where}: version {l['version']} != oracle {o['version']}")
        return
    op, lp = o["protocol"], l["protocol"]
    for k in ("minReaderVersion", "minWriterVersion"):
        if op.get(k) != lp.get(k):
            fail(table, f"{where}: protocol {k} {lp.get(k)} != oracle {op.get(k)}")
    for k in ("readerFeatures", "writerFeatures"):
        if sorted(op.get(k) or []) != sorted(lp.get(k) or []):
            fail(table, f"{where}: protocol {k} {lp.get(k)} != oracle {op.get(k)}")
    om, lm = o["metadata"], l["metadata"]
    if om["id"] != lm["id"]:
        fail(table, f"{where}: metadata id {lm['id']} != oracle {om['id']}")
    if om["schema"] != lm["schema"]:
        fail(table, f"{where}: schema differs from the oracle's")
    if (om.get("partitionColumns") or []) != (lm.get("partitionColumns") or []):
        fail(table, f"{where}: partition columns {lm['partitionColumns']} != oracle {om['partitionColumns']}")
    if (om.get("configuration") or {}) != (lm.get("configuration") or {}):
        fail(table, f"{where}: configuration differs: {lm['configuration']} vs {om['configuration']}")
    if om.get("createdTime") != lm.get("createdTime"):
        fail(table, f"{where}: createdTime {lm.get('createdTime')} != oracle {om.get('createdTime')}")
    if o["numFiles"] != l["numFiles"] or o["totalBytes"] != l["totalBytes"]:
        fail(table, f"{where}: {l['numFiles']} files / {l['totalBytes']} bytes != oracle "
                    f"{o['numFiles']} / {o['totalBytes']}")
    of, lf = oracle_files(o), loom_files(l)
    if set(of) != set(lf):
        miss = sorted(set(of) - set(lf))[:3]
        extra = sorted(set(lf) - set(of))[:3]
        fail(table, f"{where}: live file set differs: missing {miss}, extra {extra}")
    else:
        for p in of:
            if of[p] != lf[p]:
                fail(table, f"{where}: file {p}: loom {lf[p]} != oracle {of[p]}")
                break
    if o.get("txns", {}) != l.get("txns", {}):
        fail(table, f"{where}: txns {l.get('txns')} != oracle {o.get('txns')}")
    if o.get("domainMetadata", {}) != l.get("domainMetadata", {}):
        fail(table, f"{where}: domainMetadata {l.get('domainMetadata')} != oracle {o.get('domainMetadata')}")
    if tomb_ref is not None:
        ot = {tomb_key(t): (t["size"], t["deletionTimestamp"]) for t in tomb_ref["tombstones"]}
        lt = {tomb_key(t): (t["size"], t["deletionTimestamp"]) for t in l["tombstoneFiles"]}
        if ot != lt:
            diff = sorted(set(ot.items()) ^ set(lt.items()))[:3]
            fail(table, f"{where}: tombstones differ ({len(lt)} vs oracle {len(ot)}): {diff}")
        if l["tombstones"]["count"] != len(tomb_ref["tombstones"]):
            fail(table, f"{where}: tombstone count {l['tombstones']['count']} != {len(tomb_ref['tombstones'])}")


def reference(name, path, version_args, o, l):
    """The oracle snapshot loom must equal, and the one whose tombstones
    must match (None: skip tombstones)."""
    if l["checkpoint"] is None and o.get("checkpoint") is not None:
        rc_i, oi, err_i = oracle("snapshot", path, "--ignore-checkpoints", *version_args)
        if rc_i != 0:
            fail(name, f"oracle --ignore-checkpoints {version_args} failed: {err_i}")
            return o, None
        return oi, oi
    if l["checkpoint"] is None:
        return o, o
    oc = o.get("checkpoint") or {}
    if oc.get("version") != l["checkpoint"]["version"]:
        fail(name, f"loom used checkpoint {l['checkpoint']}, oracle {o.get('checkpoint')}")
        return o, None
    return o, o


def loom_path(name):
    """Where loom reads the table: the local fixture, or its copy."""
    base = os.environ.get("LOOM_INSPECT_BASE")
    return f"{base}/{name}" if base else f"{FIXTURES}/{name}"


def check_latest(name):
    path = f"{FIXTURES}/{name}"
    rc_o, o, err_o = oracle("snapshot", path)
    if rc_o != 0 or o is None:
        fail(name, f"oracle snapshot failed: {err_o}")
        return
    rc_l, l, err_l = loom(loom_path(name))
    if rc_l != 0:
        fail(name, f"loom inspect failed: {err_l}")
        return
    ref, tref = reference(name, path, [], o, l)
    compare(name, "latest", ref, l, tref)

    # rows after deletion vectors: the oracle reads the data through DuckDB
    # (loom's side comes from the log's stats, read the same way from a
    # copy: the local run covers it)
    rc_f, fp, err_f = oracle("fingerprint", path) if not os.environ.get("LOOM_INSPECT_BASE") \
        else (1, None, "is missing: skipped for a copy")
    if rc_f == 0 and fp is not None:
        if l["filesWithoutStats"] == 0:
            if fp["rows"] != l["rows"]:
                fail(name, f"rows after DVs {l['rows']} != oracle fingerprint {fp['rows']}")
            if fp.get("deletedRows", 0) != l["deletionVectors"]["cardinality"]:
                fail(name, f"DV rows {l['deletionVectors']['cardinality']} != oracle {fp.get('deletedRows')}")
        else:
            notes.append(f"{name}: no stats in the log, rows not comparable (oracle {fp['rows']})")
    elif "is missing" not in (err_f or ""):
        fail(name, f"oracle fingerprint failed: {err_f}")

    # deletion vectors decoded by loom vs the oracle's decoder
    if l["deletionVectors"]["count"]:
        rc_d, od, err_d = oracle("dv", path)
        rc_l2, l2, err_l2 = run([LOOM, "inspect", "--json", "--deleted-rows", loom_path(name)])
        if rc_d != 0 or rc_l2 != 0:
            fail(name, f"DV decode failed: oracle {err_d} / loom {err_l2}")
        else:
            orows = {f["path"]: f["rows"] for f in od["files"]}
            lrows = {f["path"]: f["deletedRows"] for f in l2["files"] if "deletedRows" in f}
            if orows != lrows:
                fail(name, f"deleted rows differ: loom {str(lrows)[:200]} oracle {str(orows)[:200]}")


def check_history(name):
    path = f"{FIXTURES}/{name}"
    rc_o, o, err_o = oracle("snapshot", path)
    if rc_o != 0 or o is None:
        fail(name, f"oracle snapshot failed: {err_o}")
        return
    for v in range(0, o["version"]):
        va = ["--version", str(v)]
        rc_ov, ov, err_ov = oracle("snapshot", path, *va)
        rc_lv, lv, err_lv = loom(loom_path(name), *va)
        if rc_ov != 0:
            if rc_lv == 0:
                fail(name, f"v{v}: loom rebuilt a version the oracle cannot ({err_ov})")
            elif "cannot be rebuilt" not in err_lv:
                fail(name, f"v{v}: loom's error does not say the version cannot be rebuilt: {err_lv}")
            continue
        if rc_lv != 0:
            fail(name, f"v{v}: loom failed: {err_lv}")
            continue
        ref, tref = reference(name, path, va, ov, lv)
        compare(name, f"v{v}", ref, lv, tref)
        checked[0] += 1


checked = [0]


def main():
    global MODE, LOOM, ORACLE, FIXTURES, MANIFEST
    MODE, LOOM, ORACLE, FIXTURES, MANIFEST = sys.argv[1:6]
    tables = []
    with open(MANIFEST) as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 2 and cols[1] == "delta" and cols[2].startswith("delta/"):
                tables.append(cols[2][len("delta/"):])
    if len(tables) < 30:
        print(f"only {len(tables)} delta fixtures found in {MANIFEST}")
        return 1
    # The sanitizer pass samples the tables (see fixture_tables in
    # tests/tools/lib.sh); the regular pass compares every one.
    sample = int(os.environ.get("LOOM_FIXTURE_SAMPLE", "1") or "1")
    if sample > 1:
        tables = [t for i, t in enumerate(sorted(tables)) if i % sample == 0]
    fn = check_latest if MODE == "latest" else check_history
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(fn, tables))
    for n in sorted(notes):
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    if MODE == "history":
        print(f"{checked[0]} earlier versions compared")
    print(f"{MODE}: {len(tables)} tables, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
