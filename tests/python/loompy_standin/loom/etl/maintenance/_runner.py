"""loom.etl.maintenance._runner (stand-in): loom-py's MaintenanceRunner
logic, line for line where it matters (per-table error capture, location
resolution with the missing-table policy, run_from_config)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from loom.etl.maintenance._builder import _expand_for_schemas
from loom.etl.maintenance._ops import CompactSpec, VacuumSpec, ZOrderSpec
from loom.etl.maintenance._protocol import TableMaintenanceResult
from loom.etl.storage._locator import TableRef


class MaintenanceError(Exception):
    def __init__(self, failed) -> None:
        self.failed = failed
        refs = [r.table_ref for r in failed]
        super().__init__(f"Maintenance failed for {len(failed)} table(s): {refs}")


@dataclass
class MaintenanceReport:
    results: list = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(not r.ok for r in self.results)

    def raise_if_errors(self) -> None:
        failed = [r for r in self.results if not r.ok]
        if failed:
            raise MaintenanceError(failed)


class MaintenanceRunner:
    def __init__(self, maintainer, locator, config, *, missing_table_policy="skip") -> None:
        self._maintainer = maintainer
        self._locator = locator
        self._config = config
        self._missing_table_policy = missing_table_policy

    def run(self, step_cls, params=None):
        specs = [spec for op in step_cls().operations_for(params) for spec in op.resolve(self._config)]
        return MaintenanceReport(results=[self._run_one(spec) for spec in specs])

    def run_from_config(self):
        mc = self._config.maintenance
        if not mc.schemas and not mc.vacuum and not mc.compact and not mc.z_order_by:
            return MaintenanceReport()
        vacuum_spec = (VacuumSpec(retention_hours=mc.vacuum.retention_hours, dry_run=mc.vacuum.dry_run)
                       if mc.vacuum else None)
        compact_spec = CompactSpec() if mc.compact else None
        z_order_spec = ZOrderSpec(columns=list(mc.z_order_by)) if mc.z_order_by else None
        if compact_spec is not None and z_order_spec is not None:
            raise ValueError("StorageConfig.maintenance: compact and z_order_by are mutually exclusive")
        ops = tuple(s for s in [vacuum_spec, compact_spec, z_order_spec] if s is not None)
        specs = _expand_for_schemas(self._config.tables, mc.schemas, ops)
        return MaintenanceReport(results=[self._run_one(spec) for spec in specs])

    def _resolve_location(self, table_ref):
        try:
            return self._locator.locate(TableRef(table_ref))
        except Exception:
            if self._missing_table_policy == "skip":
                return None
            raise

    def _run_one(self, spec):
        location = self._resolve_location(spec.table_ref)
        if location is None:
            return TableMaintenanceResult(table_ref=spec.table_ref)
        t0 = time.monotonic()
        op_results = {}
        error = None
        try:
            for op in spec.ops:
                op_results[op.name] = op.execute(self._maintainer, location.uri, location)
        except Exception as exc:
            error = exc
        return TableMaintenanceResult(table_ref=spec.table_ref, op_results=op_results,
                                      error=error, duration_seconds=time.monotonic() - t0)
