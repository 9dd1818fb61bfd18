"""loom.etl.storage._locator (stand-in): TableRef, TableLocation and the
locators, as loom-py defines them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TableRef:
    ref: str


@dataclass(frozen=True)
class TableLocation:
    uri: str
    storage_options: dict[str, str] = field(default_factory=dict)
    writer: dict[str, Any] = field(default_factory=dict)
    target_file_size: int | None = None
    delta_config: dict[str, str | None] = field(default_factory=dict)
    commit: dict[str, Any] = field(default_factory=dict)


class PrefixLocator:
    def __init__(self, root, storage_options=None, writer=None, target_file_size=None,
                 delta_config=None, commit=None) -> None:
        self._root = str(root).rstrip("/")
        self._d = TableLocation("", storage_options or {}, writer or {}, target_file_size,
                                delta_config or {}, commit or {})

    def locate(self, ref: TableRef) -> TableLocation:
        uri = f"{self._root}/{'/'.join(ref.ref.split('.'))}"
        return TableLocation(uri, self._d.storage_options, self._d.writer,
                             self._d.target_file_size, self._d.delta_config, self._d.commit)


class MappingLocator:
    def __init__(self, mapping: dict[str, TableLocation], default: TableLocation | None = None):
        self._mapping = mapping
        self._default = default

    def locate(self, ref: TableRef) -> TableLocation:
        loc = self._mapping.get(ref.ref)
        if loc is not None:
            return loc
        if self._default is None:
            raise KeyError(f"No storage location configured for table {ref.ref!r}")
        suffix = "/".join(ref.ref.split("."))
        d = self._default
        return TableLocation(f"{d.uri.rstrip('/')}/{suffix}", d.storage_options, d.writer,
                             d.target_file_size, d.delta_config, d.commit)
