"""libloom as a drop-in backend of loom's Python ETL (loom-py): with a
stand-in of loom-py's maintenance and storage modules written from its
published source (tests/python/loompy_standin), a loom-py user swaps the
delta-rs backend for loom's with one line --

    runner = MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config)

-- and gets loom-py's own result types back, with the location's writer
and commit settings honoured (judged by DuckDB and the oracle). libloom
also reads loom-py's StorageConfig object directly, maintenance block and
all."""

from __future__ import annotations

import os
import sys
import unittest
from pathlib import Path

from support import TOOLS, LakeTest, commits, fingerprint, node, oracle

sys.path.insert(0, str(Path(__file__).resolve().parent / "loompy_standin"))

import json  # noqa: E402

from loom.etl import maintenance as loompy  # noqa: E402
from loom.etl.storage import (  # noqa: E402
    AuditConfig,
    CatalogConnection,
    CustomColumnDef,
    FilePathConfig,
    FileRoute,
    MaintenanceConfig,
    MaintenanceVacuumConfig,
    StorageConfig,
    StorageDefaults,
    TablePathConfig,
    TableRoute,
    TempConfig,
)

import libloom  # noqa: E402
from libloom.maintenance import MaintenanceRunner as LoomRunner  # noqa: E402
from libloom.maintenance import NativeMaintainer  # noqa: E402


class NightlyMaintenance(loompy.MaintenanceStep[None]):
    operations = [
        loompy.MaintainSchema("raw").vacuum(retention_hours=168, dry_run=False).compact(),
        loompy.MaintainTable("staging.orders")
            .vacuum(dry_run=False)
            .z_order_by(["run_date", "_id"]),
    ]


CATALOG_TOKEN = "dapi0123456789abcdef"


def loompy_config(lake: Path, maintenance: MaintenanceConfig | None = None) -> StorageConfig:
    """The example lake as loom-py's StorageConfig: raw.events with its own
    writer (zstd, row groups of at most 1000 rows) and commit metadata, and
    the sections maintenance does not use (a catalog with a token, file
    routes, temp storage, audit columns) filled in as an ETL would."""
    return StorageConfig(
        engine="polars",
        catalogs={"main": CatalogConnection(workspace="https://adb.example.net",
                                            token=CATALOG_TOKEN)},
        temp=TempConfig(root="s3://scratch/loom-py", storage_options={"AWS_REGION": "eu-west-1"}),
        files=(FileRoute(name="exports.daily",
                         path=FilePathConfig(uri=str(lake / "exports/{run_date}.csv"))),),
        audit=AuditConfig(enabled=True, custom=(CustomColumnDef(name="env", value="prod"),)),
        defaults=StorageDefaults(table_path=TablePathConfig(
            uri=str(lake), commit={"custom_metadata": {"pipeline": "loom-py"}})),
        tables=(
            TableRoute(name="raw.events", path=TablePathConfig(
                uri=str(lake / "raw/events"),
                storage_options={"AWS_REGION": "eu-west-1"},
                writer={"compression": "ZSTD", "max_row_group_size": 1000},
                commit={"custom_metadata": {"team": "lake-ops"}})),
            TableRoute(name="raw.orders", path=TablePathConfig(
                uri=str(lake / "raw/orders"), commit={"custom_metadata": {"team": "orders"}})),
            TableRoute(name="staging.orders", path=TablePathConfig(uri=str(lake / "staging/orders"))),
            TableRoute(name="gold.revenue", ref="main.gold.revenue"),
        ),
        maintenance=maintenance or MaintenanceConfig())


class DropInBackend(LakeTest):
    def test_loompy_runner_with_native_maintainer(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        removed = self.removed_on_disk("raw/orders")
        config = loompy_config(lake)

        runner = loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config)
        report = runner.run(NightlyMaintenance)
        report.raise_if_errors()

        events, orders, staging = report.results
        # loom-py's own result types, so its properties find them
        self.assertIsInstance(orders.vacuum, loompy.VacuumResult)
        self.assertIsInstance(events.compact, loompy.OptimizeResult)
        self.assertIsInstance(staging.z_order, loompy.OptimizeResult)
        self.assertEqual(sorted(orders.vacuum.files_deleted), sorted(removed))
        self.assertEqual((events.compact.num_files_removed, events.compact.num_files_added), (300, 10))
        self.assertEqual(events.compact.metrics["partitionsOptimized"], 10)   # loom's extras
        # the oracle agrees
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders"))["numFiles"], 1)
        for path in removed:
            self.assertFalse((lake / "raw/orders" / path).exists())
        self.assert_unchanged_rows(before)
        # the location's writer settings shaped the new files (DuckDB reads them)
        new = [lake / "raw/events" / a["add"]["path"]
               for a in commits(lake / "raw/events")[-1] if "add" in a]
        meta = json.loads(node(TOOLS / "parquet_codecs.cjs", *map(str, new)))
        self.assertEqual(len(meta), 10)
        for m in meta.values():
            self.assertEqual(m["codecs"], ["ZSTD"])
            # loom sizes row groups from the input's bytes per row, so the
            # row count is approximate; without the setting each ~150 KB
            # file would be one row group
            self.assertGreater(m["row_groups"], 1)
            self.assertLessEqual(m["max_group_rows"], 1500)
        # and each route's commit properties its own commits: VACUUM START,
        # VACUUM END and OPTIMIZE on raw.orders, OPTIMIZE on raw.events
        def infos(table: str, n: int) -> list[dict]:
            return [next(a["commitInfo"] for a in c if "commitInfo" in a)
                    for c in commits(lake / table)[-n:]]
        orders = infos("raw/orders", 3)
        self.assertEqual([(i["operation"], i.get("team")) for i in orders],
                         [("VACUUM START", "orders"), ("VACUUM END", "orders"),
                          ("OPTIMIZE", "orders")])
        self.assertEqual([(i["operation"], i.get("team")) for i in infos("raw/events", 1)],
                         [("OPTIMIZE", "lake-ops")])

    def test_loompy_tableref_and_runner_over_a_storage_yaml(self) -> None:
        """loom-py's TableRef (a dataclass with `ref` and no __str__) finds
        the route it names in libloom's locator, and loom-py's runner with
        NativeMaintainer over a storage YAML runs every configured table;
        tables the locator cannot place (not configured, a catalog route)
        are skipped by loom-py's missing-table policy, not failed."""
        from loom.etl.storage import TableRef as LoomPyTableRef
        lake = self.make_lake()
        yaml_config = libloom.StorageConfig.load(self.config_path)
        locator = yaml_config.to_path_locator()
        self.assertEqual(locator.locate(LoomPyTableRef("raw.events")).uri, str(lake / "raw/events"))
        # not a route: the default table_path + the ref's parts
        self.assertEqual(locator.locate(LoomPyTableRef("gold.x")).uri, str(lake / "gold/x"))
        with self.assertRaisesRegex(TypeError, "table ref"):
            locator.locate(object())

        before = self.fingerprints()
        removed = self.removed_on_disk("raw/orders")
        path = self.tmp / "storage.yaml"   # no default path: unrouted tables cannot be placed
        path.write_text(
            "storage:\n  tables:\n"
            + "".join(f"    - name: {t.replace('/', '.')}\n      path: {lake / t}\n"
                      for t in self.TABLES)
            + "    - name: gold.revenue\n      ref: main.gold.revenue\n")
        config = libloom.StorageConfig.load(path)

        class Step(loompy.MaintenanceStep[None]):
            operations = [
                loompy.MaintainSchema("raw").vacuum(retention_hours=168, dry_run=False),
                loompy.MaintainTable("staging.orders").vacuum(),
                loompy.MaintainTable("gold.revenue").vacuum(dry_run=False),
                loompy.MaintainTable("gold.missing").vacuum(dry_run=False),
            ]

        report = loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(),
                                          config, missing_table_policy="skip").run(Step)
        report.raise_if_errors()
        results = {r.table_ref: r for r in report.results}
        self.assertEqual(list(results), ["raw.events", "raw.orders", "staging.orders",
                                         "gold.revenue", "gold.missing"])
        for ref in ("raw.events", "raw.orders", "staging.orders"):
            self.assertIsInstance(results[ref].vacuum, loompy.VacuumResult, ref)
        for ref in ("gold.revenue", "gold.missing"):   # loom-py's "skipped": no ops, no error
            self.assertEqual((results[ref].op_results, results[ref].error), ({}, None), ref)
        self.assertEqual(sorted(results["raw.orders"].vacuum.files_deleted), sorted(removed))
        self.assertEqual(self.removed_on_disk("raw/orders"), [])   # the oracle agrees
        self.assert_unchanged_rows(before)
        # under loom-py's "error" policy the first unplaceable table raises
        with self.assertRaises(libloom.LoomError):
            loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config,
                                     missing_table_policy="error").run(Step)

    def test_storage_options_reach_loom(self) -> None:
        """The location's storage_options reach the C operation: it opens
        the table's store with them and masks every message it returns
        with their secret values -- here the path of a missing table.
        (The local store reads no option; the object stores read their
        credentials and endpoints from the same list.)"""
        from loom.etl.maintenance._ops import VacuumSpec
        from loom.etl.storage import TableLocation
        secret = "Zq9sEcReTv4lue"
        missing = self.tmp / secret / "events"
        loc = TableLocation(uri=str(missing),
                            storage_options={"AWS_SECRET_ACCESS_KEY": secret})
        with self.assertRaises(libloom.LoomNotFound) as cm:
            NativeMaintainer().vacuum(str(missing), VacuumSpec(), loc)
        self.assertNotIn(secret, str(cm.exception))
        self.assertIn(f"{self.tmp}/***/events", str(cm.exception))
        # without the option the path is shown as it is
        with self.assertRaises(libloom.LoomNotFound) as cm2:
            NativeMaintainer().vacuum(str(missing), VacuumSpec(), TableLocation(uri=str(missing)))
        self.assertIn(secret, str(cm2.exception))

    def test_errors_land_in_loompy_results(self) -> None:
        lake = self.make_lake()
        config = loompy_config(lake)
        last = sorted((lake / "staging/orders/_delta_log").glob("*.json"))[-1]
        last.write_text("{not json\n")
        report = loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config).run(
            NightlyMaintenance)
        staging = report.results[-1]
        self.assertFalse(staging.ok)
        self.assertIsInstance(staging.error, libloom.LoomCorrupt)
        self.assertIn(last.name, str(staging.error))
        with self.assertRaises(loompy.MaintenanceError):
            report.raise_if_errors()

    def test_libloom_reads_loompy_config_objects(self) -> None:
        """The compatibility defects of the issue: loom-py's documented
        `compact: true` and an empty schema list (every configured table)."""
        lake = self.make_lake()
        fp = fingerprint(lake / "staging/orders")
        config = loompy_config(lake, MaintenanceConfig(
            schemas=(), vacuum=MaintenanceVacuumConfig(retention_hours=None, dry_run=True),
            compact=True, z_order_by=()))
        report = LoomRunner.from_config(config).run_from_config()
        self.assertEqual([(r.table_ref, r.skipped) for r in report.results],
                         [("raw.events", False), ("raw.orders", False), ("staging.orders", False),
                          ("gold.revenue", True)])   # a catalog route: skipped, not lost
        self.assertTrue(all(r.ok for r in report.results))
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders"))["numFiles"], 1)
        self.assertEqual(fingerprint(lake / "staging/orders"), fp)
        # the route's own writer settings came through the object too
        loaded = LoomRunner.from_config(config).config
        self.assertEqual(loaded.locate("raw.events").writer,
                         {"compression": "ZSTD", "max_row_group_size": 1000})
        # the ETL's other sections are read past, and the catalog token never shows
        for text in (loaded.to_json(), repr(loaded), str(report), report.to_json()):
            self.assertNotIn(CATALOG_TOKEN, text)


if __name__ == "__main__":
    unittest.main()
