"""The measuring half of bench/dask_bench.sh (see there). Prints markdown
for bench/RESULTS.md."""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

from distributed import Client, LocalCluster

from libloom import dask as loom_dask
from libloom import native

MB = 1e6


def timed_unit(plan: str, unit: int, location: Any = None, threads: int = 1) -> loom_dask.UnitResult:
    """execute_unit, with the worker process's CPU seconds for the unit
    (one task at a time per worker: the process's CPU is the unit's)."""
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    res = loom_dask.execute_unit(plan, unit, location, threads)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    res.metrics["cpu_seconds"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return res


def fresh(src: Path, dst: Path) -> Path:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    return dst


def unit_table(run: loom_dask.TableRun) -> list[str]:
    out = ["| unit | worker | MB in | MB out | wall s | cpu s | MB/s (wall) | MB/s (cpu) |",
           "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for u in sorted(run.unit_results, key=lambda u: u.unit):
        m = u.metrics
        mb = m["bytes_removed"] / MB
        out.append(f"| {u.unit} | {u.worker.rsplit(':', 1)[-1]} | {mb:.1f} | {m['bytes_added'] / MB:.1f} | "
                   f"{u.seconds:.2f} | {m['cpu_seconds']:.2f} | {mb / max(u.seconds, 1e-9):.1f} | "
                   f"{mb / max(m['cpu_seconds'], 1e-9):.1f} |")
    return out


def spread(run: loom_dask.TableRun) -> tuple[list[str], float]:
    per: dict[str, list[float]] = {}
    for u in run.unit_results:
        per.setdefault(u.worker.rsplit(":", 1)[-1], []).append(u.seconds)
    busy = {w: sum(v) for w, v in per.items()}
    mean = statistics.mean(busy.values())
    lines = [f"worker {w}: {len(per[w])} units, busy {busy[w]:.2f} s" for w in sorted(per)]
    return lines, max(busy.values()) / mean if mean else 1.0


def lpt(times: list[float], workers: int) -> float:
    """Longest-processing-time-first schedule length on `workers`."""
    loads = [0.0] * workers
    for t in sorted(times, reverse=True):
        i = loads.index(min(loads))
        loads[i] += t
    return max(loads)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--table", type=Path, required=True)
    ap.add_argument("--biglog", type=Path, required=True)
    ap.add_argument("--loom", required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--units", type=int, default=8)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--big", type=Path)
    a = ap.parse_args()
    in_bytes = sum(f.stat().st_size for f in a.table.glob("*.parquet"))
    print(f"input: {a.table} ({in_bytes / MB:.1f} MB, {len(list(a.table.glob('*.parquet')))} files); "
          f"{a.workers} worker processes x 1 thread, {os.cpu_count()} CPUs; "
          f"load average {os.getloadavg()[0]:.2f} at start\n")

    cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                           host="127.0.0.1", scheduler_port=0, dashboard_address=None,
                           local_directory=str(a.work / "dask"))
    client = Client(cluster)
    try:
        # ---- compaction: units of the table, one commit ----------------------------
        # with copy-through (the default: row groups of >= 2 MiB copied as
        # they are) and with every row group re-encoded ("off")
        crun: dict[str, loom_dask.TableRun] = {}
        for copy in ("default", "off"):
            t = fresh(a.table, a.work / f"c-{copy}")
            t0 = time.monotonic()
            plan = native.plan_compact(str(t), target_size="16MiB", units=a.units,
                                       copy_row_group_min=None if copy == "default" else "off")
            plan_s = time.monotonic() - t0
            run = loom_dask.run_plan(plan, client, unit_fn=timed_unit)
            run.plan_seconds = plan_s
            crun[copy] = run
            print(f"### compaction, target 16MiB, copy-through {copy}, {run.units} units\n")
            print("\n".join(unit_table(run)))
            lines, imb = spread(run)
            cpu = sum(u.metrics["cpu_seconds"] for u in run.unit_results)
            wall = sum(u.seconds for u in run.unit_results)
            print(f"\nspread: {'; '.join(lines)}; busiest / mean = {imb:.2f}")
            print(f"driver: plan {run.plan_seconds:.3f} s, commit {run.commit_seconds:.3f} s, "
                  f"wall {run.wall_seconds:.2f} s; units: CPU {cpu:.2f} s = {in_bytes / MB / cpu:.1f} MB/s, "
                  f"wall {wall:.2f} s = {in_bytes / MB / wall:.1f} MB/s per unit\n")
        run = crun["off"]
        c_thr = (in_bytes / MB) / sum(u.seconds for u in run.unit_results)

        # ---- Z-order: one unit (= single machine) vs U key-range units --------------
        zres = {}
        for units in (1, a.units):
            t = fresh(a.table, a.work / f"z{units}")
            t0 = time.monotonic()
            zplan = native.plan_zorder(str(t), ["customer_id", "event_ts"], units=units)
            zplan_s = time.monotonic() - t0
            zrun = loom_dask.run_plan(zplan, client, unit_fn=timed_unit)
            zrun.plan_seconds = zplan_s
            zres[units] = zrun
            print(f"### Z-order by customer_id,event_ts, {zrun.units} key-range unit(s), plan "
                  f"{len(zplan) / 1024:.0f} KiB\n")
            print("\n".join(unit_table(zrun)))
            lines, imb = spread(zrun)
            zcpu = [u.metrics["cpu_seconds"] for u in zrun.unit_results]
            print(f"\nspread: {'; '.join(lines)}; busiest / mean = {imb:.2f}")
            print(f"driver: plan (sampling) {zrun.plan_seconds:.2f} s, commit {zrun.commit_seconds:.3f} s, "
                  f"wall {zrun.wall_seconds:.2f} s; units' CPU {sum(zcpu):.2f} s "
                  f"(median unit {statistics.median(zcpu):.2f} s)\n")
    finally:
        client.close()
        cluster.close()

    # ---- the commit of a 100,000-file rewrite ------------------------------------------
    big = a.biglog
    t0 = time.monotonic()
    p = subprocess.run([a.loom, "compact", str(big), "--plan-out", str(a.work / "big.plan"),
                        "--units", "64", "--json"], check=True, capture_output=True, text=True)
    big_plan_s = time.monotonic() - t0
    bplan = json.loads((a.work / "big.plan").read_text())
    results = []
    for i, u in enumerate(bplan["units"]):
        r = {"loom_result": 1, "plan": bplan["id"], "unit": i,
             "adds": [{"path": f"p=x/part-00000-bench-{i}-c000.snappy.parquet",
                       "key": f"p=x/part-00000-bench-{i}-c000.snappy.parquet", "size": int(u["bytes"]),
                       "modificationTime": int(time.time() * 1000), "numRecords": 1000,
                       "stats": json.dumps({"numRecords": 1000})}],
             "removes": u["files"], "metrics": {"rows_in": 1000, "rows_deleted": 0, "batches": 1}}
        path = a.work / f"big.r{i}"
        path.write_text(json.dumps(r))
        results.append(str(path))
    nfiles = sum(len(u["files"]) for u in bplan["units"])
    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([a.loom, "commit", str(a.work / "big.plan"), *results, "--json"], check=True,
                   capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    commit_s = time.monotonic() - t0
    commit_cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    log = sorted((big / "_delta_log").glob("*.json"))[-1]
    print(f"### commit of a {nfiles:,}-file rewrite (log-only table, {len(results)} unit results)\n")
    print(f"plan (loom compact --plan-out, process): {big_plan_s:.2f} s, plan file "
          f"{(a.work / 'big.plan').stat().st_size / MB:.1f} MB; commit (loom commit, process: "
          f"read the plan, load version {bplan['read_version']}, {nfiles:,} removes + {len(results)} "
          f"adds): {commit_s:.2f} s wall, {commit_cpu:.2f} s CPU; commit file {log.name}: "
          f"{log.stat().st_size / MB:.1f} MB\n")

    # ---- projection --------------------------------------------------------------------
    z1, zu = zres[1], zres[a.units]
    t1 = z1.unit_results[0].metrics["cpu_seconds"]
    tu = statistics.median(u.metrics["cpu_seconds"] for u in zu.unit_results)
    # per-unit CPU t(U) = R + S / U  (R: read + key + filter the whole
    # partition, S: sort + write all of it), from U = 1 and U = units
    s_ = (t1 - tu) / (1 - 1 / a.units) if a.units > 1 else t1
    r_ = max(t1 - s_, 0.0)
    scale = (float(os.environ.get("PROJECT_BYTES", 0)) or
             (sum(f.stat().st_size for f in a.big.glob("*.parquet")) if a.big and a.big.is_dir() else in_bytes))
    k = scale / in_bytes
    commit_per_file = commit_s / max(nfiles, 1)
    n_files_big = len(list(a.big.glob("*.parquet"))) if a.big and a.big.is_dir() else 0
    print(f"### projection for the shared bench workload ({scale / MB:.0f} MB, {n_files_big} files "
          f"= {k:.1f}x this input)\n")
    print("Model (one unit per worker at a time; unit costs measured here, scaled by bytes; "
          "no network or object-store limit):\n")
    print(f"- compaction (every row group re-encoded, the expensive case): units of at most 128 MiB "
          f"input at {c_thr:.1f} MB/s each (wall per unit, above); "
          f"T(W) = plan + LPT(unit times, W) + commit; plan {run.plan_seconds * k:.2f} s and commit "
          f"{commit_per_file * n_files_big:.3f} s scaled by files")
    print(f"- Z-order (one partition; CPU seconds per unit): a key-range unit reads, keys and "
          f"filters the whole partition (R = {r_ * k:.1f} s) and sorts and writes its 1/U share (S = {s_ * k:.1f} s): "
          f"T(W) = plan (sampling, {z1.plan_seconds * k:.1f} s) + ceil(U / W) (R + S / U) + commit, "
          f"U = 2W (libloom.dask's default), capped where R dominates\n")
    print("| workers | compaction s | Z-order s (U = 2W) | Z-order best U |")
    print("| ---: | ---: | ---: | --- |")
    unit_mb = 128 * 1.048576
    n_units = max(int(scale / MB / unit_mb + 0.999), 1)
    unit_times = [min(unit_mb, scale / MB - i * unit_mb) / c_thr for i in range(n_units)]
    for w in (1, 8, 64):
        comp = run.plan_seconds * k + lpt(unit_times, w) + commit_per_file * n_files_big
        def zt(u: int) -> float:
            return z1.plan_seconds * k + -(-u // w) * (r_ * k + s_ * k / u) + zu.commit_seconds
        best = min(range(1, 4 * w + 1), key=zt)
        print(f"| {w} | {comp:.1f} | {zt(2 * w):.1f} | U = {best}: {zt(best):.1f} |")


if __name__ == "__main__":
    main()
