"""Operation specs, results and the protocols of the seed API.

Names, fields, defaults and order are the seed's; loom's extras come after
them (keyword arguments with defaults), so every seed call still works.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..config import StorageConfig
    from ..location import TableLocation


# ---- results --------------------------------------------------------------------------


@dataclass
class VacuumResult:
    """Result of a VACUUM operation.

    Args:
        files_deleted: Paths of the files that were deleted (or that would
            be deleted when ``dry_run=True``), relative to the table root.
        dry_run: (loom) nothing was deleted.
        metrics: (loom) every number loom reports: numDeletedFiles or
            numFilesToDelete, sizeOfDataToDelete, numVacuumedDirectories,
            version.
    """

    files_deleted: list[str] = field(default_factory=list)
    dry_run: bool = False
    metrics: dict[str, int] = field(default_factory=dict)


@dataclass
class OptimizeResult:
    """Result of a compaction or Z-Order operation.

    Args:
        num_files_added: files written.
        num_files_removed: files replaced.
        metrics: (loom) Spark's / delta-rs's OPTIMIZE metrics: numAddedBytes,
            numRemovedBytes, partitionsOptimized, totalConsideredFiles,
            filesAdded.min ..., version (-1: nothing committed).
    """

    num_files_added: int = 0
    num_files_removed: int = 0
    metrics: dict[str, int] = field(default_factory=dict)


@dataclass
class TableMaintenanceResult:
    """Per-table maintenance outcome.

    Args:
        table_ref: Logical table reference (e.g. ``"raw.events"``).
        op_results: Keyed results for each op that ran, by ``op.name``.
        error: Exception caught during execution, or None on success.
        duration_seconds: Wall-clock time for all ops on this table.
        uri: (loom) where the table was found, secrets masked; None when
            it could not be located.
        skipped: (loom) the table was not maintained and that is not an
            error (not in the config, no ``_delta_log`` yet, run cancelled).
        skip_reason: (loom) why.
        failed_op: (loom) the name of the op that failed.
    """

    table_ref: str
    op_results: dict[str, VacuumResult | OptimizeResult] = field(default_factory=dict)
    error: Exception | None = None
    duration_seconds: float = 0.0
    uri: str | None = None
    skipped: bool = False
    skip_reason: str | None = None
    failed_op: str | None = None

    @property
    def ok(self) -> bool:
        """True when no error occurred."""
        return self.error is None

    @property
    def vacuum(self) -> VacuumResult | None:
        result = self.op_results.get("vacuum")
        return result if isinstance(result, VacuumResult) else None

    @property
    def compact(self) -> OptimizeResult | None:
        result = self.op_results.get("compact")
        return result if isinstance(result, OptimizeResult) else None

    @property
    def z_order(self) -> OptimizeResult | None:
        result = self.op_results.get("z_order")
        return result if isinstance(result, OptimizeResult) else None

    @property
    def purge(self) -> OptimizeResult | None:
        """(loom) metrics numRowsPurged, numFilesRemoved, ..., version."""
        result = self.op_results.get("purge")
        return result if isinstance(result, OptimizeResult) else None

    @property
    def analyze(self) -> OptimizeResult | None:
        """(loom) metrics numFilesAnalyzed, numFilesScanned, version."""
        result = self.op_results.get("analyze")
        return result if isinstance(result, OptimizeResult) else None


# ---- protocols --------------------------------------------------------------------------


@runtime_checkable
class DeltaTableMaintainer(Protocol):
    """Protocol for executing maintenance operations on a single Delta table.

    Implementations receive the full TableLocation so they can propagate
    ``storage_options``, writer and commit properties to every call. loom's
    own is :class:`~libloom.maintenance.NativeMaintainer`, the default.
    """

    def vacuum(self, uri: str, spec: VacuumSpec, location: TableLocation) -> VacuumResult:
        """Run VACUUM on the table at `uri`."""
        ...

    def compact(self, uri: str, spec: CompactSpec, location: TableLocation) -> OptimizeResult:
        """Run bin-packing compaction on the table at `uri`."""
        ...

    def z_order(self, uri: str, spec: ZOrderSpec, location: TableLocation) -> OptimizeResult:
        """Run Z-Order clustering on the table at `uri`."""
        ...


@runtime_checkable
class OpSpec(Protocol):
    """Protocol implemented by VacuumSpec, CompactSpec, ZOrderSpec -- and any
    custom op: a ``name`` (which keys its result) and ``execute``."""

    name: ClassVar[str]

    def execute(self, maintainer: DeltaTableMaintainer, uri: str,
                location: TableLocation) -> VacuumResult | OptimizeResult:
        ...


@runtime_checkable
class OperationDeclaration(Protocol):
    """Unified interface for declarative operation builders: MaintainTable,
    MaintainSchema, and custom declarations."""

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        ...


# ---- specs ------------------------------------------------------------------------------


def _check_flags(spec: Any, *names: str) -> None:
    """TypeError when a switch of `spec` is not a bool (see native.flag)."""
    from ..native import flag
    for name in names:
        try:
            flag(getattr(spec, name), name)
        except TypeError as exc:
            raise TypeError(f"{type(spec).__name__}: {exc}") from None


@dataclass(frozen=True)
class VacuumSpec:
    """Parameters for a VACUUM operation.

    Args:
        retention_hours: Files older than this are eligible for deletion.
            None uses the table's ``delta.deletedFileRetentionDuration``
            (default 168 hours / 7 days).
        dry_run: When True (the default), lists eligible files without
            deleting them. Set ``dry_run=False`` explicitly in production.
        full: When True, also deletes every file under the table directory
            that the Delta log does not reference and that is older than the
            retention; names starting with an underscore or a dot are kept
            (Spark's rule: ``.``-files are hidden, e.g. ``.crc`` files and
            the stores' markers).
        retention_check: (loom) refuse a retention below the table's.

    The switches must be real bools (TypeError otherwise): ``dry_run=None``
    would otherwise delete files.
    """

    name: ClassVar[str] = "vacuum"
    retention_hours: int | None = None
    dry_run: bool = True
    full: bool = False
    retention_check: bool = True

    def __post_init__(self) -> None:
        _check_flags(self, "dry_run", "full", "retention_check")

    def execute(self, maintainer: DeltaTableMaintainer, uri: str,
                location: TableLocation) -> VacuumResult:
        return maintainer.vacuum(uri, self, location)


@dataclass(frozen=True)
class CompactSpec:
    """Parameters for a file compaction (bin-packing) operation.

    Args:
        target_size: Target output file size in bytes. None: the location's
            target_file_size, else the table's delta.targetFileSize, else
            100 MiB.
    """

    name: ClassVar[str] = "compact"
    target_size: int | None = None

    def execute(self, maintainer: DeltaTableMaintainer, uri: str,
                location: TableLocation) -> OptimizeResult:
        return maintainer.compact(uri, self, location)


@dataclass(frozen=True)
class ZOrderSpec:
    """Parameters for a Z-Order clustering operation.

    Args:
        columns: Columns to Z-Order by. Must be non-empty.
        target_size: Target output file size in bytes (None: as compaction).
        curve: (loom) "hilbert" (the default) or "z".
        memory: (loom) bytes (or "1GiB") for the rows of one partition;
            larger partitions are sorted externally. None: 1 GiB.
        temp_dir: (loom) where spill files go.
        spill_limit: (loom) most bytes the spills may take.
        full: (loom) also rewrite partitions already clustered this way.
    """

    name: ClassVar[str] = "z_order"
    columns: list[str] = field(default_factory=list)
    target_size: int | None = None
    curve: str | None = None
    memory: int | str | None = None
    temp_dir: str | None = None
    spill_limit: int | str | None = None
    full: bool = False

    def __post_init__(self) -> None:
        _check_flags(self, "full")

    def execute(self, maintainer: DeltaTableMaintainer, uri: str,
                location: TableLocation) -> OptimizeResult:
        return maintainer.z_order(uri, self, location)


@dataclass(frozen=True)
class PurgeSpec:
    """(loom) REORG ... APPLY (PURGE): rewrite every live file with a
    deletion vector without its deleted rows (one REORG commit).

    Args:
        partition_filters: "col=value" filters, ANDed (empty: every partition).
        target_size: most bytes a new file holds (None: as compaction).
        dry_run: list the files, write nothing (a real bool).
    """

    name: ClassVar[str] = "purge"
    partition_filters: tuple[str, ...] = ()
    target_size: int | None = None
    dry_run: bool = False

    def __post_init__(self) -> None:
        _check_flags(self, "dry_run")

    def execute(self, maintainer: Any, uri: str, location: TableLocation) -> OptimizeResult:
        result: OptimizeResult = maintainer.purge(uri, self, location)
        return result


@dataclass(frozen=True)
class AnalyzeSpec:
    """(loom) ANALYZE ... COMPUTE DELTA STATISTICS: new statistics for the
    live files without them (or missing one of `columns`), every live file
    with ``all=True``; one COMPUTE STATS commit.

    Args:
        columns: only files whose stats miss one of these (empty: every
            stats column).
        all: recompute every live file's statistics (a real bool).
        dry_run: list the files, commit nothing (a real bool).
    """

    name: ClassVar[str] = "analyze"
    columns: tuple[str, ...] = ()
    all: bool = False
    dry_run: bool = False

    def __post_init__(self) -> None:
        _check_flags(self, "all", "dry_run")

    def execute(self, maintainer: Any, uri: str, location: TableLocation) -> OptimizeResult:
        result: OptimizeResult = maintainer.analyze(uri, self, location)
        return result


@dataclass(frozen=True)
class MaintenanceSpec:
    """The ops to run, in order, against one table.

    Args:
        table_ref: Logical table reference (e.g. ``"raw.events"``).
        ops: Operations to execute against the table, in order.
    """

    table_ref: str
    ops: tuple[Any, ...] = ()


@dataclass(frozen=True)
class AutoSpec:
    """(loom) Automatic maintenance (``loom_op_auto``): per table, only what
    the health policy recommends -- Z-order or compaction, vacuum, a
    checkpoint, expired-log cleanup -- each decision in the result's
    metrics (``"<op>.ran"``: 1 or 0, and each sub-operation's metrics as
    ``"<op>.<metric>"``).

    Args:
        policy: the thresholds (:class:`libloom.health.HealthPolicy`).
        vacuum: the vacuum to run when one is recommended (None: the
            defaults, a dry run); the retention check is always on.
        compact: the compaction settings when compaction is recommended.
        z_order: the Z-order (its columns are the ones clustering is
            judged on) when one is recommended; None: the last Z-order's.

    Runs on loom's native engine only (it reads the health itself).
    """

    name: ClassVar[str] = "auto"
    policy: Any = None
    vacuum: VacuumSpec | None = None
    compact: CompactSpec | None = None
    z_order: ZOrderSpec | None = None

    def __post_init__(self) -> None:
        from ..health import HealthPolicy
        object.__setattr__(self, "policy", HealthPolicy.coerce(self.policy))
        for what, spec, kind in (("vacuum", self.vacuum, VacuumSpec),
                                 ("compact", self.compact, CompactSpec),
                                 ("z_order", self.z_order, ZOrderSpec)):
            if spec is not None and not isinstance(spec, kind):
                raise TypeError(f"AutoSpec: {what} must be a {kind.__name__} or None, "
                                f"got {type(spec).__name__}")

    def execute(self, maintainer: DeltaTableMaintainer, uri: str,
                location: TableLocation) -> OptimizeResult:
        raise TypeError("auto runs on loom's native engine (NativeMaintainer) only: it reads "
                        "the table's health and runs loom's own operations")


BUILTIN_SPECS = (VacuumSpec, CompactSpec, ZOrderSpec, PurgeSpec, AnalyzeSpec)
