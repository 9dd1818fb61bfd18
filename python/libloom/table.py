"""``DeltaTable``: a small handle on one Delta table with the method names
delta-rs (``deltalake.DeltaTable``) uses for maintenance, run by libloom's
engine. Code written against delta-rs for maintenance -- the seed's custom
``CheckpointSpec`` calls ``DeltaTable(uri, storage_options=...)
.create_checkpoint()`` -- runs with ``from libloom import DeltaTable``.
"""

from __future__ import annotations

import ctypes
import json
import os
from collections.abc import Mapping, Sequence
from ctypes import byref
from typing import Any

from . import _capi, native
from ._capi import lib
from .errors import check
from .location import TableLocation, flatten


def _settings(obj: Any) -> dict[str, Any]:
    """delta-rs WriterProperties / CommitProperties objects or mappings as
    plain settings (unset attributes dropped)."""
    if obj is None:
        return {}
    if isinstance(obj, Mapping):
        return dict(obj)
    return {k: v for k, v in vars(obj).items() if v is not None and not k.startswith("_")}


class _Snapshot:
    """A loaded snapshot (``loom_snapshot``), freed with the object."""

    def __init__(self, uri: str, version: int | None,
                 storage_options: Mapping[str, str]) -> None:
        table = _capi.loom_table_p()
        pairs = flatten(storage_options, nested=False)
        kvs = (_capi.loom_kv * max(len(pairs), 1))()
        keep = []
        for i, (k, v) in enumerate(pairs):
            keep += [_capi.cstr(k), _capi.cstr(v) if v is not None else None]
            kvs[i].key, kvs[i].value = keep[-2], keep[-1]
        so = _capi.loom_store_opts(_capi.LOOM_STORE_OPTS_VERSION,
                                      ctypes.cast(kvs, ctypes.POINTER(_capi.loom_kv)),
                                      len(pairs), 0)
        check(lib.loom_table_open_opts(byref(table), _capi.cstr(uri), byref(so)))
        snap = _capi.loom_snapshot_p()
        rc = lib.loom_snapshot_load(byref(snap), table, -1 if version is None else version)
        lib.loom_table_free(table)   # the snapshot keeps what it needs
        check(rc)
        self.handle = snap.value

    def close(self) -> None:
        """Free the snapshot now (the finalizer is only a safety net)."""
        if getattr(self, "handle", None):
            lib.loom_snapshot_free(self.handle)
            self.handle = None

    def __enter__(self) -> _Snapshot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class TableOptimizer:
    """``DeltaTable.optimize``: compaction and Z-order."""

    def __init__(self, table: DeltaTable) -> None:
        self._table = table

    def compact(self, partition_filters: Sequence[Any] | None = None,
                target_size: int | None = None, max_concurrent_tasks: int | None = None,
                min_commit_interval: Any = None, writer_properties: Any = None,
                custom_metadata: Mapping[str, str] | None = None,
                post_commithook_properties: Any = None,
                commit_properties: Any = None) -> dict[str, Any]:
        """Bin-pack small files; the OPTIMIZE metrics (numFilesAdded,
        numFilesRemoved, numAddedBytes, ...). Partition filters are
        ``(column, "=", value)`` tuples or "column=value" strings.

        delta-rs's other keywords are taken so its calls work unchanged:
        ``max_concurrent_tasks``, ``min_commit_interval`` and
        ``post_commithook_properties`` have no loom equivalent here (loom
        sizes its own pool; partial commits are ``commit_every`` in the
        maintenance API) and are ignored; ``custom_metadata`` joins the
        commit metadata. Any other keyword is a TypeError."""
        commit_properties = _with_metadata(commit_properties, custom_metadata)
        r = native.compact(self._table.table_uri,
                           location=self._table._location(writer_properties, commit_properties),
                           target_size=target_size,
                           partition_filters=_filters(partition_filters))
        self._table._snapshot = None
        return dict(r.metrics)

    def z_order(self, columns: Sequence[str], partition_filters: Any = None,
                target_size: int | None = None, max_concurrent_tasks: int | None = None,
                max_spill_size: int | None = None, min_commit_interval: Any = None,
                writer_properties: Any = None, custom_metadata: Mapping[str, str] | None = None,
                post_commithook_properties: Any = None, commit_properties: Any = None,
                curve: str | None = None, memory: int | str | None = None) -> dict[str, Any]:
        """Cluster rows along the Hilbert (default) or Z curve of `columns`.
        delta-rs's keywords as for :meth:`compact` (``max_spill_size`` is
        ignored: loom spills past ``memory``); any other is a TypeError."""
        commit_properties = _with_metadata(commit_properties, custom_metadata)
        if partition_filters:
            raise ValueError("z_order: partition_filters are not supported by loom; "
                             "Z-order rewrites every partition not yet clustered")
        r = native.zorder(self._table.table_uri, columns,
                          location=self._table._location(writer_properties, commit_properties),
                          target_size=target_size, curve=curve, memory=memory)
        self._table._snapshot = None
        return dict(r.metrics)


def _filters(filters: Sequence[Any] | None) -> list[str]:
    out = []
    for f in filters or ():
        if isinstance(f, str):
            out.append(f)
        elif isinstance(f, (tuple, list)) and len(f) == 3 and f[1] in ("=", "=="):
            out.append(f"{f[0]}={f[2]}")
        else:
            raise ValueError(f"partition filter {f!r}: loom supports (column, '=', value)")
    return out


def _with_metadata(commit: Any, custom_metadata: Mapping[str, str] | None) -> Any:
    """delta-rs's custom_metadata keyword, as commit properties' metadata."""
    if not custom_metadata:
        return commit
    merged = dict(_settings(commit))
    merged["custom_metadata"] = {**dict(merged.get("custom_metadata") or {}),
                                 **dict(custom_metadata)}
    return merged


class DeltaTable:
    """A Delta table at `table_uri` (a path or file:// URI).

    Args:
        table_uri: the table root.
        storage_options: object-store settings, passed to every operation.
        version: pin reads (``version()``, ``files()``) to this version.
    """

    def __init__(self, table_uri: str | os.PathLike[str],
                 storage_options: Mapping[str, str] | None = None,
                 version: int | None = None) -> None:
        self.table_uri = os.fspath(table_uri)
        self.storage_options = dict(storage_options or {})
        self._pinned = version
        self._snapshot: _Snapshot | None = _Snapshot(self.table_uri, version,
                                                     self.storage_options)

    def close(self) -> None:
        """Free the loaded snapshot now (it is loaded again when needed)."""
        if self._snapshot is not None:
            self._snapshot.close()
            self._snapshot = None

    def __enter__(self) -> DeltaTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _snap(self) -> _Snapshot:
        if self._snapshot is None:
            self._snapshot = _Snapshot(self.table_uri, self._pinned, self.storage_options)
        return self._snapshot

    def _location(self, writer: Any = None, commit: Any = None) -> TableLocation:
        return TableLocation(uri=self.table_uri, storage_options=self.storage_options,
                             writer=_settings(writer), commit=_settings(commit))

    def version(self) -> int:
        return int(lib.loom_snapshot_version(self._snap().handle))

    def files(self) -> list[str]:
        """Live data files, relative to the table root, sorted."""
        h = self._snap().handle
        info = _capi.loom_file_info(version=_capi.LOOM_FILE_INFO_VERSION)
        out = []
        for i in range(lib.loom_snapshot_file_count(h)):
            check(lib.loom_snapshot_file_at(byref(info), h, i))
            out.append(_capi.text(info.path) or "")
        return out

    def schema_json(self) -> dict[str, Any]:
        return dict(json.loads(_capi.text(lib.loom_snapshot_schema_json(self._snap().handle))
                               or "{}"))

    def partition_columns(self) -> list[str]:
        h = self._snap().handle
        return [_capi.text(lib.loom_snapshot_partition_column_at(h, i)) or ""
                for i in range(lib.loom_snapshot_partition_column_count(h))]

    def properties(self) -> dict[str, str | None]:
        h = self._snap().handle
        kvs = [lib.loom_snapshot_property_at(h, i).contents
               for i in range(lib.loom_snapshot_property_count(h))]
        return {(_capi.text(kv.key) or ""): _capi.text(kv.value) for kv in kvs}

    @property
    def optimize(self) -> TableOptimizer:
        return TableOptimizer(self)

    def vacuum(self, retention_hours: int | None = None, dry_run: bool = True,
               enforce_retention_duration: bool = True,
               custom_metadata: Mapping[str, str] | None = None,
               post_commithook_properties: Any = None, commit_properties: Any = None,
               full: bool = False) -> list[str]:
        """Files no retained version needs: deleted, or listed when
        `dry_run` (the default). delta-rs's keywords are taken
        (``post_commithook_properties`` is ignored, ``custom_metadata``
        joins the commit metadata); any other is a TypeError."""
        commit_properties = _with_metadata(commit_properties, custom_metadata)
        native.flag(enforce_retention_duration, "enforce_retention_duration")
        r = native.vacuum(self.table_uri, location=self._location(None, commit_properties),
                          retention_hours=retention_hours, dry_run=dry_run, full=full,
                          retention_check=enforce_retention_duration)
        return r.files_deleted

    def create_checkpoint(self) -> None:
        native.checkpoint(self.table_uri, location=self._location())
        self._snapshot = None

    def cleanup_metadata(self) -> None:
        """Delete expired log files (delta.logRetentionDuration)."""
        native.cleanup_logs(self.table_uri, location=self._location(), dry_run=False)
        self._snapshot = None

    def __repr__(self) -> str:
        return f"DeltaTable({self.table_uri!r})"
