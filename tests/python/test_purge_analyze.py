"""purge and analyze in the seed's style (issue 32 part 3):
MaintainTable(...).purge() / .analyze(), MaintainSchema too, native.purge /
native.analyze, judged by the oracle (no DV left, fingerprint, verify, the
REORG and COMPUTE STATS commits read with Python's json); the switches
must be real bools."""

from __future__ import annotations

import shutil
import unittest
from pathlib import Path

from support import SOURCE_DIR, TempDirTest, commits, fingerprint, oracle

from libloom import native
from libloom.maintenance import (
    AnalyzeSpec,
    MaintainSchema,
    MaintainTable,
    MaintenanceRunner,
    MaintenanceStep,
    PurgeSpec,
    StorageConfig,
)

FIXTURES = SOURCE_DIR.parent / "shared" / "fixtures" / "delta"


class PurgeAnalyze(TempDirTest):
    def table(self, name: str = "table-with-dv-small") -> Path:
        dst = self.tmp / name
        shutil.copytree(FIXTURES / name, dst)
        return dst

    def config(self, t: Path) -> StorageConfig:
        yaml = (f"storage:\n  tables:\n    - {{name: lake.t, path: {{uri: \"{t}\"}}}}\n")
        p = self.tmp / "storage.yaml"
        p.write_text(yaml)
        return StorageConfig.load(str(p))

    def test_declared_purge_then_analyze_through_the_runner(self) -> None:
        for decl_of in (lambda: MaintainTable("lake.t"), lambda: MaintainSchema("lake")):
            t = self.table()
            before = fingerprint(t)
            n0 = len(commits(t))
            dvs = sum(1 for f in oracle("snapshot", str(t))["files"] if f.get("deletionVector"))
            self.assertGreater(dvs, 0)

            class Step(MaintenanceStep[None]):
                operations = [decl_of().purge().analyze(all=True)]

            runner = MaintenanceRunner.from_config(self.config(t))
            try:
                report = runner.run(Step)
            finally:
                runner.close()
            report.raise_if_errors()
            res = report.results[0]
            self.assertEqual(res.purge.num_files_removed, dvs)
            self.assertGreater(res.purge.metrics["numRowsPurged"], 0)
            self.assertGreater(res.analyze.metrics["numFilesAnalyzed"], 0)
            snap = oracle("snapshot", str(t))
            self.assertFalse([f for f in snap["files"] if f.get("deletionVector")])
            self.assertEqual(fingerprint(t), before)
            self.assertTrue(oracle("verify", str(t))["ok"])
            log = commits(t)
            ops = [next(a["commitInfo"] for a in c if "commitInfo" in a) for c in log[n0:]]
            self.assertEqual([o["operation"] for o in ops], ["REORG", "COMPUTE STATS"])
            self.assertEqual(ops[0]["operationParameters"]["applyPurge"], "true")
            shutil.rmtree(t)

    def test_native_purge_and_analyze(self) -> None:
        t = self.table()
        before = fingerprint(t)
        dry = native.purge(str(t), dry_run=True)
        self.assertEqual(dry.metrics["version"], -1)
        r = native.purge(str(t))
        self.assertGreaterEqual(r.metrics["version"], 0)
        self.assertFalse([f for f in oracle("snapshot", str(t))["files"] if f.get("deletionVector")])
        a = native.analyze(str(t), all=True)
        self.assertGreater(a.metrics["numFilesAnalyzed"], 0)
        self.assertEqual(fingerprint(t), before)
        self.assertTrue(oracle("verify", str(t))["ok"])
        self.assertIn("purge", native.__all__)
        self.assertIn("analyze", native.__all__)

    def test_switches_are_real_bools_and_bad_input_is_refused(self) -> None:
        for bad in (None, 0, 1, "false"):
            with self.assertRaises(TypeError):
                MaintainTable("lake.t").analyze(all=bad)  # type: ignore[arg-type]
            with self.assertRaises(TypeError):
                MaintainTable("lake.t").purge(dry_run=bad)  # type: ignore[arg-type]
            with self.assertRaises(TypeError):
                native.analyze("/nowhere", dry_run=bad)  # type: ignore[arg-type]
            with self.assertRaises(TypeError):
                AnalyzeSpec(all=bad)  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            MaintainTable("lake.t").analyze("a")   # a bare string is not a column list
        with self.assertRaises(ValueError):
            MaintainTable("lake.t").purge().purge()
        with self.assertRaises(ValueError):
            MaintainTable("lake.t").purge(target_size=-5)
        d = MaintainTable("lake.t").purge(["d=1"]).analyze(["a"], all=True)
        self.assertEqual(d.operations, (PurgeSpec(partition_filters=("d=1",)),
                                        AnalyzeSpec(columns=("a",), all=True)))


if __name__ == "__main__":
    unittest.main()
