"""Fault injection for test_dask.py, importable on the Dask workers (they
are spawned with the test's sys.path): a unit task that kills its own
worker process with SIGKILL once, after the unit wrote its files but before
it hands in its result -- a worker lost mid-unit."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from libloom import dask as loom_dask


def kill_once(plan: str, unit: int, location: Any = None, threads: int = 1, *,
              marker: str = "", victim: int = 0) -> loom_dask.UnitResult:
    """Unit `victim`'s first attempt dies; `marker` records that it ran and
    the result it never handed in (so the test knows its files)."""
    if unit == victim:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            fd = -1
        if fd >= 0:
            r = loom_dask.execute_unit(plan, unit, location, threads)
            os.write(fd, r.result.encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
    return loom_dask.execute_unit(plan, unit, location, threads)


def written_keys(marker: str) -> list[str]:
    import json
    return sorted(a["key"] for a in json.loads(Path(marker).read_text())["adds"])


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_all_once(plan: str, unit: int, location: Any = None, threads: int = 1, *,
                  marker: str = "", victim: int = 0) -> loom_dask.UnitResult:
    """Unit `victim`'s first attempt kills every worker of the cluster
    (itself last) before any unit hands in a result: whatever the workers
    held -- the plan included -- is gone, and the nannies restart them."""
    if unit == victim:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            fd = -1
        if fd >= 0:
            os.close(fd)
            from distributed import get_client, get_worker
            me = get_worker().address
            client = get_client()
            others = [w for w in client.scheduler_info()["workers"] if w != me]
            # a LocalCluster: the workers are processes of this machine
            for pid in client.run(os.getpid, workers=others).values():
                os.kill(pid, signal.SIGKILL)
            _die()
    return loom_dask.execute_unit(plan, unit, location, threads)
