"""The low-level binding: one Python function per single-table operation of
libloom, cancel tokens, sizes, and the helpers the higher layers share
(``libloom.maintenance``, ``libloom.DeltaTable``, and integrations such as
Dask that run one operation per worker).

Every operation follows the C signature ``(out, uri, loc, opts, cancel)``:

    from libloom import native
    r = native.compact("/lake/raw/events", target_size="128MiB")
    r.num_files_removed, r.metrics["numAddedBytes"]

The GIL is released while C works. Called from the main thread, an
operation runs on a helper thread so that Ctrl-C is seen at once: it
requests the operation's cancel token, waits for the operation to stop at
its next safe point (the table is left as it was), then raises
``KeyboardInterrupt``.
"""

from __future__ import annotations

import ctypes
import json
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from ctypes import byref, c_char_p, c_int, c_int64
from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import _capi
from ._capi import lib
from .errors import check
from .location import CLocation

T = TypeVar("T")

# The public binding. The other names here (option builders such as
# vacuum_opts and flag, CStrings, the cancel plumbing) are the package's
# own helpers, shared by libloom.maintenance, libloom.table and
# libloom.dask; they may change without notice.
__all__ = [
    "CancelToken", "OpResult", "checkpoint", "cleanup_logs", "commit_plan", "compact", "convert",
    "analyze", "execute_unit", "format_size", "parse_size", "plan_compact", "plan_unit_count",
    "plan_zorder", "purge", "vacuum", "version", "zorder",
]

# ---- sizes and curves --------------------------------------------------------------


def parse_size(value: int | str | None, what: str = "size") -> int:
    """Bytes from an int or a string with a unit ("128MiB", "1GB",
    "1.5 GiB": KB/MB/GB/TB are powers of 1000, KiB/MiB/... of 1024); 0 for
    None. ValueError for anything else, TypeError for other types."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"{what}: expected bytes (int) or a size like '128MiB', "
                        f"got {type(value).__name__}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"{what}: {value} is negative")
        return value
    out = c_int64()
    if lib.loom_size_parse(byref(out), _capi.cstr(value)) < 0:
        raise ValueError(f"{what}: '{value}' is not a size (use bytes or a unit like 128MiB)")
    return out.value


def format_size(nbytes: int) -> str:
    """'512 B', '12.3 MiB' ... as loom prints sizes."""
    buf = ctypes.create_string_buffer(32)
    lib.loom_size_format(buf, len(buf), int(nbytes))
    return buf.value.decode()


def curve_value(curve: str | None) -> int:
    """The C curve for "z" (also "zorder", "morton"), "hilbert", "auto" or
    None (the engine's choice)."""
    if curve is None:
        return _capi.LOOM_ZORDER_CURVE_AUTO
    out = c_int()
    if not isinstance(curve, str) or \
            lib.loom_zorder_curve_from_name(byref(out), _capi.cstr(curve)) < 0:
        raise ValueError(f"curve: expected 'z' or 'hilbert', got {curve!r}")
    return out.value


def curve_name(value: int) -> str:
    return _capi.text(lib.loom_zorder_curve_name(value)) or "?"


def version() -> str:
    """The C library's version, e.g. "1.0.0"."""
    return _capi.text(lib.loom_version()) or ""


# ---- cancellation ---------------------------------------------------------------------


class CancelToken:
    """A ``loom_cancel``: operations given it stop at their next safe point
    once :meth:`request` was called (from any thread)."""

    def __init__(self) -> None:
        ptr = _capi.loom_cancel_p()
        check(lib.loom_cancel_new(byref(ptr)))
        self._handle: int | None = _capi.handle(ptr)

    @property
    def handle(self) -> int | None:
        return self._handle

    def request(self) -> None:
        lib.loom_cancel_request(self._handle)

    def reset(self) -> None:
        lib.loom_cancel_reset(self._handle)

    @property
    def requested(self) -> bool:
        return bool(lib.loom_cancel_requested(self._handle))

    def close(self) -> None:
        if getattr(self, "_handle", None):
            lib.loom_cancel_free(self._handle)
            self._handle = None

    def __enter__(self) -> CancelToken:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()  # a safety net: close() or ``with`` free it at once


# The cancel token of the runner op a C worker thread is executing, so an
# operation a custom Python op starts (maintainer.vacuum(...)) stops with
# the run. Keyed by OS thread id: ctypes may give a C thread a new Python
# thread state for every callback, so threading.local would not survive.
_ambient_cancel: dict[int, int | None] = {}


def set_ambient_cancel(handle: int | None) -> None:
    if handle:
        _ambient_cancel[threading.get_native_id()] = handle
    else:
        _ambient_cancel.pop(threading.get_native_id(), None)


def ambient_cancel() -> int | None:
    return _ambient_cancel.get(threading.get_native_id())


def call_cancellable(fn: Callable[[], T], cancel: Callable[[], None]) -> T:
    """Run `fn` (which calls into C). On the main thread it runs on a helper
    thread and the main thread waits, so Ctrl-C arrives at once: `cancel`
    is called, the C work is waited for, and KeyboardInterrupt re-raised
    (with the work's own outcome as its context). Elsewhere `fn` runs
    directly."""
    if threading.current_thread() is not threading.main_thread():
        return fn()
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc
        finally:
            done.set()

    # SIGINT is held while the helper starts (a KeyboardInterrupt inside
    # Thread.start would escape with the work running), and the helper and
    # the C threads it makes inherit the block, so the signal reaches this
    # thread once it waits. An Event, not Thread.join: a join interrupted by
    # Ctrl-C marks the thread finished while it still runs (CPython 3.11).
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    held: set[int | signal.Signals] | None = mask
    try:
        threading.Thread(target=target, name="libloom-call", daemon=True).start()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        raise
    interrupted: KeyboardInterrupt | None = None
    while not done.is_set():
        try:
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                held = None
            done.wait(0.05)
        except KeyboardInterrupt as exc:
            if interrupted is None:
                interrupted = exc
                cancel()
    if interrupted is not None:
        if "error" in box:
            raise interrupted from box["error"]
        interrupted.result = box.get("value")  # type: ignore[attr-defined]
        raise interrupted
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


# ---- results -------------------------------------------------------------------------


@dataclass
class OpResult:
    """What one operation did (``loom_op_result``).

    Attributes:
        kind: "vacuum", "optimize" (compaction, Z-order, most custom ops)
            or "none".
        files_deleted: vacuum: paths relative to the table root, deleted or
            (dry run) to delete.
        dry_run: nothing was changed.
        num_files_added / num_files_removed: optimize: files written and
            replaced.
        metrics: every other number the operation reports (bytes, the
            committed version, Spark's OPTIMIZE metrics ...).
    """

    kind: str = "none"
    files_deleted: list[str] = field(default_factory=list)
    dry_run: bool = False
    num_files_added: int = 0
    num_files_removed: int = 0
    metrics: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_c(cls, r: _capi.loom_op_result) -> OpResult:
        kinds = {_capi.LOOM_RESULT_VACUUM: "vacuum", _capi.LOOM_RESULT_OPTIMIZE: "optimize"}
        return cls(
            kind=kinds.get(r.kind, "none"),
            files_deleted=[_capi.text(r.files_deleted[i]) or "" for i in range(r.n_files_deleted)],
            dry_run=bool(r.dry_run),
            num_files_added=r.num_files_added,
            num_files_removed=r.num_files_removed,
            metrics={(_capi.text(r.metrics[i].name) or ""): r.metrics[i].value
                     for i in range(r.n_metrics)},
        )


def fill_c_result(out: Any, result: Any) -> None:
    """Copy a Python result (anything with ``files_deleted``, or with
    ``num_files_added`` / ``num_files_removed``; an optional ``metrics``
    mapping of integers; an optional ``dry_run``) into a C
    ``loom_op_result *``. TypeError for anything else."""
    r = out.contents
    has_files = hasattr(result, "files_deleted")
    has_counts = hasattr(result, "num_files_added") or hasattr(result, "num_files_removed")
    if not has_files and not has_counts:
        raise TypeError(f"an operation must return a VacuumResult or an OptimizeResult, "
                        f"got {type(result).__name__}")
    if has_files:
        for path in result.files_deleted or ():
            check(lib.loom_op_result_add_deleted(out, _capi.cstr(str(path))))
        r.kind = _capi.LOOM_RESULT_VACUUM
    else:
        r.kind = _capi.LOOM_RESULT_OPTIMIZE
        r.num_files_added = int(getattr(result, "num_files_added", 0) or 0)
        r.num_files_removed = int(getattr(result, "num_files_removed", 0) or 0)
    r.dry_run = int(bool(getattr(result, "dry_run", False)))
    metrics = getattr(result, "metrics", None)
    if isinstance(metrics, dict):
        for name, value in metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                check(lib.loom_op_result_set_metric(out, _capi.cstr(str(name)), int(value)))


# ---- options --------------------------------------------------------------------------


def flag(value: Any, what: str) -> int:
    """0 or 1 for a real ``bool``. Switches such as ``dry_run`` decide
    whether files are deleted, so nothing else is read as one: ``None``,
    ``0`` or ``"false"`` would otherwise pass through ``bool()`` as a
    silent guess (``bool("false")`` is True). TypeError naming `what`."""
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be a bool (True or False), "
                        f"got {type(value).__name__} {value!r}")
    return int(value)



def vacuum_opts(retention_hours: int | None = None, dry_run: bool = True, full: bool = False,
                retention_check: bool = True) -> _capi.loom_vacuum_opts:
    o = _capi.loom_vacuum_opts()
    check(lib.loom_vacuum_opts_init(byref(o), _capi.LOOM_VACUUM_OPTS_VERSION))
    if retention_hours is not None:
        if isinstance(retention_hours, bool) or not isinstance(retention_hours, int):
            raise TypeError(f"retention_hours: expected an int or None, "
                            f"got {type(retention_hours).__name__}")
        if retention_hours < 0:
            raise ValueError(f"retention_hours {retention_hours} is negative")
        o.retention_hours = retention_hours
    o.dry_run = flag(dry_run, "dry_run")
    o.full = flag(full, "full")
    o.retention_check = flag(retention_check, "retention_check")
    return o


class CStrings:
    """A ``const char *const *`` array kept alive with its strings."""

    def __init__(self, items: Iterable[str]) -> None:
        self.items = [_capi.cstr(str(s)) for s in items]
        self.array = (c_char_p * max(len(self.items), 1))(*self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def ptr(self) -> Any:
        return ctypes.cast(self.array, ctypes.POINTER(c_char_p)) if self.items else None


def compact_opts(target_size: int | str | None = None, dry_run: bool = False,
                 filters: CStrings | None = None) -> _capi.loom_compact_opts:
    o = _capi.loom_compact_opts()
    check(lib.loom_compact_opts_init(byref(o), _capi.LOOM_COMPACT_OPTS_VERSION))
    o.target_size = parse_size(target_size, "target_size")
    o.dry_run = flag(dry_run, "dry_run")
    if filters is not None and len(filters):
        o.partition_filters = filters.ptr
        o.n_partition_filters = len(filters)
    return o


def zorder_opts(columns: CStrings, target_size: int | str | None = None,
                curve: str | None = None, memory: int | str | None = None,
                temp_dir: bytes | None = None, spill_limit: int | str | None = None,
                full: bool = False, dry_run: bool = False) -> _capi.loom_zorder_opts:
    o = _capi.loom_zorder_opts()
    check(lib.loom_zorder_opts_init(byref(o), _capi.LOOM_ZORDER_OPTS_VERSION))
    o.columns = columns.ptr
    o.n_columns = len(columns)
    o.target_size = parse_size(target_size, "target_size")
    o.curve = curve_value(curve)
    o.memory_budget = parse_size(memory, "memory")
    o.temp_dir = temp_dir
    o.spill_limit = parse_size(spill_limit, "spill_limit")
    o.full = flag(full, "full")
    o.dry_run = flag(dry_run, "dry_run")
    return o


def purge_opts(target_size: int | str | None = None, dry_run: bool = False,
               filters: CStrings | None = None) -> _capi.loom_purge_opts:
    o = _capi.loom_purge_opts()
    check(lib.loom_purge_opts_init(byref(o), _capi.LOOM_PURGE_OPTS_VERSION))
    o.target_size = parse_size(target_size, "target_size")
    o.dry_run = flag(dry_run, "dry_run")
    if filters is not None and len(filters):
        o.partition_filters = filters.ptr
        o.n_partition_filters = len(filters)
    return o


def analyze_opts(columns: CStrings | None = None, all: bool = False,
                 dry_run: bool = False) -> _capi.loom_analyze_opts:
    o = _capi.loom_analyze_opts()
    check(lib.loom_analyze_opts_init(byref(o), _capi.LOOM_ANALYZE_OPTS_VERSION))
    o.all = flag(all, "all")
    o.dry_run = flag(dry_run, "dry_run")
    if columns is not None and len(columns):
        o.columns = columns.ptr
        o.n_columns = len(columns)
    return o


def column_list(columns: Sequence[str], what: str = "z_order_by") -> list[str]:
    """A non-empty list of column names; a bare string is refused (it would
    be read as one column per character)."""
    if isinstance(columns, (str, bytes)):
        raise TypeError(f"{what}: columns must be a list of names, not a string")
    cols = list(columns)
    if not all(isinstance(c, str) for c in cols):
        raise TypeError(f"{what}: every column name must be a string")
    return cols


# ---- single-table operations ------------------------------------------------------


def _run(fn: Any, uri: str, location: Any, opts: Any, cancel: CancelToken | None,
         keep: Any = None) -> OpResult:
    """Call one single-table operation. `keep` holds what `opts` points to
    (column arrays, callbacks) alive for the call."""
    loc = CLocation.of(location, uri)
    handle = cancel.handle if cancel is not None else ambient_cancel()
    own = None
    if handle is None:
        own = CancelToken()
        handle = own.handle
    c_uri = _capi.cstr(uri)

    def call() -> OpResult:
        res = _capi.loom_op_result(version=_capi.LOOM_OP_RESULT_VERSION)
        try:
            check(fn(byref(res), c_uri, loc.ptr if loc else None,
                     byref(opts) if opts is not None else None, handle))
            return OpResult.from_c(res)
        finally:
            lib.loom_op_result_free(byref(res))

    def cancel_it() -> None:
        lib.loom_cancel_request(handle)

    try:
        return call_cancellable(call, cancel_it)
    finally:
        if own is not None:
            own.close()


def vacuum(uri: str, *, location: Any = None, retention_hours: int | None = None,
           dry_run: bool = True, full: bool = False, retention_check: bool = True,
           cancel: CancelToken | None = None) -> OpResult:
    """VACUUM (``loom_vacuum``): delete files no retained version needs.
    A dry run (the default) only lists them."""
    return _run(lib.loom_vacuum, uri, location,
                vacuum_opts(retention_hours, dry_run, full, retention_check), cancel)


class _CompactProgress:
    def __init__(self, fn: Callable[[int, int, int, int], Any]) -> None:
        self.fn = fn
        self.errors: list[BaseException] = []
        self.c_fn = _capi.COMPACT_PROGRESS_FN(self._call)

    def _call(self, ctx: Any, bins_done: int, bins_total: int, bytes_done: int,
              bytes_total: int) -> None:
        try:
            self.fn(bins_done, bins_total, bytes_done, bytes_total)
        except Exception as exc:  # a progress display must not stop maintenance
            self.errors.append(exc)


def compact(uri: str, *, location: Any = None, target_size: int | str | None = None,
            dry_run: bool = False, partition_filters: Sequence[str] = (),
            progress: Callable[[int, int, int, int], Any] | None = None,
            cancel: CancelToken | None = None) -> OpResult:
    """OPTIMIZE compaction (``loom_compact``). `partition_filters` are
    "col=value" strings, ANDed; `progress(bins_done, bins_total, bytes_done,
    bytes_total)` is called from worker threads after each bin."""
    filters = CStrings(partition_filters)
    opts = compact_opts(target_size, dry_run, filters)
    prog = _CompactProgress(progress) if progress else None
    if prog:
        opts.progress = prog.c_fn
    result = _run(lib.loom_compact, uri, location, opts, cancel, keep=(filters, prog))
    if prog and prog.errors:
        warnings.warn(f"compact progress callback raised: {prog.errors[0]!r}", RuntimeWarning,
                      stacklevel=2)
    return result


def zorder(uri: str, columns: Sequence[str], *, location: Any = None,
           target_size: int | str | None = None, curve: str | None = None,
           memory: int | str | None = None, temp_dir: str | None = None,
           spill_limit: int | str | None = None, full: bool = False, dry_run: bool = False,
           cancel: CancelToken | None = None) -> OpResult:
    """Z-ORDER clustering (``loom_zorder``) along the "hilbert" (default) or
    "z" curve; partitions over `memory` are sorted through spill files in
    `temp_dir`, at most `spill_limit` bytes."""
    cols = CStrings(column_list(columns))
    tmp = _capi.cstr(temp_dir) if temp_dir is not None else None
    opts = zorder_opts(cols, target_size, curve, memory, tmp, spill_limit, full, dry_run)
    return _run(lib.loom_zorder, uri, location, opts, cancel, keep=(cols, tmp))


def purge(uri: str, *, location: Any = None, partition_filters: Sequence[str] = (),
          target_size: int | str | None = None, dry_run: bool = False,
          cancel: CancelToken | None = None) -> OpResult:
    """REORG ... APPLY (PURGE) (``loom_purge``): rewrite every live file
    with a deletion vector (in the partitions the "col=value" filters
    select) without its deleted rows; one REORG commit. The old files stay
    on storage until a VACUUM after the retention removes them."""
    filters = CStrings(column_list(partition_filters, "purge: partition_filters"))
    return _run(lib.loom_purge, uri, location, purge_opts(target_size, dry_run, filters), cancel,
                keep=filters)


def analyze(uri: str, *, location: Any = None, columns: Sequence[str] = (), all: bool = False,
            dry_run: bool = False, cancel: CancelToken | None = None) -> OpResult:
    """ANALYZE ... COMPUTE DELTA STATISTICS (``loom_analyze``): new
    statistics for the live files without them or missing a stats column
    (only `columns`, when given), or every live file with ``all=True``;
    one COMPUTE STATS commit re-stating the same files."""
    cols = CStrings(column_list(columns, "analyze: columns"))
    return _run(lib.loom_analyze, uri, location, analyze_opts(cols, all, dry_run), cancel,
                keep=cols)


# ---- plan / execute(unit) / commit (loom/distributed.h) -------------------------------
#
# OPTIMIZE and Z-order in three steps that may run in different processes
# and machines; plans and results are JSON text (plain str: they pickle).
# libloom.dask drives them on a Dask cluster.


def plan_compact(uri: str, *, location: Any = None, target_size: int | str | None = None,
                 partition_filters: Sequence[str] = (), units: int = 0,
                 copy_row_group_min: int | str | None = None) -> str:
    """A compaction plan of the table (``loom_dist_plan_compact``): about `units`
    units (0: one per partition with files to rewrite). `copy_row_group_min`:
    as ``loom compact --copy-row-group-min`` (a size, or "off": re-encode
    every row group). Changes nothing."""
    filters = CStrings(partition_filters)
    opts = compact_opts(target_size, False, filters)
    if copy_row_group_min == "off":
        opts.copy_row_group_min_size = -1
    elif copy_row_group_min is not None:
        opts.copy_row_group_min_size = parse_size(copy_row_group_min, "copy_row_group_min")
    loc = CLocation.of(location, uri)
    out = ctypes.c_void_p()
    check(lib.loom_dist_plan_compact(byref(out), _capi.cstr(uri), loc.ptr if loc else None,
                                byref(opts), max(int(units), 0)))
    return _capi.take_string(out)


def plan_zorder(uri: str, columns: Sequence[str], *, location: Any = None,
                target_size: int | str | None = None, curve: str | None = None,
                memory: int | str | None = None, full: bool = False, units: int = 0) -> str:
    """A Z-order plan (``loom_dist_plan_zorder``): every partition to rewrite is
    sampled here once; about `units` key-range units in all (0: one per GiB
    of a partition). Changes nothing."""
    cols = CStrings(column_list(columns))
    opts = zorder_opts(cols, target_size, curve, memory, None, None, full, False)
    loc = CLocation.of(location, uri)
    out = ctypes.c_void_p()
    check(lib.loom_dist_plan_zorder(byref(out), _capi.cstr(uri), loc.ptr if loc else None,
                               byref(opts), max(int(units), 0)))
    return _capi.take_string(out)


def plan_unit_count(plan: str) -> int:
    n = ctypes.c_size_t()
    check(lib.loom_dist_unit_count(byref(n), _capi.cstr(plan)))
    return n.value


def execute_unit(plan: str, unit: int, *, location: Any = None, threads: int = 0,
                 cancel: CancelToken | None = None) -> str:
    """Execute one unit of a plan (``loom_dist_execute_unit``): new files
    written, their add/remove actions and metrics returned as JSON text;
    nothing committed. `location`'s storage options (or the environment)
    give the credentials; the table is the plan's."""
    loc = CLocation.of(location, json.loads(plan)["table"]) if location is not None else None
    handle = cancel.handle if cancel is not None else ambient_cancel()
    c_plan = _capi.cstr(plan)

    def call() -> str:
        out = ctypes.c_void_p()
        check(lib.loom_dist_execute_unit(byref(out), c_plan, int(unit), loc.ptr if loc else None,
                                         max(int(threads), 0), handle))
        return _capi.take_string(out)

    def cancel_it() -> None:
        if handle:
            lib.loom_cancel_request(handle)

    return call_cancellable(call, cancel_it)


def commit_plan(plan: str, results: Sequence[str], *, location: Any = None) -> OpResult:
    """Commit unit results of a plan in one commit (``loom_dist_commit``),
    conflict-checked against the plan's read version: LoomConflict names
    the version that won."""
    loc = CLocation.of(location, json.loads(plan)["table"]) if location is not None else None
    texts = CStrings(results)
    res = _capi.loom_op_result(version=_capi.LOOM_OP_RESULT_VERSION)
    try:
        check(lib.loom_dist_commit(byref(res), _capi.cstr(plan), texts.ptr, len(texts),
                                   loc.ptr if loc else None))
        return OpResult.from_c(res)
    finally:
        lib.loom_op_result_free(byref(res))


def checkpoint(uri: str, *, location: Any = None, version: int | None = None,
               cancel: CancelToken | None = None) -> OpResult:
    """Write a checkpoint of the latest (or the given) version."""
    o = _capi.loom_checkpoint_opts(_capi.LOOM_CHECKPOINT_OPTS_VERSION,
                                   -1 if version is None else int(version))
    return _run(lib.loom_checkpoint, uri, location, o, cancel)


def cleanup_logs(uri: str, *, location: Any = None, dry_run: bool = True, force: bool = False,
                 retention_hours: int | None = None,
                 cancel: CancelToken | None = None) -> OpResult:
    """Delete expired log files (dry run by default)."""
    o = _capi.loom_cleanup_logs_opts(_capi.LOOM_CLEANUP_LOGS_OPTS_VERSION,
                                     flag(dry_run, "dry_run"), flag(force, "force"),
                                     -1 if retention_hours is None else int(retention_hours))
    return _run(lib.loom_cleanup_logs, uri, location, o, cancel)


def convert(uri: str, *, location: Any = None, partition_by: Sequence[str] = (),
            cancel: CancelToken | None = None) -> OpResult:
    """CONVERT TO DELTA: make the Parquet files under `uri` a Delta table."""
    cols = CStrings(column_list(partition_by, "partition_by") if partition_by else ())
    o = _capi.loom_convert_opts(_capi.LOOM_CONVERT_OPTS_VERSION, cols.ptr, len(cols))
    return _run(lib.loom_convert, uri, location, o, cancel, keep=cols)
