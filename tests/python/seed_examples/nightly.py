# The seed API's (../shared/docs/seed-api.txt) import blocks and its
# NightlyMaintenance example, as written there; only the import lines
# changed: loom.etl.maintenance -> libloom.maintenance. `config` comes from
# the test (tests/python/test_seed_examples.py checks that every other line
# is the document's).

from libloom.maintenance import MaintenanceStep, MaintainTable, MaintainSchema

from libloom.maintenance import MaintenanceRunner, MaintenanceReport

from libloom.maintenance import (
    VacuumResult,
    OptimizeResult,
    TableMaintenanceResult,
    MaintenanceError,
)

from libloom.maintenance import DeltaTableMaintainer

from libloom.maintenance import (
    MaintenanceSpec,
    OpSpec,
    OperationDeclaration,
    VacuumSpec,
    CompactSpec,
    ZOrderSpec,
)

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
