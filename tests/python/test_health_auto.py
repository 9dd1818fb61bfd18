"""Health, advice and auto mode from Python (issue 28): libloom.table_health
and libloom.advise, MaintainTable / MaintainSchema(...).auto(policy=...),
(test_auto_yaml.py: the storage YAML's ``maintenance: {auto: {...}}``).

Every health figure is recomputed here from the oracle's snapshot (its own
log replay) and the _delta_log listing, not taken from loom; after auto
runs, the oracle judges the tables: rows unchanged (fingerprint), verify
clean, the vacuumed files gone from disk, the compacted table holding
fewer files, the checkpoint written where it was due and only there."""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any

from support import LakeTest, oracle

import libloom
from libloom import HealthPolicy
from libloom.maintenance import (
    AutoSpec,
    MaintainSchema,
    MaintainTable,
    MaintenanceRunner,
    MaintenanceStep,
    VacuumSpec,
)

# raw.events: 300 files, 30 commits; raw.orders: 60 files, 20 removed ten
# days ago, 5 commits. With this policy auto must compact and checkpoint
# raw.events only, and vacuum raw.orders only.
POLICY = {"min_small_files": 61, "checkpoint_commits": 20}


def partition_name(values: dict[str, Any]) -> str:
    return "/".join(f"{k}={v}" for k, v in values.items())


class Health(LakeTest):
    def test_figures_are_the_oracles(self) -> None:
        lake = self.make_lake()
        for table in ("raw/events", "raw/orders"):
            uri = str(lake / table)
            snap = oracle("snapshot", uri)
            h = libloom.table_health(uri)
            t = h.health["table"]
            target = h.health["targetSize"]
            files = snap["files"]
            self.assertEqual(h.version, snap["version"], table)
            self.assertEqual(t["files"], len(files), table)
            self.assertEqual(t["bytes"], sum(f["size"] for f in files), table)
            self.assertEqual(t["smallFiles"], sum(f["size"] < target // 2 for f in files), table)
            self.assertEqual(t["rows"], sum(f["stats"]["numRecords"] for f in files), table)
            hist: dict[int, int] = {}
            for f in files:
                k = max(f["size"], 1).bit_length() - 1
                hist[1 << k if k else 0] = hist.get(1 << k if k else 0, 0) + 1
            self.assertEqual({b["minBytes"]: b["files"] for b in t["histogram"]}, hist, table)
            parts = {partition_name(f["partitionValues"]) for f in files}
            self.assertEqual(len(h.health["partitions"]), len(parts), table)
            self.assertEqual({p["partition"] for p in h.health["partitions"]}, parts, table)
            # tombstones past and within the retention, by their timestamps
            ts = h.health["tombstones"]
            horizon = h.health["nowMs"] - ts["retentionMs"]
            expired = [x for x in snap["tombstones"] if x["deletionTimestamp"] < horizon]
            self.assertEqual(ts["expiredFiles"], len(expired), table)
            self.assertEqual(ts["expiredFiles"] + ts["retainedFiles"], len(snap["tombstones"]))
            log = sorted((lake / table / "_delta_log").glob("*.json"))
            self.assertIsNone(snap["checkpoint"])
            self.assertEqual(h.health["log"]["commitsSinceCheckpoint"], len(log), table)
            self.assertEqual(h.health["log"]["jsonBytesSinceCheckpoint"],
                             sum(p.stat().st_size for p in log), table)
        self.assertEqual(len(expired), 20)   # raw.orders: the example's removed files

    def test_advice_flips_at_each_threshold(self) -> None:
        lake = self.make_lake()
        uri = str(lake / "raw" / "orders")
        n_files = len(oracle("snapshot", uri)["files"])
        n_commits = len(list((lake / "raw" / "orders" / "_delta_log").glob("*.json")))

        def rec(op: str, **policy: Any) -> bool:
            a = {x.op: x for x in libloom.advise(uri, policy=policy)}[op]
            return a.recommended

        self.assertTrue(rec("compact", min_small_files=n_files))
        self.assertFalse(rec("compact", min_small_files=n_files + 1))
        self.assertTrue(rec("checkpoint", checkpoint_commits=n_commits))
        self.assertFalse(rec("checkpoint", checkpoint_commits=n_commits + 1,
                             checkpoint_json_bytes=0))
        self.assertTrue(rec("vacuum", min_vacuum_files=20))
        self.assertFalse(rec("vacuum", min_vacuum_files=21))
        # a HealthPolicy and its mapping are the same policy
        self.assertEqual(libloom.advise(uri, policy=HealthPolicy(min_small_files=7)),
                         libloom.advise(uri, policy={"min_small_files": 7}))
        h = libloom.table_health(uri, policy={"min_small_files": n_files})
        self.assertEqual(h.recommended, ["compact", "vacuum"])
        self.assertEqual(h.advice_for("compact").value, n_files)

    def test_bad_policies_are_refused_before_anything_runs(self) -> None:
        lake = self.make_lake()
        uri = str(lake / "raw" / "orders")
        for bad, exc, words in (
                ({"min_small_files": 1}, ValueError, "min_small_files must be >= 2"),
                ({"dv_purge_ratio": 0.01}, ValueError, "dv_purge_ratio"),
                ({"max_clustering_depth": 0.5}, ValueError, "max_clustering_depth"),
                ({"min_vacuum_files": 0}, ValueError, "min_vacuum_files"),
                ({"target_size": "huge"}, ValueError, "target_size"),
                ({"small_file_ratio": 0.5}, ValueError, "unknown key 'small_file_ratio'"),
                ({"min_small_files": True}, TypeError, "min_small_files must be an int"),
                ({"min_small_files": 5.0}, TypeError, "min_small_files must be an int"),
                ({"dv_purge_ratio": "0.5"}, TypeError, "dv_purge_ratio"),
                ({"max_clustering_depth": float("nan")}, TypeError, "max_clustering_depth")):
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(exc, words):
                    libloom.advise(uri, policy=bad)
                with self.assertRaisesRegex(exc, r"MaintainTable\('raw.orders'\): auto: .*" +
                                            words.split()[0]):
                    MaintainTable("raw.orders").auto(policy=bad)
        with self.assertRaises(TypeError):
            libloom.advise(uri, policy=[("min_small_files", 5)])
        with self.assertRaises(libloom.LoomNotFound):
            libloom.table_health(str(self.tmp / "nowhere"))


class AutoChecks(LakeTest):
    # the tables auto may change (staging.orders is outside the schema:
    # its file count is checked instead)
    TABLES = ("raw/events", "raw/orders")

    def check_after_auto(self, lake: Path, before: dict[str, Any], events_files: int,
                         metrics: dict[str, dict[str, int]]) -> None:
        ev, orders = metrics["raw.events"], metrics["raw.orders"]
        self.assertEqual((ev["compact.ran"], ev["vacuum.ran"], ev["checkpoint.ran"]), (1, 0, 1))
        self.assertEqual((orders["compact.ran"], orders["vacuum.ran"], orders["checkpoint.ran"]),
                         (0, 1, 0))
        self.assertEqual(orders["vacuum.files"], 20)
        self.assertNotIn("staging.orders", metrics)
        # the oracle's judgement, not loom's word
        self.assert_unchanged_rows(before)
        ev_snap = oracle("snapshot", str(lake / "raw" / "events"))
        self.assertLess(len(ev_snap["files"]), events_files)
        self.assertIsNotNone(ev_snap["checkpoint"])
        self.assertIsNone(oracle("snapshot", str(lake / "raw" / "orders"))["checkpoint"])
        self.assertEqual(self.removed_on_disk("raw/orders"), [])
        # staging.orders untouched
        self.assertEqual(len(oracle("snapshot", str(lake / "staging" / "orders"))["files"]), 60)
        # nothing left to do under the same policy
        for t in ("raw/events", "raw/orders"):
            left = [a.op for a in libloom.advise(str(lake / t), policy=POLICY) if a.recommended]
            self.assertEqual(left, [], t)


class AutoBuilder(AutoChecks):
    def test_siblings_are_autos_settings(self) -> None:
        d = MaintainSchema("raw").vacuum(dry_run=False).auto(policy=POLICY)
        (op,) = d.operations
        self.assertIsInstance(op, AutoSpec)
        self.assertEqual(op.vacuum, VacuumSpec(dry_run=False))
        self.assertEqual(op.policy, HealthPolicy(**POLICY))
        # after auto too, and compact beside z_order_by is fine then
        d = MaintainTable("staging.orders").auto().compact().z_order_by(["run_date", "_id"])
        (op,) = d.operations
        self.assertIsNotNone(op.compact)
        self.assertEqual(op.z_order.columns, ["run_date", "_id"])
        with self.assertRaisesRegex(ValueError, "'vacuum' is scheduled twice"):
            MaintainTable("raw.orders").auto().vacuum().vacuum()
        with self.assertRaisesRegex(ValueError, "'auto' is scheduled twice"):
            MaintainTable("raw.orders").auto().auto()
        # switches stay strict beside auto
        for not_bool in (None, 0, "false"):
            with self.assertRaisesRegex(TypeError, "dry_run must be a bool"):
                MaintainTable("raw.orders").auto().vacuum(dry_run=not_bool)

    def test_a_spec_with_auto_and_vacuum_is_refused(self) -> None:
        """A custom declaration's spec holding both: the C rule, with why."""
        lake = self.make_lake()
        logs = {t: sorted(p.name for p in (lake / t / "_delta_log").iterdir())
                for t in self.TABLES}

        class Both:
            def resolve(self, config: Any) -> list[Any]:
                from libloom.maintenance import MaintenanceSpec
                return [MaintenanceSpec("raw.orders", (AutoSpec(), VacuumSpec(dry_run=False)))]

        class Step(MaintenanceStep[None]):
            operations = [Both()]

        runner = MaintenanceRunner.from_config(self.config_path)
        self.addCleanup(runner.close)
        with self.assertRaisesRegex(Exception, "auto decides when vacuum"):
            runner.run(Step).raise_if_errors()
        # refused while resolving: no table was touched, no commit made
        self.assertEqual(logs, {t: sorted(p.name for p in (lake / t / "_delta_log").iterdir())
                                for t in self.TABLES})

    def test_auto_runs_only_what_is_recommended(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        events_files = len(oracle("snapshot", str(lake / "raw" / "events"))["files"])

        class Nightly(MaintenanceStep[None]):
            operations = [MaintainSchema("raw").vacuum(dry_run=False).auto(policy=POLICY)]

        runner = MaintenanceRunner.from_config(self.config_path)
        self.addCleanup(runner.close)
        report = runner.run(Nightly)
        report.raise_if_errors()
        self.check_after_auto(lake, before, events_files,
                              {r.table_ref: r.op_results["auto"].metrics for r in report.results})


if __name__ == "__main__":
    unittest.main()
