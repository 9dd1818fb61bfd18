"""loom.etl.maintenance (stand-in): the public names of loom-py's module."""

from loom.etl.maintenance._builder import MaintainSchema, MaintainTable
from loom.etl.maintenance._protocol import (
    DeltaTableMaintainer,
    OperationDeclaration,
    OpSpec,
    OptimizeResult,
    TableMaintenanceResult,
    VacuumResult,
)
from loom.etl.maintenance._runner import MaintenanceError, MaintenanceReport, MaintenanceRunner
from loom.etl.maintenance._step import MaintenanceStep

__all__ = ["MaintenanceStep", "MaintainTable", "MaintainSchema", "MaintenanceRunner",
           "MaintenanceReport", "MaintenanceError", "VacuumResult", "OptimizeResult",
           "TableMaintenanceResult", "DeltaTableMaintainer", "OperationDeclaration", "OpSpec"]
