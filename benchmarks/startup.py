"""Benchmark: start-up of ``import synthguard`` and of the command line's help (issue 35).

The short tasks a user times as whole processes are dominated by start-up (issue 35: 0.4 s to
import synthguard before any work). Each case is a fresh interpreter, run ``--runs`` times
interleaved with its baseline; the table gives the median wall and CPU seconds (user + system
of the child, ``getrusage``) and the ratio baseline / now. The baselines are measured in the
same run by forcing the imports the code made before it loaded them on first use:

* ``import synthguard``: baseline also imports ``synthguard.data`` (pandas, NumPy), as
  ``import synthguard`` did when ``load_dataset`` was imported eagerly;
* ``synthguard --help`` and ``synthguard evaluate --help``: baseline imports the data layer and
  every command module first, as the command group did before its commands were loaded by
  name (cli/_lazy.py) and before they imported pandas inside the commands;
* the measure rooms (``import synthguard.risk, synthguard.utility, synthguard.dp``): baseline
  imports the SciPy and scikit-learn modules they imported at module level.

Run: ``.venv/bin/python benchmarks/startup.py [--runs 7]``. Wall seconds depend on the load
(printed); CPU seconds much less.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

_HELP = ("from synthguard.cli import main\n"
         "try:\n    main({args!r})\nexcept SystemExit:\n    pass\n")
_EAGER_CLI = ("import synthguard.data, synthguard.data.io, numpy, pandas, yaml\n"
              "import synthguard.cli.datasets, synthguard.cli.demo, synthguard.cli.dp, "
              "synthguard.cli.evaluate, synthguard.cli.init, synthguard.cli.protect, "
              "synthguard.cli.run, synthguard.cli.sweep, synthguard.cli.synthesize\n")
_EAGER_ROOMS = ("import scipy.stats, scipy.special, scipy.optimize, scipy.sparse, "
                "sklearn.neighbors, sklearn.metrics\n")
_ROOMS = "import synthguard.risk, synthguard.utility, synthguard.dp\n"

#: case -> (code now, code of the baseline)
CASES = {
    "import synthguard": ("import synthguard\n", "import synthguard.data\nimport synthguard\n"),
    "synthguard --help": (_HELP.format(args=["--help"]),
                          _EAGER_CLI + _HELP.format(args=["--help"])),
    "synthguard evaluate --help": (_HELP.format(args=["evaluate", "--help"]),
                                   _EAGER_CLI + _HELP.format(args=["evaluate", "--help"])),
    "import risk, utility, dp": (_ROOMS, _EAGER_ROOMS + _ROOMS),
}


def _run(code: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of ``python -c code`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"start-up, median of {args.runs} fresh processes each (load {load:.1f} on "
          f"{os.cpu_count()} cores)")
    print(f"{'case':<28} {'baseline wall':>13} {'now wall':>9} {'ratio':>6}   "
          f"{'baseline CPU':>12} {'now CPU':>8} {'ratio':>6}")
    for name, (now_code, base_code) in CASES.items():
        _run(now_code)  # warm the file cache
        now: list[tuple[float, float]] = []
        base: list[tuple[float, float]] = []
        for _ in range(args.runs):  # interleaved: the load hits both alike
            base.append(_run(base_code))
            now.append(_run(now_code))
        bw, bc = (statistics.median(x[i] for x in base) for i in (0, 1))
        nw, nc = (statistics.median(x[i] for x in now) for i in (0, 1))
        print(f"{name:<28} {bw:>12.3f}s {nw:>8.3f}s {bw / nw:>5.1f}x   "
              f"{bc:>11.3f}s {nc:>7.3f}s {bc / nc:>5.1f}x")
    print(f"(load at the end {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
