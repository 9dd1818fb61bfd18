"""A PEP 517 build backend for the libloom package, in the tree so that
``pip install ./python`` needs nothing from a package index: it writes the
wheel (pure Python, or with the C library inside when
LIBLOOM_BUNDLE_LIBRARY names a libloom.so), an sdist, and editable wheels.

Metadata comes from pyproject.toml ([project] and [tool.libloom-build]).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _project() -> tuple[dict, dict]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        doc = tomllib.load(f)
    return doc["project"], doc.get("tool", {}).get("libloom-build", {})


def _metadata() -> str:
    p, _ = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p.get('description', '')}",
             f"Requires-Python: {p.get('requires-python', '')}"]
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    for extra, requirements in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    readme = ROOT / p.get("readme", "README.md")
    if readme.exists():
        lines.append("Description-Content-Type: text/markdown")
        return "\n".join(lines) + "\n\n" + readme.read_text()
    return "\n".join(lines) + "\n"


def _dist_info() -> str:
    p, _ = _project()
    return f"{p['name']}-{p['version']}.dist-info"


def _bundled_library() -> Path | None:
    path = os.environ.get("LIBLOOM_BUNDLE_LIBRARY")
    return Path(path).resolve() if path else None


def _tag() -> str:
    if _bundled_library() is None:
        return "py3-none-any"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{plat}"


def _package_files() -> list[tuple[Path, str]]:
    _, tool = _project()
    out = []
    for pkg in tool.get("packages", []):
        d = ROOT / pkg.replace(".", "/")
        for f in sorted(d.iterdir()):
            if f.suffix == ".py" or f.name in tool.get("package-data", []):
                out.append((f, f.relative_to(ROOT).as_posix()))
    return out


class _Wheel:
    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.records: list[str] = []

    def add(self, arcname: str, data: bytes) -> None:
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, dist_info: str) -> None:
        record = f"{dist_info}/RECORD"
        self.records.append(f"{record},,")
        self.zip.writestr(zipfile.ZipInfo(record, date_time=(2020, 1, 1, 0, 0, 0)),
                          "\n".join(self.records) + "\n")
        self.zip.close()


def _write_wheel(wheel_directory: str, editable: bool) -> str:
    p, _ = _project()
    name = f"{p['name']}-{p['version']}-{_tag()}.whl"
    dist_info = _dist_info()
    w = _Wheel(Path(wheel_directory) / name)
    if editable:
        w.add(f"{p['name']}_editable.pth", (str(ROOT) + "\n").encode())
    else:
        for src, arc in _package_files():
            w.add(arc, src.read_bytes())
        lib = _bundled_library()
        if lib is not None:
            w.add("libloom/_lib/libloom.so.1", lib.read_bytes())
    w.add(f"{dist_info}/METADATA", _metadata().encode())
    w.add(f"{dist_info}/WHEEL",
          (f"Wheel-Version: 1.0\nGenerator: libloom_build\nRoot-Is-Purelib: "
           f"{'true' if _bundled_library() is None else 'false'}\nTag: {_tag()}\n").encode())
    w.close(dist_info)
    return name


# ---- PEP 517 / 660 hooks --------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = Path(metadata_directory) / _dist_info()
    d.mkdir(parents=True, exist_ok=True)
    (d / "METADATA").write_text(_metadata())
    return d.name


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    p, _ = _project()
    base = f"{p['name']}-{p['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        files = [(ROOT / "pyproject.toml", "pyproject.toml"),
                 (ROOT / "README.md", "README.md"),
                 (Path(__file__), "build_backend/libloom_build.py")]
        files += _package_files()
        for src, arc in files:
            tar.add(src, arcname=f"{base}/{arc}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return name


if __name__ == "__main__":   # python build_backend/libloom_build.py DIR: a wheel into DIR
    print(build_wheel(sys.argv[1] if len(sys.argv) > 1 else "."))
