"""The ctypes mirrors of the public structs (python/libloom/_capi.py) have
the compiler's sizes and field offsets (tests/helpers/abi_layout.c), every
function the package declares is exported by the library, and the metric
names of libloom.metrics are include/loom/metrics.h's."""

from __future__ import annotations

import json
import re
import subprocess
import unittest

from support import BUILD_DIR, SOURCE_DIR

from libloom import _capi, metrics


class AbiLayout(unittest.TestCase):
    def test_struct_layouts_match_the_headers(self) -> None:
        out = subprocess.run([str(BUILD_DIR / "tests" / "abi_layout")], check=True,
                             capture_output=True, text=True).stdout
        layouts = json.loads(out)
        self.assertGreaterEqual(len(layouts), 14)
        for name, layout in layouts.items():
            mirror = getattr(_capi, name)
            self.assertEqual(layout["sizeof"], _capi.ctypes.sizeof(mirror), f"sizeof({name})")
            fields = [f[0] for f in mirror._fields_]
            self.assertEqual(fields, [k for k in layout if k != "sizeof"], f"{name} fields")
            for field, offset in layout.items():
                if field != "sizeof":
                    self.assertEqual(getattr(mirror, field).offset, offset, f"{name}.{field}")

    def test_prototypes_are_exported(self) -> None:
        for name in _capi._PROTOTYPES:
            self.assertTrue(hasattr(_capi.lib, name), name)


class MetricNames(unittest.TestCase):
    def test_metric_names_are_the_headers(self) -> None:
        header = (SOURCE_DIR / "include" / "loom" / "metrics.h").read_text()
        defined = {name: value for name, value in
                   re.findall(r'^#define LOOM_(?:METRIC_)?(\w+) "([^"]*)"', header, re.M)}
        self.assertGreaterEqual(len(defined), 40)
        python = {k: v for k, v in vars(metrics).items() if k.isupper() and isinstance(v, str)}
        self.assertEqual(python, defined)
        self.assertIn("filesAdded.min", metrics.known_names())
        self.assertNotIn("filesAdded", metrics.known_names())


if __name__ == "__main__":
    unittest.main()
