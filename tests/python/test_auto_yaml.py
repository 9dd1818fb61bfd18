"""The storage YAML's ``maintenance: {auto: true | {policy}}`` (issue 28):
``loom maintain --config``, ``--auto`` and ``run_from_config`` run the
block's tables in auto mode with the YAML's policy, the block's vacuum as
auto's setting; a policy value out of range is refused at its file:line
naming the key, and nothing runs (the logs are unchanged). The oracle
judges the CLI's run (test_health_auto.AutoChecks)."""

from __future__ import annotations

import json
import subprocess
import unittest
from pathlib import Path

from support import BUILD_DIR, SOURCE_DIR, oracle
from test_health_auto import POLICY, AutoChecks

from libloom import HealthPolicy
from libloom.maintenance import MaintenanceRunner, StorageConfig


class AutoFromYaml(AutoChecks):
    def yaml(self, auto: str) -> Path:
        text = (SOURCE_DIR / "examples" / "storage.yaml").read_text().replace(
            "      dry_run: false\n", "      dry_run: false\n" + auto, 1)
        path = self.tmp / "storage.yaml"
        path.write_text(text)
        return path

    def test_run_from_config_runs_auto(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        events_files = len(oracle("snapshot", str(lake / "raw" / "events"))["files"])
        cfg = StorageConfig.load(self.yaml(
            "    auto:\n      min_small_files: 61\n      checkpoint_commits: 20\n"))
        self.assertEqual(cfg.maintenance.auto, HealthPolicy(**POLICY))
        runner = MaintenanceRunner.from_config(cfg)
        self.addCleanup(runner.close)
        report = runner.run_from_config()
        report.raise_if_errors()
        # the same run as the CLI's below, which the oracle judges; here
        # the decisions, and rows unchanged
        metrics = {r.table_ref: r.op_results["auto"].metrics for r in report.results}
        self.assertEqual(metrics["raw.events"]["compact.ran"], 1)
        self.assertEqual(metrics["raw.orders"]["vacuum.ran"], 1)
        self.assertEqual(metrics["raw.orders"]["compact.ran"], 0)
        self.assert_unchanged_rows(before)
        del events_files

    def test_cli_maintain_runs_auto_and_refuses_bad_values(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        events_files = len(oracle("snapshot", str(lake / "raw" / "events"))["files"])
        loom = str(BUILD_DIR / "loom")
        env = {"LOOM_EXAMPLE_LAKE": str(lake), "PATH": "/usr/bin:/bin"}
        logs = {t: sorted(p.name for p in (lake / t / "_delta_log").iterdir())
                for t in self.TABLES}
        for bad, line_key in (("    auto:\n      min_small_files: 1\n", "min_small_files"),
                              ("    auto:\n      max_clustering_depth: deep\n",
                               "max_clustering_depth"),
                              ("    auto: {checkpoint_json_bytes: -1}\n",
                               "checkpoint_json_bytes")):
            p = subprocess.run([loom, "maintain", "--config", str(self.yaml(bad))],
                               capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 2, p.stderr)
            line = self.yaml(bad).read_text().splitlines().index(
                next(x for x in self.yaml(bad).read_text().splitlines() if line_key in x)) + 1
            self.assertIn(f"storage.yaml:{line}:", p.stderr)
            self.assertIn(f"maintenance.auto.{line_key}", p.stderr)
        self.assertEqual(logs, {t: sorted(p.name for p in (lake / t / "_delta_log").iterdir())
                                for t in self.TABLES})   # nothing ran
        # --auto takes the YAML's policy (auto: false leaves the block's
        # thresholds in force for --auto)
        p = subprocess.run([loom, "maintain", "--config", str(self.yaml(
            "    auto: {min_small_files: 61, checkpoint_commits: 20}\n")), "--json"],
            capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        rep = json.loads(p.stdout)
        self.check_after_auto(lake, before, events_files,
                              {t["ref"]: t["ops"]["auto"]["metrics"] for t in rep["tables"]})
        for t in rep["tables"]:
            self.assertEqual(len(t["ops"]["auto"]["decisions"]), 6)  # compact, z_order, vacuum, analyze, checkpoint, cleanup_logs

    def test_cli_auto_flag_takes_the_yaml_policy(self) -> None:
        """--auto runs the block in auto mode with the YAML's policy (the
        run itself is judged above; here what --auto would run)."""
        env = {"LOOM_EXAMPLE_LAKE": str(self.tmp / "lake"), "PATH": "/usr/bin:/bin"}
        path = self.yaml("    auto: {min_small_files: 61, checkpoint_commits: 20}\n")
        for extra in ([], ["--auto"]):
            p = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(path),
                                "--explain", *extra], capture_output=True, text=True, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("auto min_small_files=61", p.stdout)
            self.assertIn("checkpoint_commits=20", p.stdout)
            self.assertIn("vacuum=DELETE", p.stdout)
        # loom advise --config judges by the same policy (an option changes it)
        def compact_threshold(*extra: str) -> float:
            p = subprocess.run([str(BUILD_DIR / "loom"), "advise", "raw.orders", "--config",
                                str(path), "--json", *extra], capture_output=True, text=True,
                               env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            return next(a["threshold"] for a in json.loads(p.stdout)["advice"]
                        if a["op"] == "compact")

        self.make_lake()
        self.assertEqual(compact_threshold(), 61)
        self.assertEqual(compact_threshold("--min-small-files", "7"), 7)
        # without auto: in the YAML, --auto uses the default policy and the
        # block's vacuum; the block alone runs its vacuum as declared
        path = self.yaml("")
        p = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(path),
                            "--explain", "--auto"], capture_output=True, text=True, env=env)
        self.assertIn("auto min_small_files=50", p.stdout)
        p = subprocess.run([str(BUILD_DIR / "loom"), "maintain", "--config", str(path),
                            "--explain"], capture_output=True, text=True, env=env)
        self.assertNotIn("auto", p.stdout)
        self.assertIn("vacuum retention=168h DELETE", p.stdout)


if __name__ == "__main__":
    unittest.main()
