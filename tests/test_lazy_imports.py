"""Start-up cost: the command line and the method registry load no heavy library.

``synthguard synthesize`` is timed as a whole process (issue 14: at least 10x synthpop's
``syn()``), so every library a run does not use costs its import time on every run. SciPy's
submodules, scikit-learn, statsmodels, matplotlib, jinja2 and Dask are imported where they
are used (a method's fit, a report, the Dask backend). A fresh interpreter checks it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import synthguard

HEAVY = ("scipy", "sklearn", "statsmodels", "matplotlib", "jinja2", "dask", "distributed")


def _loaded_after(code: str) -> set[str]:
    src = str(Path(synthguard.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, os.environ.get("PYTHONPATH", "")]))
    probe = code + "\nimport sys\nprint(','.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=False, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    return set(out.stdout.strip().split(","))


def test_cli_and_every_registered_method_import_no_heavy_library():
    loaded = _loaded_after(
        "import synthguard, synthguard.cli\n"
        "from synthguard.synthesis.registry import available_methods, make_method\n"
        "available_methods()\n"
        "for name in ('cart', 'norm', 'normrank', 'polr', 'sample', 'bayes_negbin'):\n"
        "    make_method(name)\n"
    )
    assert "synthguard" in loaded and "pandas" in loaded  # the probe ran
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


def test_import_synthguard_loads_no_pandas_and_no_heavy_library():
    loaded = _loaded_after("import synthguard")
    assert "synthguard" in loaded  # the probe ran
    assert loaded.isdisjoint({*HEAVY, "pandas", "numpy"}), sorted(
        loaded & {*HEAVY, "pandas", "numpy"})


def test_the_command_line_help_loads_no_data_library():
    """``synthguard --help`` and ``synthguard evaluate --help`` load the command modules
    (cli/_lazy.py), none of the libraries a command calls."""
    loaded = _loaded_after(
        "from click.testing import CliRunner\n"
        "from synthguard.cli import main\n"
        "for args in (['--help'], ['evaluate', '--help'], ['dp', '--help']):\n"
        "    assert CliRunner().invoke(main, args).exit_code == 0\n"
    )
    assert "click" in loaded  # the probe ran
    assert loaded.isdisjoint({*HEAVY, "pandas", "numpy"}), sorted(
        loaded & {*HEAVY, "pandas", "numpy"})


def test_the_measure_rooms_import_no_scipy_or_scikit_learn():
    loaded = _loaded_after("import synthguard.risk, synthguard.utility, synthguard.dp, "
                           "synthguard.sdc, synthguard.synthesis")
    assert "pandas" in loaded  # the probe ran
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))
