"""loom.etl.storage._config (stand-in): the storage config model of loom-py
(msgspec structs there, dataclasses here; same fields, defaults and enums,
every section included: libloom must read the whole object, not only the
parts maintenance uses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from loom.etl.storage._locator import MappingLocator, PrefixLocator, TableLocation


@dataclass(frozen=True)
class TablePathConfig:
    uri: str = ""
    storage_options: dict[str, str] = field(default_factory=dict)
    writer: dict[str, Any] = field(default_factory=dict)
    target_file_size: int | None = None
    delta_config: dict[str, str | None] = field(default_factory=dict)
    commit: dict[str, Any] = field(default_factory=dict)

    def to_location(self) -> TableLocation:
        return TableLocation(self.uri, self.storage_options, self.writer,
                             self.target_file_size, self.delta_config, self.commit)


@dataclass(frozen=True)
class FilePathConfig:
    uri: str = ""
    storage_options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FileRoute:
    name: str
    path: FilePathConfig


@dataclass(frozen=True)
class CatalogConnection:
    provider: str = "unity"
    workspace: str = ""
    token: str = ""


@dataclass(frozen=True)
class TempConfig:
    root: str = ""
    storage_options: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ClickHouseConfig:
    url: str = ""


@dataclass(frozen=True)
class MongoConfig:
    uri: str = ""
    database: str = ""


@dataclass(frozen=True)
class CustomColumnDef:
    name: str
    value: str | None = None
    from_param: str | None = None


@dataclass(frozen=True)
class AuditConfig:
    enabled: bool = False
    prefix: str = "_loom_"
    custom: tuple[CustomColumnDef, ...] = ()


class StorageEngine(StrEnum):
    POLARS = "polars"
    SPARK = "spark"


class MissingTablePolicy(StrEnum):
    SCHEMA_MODE = "schema_mode"
    CREATE = "create"
    ERROR = "error"


@dataclass(frozen=True)
class StorageDefaults:
    table_path: TablePathConfig | None = None


@dataclass(frozen=True)
class TableRoute:
    name: str
    ref: str = ""
    catalog: str = ""
    path: TablePathConfig | None = None


@dataclass(frozen=True)
class MaintenanceVacuumConfig:
    retention_hours: int | None = None
    dry_run: bool = True


@dataclass(frozen=True)
class MaintenanceConfig:
    schemas: tuple[str, ...] = ()
    vacuum: MaintenanceVacuumConfig | None = None
    compact: bool = False
    z_order_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class StorageConfig:
    engine: str = "polars"
    missing_table_policy: MissingTablePolicy = MissingTablePolicy.SCHEMA_MODE
    catalogs: dict[str, CatalogConnection] = field(default_factory=dict)
    defaults: StorageDefaults = field(default_factory=StorageDefaults)
    temp: TempConfig = field(default_factory=TempConfig)
    tables: tuple[TableRoute, ...] = ()
    files: tuple[FileRoute, ...] = ()
    clickhouse: ClickHouseConfig = field(default_factory=ClickHouseConfig)
    mongo: MongoConfig = field(default_factory=MongoConfig)
    audit: AuditConfig = field(default_factory=AuditConfig)
    maintenance: MaintenanceConfig = field(default_factory=MaintenanceConfig)

    def to_path_locator(self):
        mapping = {r.name: r.path.to_location() for r in self.tables if r.path is not None}
        default = self.defaults.table_path.to_location() if self.defaults.table_path else None
        if not mapping and default is None:
            raise ValueError("storage.to_path_locator: no path routes configured.")
        if not mapping and default is not None:
            return PrefixLocator(default.uri, default.storage_options or None,
                                 default.writer or None, default.target_file_size,
                                 default.delta_config or None, default.commit or None)
        return MappingLocator(mapping, default)
