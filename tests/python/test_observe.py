"""libloom.observe (issue 29): a MaintenanceRunner given a logging.Logger
sends the run's events - the JSON lines `loom maintain --log-format json`
writes - through the standard logging module: every record's message
parses on its own, every table and operation of the report is there with
the report's metrics, the failed table's error carries its class and code,
and no record holds the config's secret. metrics() renders the report with
the PROM_* names promtool accepts; html() the self-contained page."""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import SOURCE_DIR

from libloom import metrics as names
from libloom import observe
from libloom.maintenance import MaintenanceRunner

FIXTURES = SOURCE_DIR.parent / "shared" / "fixtures" / "delta"
SECRET = "py-observe-secret-9Qk"


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class ObserveTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="loom-py-observe-"))
        lake = self.tmp / "lake" / "raw"
        shutil.copytree(FIXTURES / "simple_table", lake / "events")
        shutil.copytree(FIXTURES / "simple_table", lake / "broken")
        for p in (self.tmp / "lake").rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        victim = lake / "broken" / "part-00000-2befed33-c358-4768-a43c-3eda0d2a499d-c000.snappy.parquet"
        victim.write_bytes(victim.read_bytes()[:100])
        opts = f'storage_options: {{AWS_SECRET_ACCESS_KEY: "{SECRET}"}}'
        self.yaml = self.tmp / "storage.yaml"
        self.yaml.write_text(f"""storage:
  tables:
    - name: raw.events
      path: {{uri: "{lake}/events", {opts}}}
    - name: raw.broken
      path: {{uri: "{lake}/broken", {opts}}}
  maintenance:
    schemas: [raw]
    vacuum: {{retention_hours: 168, dry_run: false}}
    compact: {{target_size: 64MiB}}
""")

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_events_through_logging(self) -> None:
        logger = logging.getLogger("loom.test_observe")
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        cap = Capture()
        logger.addHandler(cap)
        try:
            runner = MaintenanceRunner.from_config(str(self.yaml), log=logger, jobs=2)
            report = runner.run_from_config().to_dict()
        finally:
            logger.removeHandler(cap)
        lines = [r.getMessage() for r in cap.records]
        events = [json.loads(line) for line in lines]          # each parses on its own
        self.assertEqual([e for e in events], [r.loom_event for r in cap.records])  # type: ignore[attr-defined]
        self.assertEqual(events[0]["event"], "run_start")
        self.assertEqual(events[-1]["event"], "run_end")
        self.assertEqual(events[-1]["summary"], report["summary"])
        for t in report["tables"]:
            for op, r in t["ops"].items():
                done = [e for e in events if e["event"] == "op_end" and e["table"] == t["ref"]
                        and e["operation"] == op and e["status"] == "ok"]
                self.assertEqual(len(done), 1, (t["ref"], op))
                self.assertEqual(done[0]["result"]["metrics"], r["metrics"])
        errors = [e for e in events if e["event"] == "error"]
        self.assertEqual([(e["table"], e["class"], e["name"]) for e in errors],
                         [("raw.broken", "parquet", "ECORRUPT")])
        self.assertEqual([r.levelno for r in cap.records if r.loom_event["event"] == "error"],  # type: ignore[attr-defined]
                         [logging.ERROR])
        self.assertNotIn(SECRET, "\n".join(lines))

        text = observe.metrics(json.dumps(report))
        self.assertIn(f'{names.PROM_OP_FILES_WRITTEN}{{table="raw.events",operation="compact"}} 1', text)
        self.assertIn(f'{names.PROM_ERRORS}{{table="raw.broken",operation="compact",class="parquet",'
                      f'code="ECORRUPT"}} 1', text)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                                   capture_output=True)
            self.assertEqual(check.returncode, 0, check.stderr)
        om = observe.metrics(json.dumps(report), format="openmetrics")
        self.assertTrue(om.endswith("# EOF\n"))
        page = observe.html(json.dumps(report))
        self.assertIn('data-table="raw.broken"', page)
        self.assertNotIn("http://", page)
        with self.assertRaises(ValueError):
            observe.metrics(json.dumps(report), format="xml")  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
