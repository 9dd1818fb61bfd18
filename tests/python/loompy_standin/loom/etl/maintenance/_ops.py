"""loom.etl.maintenance._ops (stand-in): the compiled op specs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar


@dataclass(frozen=True)
class VacuumSpec:
    name: ClassVar[str] = "vacuum"
    retention_hours: int | None = None
    dry_run: bool = True

    def execute(self, maintainer, uri, location):
        return maintainer.vacuum(uri, self, location)


@dataclass(frozen=True)
class CompactSpec:
    name: ClassVar[str] = "compact"
    target_size: int | None = None

    def execute(self, maintainer, uri, location):
        return maintainer.compact(uri, self, location)


@dataclass(frozen=True)
class ZOrderSpec:
    name: ClassVar[str] = "z_order"
    columns: list[str] = field(default_factory=list)
    target_size: int | None = None

    def execute(self, maintainer, uri, location):
        return maintainer.z_order(uri, self, location)


@dataclass(frozen=True)
class MaintenanceSpec:
    table_ref: str
    ops: tuple = ()
