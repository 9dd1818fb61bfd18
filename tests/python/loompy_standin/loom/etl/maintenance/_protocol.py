"""loom.etl.maintenance._protocol (stand-in): result types and protocols."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable


@runtime_checkable
class OperationDeclaration(Protocol):
    def resolve(self, config): ...


@dataclass
class VacuumResult:
    files_deleted: list[str] = field(default_factory=list)


@dataclass
class OptimizeResult:
    num_files_added: int = 0
    num_files_removed: int = 0


@runtime_checkable
class OpSpec(Protocol):
    name: ClassVar[str]

    def execute(self, maintainer, uri, location): ...


@dataclass
class TableMaintenanceResult:
    table_ref: str
    op_results: dict = field(default_factory=dict)
    error: Exception | None = None
    duration_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def vacuum(self):
        r = self.op_results.get("vacuum")
        return r if isinstance(r, VacuumResult) else None

    @property
    def compact(self):
        r = self.op_results.get("compact")
        return r if isinstance(r, OptimizeResult) else None

    @property
    def z_order(self):
        r = self.op_results.get("z_order")
        return r if isinstance(r, OptimizeResult) else None


@runtime_checkable
class DeltaTableMaintainer(Protocol):
    def vacuum(self, uri, spec, location) -> VacuumResult: ...

    def compact(self, uri, spec, location) -> OptimizeResult: ...

    def z_order(self, uri, spec, location) -> OptimizeResult: ...
