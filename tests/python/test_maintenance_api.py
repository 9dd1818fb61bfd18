"""Every rule of the seed API's builders, step, runner and report, on
libloom: signatures and defaults, the TypeError / ValueError rules, schema
expansion, config forms, missing-table policies, errors carried as Python
exceptions with loom's message, code and class, and the report."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import pickle
import re
import shutil
import subprocess
import time
import unittest
from pathlib import Path

from support import BUILD_DIR, SOURCE_DIR, LakeTest, TempDirTest, fingerprint, oracle

import libloom
from libloom.maintenance import (
    CompactSpec,
    DeltaTableMaintainer,
    MaintainSchema,
    MaintainTable,
    MaintenanceError,
    MaintenanceReport,
    MaintenanceRunner,
    MaintenanceSpec,
    MaintenanceStep,
    NativeMaintainer,
    OperationDeclaration,
    OpSpec,
    OptimizeResult,
    StorageConfig,
    TableMaintenanceResult,
    VacuumResult,
    VacuumSpec,
    ZOrderSpec,
)

ROUTES = {"storage": {
    "defaults": {"table_path": {"uri": "/lake"}},
    "tables": [{"name": "raw.events", "path": {"uri": "/lake/raw/events"}},
               {"name": "raw.a.b", "path": "/lake/raw/a/b"},
               {"name": "raw_backup.events", "path": {"uri": "/lake/raw_backup/events"}},
               {"name": "raw", "path": {"uri": "/lake/raw"}},
               {"name": "gold.revenue", "ref": "main.gold.revenue"}]}}


def params(fn) -> list[tuple[str, object, str]]:
    return [(p.name, p.default, p.kind.name) for p in inspect.signature(fn).parameters.values()]


class SeedSignatures(unittest.TestCase):
    """Names, parameters, defaults and kinds are the seed's (loom's extras
    come after them, keyword-only with defaults)."""

    E = inspect.Parameter.empty

    def test_builders(self) -> None:
        for cls in (MaintainTable, MaintainSchema):
            self.assertEqual(params(cls.vacuum)[:4], [
                ("self", self.E, "POSITIONAL_OR_KEYWORD"),
                ("retention_hours", None, "POSITIONAL_OR_KEYWORD"),
                ("dry_run", True, "KEYWORD_ONLY"), ("full", False, "KEYWORD_ONLY")])
            self.assertEqual(params(cls.compact), [
                ("self", self.E, "POSITIONAL_OR_KEYWORD"),
                ("target_size", None, "POSITIONAL_OR_KEYWORD")])
            self.assertEqual(params(cls.z_order_by)[:3], [
                ("self", self.E, "POSITIONAL_OR_KEYWORD"), ("columns", self.E, "POSITIONAL_OR_KEYWORD"),
                ("target_size", None, "POSITIONAL_OR_KEYWORD")])
            self.assertTrue(all(k == "KEYWORD_ONLY" for _, _, k in params(cls.z_order_by)[3:]))
        self.assertEqual(params(MaintainTable)[0][0], "table_ref")
        self.assertEqual(params(MaintainSchema)[0][0], "schema_prefix")

    def test_runner(self) -> None:
        self.assertEqual(params(MaintenanceRunner)[:4], [
            ("maintainer", self.E, "POSITIONAL_OR_KEYWORD"), ("locator", self.E, "POSITIONAL_OR_KEYWORD"),
            ("config", self.E, "POSITIONAL_OR_KEYWORD"), ("missing_table_policy", "skip", "KEYWORD_ONLY")])
        self.assertEqual(params(MaintenanceRunner.from_config)[:2], [
            ("config", self.E, "POSITIONAL_OR_KEYWORD"), ("missing_table_policy", "skip", "KEYWORD_ONLY")])
        self.assertEqual(params(MaintenanceRunner.run), [
            ("self", self.E, "POSITIONAL_OR_KEYWORD"), ("step_cls", self.E, "POSITIONAL_OR_KEYWORD"),
            ("params", None, "POSITIONAL_OR_KEYWORD")])
        self.assertEqual(params(MaintenanceStep.operations_for)[1][0], "params")

    def test_specs_and_results(self) -> None:
        def fields(cls):
            return [(f.name, f.default if f.default is not dataclasses.MISSING else f.default_factory())
                    for f in dataclasses.fields(cls)]
        self.assertEqual(fields(VacuumSpec)[:3], [("retention_hours", None), ("dry_run", True),
                                                 ("full", False)])
        self.assertEqual(fields(CompactSpec), [("target_size", None)])
        self.assertEqual(fields(ZOrderSpec)[:2], [("columns", []), ("target_size", None)])
        self.assertEqual((VacuumSpec.name, CompactSpec.name, ZOrderSpec.name),
                         ("vacuum", "compact", "z_order"))
        self.assertEqual(fields(VacuumResult)[0], ("files_deleted", []))
        self.assertEqual(fields(OptimizeResult)[:2], [("num_files_added", 0), ("num_files_removed", 0)])
        self.assertEqual([f.name for f in dataclasses.fields(TableMaintenanceResult)][:4],
                         ["table_ref", "op_results", "error", "duration_seconds"])
        self.assertEqual([f.name for f in dataclasses.fields(MaintenanceSpec)], ["table_ref", "ops"])
        self.assertEqual(dataclasses.fields(MaintenanceReport)[0].name, "results")
        self.assertTrue(dataclasses.is_dataclass(VacuumSpec) and VacuumSpec.__dataclass_params__.frozen)
        # the protocols are runtime-checkable and loom's own types satisfy them
        self.assertIsInstance(NativeMaintainer(), DeltaTableMaintainer)
        self.assertIsInstance(VacuumSpec(), OpSpec)
        self.assertIsInstance(MaintainSchema("raw"), OperationDeclaration)


class BuilderRules(unittest.TestCase):
    def test_refs(self) -> None:
        for cls in (MaintainTable, MaintainSchema):
            for bad in ("", "   "):
                with self.assertRaisesRegex(ValueError, "must be a non-empty string"):
                    cls(bad)
            with self.assertRaises(TypeError):
                cls(None)  # type: ignore[arg-type]
            with self.assertRaisesRegex(ValueError, "empty part"):
                cls("raw..x")
        self.assertEqual(MaintainSchema(" raw ").schema_prefix, "raw")
        self.assertEqual(repr(MaintainTable("raw.events")), "MaintainTable('raw.events')")

    def test_compact_and_z_order_exclude_each_other(self) -> None:
        for cls in (MaintainTable, MaintainSchema):
            with self.assertRaisesRegex(TypeError, "mutually exclusive"):
                cls("raw.x").compact().z_order_by(["a"])
            with self.assertRaisesRegex(TypeError, "mutually exclusive"):
                cls("raw.x").vacuum().z_order_by(["a"]).compact()

    def test_z_order_columns(self) -> None:
        with self.assertRaisesRegex(ValueError, r"MaintainTable\('t.x'\): z_order_by requires at "
                                                r"least one column"):
            MaintainTable("t.x").z_order_by([])
        with self.assertRaisesRegex(ValueError, "MaintainSchema\\('raw'\\): z_order_by requires"):
            MaintainSchema("raw").z_order_by([])
        with self.assertRaises(TypeError):
            MaintainTable("t.x").z_order_by("ab")
        with self.assertRaisesRegex(ValueError, "listed twice"):
            MaintainTable("t.x").z_order_by(["a", "a"])
        with self.assertRaisesRegex(ValueError, "curve"):
            MaintainTable("t.x").z_order_by(["a"], curve="peano")
        with self.assertRaisesRegex(ValueError, "memory must be positive"):
            MaintainTable("t.x").z_order_by(["a"], memory=0)
        z = MaintainTable("t.x").z_order_by(("a", "b"), 1 << 20, curve="z", memory="64MiB")
        self.assertEqual(z.operations, (ZOrderSpec(["a", "b"], 1 << 20, "z", "64MiB"),))

    def test_option_errors_name_the_declaration(self) -> None:
        """Every builder error starts with the declaration, the binding's
        own checks (a negative retention) as the C library's."""
        for decl, owner in ((MaintainTable("a.b"), "MaintainTable('a.b')"),
                            (MaintainSchema("raw"), "MaintainSchema('raw')")):
            with self.assertRaisesRegex(ValueError, rf"^{re.escape(owner)}: retention_hours -1 "
                                                    r"is negative"):
                decl.vacuum(-1)
            with self.assertRaisesRegex(ValueError, rf"^{re.escape(owner)}: target_size"):
                decl.compact(-5)
            with self.assertRaisesRegex(TypeError, rf"^{re.escape(owner)}: full must be a bool"):
                decl.z_order_by(["a"], full="yes")

    def test_vacuum_and_compact_options(self) -> None:
        with self.assertRaisesRegex(ValueError, "negative"):
            MaintainTable("t.x").vacuum(retention_hours=-1)
        with self.assertRaises(TypeError):
            MaintainTable("t.x").vacuum("168")  # type: ignore[arg-type]
        with self.assertRaises(TypeError):
            MaintainTable("t.x").vacuum(168, False)  # type: ignore[misc]
        with self.assertRaisesRegex(ValueError, "positive"):
            MaintainTable("t.x").compact(0)
        with self.assertRaisesRegex(ValueError, "negative"):
            MaintainTable("t.x").compact(-5)
        with self.assertRaisesRegex(ValueError, "scheduled twice"):
            MaintainTable("t.x").vacuum().vacuum()
        d = MaintainTable("t.x").vacuum().compact("128MiB")
        self.assertEqual(d.operations, (VacuumSpec(), CompactSpec(128 << 20)))
        self.assertEqual(VacuumSpec(), VacuumSpec(None, True, False))

    def test_resolve(self) -> None:
        cfg = StorageConfig.from_mapping(ROUTES)
        d = MaintainTable("raw.events").vacuum(dry_run=False)
        self.assertEqual(d.resolve(cfg), [MaintenanceSpec("raw.events", (VacuumSpec(dry_run=False),))])
        s = MaintainSchema("raw").compact()
        # routes named raw.<something>: not raw_backup.*, not a route named just "raw"
        self.assertEqual([x.table_ref for x in s.resolve(cfg)], ["raw.events", "raw.a.b"])
        self.assertEqual(s.resolve(cfg)[0].ops, (CompactSpec(),))
        # ops-less declarations resolve too (a custom declaration may add ops)
        self.assertEqual(len(MaintainSchema("raw").resolve(cfg)), 2)
        self.assertEqual(MaintainSchema("nothing").resolve(cfg), [])
        # the config may be given as a mapping too
        self.assertEqual(len(s.resolve(ROUTES)), 2)


class StepRules(unittest.TestCase):
    def test_operations_must_be_a_list_of_declarations(self) -> None:
        with self.assertRaisesRegex(TypeError, "'operations' must be a list"):
            class Bad(MaintenanceStep[None]):
                operations = (MaintainTable("a.b").vacuum(),)  # type: ignore[assignment]
        with self.assertRaisesRegex(TypeError, r"operations\[1\] must implement OperationDeclaration"):
            class Bad2(MaintenanceStep[None]):
                operations = [MaintainTable("a.b").vacuum(), "raw.events"]

    def test_operations_for(self) -> None:
        class Static(MaintenanceStep[None]):
            operations = [MaintainTable("a.b").vacuum()]
        self.assertEqual(Static().operations_for(None), Static.operations)

        class Dynamic(MaintenanceStep[list]):
            def operations_for(self, params):
                return [MaintainTable(t).vacuum() for t in params]
        self.assertEqual([repr(d) for d in Dynamic().operations_for(["x.a", "x.b"])],
                         ["MaintainTable('x.a')", "MaintainTable('x.b')"])


class ConfigForms(TempDirTest):
    """from_config(config): a StorageConfig, a path (str or Path), the parsed
    mapping (whole document or the storage section), a loom-py-like object."""

    def test_forms(self) -> None:
        path = self.tmp / "storage.yaml"
        path.write_text("storage:\n  defaults:\n    table_path: {uri: /lake}\n"
                        "  tables:\n    - {name: raw.events, path: /lake/raw/events}\n")

        @dataclasses.dataclass
        class Path_:
            uri: str
            storage_options: dict = dataclasses.field(default_factory=dict)

        @dataclasses.dataclass
        class Route:
            name: str
            ref: str = ""
            path: Path_ | None = None

        @dataclasses.dataclass
        class LoomPyLike:
            tables: tuple = ()
            defaults: dict = dataclasses.field(default_factory=dict)

        forms = [StorageConfig.load(path), str(path), path,
                 {"storage": {"tables": [{"name": "raw.events", "path": "/lake/raw/events"}]}},
                 {"tables": [{"name": "raw.events", "path": {"uri": "/lake/raw/events"}}]},
                 LoomPyLike(tables=(Route("raw.events", path=Path_("/lake/raw/events")),
                                    Route("gold.x", ref="main.gold.x")))]
        for form in forms:
            runner = MaintenanceRunner.from_config(form)
            self.assertEqual(runner.config.locate("raw.events").uri, "/lake/raw/events", form)
            self.assertEqual(runner.config.tables[0].name, "raw.events")
        with self.assertRaises(TypeError):
            MaintenanceRunner.from_config(42)

    def test_plain_objects(self) -> None:
        """The module's word: any object with tables / defaults attributes
        (a caller's own classes, SimpleNamespace, slotted classes), not
        only dataclasses and msgspec structs."""
        from types import SimpleNamespace

        class PathObj:
            def __init__(self, uri: str) -> None:
                self.uri = uri
                self.writer = {"compression": "zstd"}
                self._cache = object()   # private: not read

        class Route:
            __slots__ = ("name", "path", "ref")

            def __init__(self, name: str, path: PathObj | None = None, ref: str = "") -> None:
                self.name, self.path, self.ref = name, path, ref

        class Plain:
            def __init__(self) -> None:
                self.defaults = SimpleNamespace(table_path=PathObj("/lake"))
                self.tables = [Route("raw.events", PathObj("/lake/raw/events")),
                               Route("gold.x", ref="main.gold.x")]

        class WithProperties:   # loom-py-like: sections as read-only properties
            @property
            def tables(self) -> list:
                return [SimpleNamespace(name="raw.events", path="/lake/raw/events")]

            @property
            def maintenance(self) -> SimpleNamespace:
                return SimpleNamespace(schemas=["raw"], vacuum=None, compact=True, z_order_by=[])

        for form in (Plain(), SimpleNamespace(tables=Plain().tables, defaults=Plain().defaults),
                     WithProperties()):
            config = MaintenanceRunner.from_config(form).config
            self.assertEqual([t.name for t in config.tables][0], "raw.events", form)
            self.assertEqual(config.locate("raw.events").uri, "/lake/raw/events", form)
        plain = StorageConfig.coerce(Plain())
        self.assertEqual(plain.locate("raw.events").writer, {"compression": "zstd"})
        self.assertEqual(plain.locate("raw.other").uri, "/lake/raw/other")
        self.assertEqual(StorageConfig.coerce(WithProperties()).maintenance.compact, True)

    def test_op_forms_name_every_form(self) -> None:
        with self.assertRaises(libloom.LoomValueError) as cm:
            StorageConfig.from_yaml("storage:\n  maintenance:\n    compact: yes please\n")
        self.assertIn("<string>:3:14: maintenance.compact: expected true, false or a mapping "
                      "{target_size} (or nothing for the defaults), got 'yes please'",
                      str(cm.exception))

    def test_no_path_routes_is_a_value_error(self) -> None:
        with self.assertRaisesRegex(ValueError, "no path routes") as cm:
            MaintenanceRunner.from_config({"storage": {"tables": [{"name": "g.a", "ref": "c.g.a"}]}})
        self.assertEqual(cm.exception.code_name, "EINVAL")
        self.assertEqual(cm.exception.error_class, "config")

    def test_config_errors_carry_file_and_line(self) -> None:
        path = self.tmp / "bad.yaml"
        path.write_text("storage:\n  maintenance:\n    vacum: {}\n")
        with self.assertRaises(libloom.LoomValueError) as cm:
            MaintenanceRunner.from_config(path)
        self.assertIn(f"{path}:3:5: unknown key 'vacum' in maintenance", str(cm.exception))
        with self.assertRaises(libloom.LoomNotFound):
            StorageConfig.load(self.tmp / "missing.yaml")

    def test_run_from_config_without_work_is_an_empty_report(self) -> None:
        """The seed: an empty report when no maintenance config is defined or
        no matching tables are found (the routes' paths do not exist: nothing
        may be touched)."""
        no_block = MaintenanceRunner.from_config(ROUTES).run_from_config()
        self.assertEqual((no_block.results, no_block.has_errors), ([], False))
        no_block.raise_if_errors()
        unmatched = json.loads(json.dumps(ROUTES))
        unmatched["storage"]["maintenance"] = {"schemas": ["nothere"], "compact": True}
        report = MaintenanceRunner.from_config(unmatched).run_from_config()
        self.assertEqual((report.results, report.has_errors), ([], False))

    def test_bad_policy(self) -> None:
        with self.assertRaisesRegex(ValueError, "missing_table_policy"):
            MaintenanceRunner.from_config(ROUTES, missing_table_policy="ignore")  # type: ignore


class RunnerOnTheLake(LakeTest):
    def test_policies(self) -> None:
        lake = self.make_lake()
        (lake / "raw" / "notyet").mkdir()
        cfg = {"storage": {"tables": [
            {"name": "raw.events", "path": str(lake / "raw/events")},
            {"name": "raw.notyet", "path": str(lake / "raw/notyet")},
            {"name": "raw.orders", "path": str(lake / "raw/orders")}]}}

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.events").vacuum(),
                          MaintainTable("raw.ghost").vacuum(),
                          MaintainSchema("raw").compact(target_size=1 << 30)]

        # skip: the unknown and the not-yet-Delta tables are skipped, not errors
        report = MaintenanceRunner.from_config(cfg).run(Step)
        refs = [(r.table_ref, r.ok, r.skipped) for r in report.results]
        self.assertEqual(refs, [("raw.events", True, False), ("raw.ghost", True, True),
                                ("raw.events", True, False), ("raw.notyet", True, True),
                                ("raw.orders", True, False)])
        self.assertIn("not in", report.results[1].skip_reason)
        self.assertIn("no _delta_log", report.results[3].skip_reason)
        self.assertFalse(report.has_errors)
        report.raise_if_errors()
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 1)

        # error: raises at the first missing table; nothing starts after it
        fresh = self.tmp / "lake2"
        shutil.copytree(lake, fresh)
        cfg2 = json.loads(json.dumps(cfg).replace(str(lake), str(fresh)))
        orders_before = oracle("snapshot", str(fresh / "raw/orders"))["version"]

        class Step2(MaintenanceStep[None]):
            operations = [MaintainTable("raw.events").vacuum(),
                          MaintainTable("raw.ghost").vacuum(),
                          MaintainTable("raw.orders").compact()]

        with self.assertRaises(libloom.MissingTableError) as cm:
            MaintenanceRunner.from_config(cfg2, missing_table_policy="error").run(Step2)
        self.assertIsInstance(cm.exception, LookupError)
        self.assertIn("raw.ghost", str(cm.exception))
        partial = cm.exception.report  # type: ignore[attr-defined]
        self.assertTrue(partial.results[0].ok and not partial.results[0].skipped)
        self.assertTrue(partial.results[2].skipped)
        self.assertIn("run stopped", partial.results[2].skip_reason)
        self.assertEqual(oracle("snapshot", str(fresh / "raw/orders"))["version"], orders_before)

    def test_errors_report_and_raise_if_errors(self) -> None:
        lake = self.make_lake()
        # damage raw.orders' last commit: loom must report it, not crash
        last = sorted((lake / "raw/orders/_delta_log").glob("*.json"))[-1]
        last.write_text(last.read_text()[:-40] + "\n")
        fp = fingerprint(lake / "raw/events")

        class Step(MaintenanceStep[None]):
            operations = [MaintainSchema("raw").vacuum().compact()]

        events = []
        runner = MaintenanceRunner.from_config(self.config_path, jobs=2,
                                               progress=lambda e: events.append(e))
        report = runner.run(Step)
        events_r, orders = report.results
        self.assertTrue(events_r.ok)
        self.assertIsInstance(events_r.vacuum, VacuumResult)
        self.assertTrue(events_r.vacuum.dry_run)
        self.assertIsInstance(events_r.compact, OptimizeResult)
        self.assertIsNone(events_r.z_order)
        self.assertEqual(events_r.compact.num_files_removed, 300)
        self.assertGreater(events_r.compact.metrics["numAddedBytes"], 0)
        self.assertFalse(orders.ok)
        self.assertEqual(orders.failed_op, "vacuum")
        self.assertEqual(orders.op_results, {})
        err = orders.error
        self.assertIsInstance(err, libloom.LoomCorrupt)
        self.assertEqual((err.code_name, err.error_class), ("ECORRUPT", "delta"))
        self.assertIn(last.name, err.message)
        self.assertTrue(report.has_errors)
        with self.assertRaises(MaintenanceError) as cm:
            report.raise_if_errors()
        self.assertEqual(cm.exception.failed, [orders])
        self.assertIn("Maintenance failed for 1 table(s): ['raw.orders']", str(cm.exception))
        # errors cross process boundaries whole (Dask, multiprocessing)
        back = pickle.loads(pickle.dumps(err))
        self.assertIs(type(back), libloom.LoomCorrupt)
        self.assertEqual((back.message, back.code, back.code_name, back.error_class, back.klass),
                         (err.message, err.code, "ECORRUPT", "delta", err.klass))
        gate = pickle.loads(pickle.dumps(cm.exception))
        self.assertEqual([r.table_ref for r in gate.failed], ["raw.orders"])
        self.assertEqual(str(gate), str(cm.exception))
        doc = report.to_dict()
        self.assertEqual(doc["schema"], "loom.report/1")
        self.assertEqual(doc["tables"][1]["error"]["class"], "delta")
        self.assertIn("raw.orders", str(report))
        self.assertEqual(fingerprint(lake / "raw/events"), fp)
        kinds = [(e.event, e.table_ref, e.op_name) for e in events if e.table_ref == "raw.events"]
        self.assertEqual(kinds, [("table_start", "raw.events", None),
                                 ("op_start", "raw.events", "vacuum"), ("op_done", "raw.events", "vacuum"),
                                 ("op_start", "raw.events", "compact"), ("op_done", "raw.events", "compact"),
                                 ("table_done", "raw.events", None)])
        self.assertTrue(all(e.table_count == 2 for e in events))

    def test_cancel_between_tables_fails_the_gate(self) -> None:
        """runner.cancel() from another thread (here: the progress callback
        once raw.events is done): raw.orders never starts, the report says
        so, and raise_if_errors() agrees with has_errors."""
        lake = self.make_lake()
        orders_before = oracle("snapshot", str(lake / "raw/orders"))["version"]
        runner: MaintenanceRunner
        cancels = [1]   # once: the second run goes through

        def progress(e) -> None:
            if e.event == "table_done" and e.table_ref == "raw.events" and cancels:
                cancels.pop()
                runner.cancel()

        class Step(MaintenanceStep[None]):
            operations = [MaintainSchema("raw").compact()]

        runner = MaintenanceRunner.from_config(self.config_path, progress=progress)
        report = runner.run(Step)
        events_r, orders = report.results
        self.assertTrue(events_r.ok and not events_r.skipped)
        self.assertTrue(orders.ok and orders.skipped)
        self.assertIn("cancelled", orders.skip_reason)
        self.assertTrue(report.cancelled and report.has_errors)
        with self.assertRaises(MaintenanceError) as cm:
            report.raise_if_errors()
        self.assertTrue(cm.exception.cancelled)
        self.assertEqual(cm.exception.failed, [])
        self.assertIn("cancelled", str(cm.exception))
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["version"], orders_before)
        # the runner is reusable after a cancel
        again = runner.run(Step)
        self.assertFalse(again.cancelled)
        again.raise_if_errors()
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 1)

    def test_compact_target_size(self) -> None:
        """compact(target_size) in bytes bounds the files it writes (the
        route's target_file_size, 128 MiB, is the default otherwise)."""
        lake = self.make_lake()
        fp = fingerprint(lake / "raw/events")

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.events").compact(64 << 10)]

        report = MaintenanceRunner.from_config(self.config_path).run(Step)
        report.raise_if_errors()
        self.assertEqual(report.results[0].compact.metrics["targetSize"], 64 << 10)
        snap = oracle("snapshot", str(lake / "raw/events"))
        self.assertEqual(snap["numFiles"], report.results[0].compact.num_files_added +
                         300 - report.results[0].compact.num_files_removed)
        self.assertGreaterEqual(snap["numFiles"], 20)   # 1.7 MiB in 10 partitions, 64 KiB files
        self.assertTrue(all(f["size"] < 2 * (64 << 10) for f in snap["files"]))
        self.assertEqual(fingerprint(lake / "raw/events"), fp)

    def test_vacuum_rules(self) -> None:
        """The seed's vacuum: dry_run=True (the default) lists and keeps;
        retention_hours bounds what is old enough; full=True also deletes
        unreferenced files older than the retention, but never names
        starting with an underscore -- judged by the oracle and the disk."""
        lake = self.make_lake()
        table = lake / "raw/orders"
        fp = fingerprint(table)
        removed = sorted(self.removed_on_disk("raw/orders"))
        self.assertEqual(len(removed), 20)
        ten_days_ago = time.time() - 10 * 86400
        strays = {"stray-old.parquet": ten_days_ago, "_loom_keep.parquet": ten_days_ago,
                  "stray-new.parquet": None}
        for name, mtime in strays.items():
            (table / name).write_bytes(b"PAR1 not a real file PAR1")
            if mtime is not None:
                os.utime(table / name, (mtime, mtime))

        def vacuum(**kw):
            class Step(MaintenanceStep[None]):
                operations = [MaintainTable("raw.orders").vacuum(**kw)]
            report = MaintenanceRunner.from_config(self.config_path).run(Step)
            report.raise_if_errors()
            r = report.results[0]
            self.assertGreater(r.duration_seconds, 0)
            return r.vacuum

        dry = vacuum()
        self.assertTrue(dry.dry_run)
        self.assertEqual(sorted(dry.files_deleted), removed)
        self.assertEqual(sorted(self.removed_on_disk("raw/orders")), removed)   # nothing deleted
        # removed ten days ago: not old enough for an 11-day retention
        self.assertEqual(vacuum(retention_hours=11 * 24, dry_run=False).files_deleted, [])
        self.assertEqual(sorted(self.removed_on_disk("raw/orders")), removed)
        # lite: the log's removes only
        lite = vacuum(retention_hours=168, dry_run=False)
        self.assertEqual((sorted(lite.files_deleted), lite.dry_run), (removed, False))
        self.assertEqual(self.removed_on_disk("raw/orders"), [])
        self.assertTrue(all((table / n).exists() for n in strays))
        # full: the old stray too, not the fresh one nor the underscore name
        full = vacuum(dry_run=False, full=True)
        self.assertEqual(full.files_deleted, ["stray-old.parquet"])
        left = {f["path"] for f in oracle("orphans", str(table))["files"]}
        self.assertEqual(left - {"_loom_keep.parquet"}, {"stray-new.parquet"})
        self.assertTrue((table / "_loom_keep.parquet").exists())
        self.assertEqual(fingerprint(table), fp)
        self.assertTrue(oracle("verify", str(table))["ok"])

    def test_run_from_config_reads_loom_py_forms(self) -> None:
        lake = self.make_lake()
        base = (self.config_path.read_text().split("  maintenance:")[0])
        cases = {
            # loom-py's documented form; no schemas = every configured table
            "  maintenance:\n    compact: true\n": ["raw.events", "raw.orders", "staging.orders"],
            "  maintenance:\n    schemas: []\n    vacuum: {dry_run: true}\n":
                ["raw.events", "raw.orders", "staging.orders"],
            "  maintenance:\n    schemas: [staging]\n    compact: false\n    z_order_by: [run_date]\n":
                ["staging.orders"],
            "  maintenance:\n    vacuum: null\n    compact: false\n    z_order_by: []\n": [],
        }
        for block, tables in cases.items():
            path = self.tmp / "storage.yaml"
            path.write_text(base + block)
            report = MaintenanceRunner.from_config(path).run_from_config()
            self.assertEqual([r.table_ref for r in report.results], tables, block)
            report.raise_if_errors()
        self.assertIn("schedules no operation", report.warnings[0])
        # the compact: true run did compact every table (oracle)
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders"))["numFiles"], 1)


class MaintenanceBlockAsLoomPy(LakeTest):
    """The maintenance block means what loom-py's run_from_config makes of
    it, judged against the loom-py stand-in's own runner."""

    def write_config(self, block: str) -> Path:
        base = self.config_path.read_text().split("  maintenance:")[0]
        path = self.tmp / "storage.yaml"
        path.write_text(base + block)
        return path

    def loompy_run_from_config(self, config: StorageConfig) -> list[tuple[str, dict]]:
        """loom-py's runner (the stand-in) over libloom's config object."""
        import sys
        sys.path.insert(0, str(Path(__file__).resolve().parent / "loompy_standin"))
        from loom.etl import maintenance as loompy
        runner = loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config)
        return [(r.table_ref, r.op_results) for r in runner.run_from_config().results]

    def test_compact_with_z_order_loads_and_is_refused_when_run(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        files = {t: oracle("snapshot", str(lake / t))["numFiles"] for t in self.TABLES}
        path = self.write_config("  maintenance:\n    schemas: [raw]\n    compact: true\n"
                                 "    z_order_by: [run_date]\n")
        runner = MaintenanceRunner.from_config(path)   # loads
        m = runner.config.maintenance
        self.assertEqual((m.compact, m.z_order_by), (True, ("run_date",)))

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.orders").vacuum()]

        report = runner.run(Step)   # a step runs on it
        report.raise_if_errors()
        self.assertEqual(len(report.results[0].vacuum.files_deleted), 20)
        # the block itself: refused before any table, as loom-py refuses it
        with self.assertRaisesRegex(ValueError, "compact and z_order_by are mutually exclusive"):
            runner.run_from_config()

        class PythonBackend(NativeMaintainer):
            pass

        with self.assertRaisesRegex(ValueError, "mutually exclusive"):
            MaintenanceRunner(PythonBackend(), None, path).run_from_config()
        with self.assertRaisesRegex(ValueError, "mutually exclusive"):
            self.loompy_run_from_config(runner.config)
        # the C runner and the CLI refuse it too, with the line
        cli = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(path)],
                             capture_output=True, text=True)
        self.assertEqual(cli.returncode, 2, cli.stdout + cli.stderr)
        self.assertIn(f"{path}:28:5: maintenance: compact and z_order_by are mutually exclusive",
                      cli.stderr)
        cli = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(path),
                              "--plan", str(SOURCE_DIR / "examples/plan.yaml"), "--step",
                              "nightly", "--explain"], capture_output=True, text=True)
        self.assertEqual(cli.returncode, 0, cli.stdout + cli.stderr)
        self.assertEqual(self.fingerprints(), before)
        self.assertEqual({t: oracle("snapshot", str(lake / t))["numFiles"] for t in self.TABLES},
                         files)

    def test_schemas_without_ops_list_their_tables(self) -> None:
        self.make_lake()
        before = self.fingerprints()
        for block in ("  maintenance:\n    schemas: [raw]\n",
                      "  maintenance:\n    schemas: [raw]\n    z_order_by: []\n",
                      "  maintenance:\n    schemas: [raw]\n    vacuum: null\n    compact: false\n"):
            path = self.write_config(block)
            report = MaintenanceRunner.from_config(path).run_from_config()
            got = [(r.table_ref, r.op_results) for r in report.results]
            self.assertEqual(got, [("raw.events", {}), ("raw.orders", {})], block)
            self.assertTrue(all(r.ok and not r.skipped for r in report.results), block)
            self.assertEqual(report.warnings, [], block)
            self.assertEqual(got, self.loompy_run_from_config(StorageConfig.load(path)), block)
        # nothing at all: still an empty report, with the warning
        path = self.write_config("  maintenance:\n    z_order_by: []\n")
        report = MaintenanceRunner.from_config(path).run_from_config()
        self.assertEqual(report.results, [])
        self.assertIn("schedules no operation", report.warnings[0])
        self.assertEqual(self.loompy_run_from_config(StorageConfig.load(path)), [])
        self.assertEqual(self.fingerprints(), before)


if __name__ == "__main__":
    os.chdir(SOURCE_DIR)
    unittest.main()
