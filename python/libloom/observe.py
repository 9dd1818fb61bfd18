"""(loom) What monitoring and people see of a maintenance run: the JSON
events of ``loom maintain --log-format json`` through the standard
:mod:`logging` module, Prometheus / OpenMetrics text and the HTML report of
a run's JSON report (docs/observability.md). The metric names are
``libloom.metrics.PROM_*``.

    import logging
    from libloom.maintenance import MaintenanceRunner
    runner = MaintenanceRunner.from_config(config, log=logging.getLogger("loom"))
    report = runner.run_from_config()
    text = libloom.observe.metrics(report.to_json())
"""

from __future__ import annotations

import json
import logging
from ctypes import byref, c_void_p
from typing import Any, Literal

from . import _capi
from ._capi import lib
from .errors import check

_LEVELS = {"info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class EventLog:
    """The C event log feeding a :class:`logging.Logger`: each event is one
    record whose message is the event's JSON line (what the CLI writes) and
    whose ``loom_event`` attribute is the parsed object. Records come from
    the runner's worker threads."""

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self._fn = _capi.LOG_LINE_FN(self._line)
        handle = c_void_p()
        check(lib.loom_event_log_new(byref(handle), self._fn, None))
        self.handle: int | None = _capi.handle(handle)

    def _line(self, line: bytes, _payload: Any) -> None:
        text = line.decode("utf-8", "replace")
        try:
            event = json.loads(text)
            level = _LEVELS.get(event.get("level"), logging.INFO)
        except ValueError:
            event, level = {}, logging.INFO
        self.logger.log(level, "%s", text, extra={"loom_event": event})

    def progress(self, p: Any) -> None:
        """Forward one C progress event (a loom_progress structure)."""
        lib.loom_event_log_progress(byref(p), self.handle)

    def run_start(self, step: str, tables: int = 0) -> None:
        lib.loom_event_log_run_start(self.handle, _capi.cstr(step), tables)

    def run_end(self, report: int) -> None:
        lib.loom_event_log_run_end(self.handle, report)

    def close(self) -> None:
        if self.handle:
            lib.loom_event_log_free(self.handle)
            self.handle = None


def _record(report_json: str) -> int:
    data = report_json.encode("utf-8")
    rec = c_void_p()
    check(lib.loom_run_record_from_json(byref(rec), data, len(data), b"report"))
    return _capi.handle(rec)


def metrics(report_json: str, format: Literal["prometheus", "openmetrics"] = "prometheus") -> str:
    """A run's JSON report (``MaintenanceReport.to_json()``) or a run
    record as metrics text, with the names ``loom maintain --metrics``
    writes."""
    if format not in ("prometheus", "openmetrics"):
        raise ValueError(f"format must be 'prometheus' or 'openmetrics', got {format!r}")
    rec = _record(report_json)
    try:
        out = c_void_p()
        check(lib.loom_run_record_to_metrics(byref(out), rec, 1 if format == "openmetrics" else 0))
        return _capi.take_string(out)
    finally:
        lib.loom_run_record_free(rec)


def html(report_json: str) -> str:
    """A run's JSON report or run record as the self-contained HTML page of
    ``loom report --html``."""
    rec = _record(report_json)
    try:
        out = c_void_p()
        check(lib.loom_run_record_to_html(byref(out), rec, None))
        return _capi.take_string(out)
    finally:
        lib.loom_run_record_free(rec)
