#!/usr/bin/env python3
"""`loom history --json` against the reports of the runs it summarizes.

    check_history.py HISTORY.json REPORT.json...

The summary's runs and failed runs count the reports; per table, its runs,
ok / failed / skipped, files and bytes compacted (read by OPTIMIZE), written
and removed equal the sums over the reports, computed here from the
reports' own fields."""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main() -> int:
    hist = json.load(open(sys.argv[1]))
    reports = [json.load(open(p)) for p in sys.argv[2:]]
    want: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for rep in reports:
        for t in rep["tables"]:
            w = want[t["ref"]]
            w["runs"] += 1
            w[t["status"]] += 1
            for r in t["ops"].values():
                m = r["metrics"]
                if r["kind"] == "optimize":
                    w["files_compacted"] += r["num_files_removed"]
                    w["bytes_compacted"] += m.get("numRemovedBytes", 0)
                    w["files_written"] += r["num_files_added"]
                    w["bytes_written"] += m.get("numAddedBytes", 0)
                    w["files_removed"] += r["num_files_removed"]
                    w["bytes_removed"] += m.get("numRemovedBytes", 0)
                elif r["kind"] == "vacuum" and not r["dry_run"]:
                    w["files_removed"] += r["num_files_deleted"]
                    w["bytes_removed"] += m.get("sizeOfDataToDelete", 0)
    fails = []
    if hist["runs"] != len(reports):
        fails.append(f"runs {hist['runs']} != {len(reports)} reports")
    failed = sum(1 for r in reports if r["has_errors"])
    if hist["failed_runs"] != failed:
        fails.append(f"failed_runs {hist['failed_runs']} != {failed}")
    if set(hist["tables"]) != set(want):
        fails.append(f"tables {sorted(hist['tables'])} != {sorted(want)}")
    for ref, w in want.items():
        got = hist["tables"].get(ref, {})
        for k in ("runs", "ok", "failed", "skipped", "files_compacted", "bytes_compacted",
                  "files_written", "bytes_written", "files_removed", "bytes_removed"):
            if got.get(k) != w.get(k, 0):
                fails.append(f"{ref}.{k}: history {got.get(k)} != reports' sum {w.get(k, 0)}")
    for f in fails:
        print("FAIL", f, file=sys.stderr)
    if not fails:
        print(f"ok   history equals the sum of {len(reports)} reports over {len(want)} tables")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
