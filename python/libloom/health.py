"""Table health and advice (``loom/health.h``): what a table needs, read
from its log alone (the checkpoint, the commits after it, the listing of
``_delta_log/``), never a data file. Nothing here changes a table.

    >>> h = libloom.table_health("/lake/raw/events")
    >>> h.health["table"]["smallFiles"], h.recommended
    (212, ['compact', 'checkpoint'])
    >>> libloom.advise("/lake/raw/events", policy={"min_small_files": 10})

The policy's thresholds and defaults are docs/health.md's; the same keys
are the storage YAML's ``maintenance: {auto: {...}}`` and
``MaintainTable(...).auto(policy=...)``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import math
from collections.abc import Mapping, Sequence
from ctypes import byref
from dataclasses import dataclass, field
from typing import Any

from . import _capi
from ._capi import lib
from .errors import LoomValueError, check
from .location import CLocation
from .native import CStrings, column_list, parse_size


@dataclass(frozen=True)
class HealthPolicy:
    """The thresholds advice and auto mode hold the health figures against
    (``loom_health_policy``). Defaults and sources: docs/health.md.

    Args:
        target_size: bytes or a size ("128MiB"); None: the location's
            target_file_size, else ``delta.targetFileSize``, else 128 MiB.
        min_small_files: compact when this many files can be bin-packed.
        dv_purge_ratio: purge files whose deletion vector deletes more than
            this share of their rows (0.05 .. 1).
        min_dv_files: ... when there are this many of them.
        max_clustering_depth: Z-order / cluster again above this average
            overlap depth (1.0 = perfectly clustered).
        checkpoint_commits: checkpoint after this many commits; 0: the
            table's ``delta.checkpointInterval``.
        checkpoint_json_bytes: ... or this many bytes of commits; 0: not a
            trigger.
        min_vacuum_files: vacuum when this many removed files are past the
            retention and newer than the last VACUUM.
        min_expired_logs: clean the log when this many log files expired.
        min_files_without_stats: analyze (recompute statistics) when this
            many live files have none; 0: never.

    Counts must be ``int`` and ratios ``int``/``float`` (a ``bool`` is
    neither: TypeError); values out of range: ValueError with the library's
    rule.
    """

    target_size: int | str | None = None
    min_small_files: int = 50
    dv_purge_ratio: float = 0.05
    min_dv_files: int = 1
    max_clustering_depth: float = 2.0
    checkpoint_commits: int = 0
    checkpoint_json_bytes: int | str = 64 << 20
    min_vacuum_files: int = 1
    min_expired_logs: int = 1
    min_files_without_stats: int = 1

    def __post_init__(self) -> None:
        for f in ("min_small_files", "min_dv_files", "checkpoint_commits", "min_vacuum_files",
                  "min_expired_logs", "min_files_without_stats"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"HealthPolicy: {f} must be an int, got {type(v).__name__} {v!r}")
        for f in ("dv_purge_ratio", "max_clustering_depth"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise TypeError(f"HealthPolicy: {f} must be a finite number, "
                                f"got {type(v).__name__} {v!r}")
        # sizes parse now (TypeError / ValueError naming the field) and the
        # library's range rules apply now, not in the middle of a run
        policy_struct(self)

    @classmethod
    def coerce(cls, policy: HealthPolicy | Mapping[str, Any] | None) -> HealthPolicy:
        """A HealthPolicy from itself, None (the defaults) or a mapping with
        the YAML's keys (an unknown key is a ValueError naming it)."""
        if policy is None:
            return cls()
        if isinstance(policy, cls):
            return policy
        if isinstance(policy, Mapping):
            known = {f.name for f in dataclasses.fields(cls)}
            unknown = sorted(str(k) for k in policy if k not in known)
            if unknown:
                raise ValueError(f"policy: unknown key {unknown[0]!r} (expected: "
                                 f"{', '.join(f.name for f in dataclasses.fields(cls))})")
            return cls(**dict(policy))
        raise TypeError(f"policy: expected a HealthPolicy or a mapping, got "
                        f"{type(policy).__name__}")

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def policy_struct(policy: HealthPolicy,
                  zorder_columns: CStrings | None = None) -> _capi.loom_health_policy:
    """The C policy (versioned, initialised by the library, then checked
    by it: LoomValueError -> ValueError naming the threshold)."""
    p = _capi.loom_health_policy()
    check(lib.loom_health_policy_init(byref(p), _capi.LOOM_HEALTH_POLICY_VERSION))
    if policy.target_size is not None:
        size = parse_size(policy.target_size, "HealthPolicy: target_size")
        if size <= 0:
            raise ValueError(f"HealthPolicy: target_size must be positive, "
                             f"got {policy.target_size!r}")
        p.target_size = size
    p.min_small_files = policy.min_small_files
    p.dv_purge_ratio = float(policy.dv_purge_ratio)
    p.min_dv_files = policy.min_dv_files
    p.max_clustering_depth = float(policy.max_clustering_depth)
    p.checkpoint_commits = policy.checkpoint_commits
    p.checkpoint_json_bytes = parse_size(policy.checkpoint_json_bytes,
                                         "HealthPolicy: checkpoint_json_bytes")
    p.min_vacuum_files = policy.min_vacuum_files
    p.min_expired_logs = policy.min_expired_logs
    p.min_files_without_stats = policy.min_files_without_stats
    if zorder_columns is not None and len(zorder_columns):
        p.zorder_columns = zorder_columns.ptr
        p.n_zorder_columns = len(zorder_columns)
    try:
        check(lib.loom_health_policy_check(byref(p)))
    except LoomValueError as exc:
        raise ValueError(exc.message) from None
    return p


@dataclass(frozen=True)
class Advice:
    """One operation the policy considered (``loom_advice``).

    Args:
        op: "compact", "purge_dvs", "z_order", "cluster", "vacuum",
            "checkpoint" or "cleanup_logs".
        recommended: the policy asks for it.
        reason: the figure against its threshold, or why the op does not
            apply.
        metric, value, threshold: the deciding figure.
        files: files to rewrite or delete.
        read_bytes, write_bytes: estimated, for rewrites.
        delete_bytes: vacuum / cleanup_logs: bytes to delete.
        partitions: where (compact, z_order, cluster).
        columns: z_order / cluster columns.
    """

    op: str
    recommended: bool
    reason: str = ""
    metric: str | None = None
    value: float = 0.0
    threshold: float = 0.0
    files: int = 0
    read_bytes: int = 0
    write_bytes: int = 0
    delete_bytes: int = 0
    partitions: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, a: Mapping[str, Any]) -> Advice:
        return cls(op=a["op"], recommended=bool(a["recommended"]), reason=a.get("reason") or "",
                   metric=a.get("metric"), value=float(a.get("value") or 0),
                   threshold=float(a.get("threshold") or 0), files=int(a.get("files") or 0),
                   read_bytes=int(a.get("readBytes") or 0),
                   write_bytes=int(a.get("writeBytes") or 0),
                   delete_bytes=int(a.get("deleteBytes") or 0),
                   partitions=tuple(a.get("partitions") or ()),
                   columns=tuple(a.get("columns") or ()))


@dataclass(frozen=True)
class TableHealth:
    """A table's health and the advice on it.

    Args:
        uri: the table as given.
        version: the table version the figures describe.
        health: the figures, keyed as ``loom health --json``'s "health"
            object (docs/health.md): "table" (files, bytes, rows,
            smallFiles, compactableFiles, histogram ...), "partitions",
            "clustering", "tombstones", "log", ...
        advice: every operation considered, in the order auto mode runs
            them.
    """

    uri: str
    version: int
    health: dict[str, Any] = field(default_factory=dict)
    advice: tuple[Advice, ...] = ()

    @property
    def recommended(self) -> list[str]:
        """The operations the policy asks for, in run order."""
        return [a.op for a in self.advice if a.recommended]

    def advice_for(self, op: str) -> Advice | None:
        return next((a for a in self.advice if a.op == op), None)


def table_health(uri: str, *, location: Any = None,
                 policy: HealthPolicy | Mapping[str, Any] | None = None,
                 zorder_columns: Sequence[str] | None = None) -> TableHealth:
    """Health and advice of the Delta table at `uri` (``loom_health_load``).

    Args:
        uri: the table (a path or an object-store URI).
        location: a TableLocation (or mapping) with its storage options,
            e.g. ``StorageConfig.locate(ref)``.
        policy: a HealthPolicy or a mapping of its keys; None: defaults.
        zorder_columns: judge clustering on these columns (a declared
            Z-order); None: the table's clustering columns, else the last
            Z-order's.

    Raises:
        LoomNotFound: no ``_delta_log`` at `uri`.
        ValueError / TypeError: a bad policy value or type.
    """
    if not isinstance(uri, str):
        raise TypeError(f"table_health: uri must be a str, got {type(uri).__name__}")
    pol = HealthPolicy.coerce(policy)
    cols = CStrings(column_list(zorder_columns, "zorder_columns")) \
        if zorder_columns is not None else None
    c_policy = policy_struct(pol, cols)
    loc = CLocation.of(location, uri)
    h = _capi.loom_health_p()
    out = ctypes.c_void_p()
    check(lib.loom_health_load(byref(h), _capi.cstr(uri), loc.ptr if loc else None,
                                byref(c_policy)))
    try:
        check(lib.loom_health_to_json(byref(out), h, None, _capi.LOOM_HEALTH_JSON_HEALTH |
                                      _capi.LOOM_HEALTH_JSON_ADVICE))
        doc = json.loads(_capi.take_string(out))
    finally:
        lib.loom_health_free(h)
    figures = doc.get("health") or {}
    return TableHealth(uri=uri, version=int(figures.get("version", -1)), health=figures,
                       advice=tuple(Advice.from_json(a) for a in doc.get("advice") or ()))


def advise(uri: str, *, location: Any = None,
           policy: HealthPolicy | Mapping[str, Any] | None = None,
           zorder_columns: Sequence[str] | None = None) -> list[Advice]:
    """What the policy recommends for the table at `uri`: every operation
    considered, recommended or not, with the figure that decided (as
    ``loom advise``). Changes nothing. Arguments as :func:`table_health`."""
    return list(table_health(uri, location=location, policy=policy,
                             zorder_columns=zorder_columns).advice)
