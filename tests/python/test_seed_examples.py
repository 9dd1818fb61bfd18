"""Every example of the seed API document (../shared/docs/seed-api.txt) runs
on libloom with only its import lines changed, against the example lake,
and does what it declares -- judged by the oracle: rows unchanged
(fingerprints, verify), files compacted / vacuumed / checkpointed as
declared -- and by DuckDB: Z-ordered rows lie along a curve over the
declared columns (tests/tools/row_locality.cjs)."""

from __future__ import annotations

import ast
import json
import os
import runpy
import unittest
from pathlib import Path

from support import SOURCE_DIR, TOOLS, LakeTest, commits, fingerprint, node, oracle

EXAMPLES = Path(__file__).resolve().parent / "seed_examples"
SEED_DOC = SOURCE_DIR.parent / "shared" / "docs" / "seed-api.txt"


def code_lines(path: Path) -> list[str]:
    """The example's lines that are not import statements or comments."""
    source = path.read_text()
    imports = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return [line.strip() for n, line in enumerate(source.splitlines(), 1)
            if n not in imports and line.strip() and not line.strip().startswith("#")]


class SeedExamplesAreVerbatim(unittest.TestCase):
    @unittest.skipUnless(SEED_DOC.exists(), "the seed document is not beside the repository")
    def test_only_import_lines_differ(self) -> None:
        doc = [line.strip() for line in SEED_DOC.read_text().splitlines()]
        for example in sorted(EXAMPLES.glob("*.py")):
            pos = 0
            for line in code_lines(example):
                try:
                    pos = doc.index(line, pos) + 1
                except ValueError:
                    self.fail(f"{example.name}: {line!r} is not (in this order) in the seed doc")


class NightlyMaintenanceExample(LakeTest):
    """The module's / MaintenanceStep's example: raw.* vacuumed (168 h) and
    compacted, staging.orders vacuumed and Z-ordered by run_date, _id."""

    def test_nightly_example(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        removed = self.removed_on_disk("raw/orders")
        self.assertEqual(len(removed), 20)
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 300)
        self.assertGreater(row_locality(lake / "staging/orders"), 0.25)   # one date, random _ids a file

        out = runpy.run_path(str(EXAMPLES / "nightly.py"),
                             init_globals={"config": str(self.config_path)})

        report = out["report"]
        self.assertEqual([r.table_ref for r in report.results],
                         ["raw.events", "raw.orders", "staging.orders"])
        self.assertFalse(report.has_errors)
        for path in removed:
            self.assertFalse((lake / "raw/orders" / path).exists(), path)
        self.assertFalse(set(removed) & set(self.removed_on_disk("raw/orders")))
        self.assertEqual(sorted(report.results[1].vacuum.files_deleted), sorted(removed))
        # one file per date partition, one file for the others
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 1)
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders"))["numFiles"], 1)
        self.assertEqual(report.results[0].compact.num_files_removed, 300)
        self.assertEqual(report.results[2].z_order.num_files_added, 1)
        # staging.orders was clustered by the declared columns (the log says
        # so, read with Python's json)
        last = commits(lake / "staging/orders")[-1]
        info = next(a["commitInfo"] for a in last if "commitInfo" in a)
        self.assertEqual(info["operation"], "OPTIMIZE")
        self.assertEqual(info["operationParameters"]["zOrderBy"], '["run_date","_id"]')
        adds = [a["add"] for a in last if "add" in a]
        self.assertTrue(adds and all("run_date,_id" in a["tags"]["loom.zorder"] for a in adds))
        # and DuckDB sees the rows ordered along a curve over both columns:
        # consecutive rows now lie close in run_date and _id together
        self.assertLess(row_locality(lake / "staging/orders"), 0.05)
        self.assert_unchanged_rows(before)


class CustomOperationExample(LakeTest):
    """The "Custom operations" example: a CheckpointSpec appended by a
    custom declaration (Checkpointed) to every raw.* table, after a vacuum
    with the table's retention; run inside the C runner through callbacks.
    The config is given as its parsed mapping."""

    def test_custom_operation_example(self) -> None:
        lake = self.make_lake()
        before = self.fingerprints()
        removed = self.removed_on_disk("raw/orders")
        staging_before = oracle("snapshot", str(lake / "staging/orders"))
        mapping = storage_mapping(lake)

        out = runpy.run_path(str(EXAMPLES / "custom_operation.py"),
                             init_globals={"config": mapping})

        report = out["report"]
        self.assertEqual([r.table_ref for r in report.results], ["raw.events", "raw.orders"])
        for r in report.results:
            self.assertEqual(list(r.op_results), ["vacuum", "checkpoint"])
            self.assertIs(type(r.op_results["checkpoint"]), out["OptimizeResult"])
        for path in removed:
            self.assertFalse((lake / "raw/orders" / path).exists(), path)
        for t in ("raw/events", "raw/orders"):
            snap = oracle("snapshot", str(lake / t))
            self.assertIsNotNone(snap["checkpoint"], t)
            self.assertEqual(snap["checkpoint"]["version"], snap["version"], t)
            # the checkpoint alone rebuilds the same state as the commits
            self.assertEqual(oracle("snapshot", str(lake / t), "--ignore-checkpoints")["files"],
                             snap["files"], t)
        self.assertEqual(oracle("snapshot", str(lake / "staging/orders")), staging_before)
        self.assert_unchanged_rows(before)


class BuilderExamples(LakeTest):
    """MaintainTable's own example, run as a step's only declaration."""

    def test_maintain_table_example(self) -> None:
        from libloom.maintenance import MaintainTable, MaintenanceRunner, MaintenanceStep
        lake = self.make_lake()
        fp = fingerprint(lake / "raw/events")

        class Step(MaintenanceStep[None]):
            operations = [MaintainTable("raw.events")
                          .vacuum(retention_hours=168, dry_run=False)
                          .compact()]

        report = MaintenanceRunner.from_config(self.config_path).run(Step)
        report.raise_if_errors()
        self.assertEqual([r.table_ref for r in report.results], ["raw.events"])
        self.assertEqual(oracle("snapshot", str(lake / "raw/events"))["numFiles"], 10)
        self.assertEqual(oracle("snapshot", str(lake / "raw/orders"))["numFiles"], 60)
        self.assertEqual(fingerprint(lake / "raw/events"), fp)


def row_locality(table: Path) -> float:
    """The mean step between consecutive rows in (run_date, _id) over the
    table's live files (tests/tools/row_locality.cjs, DuckDB)."""
    files = [str(table / f["path"]) for f in oracle("snapshot", str(table))["files"]]
    return float(json.loads(node(TOOLS / "row_locality.cjs", "run_date,_id", *files))["mean_step"])


def storage_mapping(lake: Path) -> dict:
    """examples/storage.yaml as yaml.safe_load reads it (python3-yaml when
    installed; else the same mapping written out)."""
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        return dict(yaml.safe_load((SOURCE_DIR / "examples" / "storage.yaml").read_text()))
    uri = "${oc.env:LOOM_EXAMPLE_LAKE,examples/lake}"
    return {"storage": {
        "defaults": {"table_path": {
            "uri": uri, "writer": {"compression": "snappy"},
            "commit": {"custom_metadata": {"pipeline": "nightly-maintenance"}}}},
        "tables": [
            {"name": "raw.events", "path": {"uri": f"{uri}/raw/events",
                                            "target_file_size": "128MiB"}},
            {"name": "raw.orders", "path": {"uri": f"{uri}/raw/orders"}},
            {"name": "staging.orders", "path": {"uri": f"{uri}/staging/orders"}}],
        "maintenance": {"schemas": ["raw"],
                        "vacuum": {"retention_hours": 168, "dry_run": False}}}}


if __name__ == "__main__":
    os.chdir(SOURCE_DIR)
    unittest.main()
