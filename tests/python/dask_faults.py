"""Fault injection for test_dask.py, importable on the Dask workers (they
are spawned with the test's sys.path): a unit task that kills its own
worker process with SIGKILL once, after the unit wrote its files but before
it hands in its result -- a worker lost mid-unit; and one that notes
whether the scheduler could compute the plan again."""

from __future__ import annotations

import json
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
    return sorted(a["key"] for a in json.loads(Path(marker).read_text())["adds"])


def _plan_recipes(dask_scheduler: Any) -> list[bool]:
    return [ts.run_spec is not None for key, ts in dask_scheduler.tasks.items()
            if str(key).startswith("loom-plan-")]


def note_plan_recipes(plan: str, unit: int, location: Any = None, threads: int = 1, *,
                      marker: str = "") -> loom_dask.UnitResult:
    """Run the unit after writing to `marker` (JSON), for each plan key the
    scheduler holds, whether it keeps the recipe to compute it again."""
    from distributed import get_client
    Path(marker).write_text(json.dumps(get_client().run_on_scheduler(_plan_recipes)))
    return loom_dask.execute_unit(plan, unit, location, threads)
