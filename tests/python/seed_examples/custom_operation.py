# The seed API's "Custom operations" example, as written in
# ../shared/docs/seed-api.txt, run the way its NightlyMaintenance example
# is. Only import lines changed: loom.etl.maintenance -> libloom.maintenance,
# deltalake -> libloom (DeltaTable), and StorageConfig, which the example
# uses without showing its import (loom.etl.storage in loom-py), from
# libloom.maintenance. `config` comes from the test.

from libloom.maintenance import MaintenanceStep, MaintainTable, MaintainSchema

from libloom.maintenance import MaintenanceRunner, MaintenanceReport

from libloom.maintenance import (
    MaintenanceSpec,
    OpSpec,
    OperationDeclaration,
    VacuumSpec,
    CompactSpec,
    ZOrderSpec,
)

from libloom.maintenance import OptimizeResult, StorageConfig

from dataclasses import dataclass, replace
from typing import ClassVar

from libloom import DeltaTable

@dataclass(frozen=True)
class CheckpointSpec:
    name: ClassVar[str] = "checkpoint"

    def execute(self, maintainer, uri, location) -> OptimizeResult:
        DeltaTable(uri, storage_options=location.storage_options).create_checkpoint()
        return OptimizeResult()

class Checkpointed:
    def __init__(self, inner: OperationDeclaration) -> None:
        self._inner = inner

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        return [
            replace(spec, ops=(*spec.ops, CheckpointSpec()))
            for spec in self._inner.resolve(config)
        ]

class NightlyMaintenance(MaintenanceStep[None]):
    operations = [Checkpointed(MaintainSchema("raw").vacuum(dry_run=False))]

runner = MaintenanceRunner.from_config(config)
report = runner.run(NightlyMaintenance)
report.raise_if_errors()
