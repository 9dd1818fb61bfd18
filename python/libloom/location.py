"""Where a table lives: the seed's ``TableLocation`` and ``TableRef``, and
their translation to and from the C ``loom_table_location``.

A location is the table URI plus the settings every operation on it uses:
``storage_options`` (object-store settings, delta-rs's key spellings),
``writer`` (Parquet writer settings), ``target_file_size``,
``delta_config`` (table properties) and ``commit`` (commit properties such
as ``custom_metadata``). Any object with those attributes is accepted --
loom-py's ``TableLocation`` included -- and so is a mapping with those keys.

In C the settings are flat string pairs: nested ``writer`` / ``commit``
mappings become dotted keys (``custom_metadata.team``), lists are
comma-joined and booleans are ``true`` / ``false``, as the storage YAML
loader does. Coming back, ``writer`` and ``commit`` are nested again and
integer / boolean strings become numbers / booleans.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _capi
from ._capi import lib, loom_kv, loom_table_location

def is_secret_key(key: str) -> bool:
    """loom's rule (``loom_secret_name``): the key names a
    credential, so its value is never shown."""
    return bool(lib.loom_secret_name(_capi.cstr(key)))


@dataclass(frozen=True)
class TableRef:
    """A logical table reference, e.g. ``TableRef("raw.events")``."""

    ref: str

    def __str__(self) -> str:
        return self.ref


@dataclass(frozen=True)
class TableLocation:
    """The physical location of one table and its write-time settings.

    Args:
        uri: table root: a path, ``file://``, ``s3://`` ...
        storage_options: object-store settings (credentials: never printed).
        writer: Parquet writer settings (``compression``,
            ``compression_level``, ``max_row_group_size`` ...).
        target_file_size: target output file size in bytes, or None.
        delta_config: table properties.
        commit: commit properties (``custom_metadata``, ...).
    """

    uri: str
    storage_options: dict[str, str] = field(default_factory=dict)
    writer: dict[str, Any] = field(default_factory=dict)
    target_file_size: int | None = None
    delta_config: dict[str, str | None] = field(default_factory=dict)
    commit: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        masked = {k: ("***" if is_secret_key(k) else v) for k, v in self.storage_options.items()}
        return (f"TableLocation(uri={self.uri!r}, storage_options={masked!r}, "
                f"writer={self.writer!r}, target_file_size={self.target_file_size!r}, "
                f"delta_config={self.delta_config!r}, commit={self.commit!r})")


# ---- flat C pairs <-> Python settings -------------------------------------------


def _scalar_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_scalar_text(v) or "" for v in value)
    if isinstance(value, os.PathLike):
        return str(os.fspath(value))
    return str(value)


def flatten(settings: Mapping[str, Any] | None, nested: bool) -> list[tuple[str, str | None]]:
    """Settings as the flat (key, value) pairs C reads; `nested` mappings
    become dotted keys."""
    out: list[tuple[str, str | None]] = []

    def walk(prefix: str, m: Mapping[str, Any]) -> None:
        for k, v in m.items():
            key = f"{prefix}.{k}" if prefix else str(k)
            if nested and isinstance(v, Mapping):
                walk(key, v)
            else:
                out.append((key, _scalar_text(v)))

    if settings:
        walk("", settings)
    return out


def _typed(value: str | None) -> Any:
    if value is None:
        return None
    if value in ("true", "false"):
        return value == "true"
    try:
        return int(value)
    except ValueError:
        return value


def unflatten(pairs: list[tuple[str, str | None]]) -> dict[str, Any]:
    """Dotted keys back into nested mappings, values typed."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        parts = key.split(".")
        node = out
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict):
                nxt = node[p] = {}
            node = nxt
        node[parts[-1]] = _typed(value)
    return out


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


class CLocation:
    """A C ``loom_table_location`` built from a Python location, with every
    buffer it points to kept alive as long as this object lives."""

    def __init__(self, location: Any, uri: str | None = None) -> None:
        self._keep: list[Any] = []
        self.struct = loom_table_location(version=_capi.LOOM_TABLE_LOCATION_VERSION)
        the_uri = uri if uri is not None else _get(location, "uri")
        if not the_uri:
            raise ValueError("a table location needs a uri")
        self.struct.uri = self._bytes(os.fspath(the_uri))
        for name, nested in (("storage_options", False), ("writer", True),
                             ("delta_config", False), ("commit", True)):
            pairs = flatten(_get(location, name), nested)
            arr = (loom_kv * max(len(pairs), 1))()
            for i, (k, v) in enumerate(pairs):
                arr[i].key = self._bytes(k)
                arr[i].value = self._bytes(v) if v is not None else None
            self._keep.append(arr)
            setattr(self.struct, name, ctypes.cast(arr, ctypes.POINTER(loom_kv)))
            setattr(self.struct, "n_" + name, len(pairs))
        size = _get(location, "target_file_size")
        self.struct.target_file_size = int(size) if size else 0
        self.source = location

    def _bytes(self, s: str) -> bytes:
        b = _capi.cstr(s)
        self._keep.append(b)
        return b  # type: ignore[return-value]

    @property
    def ptr(self) -> Any:
        return ctypes.byref(self.struct)

    @classmethod
    def of(cls, location: Any, uri: str | None = None) -> CLocation | None:
        """None when there is no location and no uri to make one from."""
        if location is None:
            return None
        return location if isinstance(location, CLocation) else cls(location, uri)


def _pairs(arr: Any, n: int) -> list[tuple[str, str | None]]:
    return [(_capi.text(arr[i].key) or "", _capi.text(arr[i].value)) for i in range(n)]


def location_from_c(ptr: Any) -> TableLocation:
    """A Python TableLocation copied out of a C ``loom_table_location *``."""
    c = ptr.contents
    return TableLocation(
        uri=_capi.text(c.uri) or "",
        storage_options={k: v or "" for k, v in _pairs(c.storage_options, c.n_storage_options)},
        writer=unflatten(_pairs(c.writer, c.n_writer)),
        target_file_size=c.target_file_size or None,
        delta_config=dict(_pairs(c.delta_config, c.n_delta_config)),
        commit=unflatten(_pairs(c.commit, c.n_commit)),
    )
