"""OPTIMIZE and Z-order spread over a Dask cluster, with the Delta log as the
only coordination (no scheduler of loom's own):

    from distributed import Client
    from libloom import dask as loom_dask

    client = Client("tcp://scheduler:8786")
    run = loom_dask.compact("s3://lake/raw/events", client, target_size="128MiB")
    run = loom_dask.zorder("s3://lake/raw/events", ["user_id", "ts"], client)
    runs = loom_dask.run_from_config("storage.yaml", client)

For each table the driver (this process) plans once (``loom_dist_plan_compact``
/ ``loom_dist_plan_zorder``: the files of each unit; for Z-order each
partition's keys are sampled once here and the plan carries the global
range boundaries), submits one Dask task per unit (``execute_unit`` on a
worker: reads its files, writes new files under fresh names, returns its
add/remove actions, never commits), and commits the results itself, once
per table, or every `commit_every` units (partial progress, as delta-rs's
``min_commit_interval``; a Z-order partition's units always go into the
same commit). A commit is conflict-checked against the version the plan
read: if another writer removed one of the input files meanwhile, it
fails with :class:`~libloom.LoomConflict` naming that version, and the
table keeps every row.

Failures are retried a bounded number of times: a unit that raises is
resubmitted by Dask up to `retries` times (``client.map(..., retries=)``);
a unit whose worker dies is rescheduled by the scheduler up to its
``distributed.scheduler.allowed-failures`` (then ``KilledWorker``); the
plan the units read is itself a task, recomputed when every worker that
held it died. A
unit that was lost or ran twice leaves only files that no version
references; ``vacuum(full=True)`` removes them later. Storage credentials
never travel in plans or results: workers take them from `location` (a
mapping or :class:`~libloom.TableLocation`, pickled to the workers) or
from their own environment.

Progress shows as Dask shows it: every unit is a task named
``loom-<operation>-<table>-<run>-<unit>`` on the dashboard and in
``distributed.progress``.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import native
from .config import StorageConfig
from .native import OpResult

__all__ = ["TableRun", "UnitResult", "compact", "execute_unit", "run_from_config", "run_plan",
           "zorder"]


@dataclass
class UnitResult:
    """One executed unit, as the worker reported it."""

    unit: int
    result: str                 # the JSON text loom_dist_execute_unit returned
    worker: str                 # the Dask worker's address
    seconds: float              # wall time of the unit on its worker
    metrics: dict[str, Any] = field(default_factory=dict)


@dataclass
class TableRun:
    """What one table's run did."""

    uri: str
    operation: str              # "compact" or "zorder"
    read_version: int
    units: int
    commits: list[OpResult] = field(default_factory=list)
    unit_results: list[UnitResult] = field(default_factory=list)
    plan_seconds: float = 0.0
    commit_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def versions(self) -> list[int]:
        """The versions committed, in order."""
        return [int(c.metrics.get("version", -1)) for c in self.commits]

    @property
    def units_per_worker(self) -> dict[str, int]:
        """How the units spread over the workers."""
        out: dict[str, int] = {}
        for u in self.unit_results:
            out[u.worker] = out.get(u.worker, 0) + 1
        return out


# ---- the worker side -------------------------------------------------------------


def execute_unit(plan: str, unit: int, location: Any = None, threads: int = 1) -> UnitResult:
    """Run one unit of `plan` here (a Dask task): see
    :func:`libloom.native.execute_unit`. `threads`: C worker threads for
    the unit (default 1: Dask runs one task per worker thread)."""
    t0 = time.monotonic()
    text = native.execute_unit(plan, unit, location=location, threads=threads)
    try:
        from distributed import get_worker
        worker = get_worker().address
    except (ImportError, ValueError):
        worker = f"pid {os.getpid()}"
    return UnitResult(unit=unit, result=text, worker=worker, seconds=time.monotonic() - t0,
                      metrics=dict(json.loads(text).get("metrics", {})))


# ---- the driver ------------------------------------------------------------------


def _plan_text(text: str) -> str:
    """The plan as a Dask task (see _drive)."""
    return text


def _workers(client: Any) -> int:
    try:
        return max(len(client.scheduler_info().get("workers", {})), 1)
    except Exception:  # a client that cannot say: plan for one
        return 1


def _commit_batches(plan: dict[str, Any], done: Iterable[UnitResult], every: int | None,
                    commit: Callable[[list[UnitResult]], None]) -> None:
    """Commit results as they arrive: every `every` units (None: all at
    the end), never splitting a group (a Z-order partition's units)."""
    group_of = [int(u["group"]) for u in plan["units"]]
    group_size: dict[int, int] = {}
    for g in group_of:
        group_size[g] = group_size.get(g, 0) + 1
    waiting: dict[int, list[UnitResult]] = {}
    ready: list[UnitResult] = []
    for r in done:
        g = group_of[r.unit]
        waiting.setdefault(g, []).append(r)
        if len(waiting[g]) == group_size[g]:
            ready.extend(waiting.pop(g))
        if every and len(ready) >= every:
            commit(ready)
            ready = []
    if ready:
        commit(ready)


def _drive(client: Any, uri: str, operation: str, plan_text: str, plan_seconds: float, *,
           location: Any, retries: int, commit_every: int | None, threads: int,
           unit_fn: Callable[..., UnitResult], t0: float) -> TableRun:
    from distributed import as_completed, wait

    plan = json.loads(plan_text)
    n = len(plan["units"])
    run = TableRun(uri=uri, operation=operation, read_version=int(plan["read_version"]), units=n,
                   plan_seconds=plan_seconds)
    if n == 0:
        run.wall_seconds = time.monotonic() - t0
        return run
    name = os.path.basename(uri.rstrip("/")) or "table"
    # unique per submission: running the same plan again must not find the
    # results of an earlier run under the same keys
    run_id = uuid.uuid4().hex[:8]
    # the plan reaches the workers as a task's result, not scattered data:
    # the scheduler keeps the task and recomputes it when the workers that
    # held it die (scattered data has no recipe: the active memory manager
    # trims its replicas, and losing the last one cancelled every unit)
    shared = client.submit(_plan_text, plan_text, key=f"loom-plan-{name}-{run_id}", pure=False)
    # ... on every worker before the units are placed: a unit goes where
    # its inputs are, and all of them would queue behind the one holder
    wait([shared])  # type: ignore[no-untyped-call]
    client.replicate([shared])
    keys = [f"loom-{operation}-{name}-{run_id}-{i}" for i in range(n)]
    futures = client.map(unit_fn, [shared] * n, list(range(n)), key=keys, retries=retries,
                         pure=False, location=location, threads=threads)

    def commit(batch: list[UnitResult]) -> None:
        c0 = time.monotonic()
        try:
            result = native.commit_plan(plan_text, [u.result for u in batch], location=location)
        finally:
            run.commit_seconds += time.monotonic() - c0
        run.commits.append(result)

    def arrived() -> Iterable[UnitResult]:
        for fut in as_completed(futures):  # type: ignore[no-untyped-call]
            r = fut.result()   # raises the unit's error once its retries are spent
            run.unit_results.append(r)
            yield r

    try:
        _commit_batches(plan, arrived(), commit_every, commit)
    except BaseException:
        client.cancel(futures)
        raise
    run.wall_seconds = time.monotonic() - t0
    return run


def run_plan(plan: str, client: Any, *, location: Any = None, retries: int = 2,
             commit_every: int | None = None, threads: int = 1,
             unit_fn: Callable[..., UnitResult] = execute_unit) -> TableRun:
    """Execute and commit a plan made elsewhere (:func:`libloom.native.
    plan_compact` / ``plan_zorder``, or ``loom compact --plan-out``) on the
    cluster. Arguments as :func:`compact`."""
    doc = json.loads(plan)
    return _drive(client, str(doc["table"]), str(doc["operation"]), plan, 0.0,
                  location=location, retries=retries, commit_every=commit_every,
                  threads=threads, unit_fn=unit_fn, t0=time.monotonic())


def compact(uri: str, client: Any, *, location: Any = None,
            target_size: int | str | None = None, partition_filters: Sequence[str] = (),
            units: int | None = None, retries: int = 2, commit_every: int | None = None,
            threads: int = 1, unit_fn: Callable[..., UnitResult] = execute_unit) -> TableRun:
    """OPTIMIZE compaction of one table on the cluster of `client`.

    `units`: about how many units to cut the table into (default: two per
    worker, so a slow unit does not hold the others up; partitions are not
    split below their bins). `retries`: resubmissions of a unit that fails.
    `commit_every`: commit after this many units (default: once). `unit_fn`:
    the task run per unit (default :func:`execute_unit`; a wrapper may add
    logging or fault injection). Raises the first unit error that outlives
    its retries (nothing is committed then) or the commit's error."""
    t0 = time.monotonic()
    want = units if units is not None else 2 * _workers(client)
    plan = native.plan_compact(uri, location=location, target_size=target_size,
                               partition_filters=partition_filters, units=want)
    return _drive(client, uri, "compact", plan, time.monotonic() - t0, location=location,
                  retries=retries, commit_every=commit_every, threads=threads, unit_fn=unit_fn,
                  t0=t0)


def zorder(uri: str, columns: Sequence[str], client: Any, *, location: Any = None,
           target_size: int | str | None = None, curve: str | None = None,
           memory: int | str | None = None, full: bool = False, units: int | None = None,
           retries: int = 2, commit_every: int | None = None, threads: int = 1,
           unit_fn: Callable[..., UnitResult] = execute_unit) -> TableRun:
    """Z-order clustering of one table on the cluster: the driver samples
    each partition once and cuts it into key ranges (about `units` in all,
    default two per worker); each worker sorts its range within `memory`
    (spilling beyond it) and writes it. Same quality as a single-machine
    run: every worker keys rows with the same boundaries. Other arguments
    as :func:`compact`."""
    t0 = time.monotonic()
    want = units if units is not None else 2 * _workers(client)
    plan = native.plan_zorder(uri, columns, location=location, target_size=target_size,
                              curve=curve, memory=memory, full=full, units=want)
    return _drive(client, uri, "zorder", plan, time.monotonic() - t0, location=location,
                  retries=retries, commit_every=commit_every, threads=threads, unit_fn=unit_fn,
                  t0=t0)


def run_from_config(config: Any, client: Any, *, tables: Sequence[str] | None = None,
                    units: int | None = None, retries: int = 2, commit_every: int | None = None,
                    threads: int = 1) -> list[TableRun]:
    """The ``maintenance:`` block of a storage config on the cluster: for
    every table route with a path (or the named `tables`), compaction when
    the block asks for it, or Z-order by its ``z_order_by`` columns (the
    block takes one of the two).
    Tables are driven one after another from here while their units spread
    over every worker; each table is committed on its own (once, or every
    `commit_every` units). Vacuum stays a single-machine step (``loom
    maintain``): it lists and deletes, there is nothing to spread."""
    cfg = StorageConfig.coerce(config)
    m = cfg.maintenance
    m.check_runnable()
    names = list(tables) if tables is not None else [r.name for r in cfg.tables if r.path]
    runs: list[TableRun] = []
    for name in names:
        loc = cfg.locate(name)
        if m.compact:
            runs.append(compact(loc.uri, client, location=loc, target_size=m.compact_target_size,
                                units=units, retries=retries, commit_every=commit_every,
                                threads=threads))
        if m.z_order_by:
            z = m.z_order_options
            runs.append(zorder(loc.uri, list(m.z_order_by), client, location=loc,
                               target_size=z.get("target_size"), curve=z.get("curve"),
                               memory=z.get("memory"), full=bool(z.get("full")), units=units,
                               retries=retries, commit_every=commit_every, threads=threads))
    return runs
