"""MaintenanceRunner, MaintenanceReport, MaintenanceError.

The runner is libloom's C runner (``loom_runner``): tables run in
declaration order (concurrently on ``jobs`` worker threads when asked),
the first error of a table is captured and the run goes on with the next
table. While it runs the GIL is released; Ctrl-C cancels the run between
files (the table being rewritten is left as it was) and raises
KeyboardInterrupt, whose ``report`` attribute holds what was done.
"""

from __future__ import annotations

import ctypes
import json
import logging
from ctypes import byref
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .. import _capi, native, observe
from .._capi import lib
from ..config import ConfigLocator, StorageConfig
from ..errors import LoomError, MissingTableError, check, error_for
from . import _cbridge
from ._builder import _AUTO_SETTING, MaintainSchema
from ._maintainer import NativeMaintainer
from ._specs import (
    AutoSpec,
    CompactSpec,
    MaintenanceSpec,
    OptimizeResult,
    TableMaintenanceResult,
    VacuumResult,
    VacuumSpec,
    ZOrderSpec,
)
from ._step import MaintenanceStep


class MaintenanceError(Exception):
    """Raised by MaintenanceReport.raise_if_errors() when any table failed
    (or the run was cancelled).

    Args:
        failed: the failed tables' results.
        cancelled: (loom) the run was cancelled: tables it had not started
            are in the report as skipped, not in `failed`.
    """

    def __init__(self, failed: list[TableMaintenanceResult], *, cancelled: bool = False) -> None:
        self.failed = failed
        self.cancelled = cancelled
        refs = [r.table_ref for r in failed]
        details = "".join(f"\n  {r.table_ref}: {r.error}" for r in failed)
        head = "Maintenance cancelled; " if cancelled else ""
        super().__init__(f"{head}Maintenance failed for {len(failed)} table(s): {refs}{details}")

    def __reduce__(self) -> tuple[Any, ...]:
        return _maintenance_error, (self.failed, self.cancelled), dict(self.__dict__)


def _maintenance_error(failed: list[TableMaintenanceResult], cancelled: bool) -> MaintenanceError:
    return MaintenanceError(failed, cancelled=cancelled)


@dataclass
class MaintenanceReport:
    """Aggregate result of a maintenance run.

    Args:
        results: Per-table outcomes (one entry per table processed).
        step: (loom) the step's name.
        cancelled: (loom) the run was cancelled (Ctrl-C, cancel()).
        warnings: (loom) notes that are not failures, e.g. a schema
            matching no route.
        duration_seconds: (loom) wall time of the run.
        json: (loom) the C library's JSON report ("loom.report/1", see
            docs/report-schema.md), for reports of a run.
        text: (loom) its human summary.
    """

    results: list[TableMaintenanceResult] = field(default_factory=list)
    step: str = ""
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)
    duration_seconds: float = 0.0
    json: str | None = field(default=None, repr=False)
    text: str | None = field(default=None, repr=False)

    @property
    def has_errors(self) -> bool:
        """True when at least one table reported an error (or the run was
        cancelled: some tables were not maintained)."""
        return self.cancelled or any(not r.ok for r in self.results)

    def raise_if_errors(self) -> None:
        """Raise MaintenanceError if any table failed (or the run was
        cancelled), so ``has_errors`` and this always agree.

        Useful as a Prefect flow gate::

            report = runner.run(NightlyMaintenance)
            report.raise_if_errors()
        """
        failed = [r for r in self.results if not r.ok]
        if failed or self.cancelled:
            raise MaintenanceError(failed, cancelled=self.cancelled)

    def to_json(self) -> str:
        """(loom) the JSON report of the run (docs/report-schema.md)."""
        if self.json is None:
            raise ValueError("this report did not come from a run: it has no JSON form")
        return self.json

    def to_dict(self) -> dict[str, Any]:
        return dict(json.loads(self.to_json()))

    def __str__(self) -> str:
        return self.text if self.text is not None else repr(self)


@dataclass(frozen=True)
class ProgressEvent:
    """(loom) One event of a run, passed to the ``progress`` callback.

    Attributes:
        event: "table_start", "op_start", "op_done" or "table_done".
        table_ref, op_name (op events), table_index / table_count (the
        table's place in the report), error_code (``*_done``: 0 or the
        LOOM_E* code), skipped (``table_done``), seconds (``*_done``).
    """

    event: str
    table_ref: str
    op_name: str | None
    table_index: int
    table_count: int
    error_code: int
    skipped: bool
    seconds: float


_EVENTS = {_capi.LOOM_PROGRESS_TABLE_START: "table_start", _capi.LOOM_PROGRESS_OP_START: "op_start",
           _capi.LOOM_PROGRESS_OP_DONE: "op_done", _capi.LOOM_PROGRESS_TABLE_DONE: "table_done"}

_POLICIES = {"skip": _capi.LOOM_MISSING_SKIP, "error": _capi.LOOM_MISSING_STOP}


class _AllRoutes:
    """The maintenance block without schemas: every tables[] route (used
    only when the block runs on a Python maintainer or locator)."""

    def __init__(self, ops: tuple[Any, ...]) -> None:
        self.ops = ops

    def resolve(self, config: StorageConfig) -> list[MaintenanceSpec]:
        return [MaintenanceSpec(r.name, self.ops) for r in config.tables]


class MaintenanceRunner:
    """Execute a MaintenanceStep against Delta tables.

    Construct via :meth:`from_config` for loom's native engine::

        runner = MaintenanceRunner.from_config(config)
        report = runner.run(NightlyMaintenance)
        report.raise_if_errors()

    Args:
        maintainer: Backend implementation (default: NativeMaintainer, C).
            Any DeltaTableMaintainer works; its methods are called from the
            runner's worker threads.
        locator: Resolves logical table refs to TableLocation (anything with
            ``locate(TableRef)``); None or ``config.to_path_locator()``: the
            config's own routes, resolved in C.
        config: Full storage config (a StorageConfig, a path to a storage
            YAML, its parsed mapping, or loom-py's StorageConfig).
        missing_table_policy: "skip" reports tables not in the config (or
            not yet Delta tables) as skipped; "error" raises at the first
            one (tables before it ran; none after it starts).
        jobs: (loom) tables maintained concurrently (default 1).
        progress: (loom) called with a ProgressEvent as tables and ops
            start and finish (from worker threads).
        log: (loom) a logging.Logger that gets the run's events as
            ``loom maintain --log-format json`` writes them: one record per
            event, its message the JSON line, ``record.loom_event`` the
            parsed object (libloom.observe; docs/observability.md).
    """

    def __init__(self, maintainer: Any, locator: Any, config: Any, *,
                 missing_table_policy: Literal["skip", "error"] = "skip", jobs: int = 1,
                 progress: Callable[[ProgressEvent], Any] | None = None,
                 log: logging.Logger | None = None) -> None:
        if missing_table_policy not in _POLICIES:
            raise ValueError(f"missing_table_policy must be 'skip' or 'error', "
                             f"got {missing_table_policy!r}")
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
            raise ValueError(f"jobs must be an int >= 0 (0: one per CPU), got {jobs!r}")
        self._config = StorageConfig.coerce(config)
        self._maintainer = maintainer if maintainer is not None else NativeMaintainer()
        self._native = type(self._maintainer) is NativeMaintainer
        own = locator is None or (isinstance(locator, ConfigLocator) and
                                  locator.config is self._config)
        self._locator = None if own else locator
        self._missing_table_policy = missing_table_policy
        self._progress = progress
        self._log = log
        handle = _capi.loom_runner_p()
        check(lib.loom_runner_from_config(byref(handle), self._config.handle, None,
                                          _POLICIES[missing_table_policy]))
        self._handle: int | None = _capi.handle(handle)
        check(lib.loom_runner_set_jobs(self._handle, jobs))

    @classmethod
    def from_config(cls, config: Any, *, missing_table_policy: Literal["skip", "error"] = "skip",
                    jobs: int = 1,
                    progress: Callable[[ProgressEvent], Any] | None = None,
                    log: logging.Logger | None = None) -> MaintenanceRunner:
        """Build a runner on loom's native engine from a StorageConfig (or a
        path to a storage YAML, or its parsed mapping).

        Raises:
            ValueError: If config has no path routes configured (only
                catalog refs, which loom cannot maintain).
        """
        cfg = StorageConfig.coerce(config)
        return cls(NativeMaintainer(), cfg.to_path_locator(), cfg,
                   missing_table_policy=missing_table_policy, jobs=jobs, progress=progress,
                   log=log)

    @property
    def config(self) -> StorageConfig:
        return self._config

    @property
    def maintainer(self) -> Any:
        return self._maintainer

    def close(self) -> None:
        if getattr(self, "_handle", None):
            lib.loom_runner_free(self._handle)
            self._handle = None

    def __del__(self) -> None:
        self.close()

    def cancel(self) -> None:
        """(loom) Stop a run in progress (from any thread): no table or op
        starts any more, and running ops stop at their next safe point."""
        if self._handle:
            lib.loom_runner_cancel(self._handle)

    # ---- running ----------------------------------------------------------------------

    def run(self, step_cls: Any, params: Any = None) -> MaintenanceReport:
        """Execute all operations declared on `step_cls` (a MaintenanceStep
        subclass, or an instance). MaintainSchema entries are expanded
        against the config at run time."""
        step = step_cls() if isinstance(step_cls, type) else step_cls
        if not isinstance(step, MaintenanceStep) and not hasattr(step, "operations_for"):
            raise TypeError(f"run: expected a MaintenanceStep subclass, got {step_cls!r}")
        decls = step.operations_for(params)
        if not isinstance(decls, list):
            raise TypeError(f"{type(step).__name__}.operations_for must return a list, "
                            f"got {type(decls).__name__}")
        return self._run(type(step).__name__, decls, None)

    def run_from_config(self) -> MaintenanceReport:
        """Execute maintenance using the config's ``maintenance`` block: its
        vacuum / compact / z_order_by over the tables of its schemas (every
        route when it lists none). Schemas with no operation: one result per
        table they match, with no op_results (as loom-py). An empty report
        (with a warning saying why) when there is no block, or it has
        neither schemas nor operations.

        Raises:
            ValueError: the block schedules both compact and z_order_by
                (the config loads; the block cannot run).
        """
        self._config.maintenance.check_runnable()
        if self._native and self._locator is None:
            return self._run("maintenance", None, lib.loom_runner_run_from_config)
        mc = self._config.maintenance
        if not mc.schedules_ops:
            return self._run("maintenance", None, lib.loom_runner_run_from_config)
        ops: list[Any] = []
        if mc.vacuum is not None:
            ops.append(VacuumSpec(mc.vacuum.retention_hours, mc.vacuum.dry_run, mc.vacuum.full))
        if mc.compact:
            ops.append(CompactSpec(mc.compact_target_size))
        if mc.z_order_by:
            zo = mc.z_order_options
            ops.append(ZOrderSpec(list(mc.z_order_by), zo.get("target_size"), zo.get("curve"),
                                  zo.get("memory"), zo.get("temp_dir"), zo.get("spill_limit"),
                                  bool(zo.get("full"))))
        if mc.auto is not None:   # the block's ops are auto's settings
            settings = {_AUTO_SETTING[type(op)]: op for op in ops}
            ops = [AutoSpec(policy=mc.auto, **settings)]
        decls: list[Any] = []
        for schema in mc.schemas:
            d = MaintainSchema(schema)
            for op in ops:
                d._add(op)
            decls.append(d)
        return self._run("maintenance", decls or [_AllRoutes(tuple(ops))], None)

    def _run(self, name: str, decls: list[Any] | None, c_run: Any) -> MaintenanceReport:
        if not self._handle:
            raise ValueError("the runner was closed")
        user_progress = self._progress
        events = observe.EventLog(self._log) if self._log is not None else None

        def on_progress(p: Any) -> None:
            if events is not None:
                events.progress(p)
            if user_progress is not None:
                user_progress(_event(p))

        run = _cbridge.Run(self._config, self._maintainer, self._native, self._locator,
                           on_progress if user_progress or events else None)
        step = None
        report = _capi.loom_report_p()
        try:
            if self._locator is not None:
                check(lib.loom_runner_set_locator(self._handle, _cbridge._locate,
                                                  _cbridge._release, run.id))
            check(lib.loom_runner_set_progress(self._handle, _cbridge._progress, run.id))
            if decls is not None:
                step = run.c_step(name, decls)

            def call() -> None:
                if step is not None:
                    check(lib.loom_runner_run(byref(report), self._handle, step, None))
                else:
                    check(c_run(byref(report), self._handle))

            lib.loom_runner_reset_cancel(self._handle)
            if events is not None:
                events.run_start(name)
            try:
                native.call_cancellable(call, self.cancel)
            except KeyboardInterrupt as exc:
                if report.value:
                    setattr(exc, "report", self._report(report.value, run))
                raise
            except LoomError:
                if run.resolve_error is not None:   # a Python resolve raised: that error
                    raise run.resolve_error from None
                raise
            if events is not None:
                events.run_end(_capi.handle(report))
            result = self._report(_capi.handle(report), run)
            if run.progress_errors:
                result.warnings.append(f"the progress callback raised: {run.progress_errors[0]!r}")
            stopped = lib.loom_report_stopped_at(report)
            if stopped >= 0:
                exc2 = result.results[stopped].error
                if exc2 is not None:
                    try:
                        setattr(exc2, "report", result)
                    except AttributeError:
                        pass
                    raise exc2
            return result
        finally:
            lib.loom_runner_set_locator(self._handle, _capi.null_fn(_capi.LOCATE_FN),
                                        _capi.null_fn(_capi.LOCATION_RELEASE_FN), None)
            lib.loom_runner_set_progress(self._handle, _capi.null_fn(_capi.PROGRESS_FN), None)
            if report.value:
                lib.loom_report_free(report.value)
            if step is not None:
                lib.loom_step_free(step)
            if events is not None:
                events.close()
            run.close()

    # ---- the report ------------------------------------------------------------------------

    def _report(self, rep: int, run: _cbridge.Run) -> MaintenanceReport:
        results = []
        for i in range(lib.loom_report_count(rep)):
            t = lib.loom_report_at(rep, i)
            ref = _capi.text(lib.loom_table_result_ref(t)) or ""
            ops: dict[str, Any] = {}
            for j in range(lib.loom_table_result_op_count(t)):
                name = _capi.text(lib.loom_table_result_op_name_at(t, j)) or ""
                held = run.py_results.get((i, name))
                ops[name] = held if held is not None else _py_result(
                    native.OpResult.from_c(lib.loom_table_result_op_at(t, j).contents))
            failed_op = _capi.text(lib.loom_table_result_failed_op(t))
            code = lib.loom_table_result_error_code(t)
            error: Exception | None = None
            if code:
                error = _table_error(t, code, failed_op, run, i, ref)
            results.append(TableMaintenanceResult(
                table_ref=ref, op_results=ops, error=error,
                duration_seconds=lib.loom_table_result_duration_seconds(t),
                uri=_capi.text(lib.loom_table_result_uri(t)),
                skipped=bool(lib.loom_table_result_skipped(t)),
                skip_reason=_capi.text(lib.loom_table_result_skip_reason(t)),
                failed_op=failed_op))
        out = ctypes.c_void_p()
        check(lib.loom_report_to_json(byref(out), rep))
        js = _capi.take_string(out)
        check(lib.loom_report_to_text(byref(out), rep))
        txt = _capi.take_string(out)
        doc = json.loads(js)
        return MaintenanceReport(
            results=results, step=doc.get("step", ""),
            cancelled=bool(lib.loom_report_cancelled(rep)),
            warnings=[_capi.text(lib.loom_report_warning_at(rep, k)) or ""
                      for k in range(lib.loom_report_warning_count(rep))],
            duration_seconds=float(doc.get("duration_seconds", 0.0)), json=js, text=txt)


def _table_error(t: int, code: int, failed_op: str | None, run: _cbridge.Run, index: int,
                 ref: str) -> Exception:
    """The Python exception of a failed table: the one a Python op, resolve
    or locator raised when there was one, else loom's error."""
    if failed_op is not None:
        held = run.py_errors.get((index, failed_op))
        if isinstance(held, Exception):
            return held
    elif ref in run.locate_errors and isinstance(run.locate_errors[ref], Exception):
        return run.locate_errors[ref]  # type: ignore[return-value]
    message = _capi.text(lib.loom_table_result_error_message(t)) or ""
    klass = lib.loom_table_result_error_class(t)
    cls = MissingTableError if failed_op is None and code == _capi.LOOM_ENOTFOUND else None
    return error_for(code, message, klass, cls)


def _py_result(r: native.OpResult) -> VacuumResult | OptimizeResult:
    if r.kind == "vacuum":
        return VacuumResult(files_deleted=r.files_deleted, dry_run=r.dry_run, metrics=r.metrics)
    return OptimizeResult(num_files_added=r.num_files_added,
                          num_files_removed=r.num_files_removed, metrics=r.metrics)


def _event(p: Any) -> ProgressEvent:
    return ProgressEvent(event=_EVENTS.get(p.event, str(p.event)),
                         table_ref=_capi.text(p.table_ref) or "",
                         op_name=_capi.text(p.op_name), table_index=p.table_index,
                         table_count=p.table_count, error_code=p.code, skipped=bool(p.skipped),
                         seconds=p.seconds)
