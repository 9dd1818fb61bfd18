"""MaintainTable and MaintainSchema: the seed's fluent builders.

Rules, checked when the builder is called (so a bad declaration fails
where it is written, not in the middle of a nightly run):

* an empty (or blank) ref / prefix: ValueError (the seed's);
* ``z_order_by([])``: ValueError (the seed's);
* ``compact()`` together with ``z_order_by()``: TypeError (the seed's),
  unless ``auto()`` was declared first (then both are auto's settings);
* beside ``auto()``, ``vacuum()`` / ``compact()`` / ``z_order_by()`` are
  auto's settings, not operations of their own;
* the same operation twice (results are keyed by name), a ref with an
  empty part (``raw..x``), a negative retention, a non-positive target
  size, a Z-order column listed twice, an unknown curve: ValueError (loom's
  rules, with the C library's message);
* a non-string ref, a column list given as a bare string, a non-integer
  retention, a switch (``dry_run``, ``full``, ``retention_check``) that is
  not a ``bool``: TypeError. ``dry_run=None`` or ``dry_run=0`` must not
  become a real vacuum, nor ``dry_run="false"`` a dry run.

Every message starts with the declaration (``MaintainTable('raw.x'): ...``).

Tables are expanded by the C library (``loom_decl_resolve``): a schema
prefix "raw" matches the ``tables[]`` routes "raw.events" and "raw.a.b",
never "raw_backup.events" nor a route named just "raw".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from .._capi import lib
from ..errors import LoomValueError
from ..native import column_list, flag, parse_size
from . import _cbridge
from ._specs import (
    AnalyzeSpec,
    AutoSpec,
    CompactSpec,
    MaintenanceSpec,
    PurgeSpec,
    VacuumSpec,
    ZOrderSpec,
)

if TYPE_CHECKING:
    from ..config import StorageConfig
    from ..health import HealthPolicy

# what each op declared beside auto() sets on it
_AUTO_SETTING = {VacuumSpec: "vacuum", CompactSpec: "compact", ZOrderSpec: "z_order"}

_Self = TypeVar("_Self", bound="_Declaration")


class _Declaration:
    _kind = ""
    _what = ""

    def __init__(self, target: str) -> None:
        if not isinstance(target, str):
            raise TypeError(f"{self._kind}: {self._what} must be a string, "
                            f"got {type(target).__name__}")
        if not target.strip():
            raise ValueError(f"{self._kind}: {self._what} must be a non-empty string")
        self._target = target
        self._ops: list[Any] = []
        _cbridge.free_decl(self._new_c_decl())   # loom's ref rules, checked now

    def _new_c_decl(self) -> int:
        raise NotImplementedError

    def _owner(self) -> str:
        return f"{self._kind}({self._target!r})"

    def _check_c(self, spec: Any) -> None:
        try:
            _cbridge.free_op(_cbridge.builtin_op(spec))   # the C option checks
        except LoomValueError as exc:
            raise ValueError(f"{self._owner()}: {exc.message}") from None
        except (TypeError, ValueError) as exc:   # the binding's own checks
            raise type(exc)(f"{self._owner()}: {exc}") from None

    def _add_auto(self: _Self, spec: Any) -> _Self:
        """Beside auto, vacuum / compact / z_order_by are its settings: they
        run when the health calls for them, not every time."""
        auto = next((op for op in self._ops if isinstance(op, AutoSpec)), None)
        if isinstance(spec, AutoSpec):
            if auto is not None:
                raise ValueError(f"{self._owner()}: operation 'auto' is scheduled twice")
            settings = {_AUTO_SETTING[type(op)]: op for op in self._ops
                        if type(op) in _AUTO_SETTING}
            spec = dataclasses.replace(spec, **settings)
            self._check_c(spec)
            self._ops = [op for op in self._ops if type(op) not in _AUTO_SETTING] + [spec]
            return self
        assert auto is not None
        key = _AUTO_SETTING[type(spec)]
        if getattr(auto, key) is not None:
            raise ValueError(f"{self._owner()}: operation '{spec.name}' is scheduled twice "
                             f"(it is auto's {key} setting)")
        self._check_c(spec)
        self._ops[self._ops.index(auto)] = dataclasses.replace(auto, **{key: spec})
        return self

    def _add(self: _Self, spec: Any) -> _Self:
        if isinstance(spec, AutoSpec) or (type(spec) in _AUTO_SETTING and
                                          any(isinstance(op, AutoSpec) for op in self._ops)):
            return self._add_auto(spec)
        kinds = {type(op) for op in self._ops} | {type(spec)}
        if CompactSpec in kinds and ZOrderSpec in kinds:
            raise TypeError(f"{self._owner()}: compact() and z_order_by() are mutually exclusive")
        if any(op.name == spec.name for op in self._ops):
            raise ValueError(f"{self._owner()}: operation '{spec.name}' is scheduled twice "
                             f"(results are keyed by operation name)")
        self._check_c(spec)
        self._ops.append(spec)
        return self

    def _flags(self, **switches: Any) -> None:
        """TypeError (naming the argument) unless every switch is a bool."""
        for what, value in switches.items():
            try:
                flag(value, what)
            except TypeError as exc:
                raise TypeError(f"{self._owner()}: {exc}") from None

    # ---- fluent setters -------------------------------------------------------------

    def vacuum(self: _Self, retention_hours: int | None = None, *, dry_run: bool = True,
               full: bool = False, retention_check: bool = True) -> _Self:
        """Schedule a VACUUM step.

        Args:
            retention_hours: Files older than this are eligible. None uses
                the table's ``delta.deletedFileRetentionDuration`` (default
                168 h / 7 days).
            dry_run: When True (default), lists files without deleting. Set
                ``dry_run=False`` explicitly for production runs.
            full: When True, also deletes every file under the table
                directory that the Delta log does not reference and that is
                older than the retention, whoever wrote it.
            retention_check: (loom) refuse a retention shorter than the
                table's.
        """
        if retention_hours is not None and (isinstance(retention_hours, bool) or
                                            not isinstance(retention_hours, int)):
            raise TypeError(f"{self._owner()}: retention_hours must be an int or None, "
                            f"got {type(retention_hours).__name__}")
        self._flags(dry_run=dry_run, full=full, retention_check=retention_check)
        return self._add(VacuumSpec(retention_hours=retention_hours, dry_run=dry_run, full=full,
                                    retention_check=retention_check))

    def compact(self: _Self, target_size: int | None = None) -> _Self:
        """Schedule a bin-packing compaction step. Mutually exclusive with
        :meth:`z_order_by`."""
        return self._add(CompactSpec(target_size=self._target_size(target_size)))

    def z_order_by(self: _Self, columns: Sequence[str], target_size: int | None = None, *,
                   curve: str | None = None, memory: int | str | None = None,
                   temp_dir: str | None = None, spill_limit: int | str | None = None,
                   full: bool = False) -> _Self:
        """Schedule a Z-Order clustering step. Mutually exclusive with
        :meth:`compact`.

        Args:
            columns: Columns to Z-Order by. Must be non-empty.
            target_size: Target output file size in bytes.
            curve: (loom) "hilbert" (default) or "z".
            memory: (loom) bytes or a size ("1GiB") for the rows of one
                partition; larger ones are sorted through spill files.
            temp_dir: (loom) where the spill files go.
            spill_limit: (loom) most bytes the spill files may take.
            full: (loom) also rewrite partitions already clustered.
        """
        self._flags(full=full)
        cols = column_list(columns, f"{self._owner()}: z_order_by")
        if not cols:
            raise ValueError(f"{self._owner()}: z_order_by requires at least one column")
        for what, value in (("memory", memory), ("spill_limit", spill_limit)):
            if value is not None and parse_size(value, what) <= 0:
                raise ValueError(f"{self._owner()}: {what} must be positive")
        return self._add(ZOrderSpec(columns=cols, target_size=self._target_size(target_size),
                                    curve=curve, memory=memory, temp_dir=temp_dir,
                                    spill_limit=spill_limit, full=full))

    def purge(self: _Self, partition_filters: Sequence[str] = (), *,
              target_size: int | None = None, dry_run: bool = False) -> _Self:
        """(loom) REORG ... APPLY (PURGE): rewrite every file with a
        deletion vector without its deleted rows (``loom purge``). The old
        files stay until a vacuum after the retention.

        Args:
            partition_filters: "col=value" strings, ANDed (default: every
                partition).
            target_size: most bytes a new file holds.
            dry_run: list the files, write nothing (a real bool).
        """
        self._flags(dry_run=dry_run)
        filters = column_list(partition_filters, f"{self._owner()}: purge")
        return self._add(PurgeSpec(partition_filters=tuple(filters),
                                   target_size=self._target_size(target_size), dry_run=dry_run))

    def analyze(self: _Self, columns: Sequence[str] = (), *, all: bool = False,
                dry_run: bool = False) -> _Self:
        """(loom) ANALYZE ... COMPUTE DELTA STATISTICS (``loom analyze``):
        statistics for the files without them or missing a stats column.

        Args:
            columns: only files whose statistics miss one of these.
            all: recompute every live file's statistics (a real bool).
            dry_run: list the files, commit nothing (a real bool).
        """
        self._flags(all=all, dry_run=dry_run)
        cols = column_list(columns, f"{self._owner()}: analyze")
        return self._add(AnalyzeSpec(columns=tuple(cols), all=all, dry_run=dry_run))

    def auto(self: _Self, policy: HealthPolicy | Mapping[str, Any] | None = None) -> _Self:
        """(loom) Automatic maintenance: each table gets only what the
        health policy recommends -- Z-order or compaction, vacuum, a
        checkpoint, expired-log cleanup -- judged from its log alone
        (``loom advise`` shows the same decisions).

        ``vacuum()``, ``compact()`` and ``z_order_by()`` on the same
        declaration, before or after, become auto's settings: they run when
        the health calls for them, never unconditionally (vacuum stays a dry
        run unless declared with ``dry_run=False``). With auto, compact and
        z_order_by may both be given (declare ``auto()`` first): auto runs
        the Z-order when clustering is due, else the compaction.

        Args:
            policy: a :class:`libloom.health.HealthPolicy`, or a mapping of
                its keys (the storage YAML's ``maintenance.auto``:
                ``{"min_small_files": 20, "target_size": "256MiB"}``);
                None: the defaults (docs/health.md).
        """
        try:
            spec = AutoSpec(policy=policy)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{self._owner()}: auto: {exc}") from None
        return self._add(spec)

    def _target_size(self, target_size: Any) -> int | None:
        if target_size is None:
            return None
        size = parse_size(target_size, f"{self._owner()}: target_size")
        if size <= 0:
            raise ValueError(f"{self._owner()}: target_size must be positive, got {target_size!r}")
        return size

    # ---- OperationDeclaration -------------------------------------------------------

    @property
    def operations(self) -> tuple[Any, ...]:
        """(loom) the scheduled op specs, in order."""
        return tuple(self._ops)

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        """Implement OperationDeclaration: one spec per table."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return self._owner()


class MaintainTable(_Declaration):
    """Declare maintenance operations for one explicitly named Delta table.

    Example::

        MaintainTable("raw.events")
            .vacuum(retention_hours=168, dry_run=False)
            .compact()

    Args:
        table_ref: Logical table reference (e.g. "raw.events").
    """

    _kind = "MaintainTable"
    _what = "table_ref"

    def __init__(self, table_ref: str) -> None:
        super().__init__(table_ref)

    @property
    def table_ref(self) -> str:
        return self._target

    def _new_c_decl(self) -> int:
        return _cbridge.new_decl(lib.loom_maintain_table, self._target)

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        """Implement OperationDeclaration (no config needed)."""
        return [MaintenanceSpec(table_ref=self._target, ops=tuple(self._ops))]


class MaintainSchema(_Declaration):
    """Declare maintenance operations for all tables under a schema prefix.

    Discovery is config-driven: the ``tables[]`` routes whose name starts
    with ``{schema_prefix}.``. No filesystem scanning is performed.

    Example::

        MaintainSchema("raw").vacuum(retention_hours=168, dry_run=False).compact()

    Args:
        schema_prefix: Schema prefix to match (e.g. "raw" matches
            "raw.events", "raw.orders").
    """

    _kind = "MaintainSchema"
    _what = "schema_prefix"

    def __init__(self, schema_prefix: str) -> None:
        super().__init__(schema_prefix.strip() if isinstance(schema_prefix, str)
                         else schema_prefix)

    @property
    def schema_prefix(self) -> str:
        return self._target

    def _new_c_decl(self) -> int:
        return _cbridge.new_decl(lib.loom_maintain_schema, self._target)

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        """Implement OperationDeclaration: one spec per matching route of
        `config` (a StorageConfig, a path or a mapping), in config order."""
        from ..config import StorageConfig as _Config
        refs = _cbridge.schema_members(_Config.coerce(config), self._target)
        return [MaintenanceSpec(table_ref=ref, ops=tuple(self._ops)) for ref in refs]


def is_builtin_declaration(obj: Any) -> bool:
    """A MaintainTable / MaintainSchema whose resolve is loom's own, so the
    C library can resolve it without calling back into Python."""
    return isinstance(obj, _Declaration) and type(obj).resolve in (
        MaintainTable.resolve, MaintainSchema.resolve)
