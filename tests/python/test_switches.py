"""A switch that decides whether files are deleted (``dry_run``, ``full``,
``retention_check``, cleanup's ``force``) is a real bool everywhere it
arrives: a Python ``bool`` (anything else -- ``None``, ``0``, ``"false"`` --
is a TypeError naming the argument, raised before anything runs), 0 or 1
in the C option structs a binding fills (LOOM_EINVAL otherwise), the
YAML's plain true / false in a storage or plan file (a quoted "false" is a
string). The table is judged unchanged by the oracle after every refused
call, not by loom's word."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from support import LakeTest, TempDirTest, fingerprint, oracle

sys.path.insert(0, str(Path(__file__).resolve().parent / "loompy_standin"))

from loom.etl import maintenance as loompy  # noqa: E402

import libloom  # noqa: E402
from libloom import DeltaTable, _capi, native  # noqa: E402
from libloom.maintenance import (  # noqa: E402
    MaintainSchema,
    MaintainTable,
    NativeMaintainer,
    StorageConfig,
    VacuumSpec,
    ZOrderSpec,
)

# what bool() would have turned into a real vacuum (None, 0, "") or into a
# dry run ("false"); none is a bool
NOT_BOOLS: tuple[Any, ...] = (None, 0, 1, "", "false", "true", 0.0)


class PythonSwitches(LakeTest):
    """raw.orders of the example lake has 20 files its log removed ten
    days ago and that are still on disk: any real vacuum deletes them."""

    def setUp(self) -> None:
        super().setUp()
        self.make_lake()
        self.table = self.lake / "raw/orders"
        self.uri = str(self.table)
        self.removed = sorted(self.removed_on_disk("raw/orders"))
        self.assertEqual(len(self.removed), 20)
        self.fp = fingerprint(self.table)

    def assert_untouched(self) -> None:
        """The oracle's view: the same rows, every removed file still on
        disk, the log not advanced."""
        self.assertEqual(fingerprint(self.table), self.fp)
        self.assertEqual(sorted(self.removed_on_disk("raw/orders")), self.removed)
        self.assertTrue(oracle("verify", self.uri)["ok"])

    def assert_refused(self, what: str, call: Callable[[], Any]) -> None:
        with self.assertRaises(TypeError, msg=what) as cm:
            call()
        self.assertIn(what, str(cm.exception))
        self.assertIn("must be a bool", str(cm.exception))

    def test_vacuum_switches(self) -> None:
        for bad in NOT_BOOLS:
            for what in ("dry_run", "full", "retention_check"):
                kw = {what: bad}
                self.assert_refused(what, lambda: MaintainTable("raw.orders").vacuum(168, **kw))
                self.assert_refused(what, lambda: MaintainSchema("raw").vacuum(168, **kw))
                self.assert_refused(what, lambda: VacuumSpec(168, **kw))
                self.assert_refused(what, lambda: native.vacuum(self.uri, retention_hours=168,
                                                                **kw))
                # a loom-py spec (no checks of its own) on loom's backend
                spec = SimpleNamespace(retention_hours=168, dry_run=False, full=False,
                                       retention_check=True)
                setattr(spec, what, bad)
                self.assert_refused(what, lambda: NativeMaintainer().vacuum(self.uri, spec))
            self.assert_refused("dry_run", lambda: DeltaTable(self.uri).vacuum(168, dry_run=bad))
            self.assert_refused("enforce_retention_duration", lambda: DeltaTable(self.uri).vacuum(
                168, dry_run=False, enforce_retention_duration=bad))
        # the builder's message names the declaration, as its other errors do
        with self.assertRaisesRegex(TypeError, r"^MaintainTable\('raw.orders'\): dry_run must be "
                                               r"a bool \(True or False\), got NoneType None"):
            MaintainTable("raw.orders").vacuum(168, dry_run=None)
        self.assert_untouched()

    def test_loompy_runner_on_loom_backend(self) -> None:
        """loom-py's builders take dry_run=None; on loom's backend the
        table's result carries the TypeError and nothing is deleted."""
        class Step(loompy.MaintenanceStep[None]):
            operations = [loompy.MaintainTable("raw.orders").vacuum(168, dry_run=None)]

        config = StorageConfig.load(self.config_path)
        report = loompy.MaintenanceRunner(NativeMaintainer(), config.to_path_locator(),
                                          config).run(Step)
        (orders,) = report.results
        self.assertIsInstance(orders.error, TypeError)
        self.assertIn("dry_run", str(orders.error))
        self.assert_untouched()

    def test_other_switches(self) -> None:
        for bad in NOT_BOOLS:
            self.assert_refused("full", lambda: MaintainTable("raw.orders").z_order_by(["id"],
                                                                                        full=bad))
            self.assert_refused("full", lambda: ZOrderSpec(["id"], full=bad))
            self.assert_refused("full", lambda: native.zorder(self.uri, ["order_id"], full=bad))
            self.assert_refused("dry_run", lambda: native.zorder(self.uri, ["order_id"],
                                                                 dry_run=bad))
            self.assert_refused("dry_run", lambda: native.compact(self.uri, dry_run=bad))
            self.assert_refused("dry_run", lambda: native.cleanup_logs(self.uri, dry_run=bad))
            self.assert_refused("force", lambda: native.cleanup_logs(self.uri, force=bad))
        self.assert_untouched()

    def test_c_option_structs(self) -> None:
        """A binding that fills the C structs itself: anything but 0 or 1
        in a switch is LOOM_EINVAL naming the field, and nothing runs."""
        def vacuum(field: str, value: int) -> None:
            o = native.vacuum_opts(168, dry_run=False)
            setattr(o, field, value)
            native._run(_capi.lib.loom_vacuum, self.uri, None, o, None)

        def compact(value: int) -> None:
            o = native.compact_opts()
            o.dry_run = value
            native._run(_capi.lib.loom_compact, self.uri, None, o, None)

        def cleanup(field: str, value: int) -> None:
            o = _capi.loom_cleanup_logs_opts(_capi.LOOM_CLEANUP_LOGS_OPTS_VERSION, 0, 0, -1)
            setattr(o, field, value)
            native._run(_capi.lib.loom_cleanup_logs, self.uri, None, o, None)

        def op_vacuum(value: int) -> None:
            o = native.vacuum_opts(168, dry_run=False)
            o.retention_check = value
            op = _capi.loom_op_p()
            libloom.errors.check(_capi.lib.loom_op_vacuum(_capi.ctypes.byref(op),
                                                          _capi.ctypes.byref(o)))
            _capi.lib.loom_op_free(op)

        cases: list[tuple[str, Callable[[], Any]]] = []
        for value in (2, -1, 255):
            cases += [("vacuum: dry_run", lambda: vacuum("dry_run", value)),
                      ("vacuum: full", lambda: vacuum("full", value)),
                      ("vacuum: retention_check", lambda: vacuum("retention_check", value)),
                      ("vacuum: retention_check", lambda: op_vacuum(value)),
                      ("compact: dry_run", lambda: compact(value)),
                      ("cleanup-logs: dry_run", lambda: cleanup("dry_run", value)),
                      ("cleanup-logs: force", lambda: cleanup("force", value))]
        for what, call in cases:
            with self.assertRaises(libloom.LoomValueError, msg=what) as cm:
                call()
            self.assertIn(f"{what} must be 0 or 1", str(cm.exception))
        self.assert_untouched()


class YamlSwitches(TempDirTest):
    """In a storage YAML or its parsed mapping: the plain true / false (and
    YAML's yes / no / on / off) only."""

    BAD_YAML = ("nope", "'false'", '"true"', "0", "1", "~", "")
    BAD_MAPPING: tuple[Any, ...] = ("false", "true", None, 0, 1)

    def yaml(self, block: str) -> StorageConfig:
        return StorageConfig.from_yaml("storage:\n  tables: []\n  maintenance:\n" + block)

    def test_storage_yaml(self) -> None:
        for bad in self.BAD_YAML:
            for block, what in ((f"    vacuum:\n      dry_run: {bad}\n",
                                 "maintenance.vacuum.dry_run"),
                                (f"    vacuum:\n      full: {bad}\n", "maintenance.vacuum.full"),
                                (f"    z_order_by:\n      columns: [a]\n      full: {bad}\n",
                                 "maintenance.z_order_by.full")):
                with self.assertRaises(libloom.LoomValueError, msg=block) as cm:
                    self.yaml(block)
                self.assertIn(f"{what}: expected true or false", str(cm.exception))
        for good, value in (("false", False), ("False", False), ("no", False), ("true", True)):
            self.assertEqual(self.yaml(f"    vacuum:\n      dry_run: {good}\n")
                             .maintenance.vacuum.dry_run, value)

    def test_parsed_mapping(self) -> None:
        for bad in self.BAD_MAPPING:
            with self.assertRaises(libloom.LoomValueError, msg=repr(bad)) as cm:
                StorageConfig.from_mapping({"tables": [],
                                            "maintenance": {"vacuum": {"dry_run": bad}}})
            self.assertIn("dry_run: expected true or false", str(cm.exception))
        cfg = StorageConfig.from_mapping({"tables": [], "maintenance": {"vacuum": {"dry_run": False}}})
        self.assertIs(cfg.maintenance.vacuum.dry_run, False)

    def test_plan_file(self) -> None:
        """The plan file's ops are read by the same code: `loom maintain
        --plan` refuses a quoted switch before touching any table."""
        import subprocess

        from support import BUILD_DIR
        storage = self.tmp / "storage.yaml"
        storage.write_text(f"storage:\n  tables:\n    - name: raw.t\n      path: {self.tmp}/t\n")
        plan = self.tmp / "plan.yaml"
        plan.write_text("version: 1\nsteps:\n  s:\n    - table: raw.t\n"
                        "      vacuum: {dry_run: 'false'}\n")
        p = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(storage),
                            "--plan", str(plan), "--step", "s"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("dry_run: expected true or false", p.stderr)


if __name__ == "__main__":
    unittest.main()
