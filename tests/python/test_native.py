"""The low-level binding (libloom.native, libloom.DeltaTable) on real data:
CONVERT TO DELTA of DuckDB-written Parquet, Z-order with both curves and a
memory budget small enough to spill (clustering judged by the oracle's
data-skipping score), checkpoints and log cleanup, errors as Python
exceptions with loom's message, code and class, and every metric an
operation reports named in libloom.metrics (= include/loom/metrics.h)."""

from __future__ import annotations

import ctypes
import os
import shutil
import threading
import time
import unittest
from collections.abc import Callable
from pathlib import Path

from support import SOURCE_DIR, TOOLS, LakeTest, TempDirTest, fingerprint, node, oracle

import libloom
from libloom import DeltaTable, _capi, metrics, native
from libloom.maintenance import MaintainTable, MaintenanceRunner, MaintenanceStep


class Errors(TempDirTest):
    def test_errors_carry_code_class_and_message(self) -> None:
        with self.assertRaises(libloom.LoomNotFound) as cm:
            native.vacuum(str(self.tmp / "nope"))
        e = cm.exception
        self.assertEqual((e.code, e.code_name), (-2, "ENOTFOUND"))
        self.assertIn(str(self.tmp / "nope"), e.message)
        self.assertIsInstance(e, LookupError)
        with self.assertRaises(libloom.LoomValueError) as cm2:
            native.zorder(str(self.tmp), [])
        self.assertIn("column list is empty", str(cm2.exception))
        with self.assertRaises(ValueError):
            native.parse_size("12 parsecs")
        self.assertEqual(native.parse_size("1.5 KiB"), 1536)
        self.assertEqual(native.format_size(3 << 20), "3.0 MiB")

    def test_location_as_a_mapping(self) -> None:
        """An embedder's form: location={"storage_options": {...}}; the
        operation opens the store with it and masks its secrets."""
        secret = "n0tTh1sK3yPlease"
        missing = str(self.tmp / secret / "t")
        with self.assertRaises(libloom.LoomNotFound) as cm:
            native.compact(missing, location={"storage_options": {"azure_storage_account_key": secret}})
        self.assertNotIn(secret, str(cm.exception))
        self.assertIn(f"{self.tmp}/***/t", str(cm.exception))

    def test_retention_check(self) -> None:
        table = self.tmp / "t"
        shutil.copytree(SOURCE_DIR.parent / "shared/fixtures/delta/simple_table", table)
        with self.assertRaises(libloom.LoomValueError) as cm:
            DeltaTable(table).vacuum(retention_hours=0)
        self.assertEqual(cm.exception.error_class, "ops")
        self.assertEqual(len(DeltaTable(table).vacuum(retention_hours=0,
                                                      enforce_retention_duration=False)), 31)


class ConvertAndCluster(TempDirTest):
    """DuckDB writes 60 000 rows in random order; loom converts them and
    clusters them along each curve; the oracle scores the layout."""

    def make_table(self, name: str) -> Path:
        base = self.tmp / "base"
        if not base.exists():
            node(TOOLS / "zorder_gen.cjs", str(base), "4", "15000", "0")
        table = self.tmp / name
        shutil.copytree(base, table)
        return table

    def test_convert_then_zorder_both_curves(self) -> None:
        table = self.make_table("t")
        r = native.convert(str(table))
        self.assertEqual((r.metrics[metrics.NUM_FILES], r.metrics[metrics.NUM_RECORDS]), (4, 60000))
        self.assert_known_metrics(r.metrics)
        fp = fingerprint(table)
        self.assertEqual(fp, (oracle("fingerprint-parquet", str(self.tmp / "base"),
                                     "--schema-from", str(table))["hash"], 60000))
        dt = DeltaTable(table)
        self.assertEqual((dt.version(), len(dt.files())), (0, 4))
        before = oracle("zorder-quality", str(table), "--columns", "u1,u2")
        self.assertEqual(before["avg_fraction_scanned"], 1)

        other = self.make_table("z")
        native.convert(str(other))
        for t, curve in ((table, "hilbert"), (other, "z")):
            config = {"storage": {"defaults": {"table_path": {"uri": str(self.tmp)}}}}

            class Cluster(MaintenanceStep[None]):
                operations = [MaintainTable(t.name).z_order_by(
                    ["u1", "u2"], target_size="256KiB", curve=curve, memory="1MiB")]

            report = MaintenanceRunner.from_config(config).run(Cluster)
            report.raise_if_errors()
            z = report.results[0].z_order
            self.assertGreater(z.metrics[metrics.ZORDER_SPILL_BYTES], 0, curve)   # sorted externally
            self.assertEqual(z.metrics[metrics.ZORDER_CURVE_HILBERT], int(curve == "hilbert"))
            self.assert_known_metrics(z.metrics)
            q = oracle("zorder-quality", str(t), "--columns", "u1,u2")
            self.assertGreaterEqual(q["files"], 8, curve)
            self.assertLessEqual(q["avg_fraction_scanned"], 0.3, curve)
            self.assertEqual(fingerprint(t), fp, curve)
            self.assertTrue(oracle("verify", str(t))["ok"])
        # a second run finds every partition clustered and writes nothing
        r2 = native.zorder(str(table), ["u1", "u2"], curve="hilbert")
        self.assertEqual((r2.num_files_added, r2.metrics[metrics.VERSION]), (0, -1))

    def assert_known_metrics(self, got: dict) -> None:
        self.assertFalse(set(got) - metrics.known_names(), "metric names not in metrics.h")


class TableHandle(LakeTest):
    assert_known_metrics = ConvertAndCluster.assert_known_metrics

    def test_delta_table(self) -> None:
        lake = self.make_lake()
        dt = DeltaTable(lake / "raw/events")
        snap = oracle("snapshot", str(lake / "raw/events"))
        self.assertEqual(dt.version(), snap["version"])
        self.assertEqual(dt.files(), sorted(f["path"] for f in snap["files"]))
        self.assertEqual(dt.partition_columns(), snap["metadata"]["partitionColumns"])
        self.assertEqual(dt.schema_json(), snap["metadata"]["schema"])
        day = snap["files"][0]["partitionValues"]["event_date"]
        got = dt.optimize.compact(partition_filters=[("event_date", "=", day)])
        self.assertEqual(got[metrics.PARTITIONS_OPTIMIZED], 1)
        self.assertEqual(got[metrics.NUM_FILES_REMOVED], 30)
        self.assert_known_metrics(got)
        self.assertEqual(len(dt.files()), 271)
        dt.create_checkpoint()
        snap = oracle("snapshot", str(lake / "raw/events"))
        self.assertEqual(snap["checkpoint"]["version"], snap["version"])
        again = native.checkpoint(str(lake / "raw/events"))
        self.assertEqual((again.metrics[metrics.CREATED], again.metrics[metrics.VERSION]),
                         (0, snap["version"]))
        dry = native.cleanup_logs(str(lake / "raw/events"))
        self.assertTrue(dry.dry_run)
        vac = native.vacuum(str(lake / "raw/events"))
        self.assertEqual(vac.metrics[metrics.NUM_FILES_TO_DELETE], 0)
        for r in (again, dry, vac):
            self.assert_known_metrics(r.metrics)
        pinned = DeltaTable(lake / "raw/events", version=0)
        self.assertEqual(pinned.version(), 0)
        with self.assertRaises(libloom.LoomNotFound):
            DeltaTable(lake / "raw/events", version=999)


class GilReleased(LakeTest):
    """While C compacts a table on one thread, Python code on another keeps
    running: the longest pause of a pure-Python loop during the C call is
    a small part of it. The control binds the same function through
    ctypes.PyDLL, which keeps the GIL during the call: there the loop
    stops for (nearly) the whole call -- so the measure can tell."""

    @staticmethod
    def longest_pause(call: Callable[[], object]) -> tuple[float, float]:
        """(longest gap between the main thread's loop turns while `call`
        ran on a worker thread, the call's duration) in seconds."""
        window: dict[str, float] = {}

        def work() -> None:
            window["start"] = time.monotonic()
            call()
            window["end"] = time.monotonic()

        stamps = []
        worker = threading.Thread(target=work)
        worker.start()
        while worker.is_alive():
            stamps.append(time.monotonic())
            sum(range(100))   # Python work: it needs the GIL to go on
        worker.join()
        start, end = window["start"], window["end"]
        inside = [start] + [t for t in stamps if start < t < end] + [end]
        return max(b - a for a, b in zip(inside, inside[1:])), end - start

    def test_gil_is_released_while_c_works(self) -> None:
        lake = self.make_lake()
        copies = [self.tmp / f"events{i}" for i in range(3)]
        for c in copies:
            shutil.copytree(lake / "raw/events", c)

        def compact(fn: object, table: Path) -> Callable[[], object]:
            return lambda: native._run(fn, str(table), None, native.compact_opts("64KiB"), None)

        # released: measured on a second copy only if a stall of the busy
        # machine spoilt the first (a held GIL would spoil both)
        for table in copies[:2]:
            pause, took = self.longest_pause(compact(_capi.lib.loom_compact, table))
            self.assertGreater(took, 0.05)
            if pause < took / 2:
                break
        self.assertLess(pause, took / 2, (pause, took))

        held = ctypes.PyDLL(_capi.library_path).loom_compact
        held.restype, held.argtypes = _capi.lib.loom_compact.restype, _capi.lib.loom_compact.argtypes
        pause_held, took_held = self.longest_pause(compact(held, copies[2]))
        self.assertGreater(pause_held, took_held / 2, (pause_held, took_held))
        for done in (table, copies[2]):   # both compactions did their work
            self.assertEqual(oracle("snapshot", str(done))["numFiles"], 30, done)


if __name__ == "__main__":
    os.chdir(SOURCE_DIR)
    unittest.main()
