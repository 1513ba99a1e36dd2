"""Time every traditional SDC method on 1M simulated records; each should take under 5 s.

Run: ``.venv/bin/python benchmarks/sdc.py [n_rows]``. Prints seconds (best of two untraced
runs), peak traced memory (tracemalloc, a third run) and records per second per method.
The machine is shared, so seconds vary by a factor of up to two between runs.
"""

from __future__ import annotations

import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from synthguard.sdc import (
    add_noise,
    bottomcode,
    generalize,
    pram,
    subsample,
    suppress,
    suppress_cells,
    swap,
    topcode,
)


def simulate(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 50, size=n)
    return pd.DataFrame(
        {
            "region": np.char.add("r", region.astype(str)),
            "county": np.char.add("c", (region * 10 + rng.integers(0, 10, size=n)).astype(str)),
            "sex": rng.choice(["f", "m"], size=n),
            "age": rng.integers(16, 96, size=n),
            "race": rng.choice(["1", "2", "3", "4", "5", "6"], size=n,
                               p=[0.7, 0.12, 0.01, 0.1, 0.02, 0.05]),
            "income": rng.lognormal(10.8, 0.9, size=n),
            "expenditure": rng.lognormal(9.0, 0.6, size=n),
        }
    )


def run(name: str, fn: Callable[[], Any]) -> tuple[str, float, float]:
    """Seconds of an untraced run (best of two), then peak traced memory of a third run."""
    secs = np.inf
    for _ in range(2):
        t0 = time.perf_counter()
        fn()
        secs = min(secs, time.perf_counter() - t0)
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return name, secs, peak / 2**20


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    df = simulate(n)
    county_to_region = {f"c{r * 10 + j}": f"r{r}" for r in range(50) for j in range(10)}
    levels = ["1", "2", "3", "4", "5", "6"]
    p = np.full((6, 6), 0.02) + np.eye(6) * 0.88
    table = pd.crosstab(df["region"], df["race"])
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("topcode (p94)", lambda: topcode(df, "income", percentile=94)),
        ("bottomcode (at)", lambda: bottomcode(df, "income", at=5000)),
        ("suppress k=3 (sex, age, race, region)",
         lambda: suppress(df, ["sex", "age", "race", "region"], k=3)),
        ("suppress_cells (50 x 6 table)", lambda: suppress_cells(table, threshold=5)),
        ("swap random 5% (region, age) within sex",
         lambda: swap(df, ["region", "age"], rate=0.05, strata="sex", random_state=1)),
        ("swap rank p=5 (income, expenditure)",
         lambda: swap(df, ["income", "expenditure"], method="rank", max_rank_distance=5,
                      random_state=1)),
        ("generalize bins (age)", lambda: generalize(df, "age", bins=[0, 25, 45, 65, 120])),
        ("generalize hierarchy (county -> region)",
         lambda: generalize(df, "county", hierarchy=[county_to_region], level=1)),
        ("add_noise additive, keep variance (income)",
         lambda: add_noise(df, "income", scale=0.2, keep_variance=True, random_state=1)),
        ("add_noise multiplicative (income, expenditure)",
         lambda: add_noise(df, ["income", "expenditure"], kind="multiplicative", scale=0.1,
                           random_state=1)),
        ("subsample 10% within region",
         lambda: subsample(df, 0.1, strata="region", random_state=1)),
        ("pram (race, 6 levels)", lambda: pram(df, "race", p, levels=levels, random_state=1)),
    ]
    print(f"synthguard.sdc on {n:,} records x {df.shape[1]} columns (budget: 5 s each)\n")
    print(f"{'method':<48} {'seconds':>8} {'peak MiB':>9} {'records/s':>12}  ok")
    worst = 0.0
    for name, fn in cases:
        label, secs, peak = run(name, fn)
        worst = max(worst, secs)
        print(f"{label:<48} {secs:8.2f} {peak:9.0f} {n / secs:12,.0f}  {'yes' if secs < 5 else 'NO'}")
    print(f"\nslowest: {worst:.2f} s")


if __name__ == "__main__":
    main()
