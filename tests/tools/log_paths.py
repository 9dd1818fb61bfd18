#!/usr/bin/env python3
"""Rewrite the file paths of a Delta table's JSON commits (a test tool).

  log_paths.py absolutize TABLE_DIR PREFIX [PREFIX ...]
      Every relative add/remove/cdc path p becomes PREFIX/p, and every
      relative ('u') deletion vector becomes an absolute ('p') one under
      PREFIX. Each file always gets the same prefix (chosen by a hash of its
      path), so its add and its later remove still name it the same way;
      several prefixes naming the same root mix the spellings in one log.
      Tables with checkpoints are refused (their Parquet is not rewritten).
      Prints {"paths": N, "dvs": M}.

  log_paths.py relocate TABLE_DIR FROM TO
      Every path (and 'p' deletion vector) starting with FROM/ now starts
      with TO/ instead - to read a downloaded copy locally.
"""
import hashlib
import json
import os
import re
import sys

Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def z85_decode(s):
    out = bytearray()
    for i in range(0, len(s), 5):
        v = 0
        for c in s[i:i + 5]:
            v = v * 85 + Z85.index(c)
        out += v.to_bytes(4, "big")
    return bytes(out)


def dv_file(path_or_inline):
    """The relative file name of a 'u' deletion vector (Delta PROTOCOL.md)."""
    prefix, z = path_or_inline[:-20], path_or_inline[-20:]
    u = z85_decode(z).hex()
    name = f"deletion_vector_{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}.bin"
    return f"{prefix}/{name}" if prefix else name


def commits(table):
    log = os.path.join(table, "_delta_log")
    for name in sorted(os.listdir(log)):
        if re.fullmatch(r"\d{20}\.json", name):
            yield os.path.join(log, name)


def rewrite(table, fn):
    counts = {"paths": 0, "dvs": 0}
    for path in commits(table):
        out = []
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                action = json.loads(line)
                for kind in ("add", "remove", "cdc"):
                    if kind in action:
                        fn(action[kind], counts)
                out.append(json.dumps(action, separators=(",", ":")))
        with open(path, "w") as f:
            f.write("\n".join(out) + "\n")
    return counts


def absolutize(table, prefixes):
    log = os.path.join(table, "_delta_log")
    if any("checkpoint" in n for n in os.listdir(log)):
        sys.exit(f"{table}: has checkpoints; pick a table without")

    def pick(p):
        return prefixes[int(hashlib.sha1(p.encode()).hexdigest(), 16) % len(prefixes)]

    def fn(a, counts):
        p = a.get("path")
        if p and not SCHEME.match(p) and not p.startswith("/"):
            a["path"] = pick(p) + "/" + p
            counts["paths"] += 1
        dv = a.get("deletionVector")
        if dv and dv.get("storageType") == "u":
            rel = dv_file(dv["pathOrInlineDv"])
            dv["storageType"] = "p"
            dv["pathOrInlineDv"] = pick(rel) + "/" + rel
            counts["dvs"] += 1
    return rewrite(table, fn)


def relocate(table, old, new):
    def move(s):
        return new + s[len(old):] if s.startswith(old + "/") else s

    def fn(a, counts):
        if "path" in a and move(a["path"]) != a["path"]:
            a["path"] = move(a["path"])
            counts["paths"] += 1
        dv = a.get("deletionVector")
        if dv and dv.get("storageType") == "p" and move(dv["pathOrInlineDv"]) != dv["pathOrInlineDv"]:
            dv["pathOrInlineDv"] = move(dv["pathOrInlineDv"])
            counts["dvs"] += 1
    return rewrite(table, fn)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "absolutize":
        print(json.dumps(absolutize(sys.argv[2], sys.argv[3:])))
    elif len(sys.argv) == 5 and sys.argv[1] == "relocate":
        print(json.dumps(relocate(sys.argv[2], sys.argv[3], sys.argv[4])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
