"""The loom ``storage:`` YAML (the seed's ``StorageConfig``), read by the C
loader (``loom_config``) whatever form it arrives in:

* a path to the YAML file (``str`` or ``os.PathLike``);
* the file's parsed mapping (``{"storage": {...}}``, or the ``storage``
  section itself), e.g. from ``yaml.safe_load``;
* loom-py's ``StorageConfig`` object (or any object with ``tables`` /
  ``defaults`` / ``maintenance`` attributes);
* a :class:`StorageConfig` (used as is).

Mappings and objects are handed to the C loader as JSON text (JSON is
YAML), so every rule, message and ``${oc.env:VAR}`` interpolation is the
same as for a file.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import json
import os
from collections.abc import Mapping
from ctypes import byref
from dataclasses import dataclass
from typing import Any

from . import _capi
from ._capi import lib
from .errors import check, last_error
from .location import TableLocation, location_from_c


@dataclass(frozen=True)
class TableRoute:
    """One ``tables[]`` route: a logical name mapped to a path (``path``, a
    resolved :class:`TableLocation`) or to a catalog ``ref``."""

    name: str
    path: TableLocation | None = None
    ref: str = ""


@dataclass(frozen=True)
class MaintenanceVacuumConfig:
    retention_hours: int | None = None
    dry_run: bool = True
    full: bool = False


@dataclass(frozen=True)
class MaintenanceConfig:
    """The ``maintenance:`` block as loom read it. An empty ``schemas``
    means every ``tables[]`` route (as in loom's Python ETL)."""

    schemas: tuple[str, ...] = ()
    vacuum: MaintenanceVacuumConfig | None = None
    compact: bool = False
    compact_target_size: int | None = None
    z_order_by: tuple[str, ...] = ()
    z_order_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    # (loom) `auto:` on: its HealthPolicy (the defaults when it sets none);
    # the ops above are then auto's settings. None: off.
    auto: Any = None

    @property
    def schedules_ops(self) -> bool:
        return (self.vacuum is not None or self.compact or bool(self.z_order_by) or
                self.auto is not None)

    def check_runnable(self) -> None:
        """ValueError when the block cannot run: compact together with
        z_order_by (unless they are auto's settings). The block loads either
        way (a step of the same file may still run); it is refused where
        loom-py refuses it, when the block itself is run."""
        if self.compact and self.z_order_by and self.auto is None:
            raise ValueError("StorageConfig.maintenance: compact and z_order_by are mutually "
                             "exclusive (Z-order already rewrites and bin-packs the files)")


def _plain(obj: Any) -> Any:
    """Builtin containers and scalars from mappings, sequences, dataclasses,
    msgspec structs and enums."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return _plain(obj.value)
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_plain(v) for v in obj]
    fields = getattr(type(obj), "__struct_fields__", None)   # msgspec.Struct
    if fields is not None:
        return {f: _plain(getattr(obj, f)) for f in fields}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    attrs = _public_attributes(obj)
    if attrs is not None:
        return {k: _plain(v) for k, v in attrs.items()}
    return str(obj)


def _public_attributes(obj: Any) -> dict[str, Any] | None:
    """The public data attributes of a plain object (a class of the
    caller's own, types.SimpleNamespace, a slotted class), or None for
    objects that have none (numbers of other types, dates ...: their text
    is used)."""
    names: list[str] = []
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        names = list(vars(obj))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    names = [n for n in dict.fromkeys(names) if not n.startswith("_") and hasattr(obj, n)]
    return {n: getattr(obj, n) for n in names} if names else None


def _settings(m: Any) -> Any:
    """writer/commit settings: lists of mappings (delta-rs app_transactions)
    have no flat form; they travel as JSON text."""
    if not isinstance(m, dict):
        return m
    out = {}
    for k, v in m.items():
        if isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
            out[k] = json.dumps(v)
        else:
            out[k] = _settings(v)
    return out


def _clean_path(p: Any) -> Any:
    if not isinstance(p, dict):
        return p
    p = {k: v for k, v in p.items() if v is not None}
    for k in ("writer", "commit"):
        if k in p:
            p[k] = _settings(p[k])
    return p


def _storage_document(section: dict[str, Any]) -> dict[str, Any]:
    """A storage section as loom-py's objects render it, trimmed of the
    defaults that mean "unset" there (``ref: ""``, ``path: null``)."""
    s = dict(section)
    routes = []
    for r in s.get("tables") or []:
        if isinstance(r, dict):
            r = {k: v for k, v in r.items()
                 if not (k in ("ref", "catalog") and v in ("", None)) and
                 not (k == "path" and v is None)}
            if "path" in r:
                r["path"] = _clean_path(r["path"])
        routes.append(r)
    if "tables" in s:
        s["tables"] = routes
    defaults = s.get("defaults")
    if isinstance(defaults, dict) and defaults.get("table_path") is not None:
        s["defaults"] = dict(defaults, table_path=_clean_path(defaults["table_path"]))
    return {"storage": s}


# the parts of a storage section loom reads (every other one is skipped by
# the loader anyway)
_SECTIONS = ("defaults", "tables", "maintenance")


class StorageConfig:
    """A loaded storage config. Build one with :meth:`load`,
    :meth:`from_yaml`, :meth:`from_mapping` or :meth:`coerce`."""

    def __init__(self, handle: int, text_source: str) -> None:
        self._handle: int | None = handle
        self._source = text_source
        self._tables: tuple[TableRoute, ...] | None = None

    # ---- building ---------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> StorageConfig:
        """Read a storage YAML file. LoomValueError ("file:line:col: ...")
        for YAML and validation errors, LoomNotFound for a missing file."""
        handle = _capi.loom_config_p()
        check(lib.loom_config_load_file(byref(handle), _capi.cstr(os.fspath(path))))
        return cls(_capi.handle(handle), os.fspath(path))

    @classmethod
    def from_yaml(cls, text: str, name: str = "<string>") -> StorageConfig:
        data = text.encode("utf-8")
        handle = _capi.loom_config_p()
        check(lib.loom_config_load_string(byref(handle), data, len(data), _capi.cstr(name)))
        return cls(_capi.handle(handle), name)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], name: str = "<mapping>") -> StorageConfig:
        """The parsed YAML: ``{"storage": {...}}`` or the section itself."""
        plain = _plain(mapping)
        section = plain.get("storage", plain) if isinstance(plain, dict) else plain
        if not isinstance(section, dict):
            raise TypeError("a storage config mapping needs a 'storage' mapping")
        return cls.from_yaml(json.dumps(_storage_document(section), ensure_ascii=False), name)

    @classmethod
    def coerce(cls, config: Any) -> StorageConfig:
        """A StorageConfig from any accepted form (see the module docs)."""
        if isinstance(config, StorageConfig):
            return config
        if isinstance(config, (str, os.PathLike)):
            return cls.load(config)
        if isinstance(config, Mapping):
            return cls.from_mapping(config)
        if hasattr(config, "tables") or hasattr(config, "defaults"):
            # the sections maintenance reads, from any object that has them
            # (loom-py's StorageConfig, a caller's own class): attributes
            # that are properties or slots are not in vars(), so each is
            # read by name
            section = {k: _plain(getattr(config, k)) for k in _SECTIONS if hasattr(config, k)}
            return cls.from_mapping({"storage": section}, f"<{type(config).__name__}>")
        raise TypeError(f"config: expected a StorageConfig, a path to a storage YAML or its "
                        f"parsed mapping, got {type(config).__name__}")

    def close(self) -> None:
        if getattr(self, "_handle", None):
            lib.loom_config_free(self._handle)
            self._handle = None

    def __enter__(self) -> StorageConfig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()  # a safety net: close() or ``with`` free it at once

    @property
    def handle(self) -> int:
        if not self._handle:
            raise ValueError("the storage config was closed")
        return self._handle

    # ---- reading ------------------------------------------------------------------

    @property
    def source(self) -> str:
        return _capi.text(lib.loom_config_source(self.handle)) or self._source

    def to_json(self) -> str:
        """The resolved config as JSON, secrets shown as ``***``."""
        out = ctypes.c_void_p()
        check(lib.loom_config_to_json(byref(out), self.handle))
        return _capi.take_string(out)

    @property
    def tables(self) -> tuple[TableRoute, ...]:
        """The ``tables[]`` routes in file order."""
        if self._tables is None:
            doc = json.loads(self.to_json())
            routes = []
            for i, t in enumerate(doc.get("tables", [])):
                name = _capi.text(lib.loom_config_table_name_at(self.handle, i)) or t["name"]
                if lib.loom_config_table_has_path_at(self.handle, i):
                    routes.append(TableRoute(name=name, path=self.locate(name)))
                else:
                    routes.append(TableRoute(name=name, ref=t.get("ref") or ""))
            self._tables = tuple(routes)
        return self._tables

    def has_path_routes(self) -> bool:
        return bool(lib.loom_config_has_default_path(self.handle)) or \
            any(r.path is not None for r in self.tables)

    def knows(self, ref: str) -> bool:
        return bool(lib.loom_config_knows(self.handle, _capi.cstr(ref)))

    def locate(self, ref: Any) -> TableLocation:
        """The location of a table ref: its route, else the default path.
        LoomNotFound when neither covers it; LoomValueError for a catalog
        route or a malformed ref."""
        name = ref_name(ref)
        out = ctypes.POINTER(_capi.loom_table_location)()
        rc = lib.loom_config_locate(byref(out), self.handle, _capi.cstr(name))
        if rc < 0:
            raise last_error(rc)
        try:
            return location_from_c(out)
        finally:
            lib.loom_table_location_free(out)

    def to_path_locator(self) -> ConfigLocator:
        """A locator over this config's routes (loom-py's spelling)."""
        return ConfigLocator(self)

    @property
    def maintenance(self) -> MaintenanceConfig:
        h = self.handle
        if not lib.loom_config_has_maintenance(h):
            return MaintenanceConfig()
        schemas = tuple(_capi.text(lib.loom_config_maintenance_schema_at(h, i)) or ""
                        for i in range(lib.loom_config_maintenance_schema_count(h)))
        v = _capi.loom_vacuum_opts()
        c = _capi.loom_compact_opts()
        z = _capi.loom_zorder_opts()
        vacuum = None
        if lib.loom_config_maintenance_vacuum(byref(v), h) == 0:
            vacuum = MaintenanceVacuumConfig(
                None if v.retention_hours < 0 else v.retention_hours, bool(v.dry_run),
                bool(v.full))
        has_c = lib.loom_config_maintenance_compact(byref(c), h) == 0
        cols: tuple[str, ...] = ()
        zopts: dict[str, Any] = {}
        if lib.loom_config_maintenance_zorder(byref(z), h) == 0:
            cols = tuple(_capi.text(z.columns[i]) or "" for i in range(z.n_columns))
            zopts = {"target_size": z.target_size or None,
                     "curve": None if z.curve == _capi.LOOM_ZORDER_CURVE_AUTO
                     else _capi.text(lib.loom_zorder_curve_name(z.curve)),
                     "memory": z.memory_budget or None,
                     "temp_dir": _capi.text(z.temp_dir),
                     "spill_limit": z.spill_limit or None,
                     "full": bool(z.full), "dry_run": bool(z.dry_run)}
        return MaintenanceConfig(schemas=schemas, vacuum=vacuum, compact=has_c,
                                 compact_target_size=(c.target_size or None) if has_c else None,
                                 z_order_by=cols, z_order_options=zopts,
                                 auto=self._auto_policy())

    def _auto_policy(self) -> Any:
        """The block's ``auto:`` policy as a HealthPolicy, None when off."""
        from .health import HealthPolicy
        a = _capi.loom_auto_opts()
        if lib.loom_config_maintenance_auto(byref(a), self.handle) != 1:
            return None
        p = a.policy
        return HealthPolicy(target_size=p.target_size or None,
                            min_small_files=p.min_small_files, dv_purge_ratio=p.dv_purge_ratio,
                            min_dv_files=p.min_dv_files,
                            max_clustering_depth=p.max_clustering_depth,
                            checkpoint_commits=p.checkpoint_commits,
                            checkpoint_json_bytes=p.checkpoint_json_bytes,
                            min_vacuum_files=p.min_vacuum_files,
                            min_expired_logs=p.min_expired_logs,
                            min_files_without_stats=p.min_files_without_stats)

    def __repr__(self) -> str:
        return f"StorageConfig({self.source!r})"


def ref_name(ref: Any) -> str:
    """The logical name of a table ref: a string, or any object with a
    ``ref`` string attribute (libloom's TableRef, loom-py's, which has no
    ``__str__``). TypeError for anything else: its text would name a
    table no one configured."""
    if isinstance(ref, str):
        return ref
    name = getattr(ref, "ref", None)
    if isinstance(name, str):
        return name
    raise TypeError(f"table ref: expected a str or an object with a 'ref' string attribute "
                    f"(TableRef), got {type(ref).__name__}")


class ConfigLocator:
    """The seed's TableLocator over a config's routes (loom's own rules:
    an explicit route, else ``defaults.table_path`` + the ref with dots
    turned into slashes)."""

    def __init__(self, config: StorageConfig) -> None:
        self.config = config

    def locate(self, ref: Any) -> TableLocation:
        """`ref`: a TableRef (libloom's, loom-py's: anything with a ``ref``
        string) or the name itself."""
        return self.config.locate(ref)
