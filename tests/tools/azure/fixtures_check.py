#!/usr/bin/env python3
"""Judge loom on the shared fixture tables held by Azurite (driven by
tests/scripts/azure_fixtures.sh, which uploads them and downloads the
results with Microsoft's SDK).

    fixtures_check.py inspect LOOM ORACLE FIXTURES_DIR URI_PREFIX TABLE...
        `loom inspect --json --files URI_PREFIX/<table>` against the
        oracle's snapshot of the local fixture (the comparison of
        tests/scripts/delta_snapshot_compare.py), rows after deletion
        vectors against the oracle's fingerprint, deleted rows against the
        oracle's DV decoder.

    fixtures_check.py maintain LOOM URI_PREFIX TABLE...
        VACUUM FULL at retention 0, compaction and Z-order on each table
        (first two orderable non-partition columns), in that order; tables
        loom must refuse are refused with the reason named. Writes
        <table>.ops.json (what ran, what was refused) in the cwd.

    fixtures_check.py judge LOOM ORACLE FIXTURES_DIR DOWNLOAD_DIR TABLE...
        On the downloaded tables: oracle verify, fingerprint equal to the
        fixture's, no visible unreferenced file left (so no refused or
        failed operation left files behind), planted orphans gone, planted
        hidden files kept, refused operations committed nothing.

Prints FAIL lines and "N passed, M failed"; exit 1 on any failure.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import delta_snapshot_compare as dsc  # noqa: E402  (the snapshot comparison)

# Tables loom must refuse per operation, with the word the refusal names:
# tests/tools/fixture_refusals.tsv (the list every fixture test reads),
# except the log-only fixture, whose data files are missing by design and
# which each object store names its own way (Azure's BlobNotFound, else
# LOOM_MISSING_OBJECT_WORD: the GCS sweep shares these checks).
def load_refusals():
    refused = {"vacuum": {}, "compact": {}, "zorder": {}}
    ops = {"vacuum-full": "vacuum", "compact": "compact", "zorder": "zorder"}
    path = os.path.join(os.path.dirname(__file__), "..", "fixture_refusals.tsv")
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 3 and not cols[0].startswith("#") and cols[1] in ops:
                refused[ops[cols[1]]][cols[0]] = cols[2]
    for op in ("compact", "zorder"):
        refused[op]["checkpoints-log-only"] = os.environ.get("LOOM_MISSING_OBJECT_WORD", "BlobNotFound")
    return refused


REFUSED = load_refusals()
LOG_ONLY = {"checkpoints-log-only"}  # data files absent by design
ORDERABLE = ("string", "long", "integer", "short", "byte", "float", "double", "boolean", "binary",
             "date", "timestamp", "timestamp_ntz")
PLANTED_GONE = ["orphan-1.parquet", "sub/orphan-2.parquet"]
PLANTED_KEPT = ["_hidden.parquet", ".hidden-file"]

passed = [0]
failures = []


def ok():
    passed[0] += 1


def bad(table, msg):
    failures.append(f"{table}: {msg}")


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr.strip()


def run_json(cmd, env=None):
    rc, out, err = run(cmd, env)
    try:
        doc = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        doc = None
    return rc, doc, err


def oracle(*args):
    return run_json(*dsc.oracle_command(ORACLE, FIXTURES, args))


def columns(snap):
    parts = set(snap["metadata"].get("partitionColumns") or [])
    out = []
    for f in snap["metadata"]["schema"]["fields"]:
        t = f["type"]
        if isinstance(t, str) and (t in ORDERABLE or t.startswith("decimal(")) and f["name"] not in parts:
            out.append(f["name"])
    return ",".join(out[:2])


# ---- inspect -------------------------------------------------------------

def inspect_table(name):
    path = f"{FIXTURES}/{name}"
    uri = f"{PREFIX}/{name}"
    before = len(dsc.failures)
    rc_o, o, err_o = oracle("snapshot", path)
    if rc_o != 0 or o is None:
        return bad(name, f"oracle snapshot failed: {err_o}")
    rc_l, l, err_l = run_json([LOOM, "inspect", "--json", "--files", uri])
    json.dump(o, open(f"{name}.snap.json", "w"))  # the columns Z-order takes
    if rc_l != 0 or l is None:
        return bad(name, f"loom inspect {uri} failed: {err_l}")
    ref, tref = dsc.reference(name, path, [], o, l)
    dsc.compare(name, uri, ref, l, tref)
    rc_f, fp, err_f = oracle("fingerprint", path)
    if rc_f == 0 and fp is not None:
        json.dump(fp, open(f"{name}.fp.json", "w"))  # what the judge compares with
    if rc_f == 0 and fp is not None and l["filesWithoutStats"] == 0:
        if fp["rows"] != l["rows"]:
            bad(name, f"rows after DVs {l['rows']} != oracle fingerprint {fp['rows']}")
        if fp.get("deletedRows", 0) != l["deletionVectors"]["cardinality"]:
            bad(name, f"DV rows {l['deletionVectors']['cardinality']} != oracle {fp.get('deletedRows')}")
    elif rc_f != 0 and name not in LOG_ONLY:
        bad(name, f"oracle fingerprint failed: {err_f}")
    if l["deletionVectors"]["count"]:
        rc_d, od, err_d = oracle("dv", path)
        rc_l2, l2, err_l2 = run_json([LOOM, "inspect", "--json", "--deleted-rows", uri])
        if rc_d != 0 or rc_l2 != 0:
            bad(name, f"DV decode failed: oracle {err_d} / loom {err_l2}")
        else:
            orows = {f["path"]: f["rows"] for f in od["files"]}
            lrows = {f["path"]: f["deletedRows"] for f in l2["files"] if "deletedRows" in f}
            if orows != lrows:
                bad(name, f"deleted rows over {uri} differ from the oracle's")
    if len(dsc.failures) == before:
        ok()


# ---- maintain ------------------------------------------------------------

def maintain_table(name):
    uri = f"{PREFIX}/{name}"
    snap = json.load(open(f"{name}.snap.json")) if os.path.exists(f"{name}.snap.json") else None
    cols = columns(snap) if snap else "id"
    report = {"refused": [], "ran": []}
    steps = [("vacuum", [LOOM, "vacuum", uri, "--full", "--retention-hours", "0", "--no-retention-check",
                         "--no-dry-run", "--json"]),
             ("compact", [LOOM, "compact", uri, "--json"])]
    if cols:
        steps.append(("zorder", [LOOM, "zorder", uri, "--columns", cols, "--json"]))
    for op, cmd in steps:
        rc, out, err = run(cmd)
        reason = REFUSED[op].get(name)
        if reason:
            if rc == 0:
                bad(name, f"{op} should be refused ({reason})")
            elif reason not in err:
                bad(name, f"{op} refusal does not name '{reason}': {err[:300]}")
            else:
                ok()
                report["refused"].append(op)
        elif rc != 0:
            bad(name, f"{op} on {uri} failed: {err[:400]}")
        else:
            ok()
            report["ran"].append(op)
    json.dump(report, open(f"{name}.ops.json", "w"))


# ---- judge ---------------------------------------------------------------

def visible(path):
    return not any(c.startswith(("_", ".")) and not c.startswith(("_change_data", "_delta_index"))
                   for c in path.split("/"))


def judge_table(name):
    t = f"{DOWNLOAD}/{name}"
    report = json.load(open(f"{name}.ops.json"))
    n_fail = len(failures)
    if name not in LOG_ONLY:
        if os.path.exists(f"{name}.fp.json"):  # taken by the inspect pass
            rc, fp0, err = 0, json.load(open(f"{name}.fp.json")), ""
        else:
            rc, fp0, err = oracle("fingerprint", f"{FIXTURES}/{name}")
        rc1, fp1, err1 = oracle("fingerprint", t)
        if rc != 0 or rc1 != 0:
            bad(name, f"oracle fingerprint failed: {err or err1}")
        elif (fp0["hash"], fp0["rows"]) != (fp1["hash"], fp1["rows"]):
            bad(name, f"rows changed: {fp0['rows']} -> {fp1['rows']} (hash {fp0['hash']} -> {fp1['hash']})")
        rc, v, err = oracle("verify", t)
        if rc != 0:
            bad(name, f"oracle verify: {json.dumps(v)[:600] if v else err}")
    rc, orph, err = oracle("orphans", t)
    if rc != 0 or orph is None:
        bad(name, f"oracle orphans failed: {err}")
    else:
        # tombstones (and the deletion vectors of removed files) stay until
        # the next vacuum; anything else would be a file no commit names
        left = [f["path"] for f in orph["files"] if visible(f["path"]) and not f.get("tombstone")
                and not os.path.basename(f["path"]).startswith("deletion_vector_")]
        if "vacuum" in report["ran"] and left:
            bad(name, f"visible unreferenced files left after vacuum, compaction and z-order: {left[:5]}")
    vacuumed = "vacuum" in report["ran"]
    for p in PLANTED_GONE:
        if os.path.exists(f"{t}/{p}") == vacuumed:
            bad(name, f"planted orphan {p} {'still there' if vacuumed else 'deleted by a refused vacuum'}")
    for p in PLANTED_KEPT:
        if not os.path.exists(f"{t}/{p}"):
            bad(name, f"planted hidden file {p} deleted")
    # refused operations committed nothing
    ops = []
    for f in sorted(os.listdir(f"{t}/_delta_log")):
        if f.endswith(".json") and f[:20].isdigit() and len(f) == 25:
            for line in open(f"{t}/_delta_log/{f}"):
                if '"commitInfo"' in line:
                    ci = json.loads(line).get("commitInfo") or {}
                    if (ci.get("engineInfo") or "").startswith("loom/"):
                        ops.append(ci.get("operation"))
    # (each compaction or Z-order that ran commits at most one OPTIMIZE)
    ran_rewrites = sum(op in ("compact", "zorder") for op in report["ran"])
    if ops.count("OPTIMIZE") > ran_rewrites:
        bad(name, "a refused compaction or z-order committed")
    if len(failures) == n_fail:
        ok()


def main():
    global LOOM, ORACLE, FIXTURES, PREFIX, DOWNLOAD
    mode = sys.argv[1]
    if mode == "inspect":
        LOOM, ORACLE, FIXTURES, PREFIX = sys.argv[2:6]
        tables, fn = sys.argv[6:], inspect_table
        dsc.LOOM, dsc.ORACLE = LOOM, ORACLE
    elif mode == "maintain":
        LOOM, PREFIX = sys.argv[2:4]
        tables, fn = sys.argv[4:], maintain_table
    else:
        LOOM, ORACLE, FIXTURES, DOWNLOAD = sys.argv[2:6]
        tables, fn = sys.argv[6:], judge_table
    with ThreadPoolExecutor(max_workers=2) as ex:
        list(ex.map(fn, tables))
    for f in failures + dsc.failures:
        print("FAIL:", f)
    n_fail = len(failures) + len(dsc.failures)
    print(f"{mode}: {len(tables)} tables")
    print(f"{passed[0]} passed, {n_fail} failed")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
