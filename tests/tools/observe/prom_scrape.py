#!/usr/bin/env python3
"""Scrape loom's metrics files with a real Prometheus and compare what its
HTTP API answers with the JSON report (and health JSON) they came from.

    prom_scrape.py REPORT.json|- METRICS_FILE[:openmetrics] ...

Every file is served by a loopback HTTP server (an OpenMetrics file with
Content-Type application/openmetrics-text, so Prometheus parses it with its
OpenMetrics parser); Debian's Prometheus runs on 127.0.0.1 with a free port
and a 1 s scrape interval, one job per file. Once every job has been scraped
up, each sample of each file is queried back through /api/v1/query and must
equal the file's value; then the report's numbers are checked against the
queried series. Exit 0 when everything matches."""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse(path: str) -> dict[tuple, float]:
    out: dict[tuple, float] = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise SystemExit(f"{path}: unparsable sample line: {line!r}")
        labels = tuple(sorted(LABEL.findall(m.group(3) or "")))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def serve(files: dict[str, tuple[str, str]]) -> tuple[http.server.HTTPServer, int]:
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            entry = files.get(self.path)
            if not entry:
                self.send_error(404)
                return
            body = open(entry[0], "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", entry[1])
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a) -> None:
            pass

    port = free_port()
    srv = http.server.HTTPServer(("127.0.0.1", port), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, port


def query(port: int, q: str) -> list:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=5) as r:
        d = json.load(r)
    if d.get("status") != "success":
        raise RuntimeError(f"query {q}: {d}")
    return d["data"]["result"]


def selector(name: str, labels: tuple, job: str) -> str:
    parts = [f'{k}="{v}"' for k, v in labels] + [f'job="{job}"']
    return name + "{" + ",".join(parts) + "}"


def main() -> int:
    report_path, specs = sys.argv[1], sys.argv[2:]
    report = json.load(sys.stdin if report_path == "-" else open(report_path)) if report_path != "none" else None
    files: dict[str, tuple[str, str]] = {}
    jobs = []
    for i, spec in enumerate(specs):
        path, _, kind = spec.partition(":")
        ctype = ("application/openmetrics-text; version=1.0.0; charset=utf-8" if kind == "openmetrics"
                 else "text/plain; version=0.0.4; charset=utf-8")
        files[f"/m{i}"] = (path, ctype)
        jobs.append((f"loom{i}", f"/m{i}", path))
    srv, http_port = serve(files)
    work = tempfile.mkdtemp(prefix="loom-prom-")
    prom_port = free_port()
    cfg = os.path.join(work, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global: {scrape_interval: 1s, evaluation_interval: 1s}\nscrape_configs:\n")
        for job, path, _ in jobs:
            f.write(f"  - job_name: {job}\n    metrics_path: {path}\n"
                    f"    static_configs: [{{targets: ['127.0.0.1:{http_port}']}}]\n")
    log = open(os.path.join(work, "prometheus.log"), "w")
    prom = subprocess.Popen(["prometheus", f"--config.file={cfg}",
                             f"--web.listen-address=127.0.0.1:{prom_port}",
                             f"--storage.tsdb.path={work}/data"],
                            stdout=log, stderr=subprocess.STDOUT)
    failures = 0
    try:
        deadline = time.time() + 60
        up: dict[str, float] = {}
        while time.time() < deadline:
            try:
                for r in query(prom_port, "up"):
                    up[r["metric"]["job"]] = float(r["value"][1])
            except OSError:
                pass
            if len(up) == len(jobs) and all(v == 1 for v in up.values()):
                break
            time.sleep(0.5)
        else:
            print(open(os.path.join(work, "prometheus.log")).read()[-3000:], file=sys.stderr)
            raise SystemExit(f"prometheus did not scrape every target up: {up}")
        time.sleep(1.5)   # let the latest scrape land
        scraped: dict[tuple, float] = {}
        for job, _, path in jobs:
            samples = parse(path)
            for (name, labels), value in samples.items():
                res = query(prom_port, selector(name, labels, job))
                if len(res) != 1:
                    print(f"FAIL {job} {name}{labels}: {len(res)} series", file=sys.stderr)
                    failures += 1
                    continue
                got = float(res[0]["value"][1])
                if abs(got - value) > 1e-9 * max(1.0, abs(value)):
                    print(f"FAIL {job} {name}{labels}: prometheus {got} != file {value}", file=sys.stderr)
                    failures += 1
                scraped[(name, labels)] = got
            print(f"ok   {job}: {len(samples)} samples of {path} queried back")
        if report:
            failures += check_report(report, scraped)
    finally:
        prom.terminate()
        try:
            prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prom.kill()
        srv.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def check_report(report: dict, scraped: dict[tuple, float]) -> int:
    """The queried series against the JSON report."""
    failures = 0
    checked = 0

    def want(name: str, labels: dict, value: float) -> None:
        nonlocal failures, checked
        key = (name, tuple(sorted(labels.items())))
        checked += 1
        if key not in scraped:
            print(f"FAIL report: no series {name}{labels}", file=sys.stderr)
            failures += 1
        elif abs(scraped[key] - value) > 1e-9 * max(1.0, abs(value)):
            print(f"FAIL report: {name}{labels} = {scraped[key]}, report says {value}", file=sys.stderr)
            failures += 1

    step = report["step"]
    for status in ("ok", "failed", "skipped"):
        want("loom_run_tables", {"step": step, "status": status}, report["summary"][status])
    want("loom_run_duration_seconds", {"step": step}, report["duration_seconds"])
    for t in report["tables"]:
        ref = t["ref"]
        want("loom_table_duration_seconds", {"table": ref, "status": t["status"]}, t["duration_seconds"])
        if t["error"]:
            e = t["error"]
            want("loom_errors_total", {"table": ref, "operation": e["op"] or "", "class": e["class"],
                                       "code": e["name"]}, 1)
        for op, r in t["ops"].items():
            lab = {"table": ref, "operation": op}
            want("loom_operation_duration_seconds", dict(lab, status="ok"), r["duration_seconds"])
            for m, v in r["metrics"].items():
                want("loom_operation_metric", dict(lab, metric=m), v)
            if r["kind"] == "optimize":
                want("loom_operation_files_written_total", lab, r["num_files_added"])
                want("loom_operation_files_read_total", lab, r["num_files_removed"])
                want("loom_operation_bytes_written_total", lab, r["metrics"].get("numAddedBytes", 0))
                want("loom_operation_bytes_read_total", lab, r["metrics"].get("numRemovedBytes", 0))
            if r["kind"] == "vacuum" and not r["dry_run"]:
                want("loom_operation_files_removed_total", lab, r["num_files_deleted"])
                want("loom_operation_bytes_removed_total", lab, r["metrics"]["sizeOfDataToDelete"])
    print(f"ok   report: {checked} figures of the JSON report equal the scraped series"
          if not failures else f"report: {failures} of {checked} figures differ")
    return failures


if __name__ == "__main__":
    sys.exit(main())
