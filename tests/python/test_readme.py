"""The README's Python section holds as written: its snippet runs from the
repository's root on the example lake the demo makes (judged by the
oracle), the venv it creates is ignored by git, it says where PyYAML comes
from, and every place where loom is stricter than loom-py is listed and
is what loom does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import unittest
from pathlib import Path

from support import BUILD_DIR, SOURCE_DIR, LakeTest, TempDirTest, fingerprint, oracle, tool_env

from libloom.maintenance import MaintainTable, MaintenanceRunner, MaintenanceStep


def python_section() -> str:
    text = (SOURCE_DIR / "README.md").read_text()
    start = text.index("\n## Python\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def code_blocks(section: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


class Snippet(TempDirTest):
    def test_snippet_runs_as_written_from_the_root(self) -> None:
        """A fresh clone's layout: examples/ as in the repository, the lake
        made where scripts/demo.sh makes it, the snippet run unchanged
        from the root (no LOOM_EXAMPLE_LAKE: storage.yaml's own default)."""
        snippet = code_blocks(python_section(), "python")[0]
        self.assertIn("scripts/demo.sh", code_blocks(python_section(), "sh")[0])
        root = self.tmp / "clone"
        shutil.copytree(SOURCE_DIR / "examples", root / "examples",
                        ignore=shutil.ignore_patterns("lake"))
        subprocess.run([str(BUILD_DIR / "loom-example-lake"), str(root / "examples/lake")],
                       check=True, capture_output=True)
        lake = root / "examples/lake"
        rows = {t: fingerprint(lake / t) for t in ("raw/events", "raw/orders", "staging/orders")}
        removed = [f["path"] for f in oracle("orphans", str(lake / "raw/orders"))["files"]
                   if f["tombstone"]]
        self.assertEqual(len(removed), 20)
        env = {k: v for k, v in os.environ.items() if k != "LOOM_EXAMPLE_LAKE"}
        env["PYTHONPATH"] = str(SOURCE_DIR / "python")   # what pip install ./python provides
        p = subprocess.run([sys.executable, "-c", snippet], cwd=root, env=env,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        # it did what it says (oracle): raw compacted, staging clustered
        # into one file, the files raw.orders' log removed ten days ago
        # vacuumed (before its compaction removed the rest), rows kept
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders"))["numFiles"], 1)
        left = {f["path"] for f in oracle("orphans", str(lake / "raw/orders"))["files"]}
        self.assertEqual(left & set(removed), set())
        for t, fp in rows.items():
            self.assertEqual(fingerprint(lake / t), fp, t)

    def test_venv_is_ignored(self) -> None:
        self.assertIn("python3 -m venv .venv", python_section())
        lines = (SOURCE_DIR / ".gitignore").read_text().splitlines()
        self.assertTrue({".venv/", "/.venv/"} & set(lines), ".venv/ is not in .gitignore")
        if shutil.which("git") and (SOURCE_DIR / ".git").exists():
            p = subprocess.run(["git", "check-ignore", "-q", ".venv/bin/python"],
                               cwd=SOURCE_DIR, env=tool_env())
            self.assertEqual(p.returncode, 0)

    def test_parsed_mapping_says_where_pyyaml_comes_from(self) -> None:
        section = python_section()
        self.assertIn("pip install pyyaml", section)
        self.assertIn("--system-site-packages", section)
        self.assertIn("StorageConfig.from_yaml(text)", section)
        # and the libloom way needs no PyYAML
        from libloom.maintenance import StorageConfig
        text = (SOURCE_DIR / "examples/storage.yaml").read_text()
        self.assertEqual([t.name for t in StorageConfig.from_yaml(text).tables],
                         ["raw.events", "raw.orders", "staging.orders"])


class StricterThanLoomPy(LakeTest):
    """Each difference the README lists, and that loom behaves so."""

    def test_differences_are_listed(self) -> None:
        section = python_section()
        self.assertIn("Where loom is deliberately stricter than loom-py", section)
        table = section[section.index("Where loom is deliberately stricter"):]
        for what in ("scheduled twice", "`vacuum(-5)`", "`operations_for` must return a `list`",
                     "switches must be `bool`", "VACUUM FULL keeps every path with a part "
                     "starting with `_` or `.`", "`compact()` with `z_order_by()`"):
            self.assertIn(what, table)

    def test_loom_behaves_as_listed(self) -> None:
        with self.assertRaisesRegex(ValueError, "scheduled twice"):
            MaintainTable("a.b").vacuum().vacuum()
        with self.assertRaisesRegex(ValueError, "negative"):
            MaintainTable("a.b").vacuum(-5)
        with self.assertRaisesRegex(TypeError, "mutually exclusive"):
            MaintainTable("a.b").compact().z_order_by(["x"])
        with self.assertRaisesRegex(TypeError, "must be a bool"):
            MaintainTable("a.b").vacuum(dry_run=None)

        class Tuple(MaintenanceStep[None]):
            def operations_for(self, params):   # type: ignore[override]
                return (MaintainTable("raw.orders").vacuum(),)

        self.make_lake()
        with self.assertRaisesRegex(TypeError, "must return a list"):
            MaintenanceRunner.from_config(self.config_path).run(Tuple)

        # VACUUM FULL: old unreferenced files go; names starting with '.'
        # or '_' stay (judged on disk and by the oracle)
        table = self.lake / "raw/orders"
        old = time.time() - 10 * 86400
        for name in ("stray.parquet", ".hidden.parquet", "_kept.parquet", ".x.crc"):
            (table / name).write_bytes(b"PAR1 not data PAR1")
            os.utime(table / name, (old, old))

        class Full(MaintenanceStep[None]):
            operations = [MaintainTable("raw.orders").vacuum(168, dry_run=False, full=True)]

        fp = fingerprint(table)
        r = MaintenanceRunner.from_config(self.config_path).run(Full).results[0]
        self.assertIn("stray.parquet", r.vacuum.files_deleted)
        self.assertFalse((table / "stray.parquet").exists())
        for name in (".hidden.parquet", "_kept.parquet", ".x.crc"):
            self.assertTrue((table / name).exists(), name)
            self.assertNotIn(name, r.vacuum.files_deleted)
        self.assertEqual(fingerprint(table), fp)
        self.assertTrue(oracle("verify", str(table))["ok"])


if __name__ == "__main__":
    unittest.main()
