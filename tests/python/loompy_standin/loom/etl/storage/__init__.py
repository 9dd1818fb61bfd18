"""loom.etl.storage (stand-in)."""

from loom.etl.storage._config import (
    MaintenanceConfig,
    MaintenanceVacuumConfig,
    StorageConfig,
    StorageDefaults,
    TablePathConfig,
    TableRoute,
)
from loom.etl.storage._locator import MappingLocator, PrefixLocator, TableLocation, TableRef

__all__ = ["MaintenanceConfig", "MaintenanceVacuumConfig", "StorageConfig", "StorageDefaults",
           "TablePathConfig", "TableRoute", "MappingLocator", "PrefixLocator", "TableLocation",
           "TableRef"]
