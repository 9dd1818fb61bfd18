"""Ctrl-C: SIGINT to a Python process running loom cancels the work at the
next safe point (between files), raises KeyboardInterrupt, and leaves the
table as it was -- same version, same rows, no file left behind (oracle).

The child process is a plain Python script; it says when the work is under
way (from a progress callback, which then pauses a moment so the signal
lands mid-run), and the parent sends SIGINT like a terminal would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import unittest

from support import SOURCE_DIR, LakeTest, fingerprint, oracle

CHILD_NATIVE = """
import json, sys, time
import libloom
from libloom import native
seen = []
def progress(bins_done, bins_total, bytes_done, bytes_total):
    seen.append(bins_done)
    if len(seen) == 1:
        print("STARTED", bins_done, bins_total, flush=True)
    # bins finish slowly, so the signal lands with most of them still to do
    time.sleep(2 if len(seen) == 1 else 0.3)
try:
    native.compact(sys.argv[1], target_size="64MiB", progress=progress)
    print(json.dumps({"outcome": "finished"}))
except KeyboardInterrupt as exc:
    cause = exc.__cause__
    print(json.dumps({"outcome": "interrupted", "cause": type(cause).__name__,
                      "code": getattr(cause, "code_name", None), "bins": seen}))
"""

CHILD_RUNNER = """
import json, sys, time
from libloom.maintenance import MaintainSchema, MaintenanceRunner, MaintenanceStep
class Step(MaintenanceStep[None]):
    operations = [MaintainSchema("raw").compact()]
def progress(e):
    if e.event == "op_start" and e.table_ref == "raw.events":
        print("STARTED", flush=True)
        time.sleep(2)      # Ctrl-C arrives before the compaction starts its bins
try:
    MaintenanceRunner.from_config(sys.argv[1], progress=progress).run(Step)
    print(json.dumps({"outcome": "finished"}))
except KeyboardInterrupt as exc:
    rep = exc.report
    print(json.dumps({"outcome": "interrupted", "cancelled": rep.cancelled,
                      "tables": [[r.table_ref, r.error.code_name if r.error else None,
                                  r.skip_reason] for r in rep.results]}))
"""


class CtrlC(LakeTest):
    def interrupt(self, script: str, arg: str) -> dict:
        env = dict(os.environ, PYTHONPATH=str(SOURCE_DIR / "python"), PYTHONUNBUFFERED="1")
        # SIGINT as a terminal leaves it (a test runner may ignore it, and
        # Python then keeps it ignored)
        child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), arg],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            line = child.stdout.readline()
            if line.startswith("STARTED"):
                child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=300)
            self.assertTrue(line.startswith("STARTED"), line + out + err)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        self.assertEqual(child.returncode, 0, err)
        return dict(json.loads(out.strip().splitlines()[-1]))

    def test_ctrl_c_during_a_compaction(self) -> None:
        lake = self.make_lake()
        table = lake / "raw/events"
        before = oracle("snapshot", str(table))
        orphans = oracle("orphans", str(table))["count"]
        fp = fingerprint(table)

        got = self.interrupt(CHILD_NATIVE, str(table))

        self.assertEqual(got["outcome"], "interrupted")
        self.assertEqual((got["cause"], got["code"]), ("LoomCancelled", "ECANCELLED"))
        self.assertLess(len(got["bins"]), 10)     # stopped part way through the 10 bins
        after = oracle("snapshot", str(table))
        self.assertEqual(after["version"], before["version"])
        self.assertEqual(after["numFiles"], 300)
        self.assertEqual(fingerprint(table), fp)
        # the bins written before the cancel were deleted
        self.assertEqual(oracle("orphans", str(table))["count"], orphans)

    def test_ctrl_c_during_a_run(self) -> None:
        lake = self.make_lake()
        versions = {t: oracle("snapshot", str(lake / t))["version"]
                    for t in ("raw/events", "raw/orders")}

        got = self.interrupt(CHILD_RUNNER, str(self.config_path))

        self.assertEqual(got["outcome"], "interrupted")
        self.assertTrue(got["cancelled"])
        (events, code, _), (orders, _, why) = got["tables"]
        self.assertEqual((events, code), ("raw.events", "ECANCELLED"))
        self.assertEqual(orders, "raw.orders")
        self.assertIn("cancelled", why)
        for t, v in versions.items():
            self.assertEqual(oracle("snapshot", str(lake / t))["version"], v, t)
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 300)


if __name__ == "__main__":
    unittest.main()
