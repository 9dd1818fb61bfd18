#!/usr/bin/env python3
"""Judge loom's HTML report as Chromium rendered it.

    check_html.py dom HTML_FILE DOM_FILE REPORT.json|none [HISTORY.json]
    check_html.py png SCREENSHOT.png
    check_html.py netlog NETLOG.json

dom: the file is self-contained (no script, no http(s) URL, no src or href
to anything); the DOM Chromium dumped has a section per table of the report
whose status, operation numbers (data-value) and metrics equal the JSON
report's, the totals equal its summary, and the history's counts when
given; accessibility basics: <html lang>, one h1, headings that do not skip
a level, column headers with scope, every SVG role=img with a title, every
img with alt.
png: decode the PNG (zlib, scanline filters undone) and require a page
that is not blank: several colours, some share of non-background pixels.
netlog: Chromium's net log of the load holds no request the page made
(initiator other than the browser's own "not an origin")."""

from __future__ import annotations

import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

VOID = {"meta", "br", "img", "input", "link", "hr", "area", "base", "col", "source", "wbr"}


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: "Node | None") -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node] = []
        self.text = ""

    def all(self, tag: str | None = None, **attrs: str) -> list["Node"]:
        out = []
        for c in self.children:
            if (tag is None or c.tag == tag) and all(c.attrs.get(k.replace("_", "-")) == v
                                                    for k, v in attrs.items()):
                out.append(c)
            out.extend(c.all(tag, **attrs))
        return out

    def full_text(self) -> str:
        return self.text + "".join(c.full_text() for c in self.children)


class Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list) -> None:
        n = Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.cur.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.cur))

    def handle_endtag(self, tag: str) -> None:
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data: str) -> None:
        self.cur.text += data


def parse(path: str) -> Node:
    t = Tree()
    t.feed(open(path, encoding="utf-8").read())
    return t.root


def check_dom(html_path: str, dom_path: str, report_path: str, history_path: str | None) -> list[str]:
    fails: list[str] = []
    src = open(html_path, encoding="utf-8").read()
    if re.search(r"https?://", src):
        fails.append("the HTML file holds an http(s) URL")
    if re.search(r"<script|\ssrc=|\shref=|@import|url\(", src, re.I):
        fails.append("the HTML file has a script, a src/href or a CSS url()")
    dom = parse(dom_path)
    html = dom.all("html")
    if not html or not html[0].attrs.get("lang"):
        fails.append("<html> has no lang")
    if len(dom.all("h1")) != 1:
        fails.append("not exactly one h1")
    # heading levels never skip (h2 -> h4)
    levels = [int(n.tag[1]) for n in iter_order(dom) if re.fullmatch(r"h[1-6]", n.tag)]
    for a, b in zip(levels, levels[1:]):
        if b > a + 1:
            fails.append(f"heading level jumps from h{a} to h{b}")
            break
    for table in dom.all("table"):
        heads = table.all("th")
        if not heads or any(th.attrs.get("scope") not in ("col", "row") for th in heads):
            fails.append("a table has no header cells, or one without scope")
            break
    for svg in dom.all("svg"):
        titles = [t for t in svg.children if t.tag == "title" and t.full_text().strip()]
        if svg.attrs.get("role") != "img" or not titles:
            fails.append("an svg without role=img and a title")
            break
    if any(not img.attrs.get("alt") for img in dom.all("img")):
        fails.append("an img without alt")

    def value(node: Node, metric: str) -> float | None:
        cells = node.all(None, data_metric=metric)
        return float(cells[0].attrs["data-value"]) if cells else None

    if report_path != "none":
        report = json.load(open(report_path))
        totals = dom.all("section", id="totals")
        for k in ("tables", "ok", "failed", "skipped"):
            if not totals or value(totals[0], k) != report["summary"][k]:
                fails.append(f"totals.{k} != report summary {report['summary'][k]}")
        for t in report["tables"]:
            sec = dom.all("section", data_table=t["ref"])
            if len(sec) != 1:
                fails.append(f"{t['ref']}: {len(sec)} sections")
                continue
            s = sec[0]
            h2 = s.all("h2")
            if not h2 or h2[0].full_text() != t["ref"]:
                fails.append(f"{t['ref']}: its h2 does not name it")
            st = s.all(None, data_status=t["status"])
            if not st:
                fails.append(f"{t['ref']}: status {t['status']} not shown")
            for op, r in t["ops"].items():
                row = s.all("tr", data_op=op)
                if len(row) != 1:
                    fails.append(f"{t['ref']}/{op}: no row")
                    continue
                want = {"duration_seconds": r["duration_seconds"]}
                if r["kind"] == "optimize":
                    want.update(files_written=r["num_files_added"], files_read=r["num_files_removed"],
                                bytes_written=r["metrics"].get("numAddedBytes", 0),
                                bytes_read=r["metrics"].get("numRemovedBytes", 0))
                elif r["kind"] == "vacuum" and not r["dry_run"]:
                    want.update(files_removed=r["num_files_deleted"],
                                bytes_removed=r["metrics"]["sizeOfDataToDelete"])
                for k, v in want.items():
                    got = value(row[0], k)
                    if got is None or abs(got - v) > 1e-9 * max(1, abs(v)):
                        fails.append(f"{t['ref']}/{op}.{k}: page {got} != report {v}")
                shown = {n.attrs["data-name"]: float(n.attrs["data-value"])
                         for n in row[0].all("span") if "data-name" in n.attrs}
                if shown != {k: float(v) for k, v in r["metrics"].items()}:
                    fails.append(f"{t['ref']}/{op}: metrics on the page {shown} != report {r['metrics']}")
    if history_path:
        hist = json.load(open(history_path))
        sec = dom.all("section", id="history")
        if not sec or value(sec[0], "runs") != hist["runs"] or value(sec[0], "failed_runs") != hist["failed_runs"]:
            fails.append("the history section's counts differ from loom history --json")
        for ref, t in hist["tables"].items():
            row = sec[0].all("tr", data_table=ref) if sec else []
            if not row or value(row[0], "bytes_compacted") != t["bytes_compacted"]:
                fails.append(f"history {ref}: bytes compacted differ")
    return fails


def iter_order(n: Node):
    for c in n.children:
        yield c
        yield from iter_order(c)


def check_png(path: str) -> list[str]:
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return ["not a PNG"]
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                return [f"unexpected PNG format depth {depth} colour type {ctype}"]
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours: dict[bytes, int] = {}
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 4):
                px = bytes(line[x:x + 3])
                colours[px] = colours.get(px, 0) + 1
        prev = line
    total = sum(colours.values())
    background = max(colours.values())
    fails = []
    if len(colours) < 8:
        fails.append(f"only {len(colours)} colours: blank page")
    if (total - background) / total < 0.01:
        fails.append(f"{(total - background) / total:.4f} of the pixels differ from the background")
    if not fails:
        print(f"ok   screenshot {w}x{h}: {len(colours)} colours, "
              f"{100 * (total - background) / total:.1f}% non-background")
    return fails


def check_netlog(path: str) -> list[str]:
    d = json.load(open(path))
    page = sorted({e["params"]["url"] for e in d["events"]
                   if "initiator" in e.get("params", {}) and "url" in e["params"]
                   and e["params"]["initiator"] != "not an origin"
                   and not e["params"]["url"].startswith("file:")})
    return [f"the page requested {u}" for u in page]


def main() -> int:
    mode = sys.argv[1]
    if mode == "dom":
        fails = check_dom(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
    elif mode == "png":
        fails = check_png(sys.argv[2])
    else:
        fails = check_netlog(sys.argv[2])
    for f in fails:
        print("FAIL", f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
