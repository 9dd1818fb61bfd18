"""Shared helpers of the Python tests (stdlib unittest; CTest runs one test
file per test, see tests/CMakeLists.txt).

Tables are made with the example lake generator (``loom-example-lake``,
built with the tree) or the DuckDB-based generators under tests/tools, and
judged by the independent oracle (tests/tools/oracle.sh: DuckDB and a Delta
log replay written apart from loom) -- never by loom's own report alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any

SOURCE_DIR = Path(os.environ.get("LOOM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD_DIR = Path(os.environ.get("LOOM_BUILD_DIR", SOURCE_DIR / "build"))
TOOLS = SOURCE_DIR / "tests" / "tools"
ORACLE_NODE_PATH = os.environ.get("LOOM_ORACLE_NODE_PATH",
                                  str(SOURCE_DIR / "build" / "oracle-deps" / "node_modules"))

# the package under test: the source tree's, on this build's library
sys.path.insert(0, str(SOURCE_DIR / "python"))
os.environ.setdefault("LIBLOOM_LIBRARY", str(BUILD_DIR / "libloom.so"))


# Under the sanitizers CTest preloads the ASan runtime for the Python under
# test; tools that are not loom (node, the oracle) run without it.
_SANITIZER_VARS = ("LD_PRELOAD", "ASAN_OPTIONS", "PYTHONMALLOC")


def tool_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SANITIZER_VARS}
    env.update(extra)
    return env


def oracle(*args: str) -> dict[str, Any]:
    """Run the oracle; its JSON output (AssertionError when it fails)."""
    env = tool_env(LOOM_ORACLE_NODE_PATH=ORACLE_NODE_PATH, LOOM_SOURCE_DIR=str(SOURCE_DIR))
    p = subprocess.run([str(TOOLS / "oracle.sh"), *args], capture_output=True, text=True, env=env)
    if p.returncode not in (0, 1):
        raise AssertionError(f"oracle {' '.join(args)} failed: {p.stdout}{p.stderr}")
    return dict(json.loads(p.stdout))


def fingerprint(table: Path | str) -> tuple[str, int]:
    fp = oracle("fingerprint", str(table))
    return fp["hash"], fp["rows"]


def node(script: Path, *args: str) -> str:
    env = tool_env(NODE_PATH=ORACLE_NODE_PATH)
    p = subprocess.run(["node", str(script), *args], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise AssertionError(f"node {script.name} failed: {p.stdout}{p.stderr}")
    return p.stdout


def commits(table: Path) -> list[list[dict[str, Any]]]:
    """Every commit file's actions, read with Python's json (not loom)."""
    log = Path(table) / "_delta_log"
    return [[json.loads(line) for line in f.read_text().splitlines() if line.strip()]
            for f in sorted(log.glob("*.json"))]


class TempDirTest(unittest.TestCase):
    """A fresh temporary directory per test (removed on success and failure)."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="loom-py-", dir=os.environ.get("TMPDIR")))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)


class LakeTest(TempDirTest):
    """The example lake (examples/make_lake.c): raw.events (300 small files,
    10 date partitions), raw.orders (60 files, 20 removed ten days ago and
    still on disk), staging.orders (60 files with run_date and _id), and
    the repository's examples/storage.yaml pointed at it."""

    TABLES = ("raw/events", "raw/orders", "staging/orders")

    def make_lake(self) -> Path:
        lake = self.tmp / "lake"
        subprocess.run([str(BUILD_DIR / "loom-example-lake"), str(lake)], check=True,
                       capture_output=True)
        os.environ["LOOM_EXAMPLE_LAKE"] = str(lake)
        self.addCleanup(os.environ.pop, "LOOM_EXAMPLE_LAKE", None)
        self.lake = lake
        self.config_path = SOURCE_DIR / "examples" / "storage.yaml"
        return lake

    def fingerprints(self) -> dict[str, tuple[str, int]]:
        return {t: fingerprint(self.lake / t) for t in self.TABLES}

    def removed_on_disk(self, table: str) -> list[str]:
        """Files a remove action names that are still on disk (oracle)."""
        return [f["path"] for f in oracle("orphans", str(self.lake / table))["files"]
                if f["tombstone"]]

    def assert_unchanged_rows(self, before: dict[str, tuple[str, int]]) -> None:
        for t, fp in before.items():
            self.assertEqual(fingerprint(self.lake / t), fp, f"{t}: rows changed")
            self.assertTrue(oracle("verify", str(self.lake / t))["ok"], f"{t}: verify failed")
