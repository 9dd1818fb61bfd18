"""The package's type information holds: mypy --strict finds nothing in
python/libloom (py.typed ships in the wheel, see test_install). mypy is
Debian's python3-mypy (scripts/install-deps.sh installs it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import unittest

from support import SOURCE_DIR


def mypy_command() -> list[str] | None:
    for python in (sys.executable, "/usr/bin/python3"):
        if subprocess.run([python, "-c", "import mypy"], capture_output=True).returncode == 0:
            return [python, "-m", "mypy"]
    found = shutil.which("mypy")
    return [found] if found else None


class Typing(unittest.TestCase):
    def test_mypy_strict(self) -> None:
        cmd = mypy_command()
        if cmd is None:
            self.skipTest("mypy is not installed (python3-mypy)")
        p = subprocess.run([*cmd, "--strict", "--no-incremental", "--python-version", "3.11",
                            "libloom"], cwd=SOURCE_DIR / "python", capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("no issues found", p.stdout)


if __name__ == "__main__":
    unittest.main()
