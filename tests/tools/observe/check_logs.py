#!/usr/bin/env python3
"""Check loom's JSON event log against the run's JSON report.

    check_logs.py LOG REPORT.json SECRET

Every line must parse on its own (json.loads, one object per line) and
carry ts / level / event; the run starts with run_start and ends with
run_end (its summary the report's); every table of the report has
table_start and table_end with its status; every operation the report
lists has op_start and an ok op_end whose result metrics equal the
report's; a failed table has an error event with the report's class, code
and operation; and SECRET appears nowhere."""

from __future__ import annotations

import json
import sys


def main() -> int:
    log_path, report_path, secret = sys.argv[1:4]
    raw = open(log_path, encoding="utf-8").read()
    report = json.load(open(report_path))
    fails: list[str] = []
    if secret in raw:
        fails.append("the secret appears in the log")
    events = []
    for n, line in enumerate(raw.splitlines(), 1):
        try:
            e = json.loads(line)
        except json.JSONDecodeError as exc:
            fails.append(f"line {n} is not JSON: {exc}: {line[:120]!r}")
            continue
        if not isinstance(e, dict) or not {"ts", "level", "event"} <= e.keys():
            fails.append(f"line {n} lacks ts/level/event: {line[:120]!r}")
            continue
        events.append(e)
    if not events or events[0]["event"] != "run_start" or events[-1]["event"] != "run_end":
        fails.append("the log does not open with run_start and close with run_end")
    elif events[-1]["summary"] != report["summary"]:
        fails.append(f"run_end summary {events[-1]['summary']} != report {report['summary']}")

    def find(kind: str, **match: object) -> list[dict]:
        return [e for e in events if e["event"] == kind and all(e.get(k) == v for k, v in match.items())]

    ops_seen = 0
    for t in report["tables"]:
        ref = t["ref"]
        if len(find("table_start", table=ref)) != 1:
            fails.append(f"{ref}: table_start missing")
        ends = find("table_end", table=ref)
        if len(ends) != 1 or ends[0]["status"] != t["status"]:
            fails.append(f"{ref}: table_end missing or status != {t['status']}")
        for op, r in t["ops"].items():
            ops_seen += 1
            if len(find("op_start", table=ref, operation=op)) != 1:
                fails.append(f"{ref}/{op}: op_start missing")
            done = find("op_end", table=ref, operation=op, status="ok")
            if len(done) != 1:
                fails.append(f"{ref}/{op}: ok op_end missing")
            elif done[0]["result"]["metrics"] != r["metrics"] or done[0]["result"]["kind"] != r["kind"]:
                fails.append(f"{ref}/{op}: op_end result {done[0]['result']} != report {r}")
        if t["error"]:
            e = t["error"]
            errs = find("error", table=ref)
            if len(errs) != 1 or errs[0]["class"] != e["class"] or errs[0]["code"] != e["code"] \
                    or errs[0]["name"] != e["name"] or errs[0]["operation"] != e["op"]:
                fails.append(f"{ref}: error event {errs} does not match the report's {e}")
            if e["op"] and not find("op_end", table=ref, operation=e["op"], status="failed"):
                fails.append(f"{ref}/{e['op']}: failed op_end missing")
    for f in fails:
        print("FAIL", f, file=sys.stderr)
    if not fails:
        print(f"ok   {len(events)} events parse one by one; {ops_seen} operations and "
              f"{len(report['tables'])} tables of the report are in them")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
