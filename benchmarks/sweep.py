"""Issue 19's sweep figure: 12 CART configurations on Adult, each made and measured, timed.

UCI Adult complete cases (../shared/data/synthpop_releases/adult_complete_cases.csv, 30,162 x
15), 20 % set aside as the holdout. The grid (3 x 2 x 2 = 12 configurations, two distinct fits:
the near-unique guard and the extremes only change the draw, so six configurations share each
fit, :data:`synthguard.pipeline.sweep.DRAW_SETTINGS`):

* ``rare_values``: 0, 5, 10 (values held by fewer records are redrawn from a kernel);
* ``extremes``: 0, 5 (the 5 smallest and largest values of each numeric column not released);
* ``method_params``: default leaves, or CART leaves of at least 25 records for the numeric
  columns fnlwgt, capital_gain, capital_loss and hours_per_week.

Each configuration is measured as ``synthguard sweep`` measures it
(:mod:`synthguard.pipeline.gate_measures`: pMSE ratio, CI overlap, replicated uniques, repU,
DiSCO, univariate and multivariate singling out with 500 queries) and the gate picks.
Printed: the table, the verdict, the total time and its split (fits, draws, measures), and the
time a sweep without fit reuse would take (fits measured, times configurations).
Run: ``PYTHONPATH=src .venv/bin/python benchmarks/sweep.py`` (``--n-attacks 200`` is faster).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from synthguard.pipeline import sweep

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SHARED = SHARED if SHARED.exists() else Path("/work/shared/data")
ADULT = SHARED / "synthpop_releases" / "adult_complete_cases.csv"
LEAF = {c: {"min_samples_leaf": 25}
        for c in ("fnlwgt", "capital_gain", "capital_loss", "hours_per_week")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-attacks", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = pd.read_csv(ADULT)
    grid = {"method_params": [None, LEAF], "rare_values": [0, 5, 10], "extremes": [0, 5]}
    stamps: list[float] = []

    def progress(label: str, done: int, total: int) -> None:
        stamps.append(time.perf_counter())
        print(f"  [{done}/{total}] {label[:70]}", flush=True)

    print(f"Adult complete cases {data.shape[0]:,} x {data.shape[1]}; 12 configurations; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    t0, c0 = time.perf_counter(), time.process_time()
    res = sweep(data, grid, keys=["age", "sex", "race", "marital_status"],
                targets=["income", "capital_gain"], holdout=0.2,
                formulas=["hours_per_week ~ age + education_num + sex + race"],
                n_attacks=args.n_attacks, random_state=args.seed, progress=progress)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    t = res.table
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(res.summary())
    fresh = t.loc[~t["fit_reused"], "seconds"]
    reused = t.loc[t["fit_reused"], "seconds"]
    print(f"\ntotal {total:.0f} s for {len(t)} configurations "
          f"({total / len(t):.1f} s each); goal < 180 s")
    print(f"CPU time of this process {cpu:.0f} s (on a shared machine the wall time counts "
          f"other processes' turns; CPU time is what the sweep itself used)")
    print(f"configurations with a fit: {len(fresh)}, mean {fresh.mean():.1f} s; with a reused "
          f"fit: {len(reused)}, mean {reused.mean():.1f} s")
    print(f"without fit reuse (every configuration at the fitted ones' mean): about "
          f"{fresh.mean() * len(t):.0f} s")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
