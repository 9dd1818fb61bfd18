"""libloom.dask on a distributed.LocalCluster of 3 worker processes on
loopback (Debian's python3-distributed), tables on a shared local directory
and on the Ceph RGW of the S3 tests, judged by the oracle against a
single-machine run of the same table (libloom.native, one process):

- compaction and Z-order give the same fingerprint, verify is clean, the
  Z-order quality (oracle zorder-quality) is within 5% of single-machine,
  units spread over more than one worker, one commit per table;
- a worker killed (SIGKILL) after its unit wrote its files: the unit is
  retried elsewhere, the table is correct, the killed attempt's files are
  exactly the oracle's orphans, and vacuum removes them;
- two drivers with plans of the same table: one commits, the other raises
  LoomConflict naming the version that won; nothing lost;
- commit_every: partial commits, each a proper version, same rows.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path
from typing import Any

import support
from support import TOOLS, fingerprint, oracle, tool_env

from libloom import LoomConflict, StorageConfig, native
from libloom import dask as loom_dask

import dask_faults
from distributed import Client, LocalCluster

# smaller tables under the sanitizers (CTest sets LOOM_FIXTURE_SAMPLE there)
SMALL = int(os.environ.get("LOOM_FIXTURE_SAMPLE", "1")) > 1
ROWS = 4000 if SMALL else 10000
ZTARGET = "128KiB" if SMALL else "256KiB"
CTARGET = "700KiB" if SMALL else "1536KiB"
# the oracle's range queries: each column alone and the box
QUALITY_COLS = ("u1", "s", "u1,s")


def make_table(dst: Path) -> Path:
    """12 DuckDB-written files in 2 partitions, converted by the loom CLI."""
    support.node(TOOLS / "zorder_gen.cjs", str(dst), "12", str(ROWS), "2", "2000")
    subprocess.run([os.environ.get("LOOM_BIN", str(support.BUILD_DIR / "loom")), "convert", str(dst),
                    "--partition-by", "p"], check=True, capture_output=True)
    return dst


def quality(table: Path, cols: str) -> float:
    return float(oracle("zorder-quality", str(table), "--columns", cols)["avg_file_fraction_scanned"])


def live_orphans(table: Path) -> list[str]:
    return sorted(f["path"] for f in oracle("orphans", str(table))["files"] if not f["tombstone"])


class _Shared:
    """What every test here shares, made once: the RGW endpoint in the
    environment (before the workers start: they inherit it), the base table,
    and one LocalCluster of 3 worker processes with one thread each, on
    127.0.0.1 with free ports and no dashboard."""

    tmpdir: Path
    base: Path
    cluster: Any = None
    client: Any = None


def setUpModule() -> None:
    env_file = os.environ.get("LOOM_RGW_ENV")
    if not env_file or not os.path.exists(env_file):   # run alone: a private RGW
        rgw_dir = Path(tempfile.mkdtemp(prefix="loom-dask-rgw-"))
        # stopped however the module ends, even when setUpModule fails later
        unittest.addModuleCleanup(_stop_rgw, rgw_dir)
        subprocess.run(["bash", str(TOOLS / "rgw.sh"), "start", str(rgw_dir)], check=True,
                       env=tool_env(), stdout=subprocess.DEVNULL)
        env_file = str(rgw_dir / "env")
    for line in Path(env_file).read_text().splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export "):].split("=", 1)
            os.environ[k] = v
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    _Shared.tmpdir = Path(tempfile.mkdtemp(prefix="loom-dask-", dir=os.environ.get("TMPDIR")))
    unittest.addModuleCleanup(_close_cluster)
    _Shared.base = make_table(_Shared.tmpdir / "base")
    _Shared.cluster = LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                                   local_directory=str(_Shared.tmpdir / "dask"))
    _Shared.client = Client(_Shared.cluster)


def _close_cluster() -> None:
    if _Shared.client is not None:
        _Shared.client.close()
    if _Shared.cluster is not None:
        _Shared.cluster.close()
    shutil.rmtree(_Shared.tmpdir, ignore_errors=True)


def _stop_rgw(rgw_dir: Path) -> None:
    subprocess.run(["bash", str(TOOLS / "rgw.sh"), "stop", str(rgw_dir)], env=tool_env(),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(rgw_dir, ignore_errors=True)


class DaskCluster(unittest.TestCase):
    """The oracle's judgments of the base table and of its single-machine
    compaction and Z-order are made once per module (each is deterministic)
    and compared with every distributed run."""

    _memo: dict[str, Any] = {}

    def base_fingerprint(self) -> tuple[str, int]:
        if "base" not in self._memo:
            self._memo["base"] = fingerprint(self.base)
        return self._memo["base"]  # type: ignore[no-any-return]

    def single_compaction(self) -> tuple[str, int]:
        if "compact" not in self._memo:
            t = self.tmpdir / "single.compact"
            shutil.copytree(self.base, t)
            native.compact(str(t), target_size=CTARGET)
            self._memo["compact"] = fingerprint(t)
        return self._memo["compact"]  # type: ignore[no-any-return]

    def single_zorder(self) -> tuple[tuple[str, int], dict[str, float]]:
        """Fingerprint and zorder-quality per column set of the single-machine run."""
        if "zorder" not in self._memo:
            t = self.tmpdir / "single.zorder"
            shutil.copytree(self.base, t)
            native.zorder(str(t), ["u1", "s"], target_size=ZTARGET)
            self._memo["zorder"] = (fingerprint(t), {c: quality(t, c) for c in QUALITY_COLS})
        return self._memo["zorder"]  # type: ignore[no-any-return]

    def assert_zorder_like_single(self, table: Path, what: str) -> None:
        fp, q = self.single_zorder()
        self.assertEqual(fingerprint(table), fp, f"{what}: rows")
        for cols in QUALITY_COLS:
            b = quality(table, cols)
            print(f"{what} zorder-quality {cols}: single {q[cols]:.4f}, dask {b:.4f}", file=sys.stderr)
            self.assertLessEqual(b, q[cols] * 1.05, f"{what} {cols}: {b} vs single-machine {q[cols]}")

    def setUp(self) -> None:
        self.client = _Shared.client
        # a test that killed workers leaves the nannies restarting them
        self.client.wait_for_workers(3, timeout=120)
        self.base = _Shared.base
        self.tmpdir = _Shared.tmpdir

    def copy(self, name: str) -> Path:
        dst = self.tmpdir / f"{self._testMethodName}.{name}"
        shutil.copytree(self.base, dst)
        return dst


class LocalDirectoryTest(DaskCluster):

    def test_compaction_equals_single_machine(self) -> None:
        dist = self.copy("dist")
        run = loom_dask.compact(str(dist), self.client, target_size=CTARGET, units=4)
        self.assertGreaterEqual(run.units, 4)
        self.assertEqual(run.versions, [1], "one commit")
        self.assertGreater(len(run.units_per_worker), 1, f"spread: {run.units_per_worker}")
        self.assertEqual(self.single_compaction(), self.base_fingerprint())
        self.assertEqual(fingerprint(dist), self.single_compaction())
        self.assertTrue(oracle("verify", str(dist))["ok"])
        self.assertEqual(live_orphans(dist), [])
        self.assertEqual(run.commits[0].num_files_removed, 12)

    def test_zorder_quality_as_single_machine(self) -> None:
        dist = self.copy("dist")
        run = loom_dask.zorder(str(dist), ["u1", "s"], self.client, target_size=ZTARGET, units=4)
        self.assertGreaterEqual(run.units, 4, "key-range units")
        self.assertEqual(run.versions, [1])
        self.assertTrue(oracle("verify", str(dist))["ok"])
        self.assert_zorder_like_single(dist, "local")
        # a second run finds every partition clustered: nothing to do
        again = loom_dask.zorder(str(dist), ["u1", "s"], self.client, target_size=ZTARGET)
        self.assertEqual((again.units, again.commits), (0, []))

    def test_worker_killed_mid_unit(self) -> None:
        dist = self.copy("dist")
        marker = str(self.tmpdir / "killed.json")
        fn = functools.partial(dask_faults.kill_once, marker=marker, victim=0)
        run = loom_dask.compact(str(dist), self.client, target_size=CTARGET, units=4, unit_fn=fn)
        self.assertTrue(os.path.exists(marker), "the victim ran (and died)")
        self.assertEqual(run.versions, [1])
        self.assertEqual(sorted(u.unit for u in run.unit_results), list(range(run.units)))
        self.assertEqual(fingerprint(dist), self.base_fingerprint())
        self.assertTrue(oracle("verify", str(dist))["ok"])
        leftover = dask_faults.written_keys(marker)
        self.assertTrue(leftover)
        self.assertEqual(live_orphans(dist), leftover, "orphans = the killed attempt's files")
        native.vacuum(str(dist), retention_hours=0, dry_run=False, full=True, retention_check=False)
        self.assertEqual(live_orphans(dist), [])

    def test_plan_is_a_task(self) -> None:
        # the plan the units read is a task the scheduler can run again,
        # not scattered data: the active memory manager trims a scattered
        # value's replicas, and when the worker holding the last one died
        # every unit was cancelled (CancelledError, 1 CI run in 3)
        dist = self.copy("dist")
        marker = self.tmpdir / "plan-recipes.json"
        fn = functools.partial(dask_faults.note_plan_recipes, marker=str(marker))
        run = loom_dask.compact(str(dist), self.client, target_size=CTARGET, units=4, unit_fn=fn)
        self.assertEqual(run.versions, [1])
        self.assertEqual(json.loads(marker.read_text()), [True], "one plan key, with its recipe")
        self.assertEqual(fingerprint(dist), self.base_fingerprint())
        self.assertEqual(fingerprint(dist), self.base_fingerprint())

    def test_two_drivers_one_wins(self) -> None:
        dist = self.copy("dist")
        plans = [native.plan_compact(str(dist), target_size=CTARGET, units=4) for _ in range(2)]
        outcome: dict[int, Any] = {}

        def driver(i: int) -> None:
            try:
                outcome[i] = loom_dask.run_plan(plans[i], self.client)
            except Exception as exc:  # the loser's error, checked below
                outcome[i] = exc

        threads = [threading.Thread(target=driver, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wins = [o for o in outcome.values() if isinstance(o, loom_dask.TableRun)]
        losses = [o for o in outcome.values() if not isinstance(o, loom_dask.TableRun)]
        self.assertEqual((len(wins), len(losses)), (1, 1), repr(outcome))
        self.assertIsInstance(losses[0], LoomConflict)
        self.assertIn(f"concurrent commit {wins[0].versions[0]} ", str(losses[0]))
        self.assertEqual(fingerprint(dist), self.base_fingerprint())
        self.assertTrue(oracle("verify", str(dist))["ok"])
        self.assertEqual(live_orphans(dist), [], "the loser's files were deleted")

    def test_commit_every(self) -> None:
        dist = self.copy("dist")
        run = loom_dask.compact(str(dist), self.client, target_size=CTARGET, units=4, commit_every=1)
        self.assertEqual(len(run.versions), run.units)
        self.assertEqual(sorted(run.versions), list(range(1, run.units + 1)))
        self.assertEqual(fingerprint(dist), self.base_fingerprint())
        self.assertTrue(oracle("verify", str(dist))["ok"])


class ConfigTest(DaskCluster):
    """run_from_config: the maintenance block of a storage YAML (compaction,
    or Z-order: the block takes one of them) on every table route."""

    def test_run_from_config(self) -> None:
        a, c = self.copy("a"), self.copy("c")
        yaml = f"""
storage:
  tables:
    - name: raw.a
      path: {{uri: "{a}"}}
    - name: staging.c
      path: {{uri: "{c}"}}
  maintenance:
    z_order_by:
      columns: [u1, s]
      target_size: {ZTARGET}
"""
        runs = loom_dask.run_from_config(StorageConfig.from_yaml(yaml), self.client,
                                         tables=["raw.a"], units=4)
        self.assertEqual([(r.uri, r.operation, r.versions) for r in runs], [(str(a), "zorder", [1])])
        self.assertEqual(fingerprint(a), self.single_zorder()[0])
        self.assertTrue(oracle("verify", str(a))["ok"])
        self.assertEqual(len(list((c / "_delta_log").glob("*.json"))), 1, "staging.c not named")


class S3Test(DaskCluster):
    """The same on the RGW: the table uploaded with awscli, run through
    libloom.dask at s3://, downloaded with awscli and judged locally."""

    def aws(self, *args: str) -> None:
        aws = "/usr/bin/aws" if os.path.exists("/usr/bin/aws") else "aws"
        subprocess.run([aws, "--endpoint-url", os.environ["AWS_ENDPOINT_URL"], *args], check=True,
                       capture_output=True, env=tool_env(AWS_PAGER=""))

    def test_compact_and_zorder_on_s3(self) -> None:
        bucket = f"loom-dask-{os.getpid()}-{threading.get_native_id()}"
        self.aws("s3api", "create-bucket", "--bucket", bucket)
        self.aws("s3", "cp", "--recursive", "--quiet", str(self.base), f"s3://{bucket}/t")
        uri = f"s3://{bucket}/t"
        c = loom_dask.compact(uri, self.client, target_size=CTARGET, units=4)
        z = loom_dask.zorder(uri, ["u1", "s"], self.client, target_size=ZTARGET, units=4)
        self.assertEqual((c.versions, z.versions), ([1], [2]))
        self.assertEqual(c.commits[0].num_files_removed, 12)
        self.assertGreater(len(z.units_per_worker), 1, f"spread: {z.units_per_worker}")
        back = self.tmpdir / "s3-back"
        self.aws("s3", "cp", "--recursive", "--quiet", uri, str(back))
        self.assertTrue(oracle("verify", str(back))["ok"])
        self.assertEqual(live_orphans(back), [])
        # compacted first, then Z-ordered: the same rows and layout quality
        # as the single-machine Z-order of the base table
        self.assert_zorder_like_single(back, "S3")


if __name__ == "__main__":
    unittest.main()
