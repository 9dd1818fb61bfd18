"""loom.etl.storage (stand-in)."""

from loom.etl.storage._config import (
    AuditConfig,
    CatalogConnection,
    CustomColumnDef,
    FilePathConfig,
    FileRoute,
    MaintenanceConfig,
    MaintenanceVacuumConfig,
    StorageConfig,
    StorageDefaults,
    TablePathConfig,
    TableRoute,
    TempConfig,
)
from loom.etl.storage._locator import MappingLocator, PrefixLocator, TableLocation, TableRef

__all__ = ["AuditConfig", "CatalogConnection", "CustomColumnDef", "FilePathConfig", "FileRoute",
           "TempConfig", "MaintenanceConfig", "MaintenanceVacuumConfig", "StorageConfig", "StorageDefaults",
           "TablePathConfig", "TableRoute", "MappingLocator", "PrefixLocator", "TableLocation",
           "TableRef"]
