"""The Python package's house rules (issue 26): handles freed by ``with``
(no reliance on finalizers), LoomIOError an OSError, the binding's public
names in ``__all__``, DeltaTable methods refusing keywords they do not
know (delta-rs's own are taken), and the ``dask`` extra in the wheel's
metadata. Tables judged by the oracle."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

from support import SOURCE_DIR, TempDirTest, fingerprint

import libloom
from libloom import DeltaTable, errors, native
from libloom.config import StorageConfig


class PythonHouse(TempDirTest):
    def copy(self, name: str = "simple_table"):
        t = self.tmp / name
        shutil.copytree(SOURCE_DIR.parent / "shared/fixtures/delta" / name, t)
        return t

    def test_context_managers_free_at_once(self) -> None:
        yaml = self.tmp / "s.yaml"
        yaml.write_text(f"storage:\n  tables:\n    - {{name: raw.t, path: {{uri: {self.tmp}/t}}}}\n")
        with StorageConfig.load(yaml) as cfg:
            self.assertTrue(cfg.handle)
        with self.assertRaises(ValueError):      # closed at the end of the block
            cfg.handle
        with native.CancelToken() as tok:
            tok.request()
            self.assertTrue(tok.requested)
        self.assertIsNone(tok.handle)
        t = self.copy()
        with DeltaTable(t) as dt:
            self.assertEqual(dt.version(), 4)
            snap = dt._snapshot
            self.assertIsNotNone(snap.handle)
        self.assertIsNone(snap.handle)           # freed by the block, not the GC
        self.assertEqual(dt.version(), 4)        # and loaded again on use

    def test_loom_io_error_is_an_os_error(self) -> None:
        self.assertTrue(issubclass(errors.LoomIOError, OSError))
        self.assertTrue(issubclass(errors.LoomIOError, errors.LoomError))
        e = errors.LoomIOError("disk failed")
        self.assertEqual(str(e), "disk failed")
        self.assertIsInstance(e, OSError)

    def test_native_all_is_the_public_binding(self) -> None:
        public = set(native.__all__)
        for name in public:
            self.assertTrue(hasattr(native, name), name)
        for internal in ("flag", "vacuum_opts", "compact_opts", "CStrings", "call_cancellable"):
            self.assertNotIn(internal, public)
        ns: dict = {}
        exec("from libloom.native import *", ns)
        self.assertNotIn("flag", ns)
        self.assertIn("vacuum", ns)

    def test_delta_table_refuses_unknown_keywords(self) -> None:
        t = self.copy()
        fp = fingerprint(t)
        dt = DeltaTable(t)
        for call in (lambda: dt.vacuum(dry_run=False, retention_hours=0,
                                       enforce_retention_duration=False, bogus=1),
                     lambda: dt.optimize.compact(target_sise=1),
                     lambda: dt.optimize.z_order(["id"], memroy="1GiB")):
            with self.assertRaises(TypeError):
                call()
        self.assertEqual(fingerprint(t), fp)     # nothing ran
        self.assertEqual(sorted(p.name for p in (t).glob("*.parquet")),
                         sorted(p.name for p in (SOURCE_DIR.parent / "shared/fixtures/delta/simple_table").glob("*.parquet")))
        # delta-rs's own keywords are taken
        files = dt.vacuum(retention_hours=0, enforce_retention_duration=False,
                          custom_metadata={"who": "test"}, post_commithook_properties=None)
        self.assertTrue(files)                   # a dry run lists them
        m = dt.optimize.compact(max_concurrent_tasks=2, min_commit_interval=None,
                                custom_metadata={"who": "test"})
        self.assertIn("numFilesAdded", m)
        self.assertEqual(fingerprint(t)[1], fp[1])

    def test_wheel_declares_the_dask_extra(self) -> None:
        out = self.tmp / "wheel"
        p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                            "--disable-pip-version-check", "-w", str(out), str(SOURCE_DIR / "python")],
                           capture_output=True, text=True, env={"PIP_NO_INDEX": "1",
                                                                 "PATH": "/usr/bin:/bin"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        wheel = next(out.glob("libloom-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            meta = z.read(next(n for n in z.namelist() if n.endswith("METADATA"))).decode()
        self.assertIn("Provides-Extra: dask", meta)
        self.assertIn('Requires-Dist: dask[distributed]; extra == "dask"', meta)


if __name__ == "__main__":
    import unittest
    unittest.main(verbosity=2)
