"""Benchmark: ``synthguard synthesize`` as a whole process against synthpop's default ``syn()``.

Issue 14's speed goal: synthguard's default release at least 10x as fast as synthpop 1.9-2's
default ``syn(d, seed = 1, m = 1)`` measured as whole processes on this machine: synthpop
took 27.9 s on Adult complete cases (30,162 x 15) and 45.3 s on diamonds (53,940 x 10)
(``../shared/data/synthpop_releases/README.md``), so the goals are 2.79 s and 4.53 s.

Each run is ``synthguard synthesize conf.csv --out DIR --seed S`` in a fresh process (start-up,
imports, reading the CSV, fit, draw, safeguards, diagnostics, writing the release), timed by
wall clock and by the process's CPU time (user + system, from ``getrusage``). Wall time
depends on other load on the machine; CPU time much less (it still grows a little when other
processes share the cores' caches). The table gives the median over ``--runs`` runs (seeds
1..N) and the ratios ``synthpop seconds / synthguard seconds`` for both.

Run: ``.venv/bin/python benchmarks/cli_speed.py [--runs 3] [--data adult] [--synth-args "--jobs 1"]``.
"""

from __future__ import annotations

import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(os.environ.get("SYNTHGUARD_SHARED_DATA",
                             Path(__file__).resolve().parents[2] / "shared" / "data"))
SYNTHGUARD = Path(sys.executable).with_name("synthguard")
#: synthpop's default syn() as a whole process on this machine (synthpop_releases/README.md)
SYNTHPOP_SECONDS = {"adult": 27.9, "diamonds": 45.3}
FILES = {"adult": SHARED / "synthpop_releases" / "adult_complete_cases.csv",
         "diamonds": SHARED / "diamonds" / "diamonds.csv"}


def run_once(src: Path, seed: int, extra: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``synthguard synthesize`` process."""
    with tempfile.TemporaryDirectory() as tmp:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([str(SYNTHGUARD), "synthesize", str(src), "--out", str(Path(tmp) / "o"),
                        "--seed", str(seed), *extra], check=True, capture_output=True)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    names = list(FILES)
    if "--data" in sys.argv:
        names = [sys.argv[sys.argv.index("--data") + 1]]
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    extra = (shlex.split(sys.argv[sys.argv.index("--synth-args") + 1])
             if "--synth-args" in sys.argv else [])
    rows = []
    for name in names:
        if not FILES[name].exists():
            print(f"skipped {name}: {FILES[name]} is absent", file=sys.stderr)
            continue
        times = np.array([run_once(FILES[name], seed, extra) for seed in range(1, runs + 1)])
        wall, cpu = np.median(times, axis=0)
        goal = SYNTHPOP_SECONDS[name] / 10
        rows.append({"data": name, "runs": runs, "wall s": wall, "CPU s": cpu,
                     "synthpop s": SYNTHPOP_SECONDS[name],
                     "x synthpop (wall)": SYNTHPOP_SECONDS[name] / wall,
                     "x synthpop (CPU)": SYNTHPOP_SECONDS[name] / cpu,
                     "goal s (10x)": goal, "wall within goal": bool(wall <= goal)})
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(pd.DataFrame(rows).round(2).to_string(index=False))
    print("wall s / CPU s: median whole-process seconds of `synthguard synthesize` (defaults, "
          "--seed 1..runs); x synthpop: synthpop's default syn() seconds on this machine over "
          "synthguard's (goal >= 10).")


if __name__ == "__main__":
    main()
