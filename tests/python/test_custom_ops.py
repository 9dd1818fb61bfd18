"""Python written by users runs inside the C runner: custom operations
(OpSpec), custom declarations (OperationDeclaration), custom maintainers
(DeltaTableMaintainer) and locators, called back from the runner's worker
threads -- concurrently, with the GIL released while C works -- and their
results, exceptions and locations reach the report intact."""

from __future__ import annotations

import os
import threading
import unittest
from dataclasses import dataclass, field
from typing import ClassVar

from support import SOURCE_DIR, LakeTest, commits, fingerprint, oracle

import libloom
from libloom import DeltaTable, TableLocation
from libloom.maintenance import (
    MaintainSchema,
    MaintainTable,
    MaintenanceRunner,
    MaintenanceSpec,
    MaintenanceStep,
    NativeMaintainer,
    OptimizeResult,
    StorageConfig,
    VacuumResult,
    VacuumSpec,
)


@dataclass
class CountResult(OptimizeResult):
    """A custom op's result: an OptimizeResult subclass with extra fields."""

    live_files: int = 0


@dataclass(frozen=True)
class CountFiles:
    """Counts the table's live files (through libloom's DeltaTable) and
    records where and on which thread it ran."""

    name: ClassVar[str] = "count_files"
    seen: list = field(default_factory=list, compare=False, hash=False)
    barrier: threading.Barrier | None = field(default=None, compare=False, hash=False)

    def execute(self, maintainer, uri, location):
        if self.barrier is not None:
            self.barrier.wait()   # only passes when the tables run at once
        n = len(DeltaTable(uri, storage_options=location.storage_options).files())
        self.seen.append((uri, location, threading.get_native_id()))
        return CountResult(live_files=n, metrics={"liveFiles": n})


@dataclass(frozen=True)
class Explode:
    name: ClassVar[str] = "explode"

    def execute(self, maintainer, uri, location):
        if uri.endswith("orders"):
            raise RuntimeError(f"no orders today ({uri})")
        return OptimizeResult()


@dataclass(frozen=True)
class VacuumThroughMaintainer:
    """A custom op that asks the runner's maintainer for a (dry) vacuum."""

    name: ClassVar[str] = "via_maintainer"

    def execute(self, maintainer, uri, location):
        return maintainer.vacuum(uri, VacuumSpec(), location)


@dataclass(frozen=True)
class WrongResult:
    name: ClassVar[str] = "wrong"

    def execute(self, maintainer, uri, location):
        return 42


class EveryRoute:
    """A custom declaration: every route of the config, with its own ops."""

    def __init__(self, *ops) -> None:
        self.ops = ops

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        return [MaintenanceSpec(r.name, self.ops) for r in config.tables]


class CustomOps(LakeTest):
    def test_custom_op_runs_in_the_c_runner(self) -> None:
        lake = self.make_lake()
        counter = CountFiles()

        class Step(MaintenanceStep[None]):
            operations = [MaintainSchema("raw").compact().vacuum(), EveryRoute(counter)]

        report = MaintenanceRunner.from_config(self.config_path).run(Step)
        report.raise_if_errors()
        refs = [r.table_ref for r in report.results]
        self.assertEqual(refs, ["raw.events", "raw.orders", "raw.events", "raw.orders",
                                "staging.orders"])
        # the op saw the tables after the compaction, as the oracle does
        for r in report.results[2:]:
            res = r.op_results["count_files"]
            self.assertIsInstance(res, CountResult)
            snap = oracle("snapshot", str(lake / r.table_ref.replace(".", "/")))
            self.assertEqual(res.live_files, snap["numFiles"], r.table_ref)
        self.assertEqual(report.results[2].op_results["count_files"].live_files, 10)
        # its Python result object is kept, and its metrics reach the JSON report
        self.assertEqual(report.to_dict()["tables"][2]["ops"]["count_files"]["metrics"],
                         {"liveFiles": 10})
        # the location given to the op is the config's, converted from C
        uri, loc, _ = counter.seen[0]
        self.assertIsInstance(loc, TableLocation)
        self.assertEqual(loc.uri, uri)
        self.assertEqual(loc.target_file_size, 128 << 20)
        self.assertEqual(loc.commit, {"custom_metadata": {"pipeline": "nightly-maintenance"}})
        self.assertEqual(loc.writer, {"compression": "snappy"})

    def test_exceptions_are_per_table(self) -> None:
        self.make_lake()

        class Step(MaintenanceStep[None]):
            operations = [EveryRoute(VacuumSpec(), Explode()), EveryRoute(WrongResult())]

        report = MaintenanceRunner.from_config(self.config_path).run(Step)
        by = [(r.table_ref, r.ok, r.failed_op) for r in report.results]
        self.assertEqual(by[:3], [("raw.events", True, None), ("raw.orders", False, "explode"),
                                  ("staging.orders", False, "explode")])
        # what ran before the failing op stays in the result (as in loom-py)
        self.assertEqual(list(report.results[1].op_results), ["vacuum"])
        self.assertEqual(len(report.results[1].vacuum.files_deleted), 20)
        err = report.results[1].error
        self.assertIsInstance(err, RuntimeError)      # the op's own exception object
        self.assertIn("no orders today", str(err))
        doc = report.to_dict()["tables"][1]["error"]
        self.assertEqual((doc["op"], doc["class"], doc["name"]), ("explode", "user", "EUSER"))
        self.assertIn("RuntimeError: no orders today", doc["message"])
        wrong = report.results[3]
        self.assertIsInstance(wrong.error, TypeError)
        self.assertIn("must return a VacuumResult or an OptimizeResult", str(wrong.error))

    def test_loom_errors_keep_their_code_and_class(self) -> None:
        lake = self.make_lake()
        last = sorted((lake / "staging/orders/_delta_log").glob("*.json"))[-1]
        last.write_text("{not json\n")

        class Step(MaintenanceStep[None]):
            operations = [EveryRoute(VacuumThroughMaintainer())]

        report = MaintenanceRunner.from_config(self.config_path).run(Step)
        ok, ok2, bad = report.results
        self.assertTrue(ok.ok and ok2.ok)
        self.assertIsInstance(ok.op_results["via_maintainer"], VacuumResult)
        self.assertIsInstance(bad.error, libloom.LoomCorrupt)
        doc = report.to_dict()["tables"][2]["error"]
        self.assertEqual((doc["name"], doc["class"], doc["op"]),
                         ("ECORRUPT", "delta", "via_maintainer"))
        self.assertIn(last.name, doc["message"])

    def test_resolve_errors_propagate(self) -> None:
        self.make_lake()

        class Broken:
            def resolve(self, config):
                raise LookupError("catalog unreachable")

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.events").vacuum(), Broken()]

        with self.assertRaisesRegex(LookupError, "catalog unreachable"):
            MaintenanceRunner.from_config(self.config_path).run(Step)

    def test_tables_run_concurrently(self) -> None:
        """(That the GIL is free while C works is test_native's GilReleased.)"""
        self.make_lake()
        counter = CountFiles(barrier=threading.Barrier(3, timeout=60))

        class Step(MaintenanceStep[None]):
            operations = [EveryRoute(counter)]

        # three tables, three workers: each op waits for the other two, so
        # the run completes only if the C runner calls Python concurrently
        report = MaintenanceRunner.from_config(self.config_path, jobs=3).run(Step)
        report.raise_if_errors()
        self.assertEqual(len({tid for _, _, tid in counter.seen}), 3)
        self.assertNotIn(threading.get_native_id(), {tid for _, _, tid in counter.seen})

    def test_dynamic_steps_get_their_params(self) -> None:
        lake = self.make_lake()

        class ByParams(MaintenanceStep[dict]):
            def operations_for(self, params):
                return [MaintainTable(t).compact() for t in params["tables"]]

        report = MaintenanceRunner.from_config(self.config_path).run(
            ByParams, {"tables": ["raw.orders"]})
        self.assertEqual([r.table_ref for r in report.results], ["raw.orders"])
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 1)
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 300)


class RecordingMaintainer:
    """A DeltaTableMaintainer of the user's: delegates to NativeMaintainer
    and records what the runner asked of it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, object]] = []
        self.inner = NativeMaintainer()

    def vacuum(self, uri, spec, location):
        self.calls.append(("vacuum", uri, spec))
        return self.inner.vacuum(uri, spec, location)

    def compact(self, uri, spec, location):
        self.calls.append(("compact", uri, spec))
        return self.inner.compact(uri, spec, location)

    def z_order(self, uri, spec, location):
        self.calls.append(("z_order", uri, spec))
        return self.inner.z_order(uri, spec, location)


class MyLocator:
    """A locator of the user's: its own commit metadata; "raw.ghost" unknown."""

    def __init__(self, lake) -> None:
        self.lake = lake
        self.handed_out: list[TableLocation] = []

    def locate(self, ref):
        if ref.ref == "raw.ghost":
            raise KeyError(ref.ref)
        loc = TableLocation(uri=str(self.lake / ref.ref.replace(".", "/")),
                            storage_options={"aws_region": "eu-west-1", "aws_secret_access_key": "s3cr3t!!"},
                            commit={"custom_metadata": {"run_by": "my-locator"}})
        self.handed_out.append(loc)
        return loc


class CustomBackends(LakeTest):
    def test_python_maintainer_and_locator(self) -> None:
        lake = self.make_lake()
        fp = fingerprint(lake / "raw/orders")
        maintainer = RecordingMaintainer()
        locator = MyLocator(lake)
        counter = CountFiles()

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.orders").vacuum(dry_run=False).compact(),
                          MaintainTable("raw.ghost").vacuum(),
                          EveryRoute(counter)]

        runner = MaintenanceRunner(maintainer, locator, self.config_path)
        report = runner.run(Step)
        report.raise_if_errors()
        self.assertEqual([c[0] for c in maintainer.calls], ["vacuum", "compact"])
        self.assertEqual(report.results[1].table_ref, "raw.ghost")
        self.assertTrue(report.results[1].skipped)
        self.assertIn("KeyError", report.results[1].skip_reason)
        # the locator's location objects reached the custom op unchanged
        self.assertEqual(len(counter.seen), 3)
        for uri, loc, _ in counter.seen:
            self.assertTrue(any(loc is h for h in locator.handed_out), uri)
            self.assertEqual(loc.uri, uri)
        # and its commit properties reached the commits loom wrote
        last = commits(lake / "raw/orders")[-1]
        info = next(a["commitInfo"] for a in last if "commitInfo" in a)
        self.assertEqual(info.get("run_by"), "my-locator")
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 1)
        self.assertEqual(fingerprint(lake / "raw/orders"), fp)
        self.assertNotIn("s3cr3t!!", repr(locator.handed_out[0]))
        self.assertIsInstance(report.results[0].vacuum, VacuumResult)

        # policy "error": the locator's own exception, raised
        with self.assertRaises(KeyError):
            MaintenanceRunner(maintainer, locator, self.config_path,
                              missing_table_policy="error").run(Step)


if __name__ == "__main__":
    os.chdir(SOURCE_DIR)
    unittest.main()
