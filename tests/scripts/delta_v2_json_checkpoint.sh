#!/usr/bin/env bash
# A V2 JSON checkpoint (N.checkpoint.<uuid>.json, no sidecars) written by
# this test from the oracle's view of version N of a JSON-only table, with
# the commits before N deleted: loom must rebuild N and later versions from
# the checkpoint exactly as the oracle does, and refuse older versions.
set -euo pipefail
src="${LOOM_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
build="${LOOM_BUILD_DIR:-$src/build}"
bin="${LOOM_BIN:-$build/loom}"
fixtures="${LOOM_FIXTURES_DIR:-$src/../shared/fixtures}"
export LOOM_SOURCE_DIR="$src" LOOM_BUILD_DIR="$build"
source "$src/tests/tools/oracle_env.sh"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
exec python3 - "$bin" "$src/tests/tools/oracle.sh" "$fixtures/delta" "$tmp" <<'PY'
import json, os, shutil, subprocess, sys, urllib.parse, uuid
sys.path.insert(0, os.path.join(os.environ["LOOM_SOURCE_DIR"], "tests", "scripts"))
import delta_snapshot_compare as dc

loom_bin, oracle_sh, fixtures, tmp = sys.argv[1:5]
dc.LOOM, dc.ORACLE = loom_bin, oracle_sh

def make(table, ckpt):
    dst = os.path.join(tmp, table)
    shutil.copytree(os.path.join(fixtures, table), dst)
    log = os.path.join(dst, "_delta_log")
    rc, s, err = dc.oracle("snapshot", dst, "--version", str(ckpt))
    assert rc == 0, err
    md = s["metadata"]
    lines = [{"checkpointMetadata": {"version": ckpt}}, {"protocol": s["protocol"]},
             {"metaData": {"id": md["id"], "name": md.get("name"), "format": md["format"],
                           "schemaString": json.dumps(md["schema"]),
                           "partitionColumns": md["partitionColumns"],
                           "configuration": md["configuration"],
                           "createdTime": md.get("createdTime")}}]
    for app, v in s["txns"].items():
        lines.append({"txn": {"appId": app, "version": v}})
    for d, c in s["domainMetadata"].items():
        lines.append({"domainMetadata": {"domain": d, "configuration": c, "removed": False}})
    for f in s["files"]:
        a = {"path": urllib.parse.quote(f["path"], safe="/=:-_.~"), "partitionValues": f["partitionValues"],
             "size": f["size"], "modificationTime": f["modificationTime"],
             "dataChange": False}
        if f.get("stats") is not None:
            a["stats"] = json.dumps(f["stats"])
        if f.get("deletionVector"):
            a["deletionVector"] = f["deletionVector"]
        lines.append({"add": a})
    for t in s["tombstones"]:
        r = {"path": urllib.parse.quote(t["path"], safe="/=:-_.~"), "deletionTimestamp": t["deletionTimestamp"],
             "dataChange": True}
        if t.get("size") is not None:
            r["size"] = t["size"]
        if t.get("deletionVector"):
            r["deletionVector"] = t["deletionVector"]
        lines.append({"remove": r})
    name = "%020d.checkpoint.%s.json" % (ckpt, uuid.uuid4())
    with open(os.path.join(log, name), "w") as fh:
        fh.write("\n".join(json.dumps(l) for l in lines) + "\n")
    # a hint pointing at it (loom lists the log from the hinted version on)
    with open(os.path.join(log, "_last_checkpoint"), "w") as fh:
        fh.write(json.dumps({"version": ckpt, "size": len(lines)}))
    for v in range(ckpt):
        for ext in ("json", "crc"):
            p = os.path.join(log, "%020d.%s" % (v, ext))
            if os.path.exists(p):
                os.remove(p)
    return dst, s

def check(table, ckpt):
    dst, at_ckpt = make(table, ckpt)
    rc, o, err = dc.oracle("snapshot", dst)
    if rc != 0:
        dc.fail(table, f"oracle failed: {err}")
        return
    if (o.get("checkpoint") or {}).get("kind") != "v2-json":
        dc.fail(table, f"oracle did not use the V2 JSON checkpoint: {o.get('checkpoint')}")
    for v in range(ckpt, o["version"] + 1):
        rc_o, ov, err_o = dc.oracle("snapshot", dst, "--version", str(v))
        rc_l, lv, err_l = dc.loom(dst, "--version", str(v))
        if rc_o != 0 or rc_l != 0:
            dc.fail(table, f"v{v}: oracle {err_o} / loom {err_l}")
            continue
        if lv["checkpoint"] != {"version": ckpt, "kind": "v2-json", "parts": 1, "sidecars": 0}:
            dc.fail(table, f"v{v}: loom checkpoint {lv['checkpoint']}")
        dc.compare(table, f"v2-json v{v}", ov, lv, ov)
    # the checkpoint's own version: commitInfo comes from N.json
    rc_l, lv, err_l = dc.run([loom_bin, "inspect", "--json", dst, "--version", str(ckpt)])
    if rc_l != 0 or lv["commitsReplayed"] != 0:
        dc.fail(table, f"v{ckpt}: expected no commit replayed: {err_l} {lv and lv['commitsReplayed']}")
    if ckpt == 0:
        return
    rc_l, _, err_l = dc.loom(dst, "--version", str(ckpt - 1))
    if rc_l == 0 or "cannot be rebuilt" not in err_l:
        dc.fail(table, f"v{ckpt - 1} before the checkpoint: expected 'cannot be rebuilt', got {err_l!r}")

check("cdf-table-with-cdc-and-dvs", 20)
check("table_with_liquid_clustering", 0)
check("app-txn-checkpoint", 1)
check("delta-0.8.0-special-partition", 0)
for f in dc.failures:
    print("FAIL:", f)
print(f"v2-json checkpoints: {len(dc.failures)} failures")
sys.exit(1 if dc.failures else 0)
PY
