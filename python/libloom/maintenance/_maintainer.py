"""NativeMaintainer: loom's engine behind the seed's DeltaTableMaintainer
protocol -- the default backend of MaintenanceRunner, and a drop-in for
loom-py's delta-rs backend:

    from libloom.maintenance import NativeMaintainer
    runner = MaintenanceRunner(NativeMaintainer(), config.to_path_locator(), config)

It accepts any spec and location with the seed's fields (loom-py's
VacuumSpec / CompactSpec / ZOrderSpec / TableLocation included), honours the
location's storage_options, writer and commit settings, and returns result
objects of the caller's own classes: when the spec comes from loom-py
(``loom.etl.maintenance``), loom-py's VacuumResult / OptimizeResult, so
loom-py's ``TableMaintenanceResult.vacuum`` / ``.compact`` / ``.z_order``
find them; otherwise libloom's. Every loom metric is on ``result.metrics``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import native
from ._specs import OptimizeResult, VacuumResult


def _caller_result_classes(spec: Any) -> tuple[type, type] | None:
    module = type(spec).__module__
    if not module.startswith("loom.etl."):
        return None
    for name in ("loom.etl.maintenance", "loom.etl.maintenance._protocol"):
        try:
            mod = importlib.import_module(name)
            return mod.VacuumResult, mod.OptimizeResult
        except (ImportError, AttributeError):
            continue
    return None


class NativeMaintainer:
    """Run vacuum, compaction and Z-order with libloom (C), GIL released.

    Args:
        vacuum_result / optimize_result: result classes to return (default:
            the spec's own world, see the module docs).
    """

    def __init__(self, *, vacuum_result: type | None = None,
                 optimize_result: type | None = None) -> None:
        self._vacuum_result = vacuum_result
        self._optimize_result = optimize_result

    def _classes(self, spec: Any) -> tuple[type, type]:
        theirs = _caller_result_classes(spec)
        v, o = theirs if theirs else (VacuumResult, OptimizeResult)
        return self._vacuum_result or v, self._optimize_result or o

    @staticmethod
    def _build(cls: type, r: native.OpResult, **fields: Any) -> Any:
        if cls in (VacuumResult, OptimizeResult):
            return cls(**fields, metrics=dict(r.metrics))
        obj = cls(**fields)
        try:
            obj.metrics = dict(r.metrics)
        except AttributeError:   # a slotted or frozen class: fields only
            pass
        return obj

    def vacuum(self, uri: str, spec: Any, location: Any = None) -> Any:
        """VACUUM the table at `uri`; `spec` has retention_hours, dry_run
        (and optionally full, retention_check)."""
        r = native.vacuum(uri, location=location,
                          retention_hours=getattr(spec, "retention_hours", None),
                          dry_run=getattr(spec, "dry_run", True),
                          full=getattr(spec, "full", False),
                          retention_check=getattr(spec, "retention_check", True))
        cls = self._classes(spec)[0]
        obj = self._build(cls, r, files_deleted=list(r.files_deleted))
        if cls is VacuumResult:
            obj.dry_run = r.dry_run
        return obj

    def compact(self, uri: str, spec: Any, location: Any = None) -> Any:
        """Bin-pack the table's small files; `spec` has target_size."""
        r = native.compact(uri, location=location, target_size=getattr(spec, "target_size", None))
        return self._build(self._classes(spec)[1], r, num_files_added=r.num_files_added,
                           num_files_removed=r.num_files_removed)

    def z_order(self, uri: str, spec: Any, location: Any = None) -> Any:
        """Z-order the table; `spec` has columns, target_size (and loom's
        curve, memory, temp_dir, spill_limit, full)."""
        r = native.zorder(uri, list(getattr(spec, "columns", [])), location=location,
                          target_size=getattr(spec, "target_size", None),
                          curve=getattr(spec, "curve", None),
                          memory=getattr(spec, "memory", None),
                          temp_dir=getattr(spec, "temp_dir", None),
                          spill_limit=getattr(spec, "spill_limit", None),
                          full=getattr(spec, "full", False))
        return self._build(self._classes(spec)[1], r, num_files_added=r.num_files_added,
                           num_files_removed=r.num_files_removed)

    def purge(self, uri: str, spec: Any, location: Any = None) -> Any:
        """(loom) REORG ... APPLY (PURGE); `spec` has partition_filters,
        target_size, dry_run."""
        r = native.purge(uri, location=location,
                         partition_filters=list(getattr(spec, "partition_filters", ())),
                         target_size=getattr(spec, "target_size", None),
                         dry_run=getattr(spec, "dry_run", False))
        return self._build(self._classes(spec)[1], r, num_files_added=r.num_files_added,
                           num_files_removed=r.num_files_removed)

    def analyze(self, uri: str, spec: Any, location: Any = None) -> Any:
        """(loom) ANALYZE ... COMPUTE DELTA STATISTICS; `spec` has columns,
        all, dry_run."""
        r = native.analyze(uri, location=location, columns=list(getattr(spec, "columns", ())),
                           all=getattr(spec, "all", False), dry_run=getattr(spec, "dry_run", False))
        return self._build(self._classes(spec)[1], r, num_files_added=r.num_files_added,
                           num_files_removed=r.num_files_removed)

    def __repr__(self) -> str:
        return "NativeMaintainer()"
