"""Importing any entry point first registers the built-in methods (no circular-import trap).

``registry`` imports ``methods.base`` and the method modules import ``registry``; this only
works because the package ``synthguard.synthesis`` imports ``methods`` before ``registry``.
A fresh interpreter per entry point checks that it stays so.
"""

from __future__ import annotations

import subprocess
import sys

BUILTIN = {"sample", "norm", "normrank", "logreg", "polyreg", "cart"}


def test_fresh_import_of_the_registry_registers_builtin_methods():
    code = (
        "import synthguard.synthesis.registry\n"
        "from synthguard.synthesis.registry import available_methods\n"
        "print(','.join(available_methods()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert BUILTIN <= set(out.stdout.strip().split(","))
