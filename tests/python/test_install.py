"""The README's install command, for real: ``pip install ./python`` into a
fresh virtual environment with no package index (the build backend ships
in the tree), then libloom used from there on a fixture table -- first
with the library found through LIBLOOM_LIBRARY, then from a wheel that
bundles it (LIBLOOM_BUNDLE_LIBRARY), found next to the package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import unittest
import zipfile

from support import SOURCE_DIR, TempDirTest

USE = """
import json, sys, libloom, libloom.maintenance as m
from libloom import DeltaTable
t = DeltaTable(sys.argv[1])
from importlib.resources import files
dry = t.vacuum(retention_hours=0, enforce_retention_duration=False)
print(json.dumps({"file": libloom.__file__, "library": libloom.library_path,
                  "version": t.version(), "would_delete": len(dry),
                  "typed": files("libloom").joinpath("py.typed").is_file()}))
"""


class Install(TempDirTest):
    def pip(self, venv, *args: str, env: dict | None = None) -> None:
        p = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check",
                            "--no-input", *args], capture_output=True, text=True,
                           env=dict(env or os.environ, PIP_NO_INDEX="1"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def use(self, venv, table, env) -> dict:
        p = subprocess.run([str(venv / "bin" / "python"), "-c", USE, str(table)],
                           capture_output=True, text=True, env=env, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return dict(json.loads(p.stdout))

    def test_pip_install_offline_then_bundled_wheel(self) -> None:
        venv = self.tmp / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        table = self.tmp / "table"
        shutil.copytree(SOURCE_DIR.parent / "shared/fixtures/delta/simple_table", table)
        clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LIBLOOM_LIBRARY")}

        # pip install ./python (from the repository root, as the README says)
        p = subprocess.run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check",
                            "./python"], cwd=SOURCE_DIR, capture_output=True, text=True,
                           env=dict(clean, PIP_NO_INDEX="1"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = self.use(venv, table, dict(clean, LIBLOOM_LIBRARY=os.environ["LIBLOOM_LIBRARY"]))
        self.assertTrue(got["file"].startswith(str(venv)), got)
        self.assertEqual((got["version"], got["would_delete"], got["typed"]), (4, 31, True))

        # a wheel with the library inside: no LIBLOOM_LIBRARY needed
        dist = self.tmp / "dist"
        dist.mkdir()
        lib = os.path.realpath(os.environ["LIBLOOM_LIBRARY"])
        out = subprocess.run([sys.executable, str(SOURCE_DIR / "python/build_backend/libloom_build.py"),
                              str(dist)], check=True, capture_output=True, text=True,
                             env=dict(clean, LIBLOOM_BUNDLE_LIBRARY=lib)).stdout.strip()
        wheel = dist / out
        with zipfile.ZipFile(wheel) as z:
            self.assertIn("libloom/_lib/libloom.so.1", z.namelist())
            self.assertIn("libloom/maintenance/_runner.py", z.namelist())
        self.pip(venv, "install", "--force-reinstall", str(wheel), env=clean)
        got = self.use(venv, table, clean)
        self.assertEqual(got["library"], os.path.join(os.path.dirname(got["file"]), "_lib",
                                                      "libloom.so.1"))
        self.assertEqual(got["version"], 4)


if __name__ == "__main__":
    unittest.main()
