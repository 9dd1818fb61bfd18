"""Delta table maintenance -- the seed's API on libloom's native engine.

Authoring::

    from libloom.maintenance import MaintenanceStep, MaintainTable, MaintainSchema

Running::

    from libloom.maintenance import MaintenanceRunner, MaintenanceReport

Result types::

    from libloom.maintenance import (
        VacuumResult, OptimizeResult, TableMaintenanceResult, MaintenanceError,
    )

Backend protocol (for custom implementations)::

    from libloom.maintenance import DeltaTableMaintainer, NativeMaintainer

Operation specs (for custom operations and backends)::

    from libloom.maintenance import (
        MaintenanceSpec, OpSpec, OperationDeclaration, VacuumSpec, CompactSpec, ZOrderSpec,
    )

Example::

    class NightlyMaintenance(MaintenanceStep[None]):
        operations = [
            MaintainSchema("raw").vacuum(retention_hours=168, dry_run=False).compact(),
            MaintainTable("staging.orders")
                .vacuum(dry_run=False)
                .z_order_by(["run_date", "_id"]),
        ]

    runner = MaintenanceRunner.from_config(config)
    report = runner.run(NightlyMaintenance)
    report.raise_if_errors()
"""

from ..config import ConfigLocator, MaintenanceConfig, StorageConfig, TableRoute
from ..location import TableLocation, TableRef
from ._builder import MaintainSchema, MaintainTable
from ._maintainer import NativeMaintainer
from ._runner import MaintenanceError, MaintenanceReport, MaintenanceRunner, ProgressEvent
from ._specs import (
    AnalyzeSpec,
    AutoSpec,
    CompactSpec,
    DeltaTableMaintainer,
    MaintenanceSpec,
    OperationDeclaration,
    OpSpec,
    OptimizeResult,
    PurgeSpec,
    TableMaintenanceResult,
    VacuumResult,
    VacuumSpec,
    ZOrderSpec,
)
from ._step import MaintenanceStep

__all__ = [
    # authoring
    "MaintenanceStep",
    "MaintainTable",
    "MaintainSchema",
    # runner
    "MaintenanceRunner",
    "MaintenanceReport",
    "MaintenanceError",
    # result types
    "VacuumResult",
    "OptimizeResult",
    "TableMaintenanceResult",
    # protocols and specs
    "DeltaTableMaintainer",
    "OperationDeclaration",
    "OpSpec",
    "MaintenanceSpec",
    "VacuumSpec",
    "CompactSpec",
    "ZOrderSpec",
    # loom
    "AnalyzeSpec",
    "AutoSpec",
    "PurgeSpec",
    "NativeMaintainer",
    "ProgressEvent",
    "StorageConfig",
    "MaintenanceConfig",
    "TableRoute",
    "TableLocation",
    "TableRef",
    "ConfigLocator",
]
