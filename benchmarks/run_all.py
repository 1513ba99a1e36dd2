"""Run every benchmark in a quick setting, within a total time budget (``make bench``).

Each script of ``benchmarks/`` runs as its own process with the smaller arguments of
:data:`QUICK` (fewer rows, seeds or permutations; its defaults where none are listed), at most
``--per-script`` seconds each and ``--total`` seconds in all (default 14 minutes, so ``make
bench`` ends within 15): a script that would start past the total is listed as not run, one
cut by its limit as timed out. The summary gives each script's wall and CPU seconds and the
load average; a script's own output goes to ``--log-dir`` (printed on failure).

``make bench-full`` runs every script with its own defaults instead (long: AIM's time budgets,
R's synthpop, million-row runs).

Run: ``.venv/bin/python benchmarks/run_all.py [--only vs_synthpop pmse_null] [--total 840]``
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: quick arguments per script (the ones not listed run with their defaults)
QUICK: dict[str, list[str]] = {
    "default_risk": ["--seeds", "1"],
    "default_thresholds": ["--data", "adult", "--max-distance-records", "1000"],
    "disclosure": ["--sizes", "10000"],
    "dp": ["--rows", "10000"],
    "dp_query": ["--reps", "20", "--timed", "5"],
    "dp_query_opendp": ["--reps", "1"],
    "dp_synthesis": ["--eps", "1", "--seeds", "1", "--max-seconds", "60"],
    "dp_tables": ["--rows", "30000"],
    "households": ["--quick", "--no-hma", "--no-million", "--seeds", "1"],
    "near_unique": ["--seeds", "1"],
    "partial_guard": ["--seeds", "1"],
    "pmse_null": ["--n", "5", "--candidates", "irls", "chord"],
    "private_defaults": ["--rows", "100000"],
    "report": ["--rows", "10000", "--m", "2"],
    "risk": ["--sizes", "10000", "--implicates", "2", "--budget", "20", "--dcr", "10000",
             "--risk-n", "100000", "--suda-n", "10000"],
    "scale": ["--rows", "100000"],
    "scale_evaluate": ["--rows", "100000"],
    "sweep": ["--n-attacks", "50"],
    "vs_synthpop": ["--quick"],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", default=None, help="script names without .py")
    ap.add_argument("--total", type=float, default=840.0, help="seconds for all scripts")
    ap.add_argument("--per-script", type=float, default=150.0)
    ap.add_argument("--log-dir", type=Path, default=None)
    args = ap.parse_args()
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    if args.only:
        scripts = [p for p in scripts if p.stem in args.only]
    logs = args.log_dir or Path(tempfile.mkdtemp(prefix="synthguard_bench_"))
    logs.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    failed = 0
    print(f"{'script':<28}{'status':<11}{'wall s':>8}{'cpu s':>8}{'load':>6}", flush=True)
    for p in scripts:
        left = args.total - (time.perf_counter() - t_all)
        if left < 5:
            print(f"{p.stem:<28}{'not run':<11}", flush=True)
            continue
        log = logs / f"{p.stem}.log"
        load = os.getloadavg()[0]
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        with log.open("w") as fh:
            try:
                rc = subprocess.run([sys.executable, str(p), *QUICK.get(p.stem, [])],
                                    stdout=fh, stderr=subprocess.STDOUT,
                                    timeout=min(args.per_script, left)).returncode
                status = "ok" if rc == 0 else f"exit {rc}"
            except subprocess.TimeoutExpired:
                status = "timed out"
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        print(f"{p.stem:<28}{status:<11}{time.perf_counter() - t0:>8.1f}{cpu:>8.1f}{load:>6.1f}",
              flush=True)
        if status.startswith("exit"):
            failed += 1
            print("  " + "\n  ".join(log.read_text().splitlines()[-15:]))
    print(f"all: {time.perf_counter() - t_all:.0f} s; logs in {logs}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
