"""Benchmark: CART synthesis of diamonds-shaped data, and scaling to 1M rows x 10 columns.

Prints, per data size, the seconds to fit and to draw one implicate with synthguard's
defaults (first column ``sample``, every other column ``cart``, as synthpop), the peak memory
of the synthesis, and its ratio to the data's in-memory size
(``DataFrame.memory_usage(deep=True)``). Goal (issue 2): 1M x 10 in under 60 s with peak
memory under 3x the data's size.

Peak memory is measured two ways in a fresh subprocess per size:
* ``tracemalloc``: Python and numpy allocations during fit + sample (not scikit-learn's C
  buffers);
* ``ru_maxrss``: growth of the process's resident high-water mark during fit + sample
  (everything, including scikit-learn's tree buffers).

What keeps memory down (see ``synthguard.synthesis.sequential``): cart declares
``design_dtype = float32``, so its design is built in float32 (what scikit-learn's trees use)
and never copied; draws for cart build the design in row chunks; categorical donors are held
as int8 codes; the implicate's frame wraps the drawn columns instead of copying them. With
two threads two designs are fitted at once, so the memory ratio is higher.

Run: ``.venv/bin/python benchmarks/synthesis.py`` (add ``--quick`` to skip 1M rows).
Data: ``../shared/data/diamonds/diamonds.csv`` (ggplot2 diamonds, 53,940 x 10, via plotnine)
when present; larger sizes resample its rows and jitter the continuous columns. Without the
file, diamonds-like data are generated.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

DIAMONDS = Path(
    os.environ.get("SYNTHGUARD_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data")
) / "diamonds" / "diamonds.csv"

CUTS = ["Fair", "Good", "Very Good", "Premium", "Ideal"]
COLORS = list("DEFGHIJ")
CLARITY = ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"]


def _generate(n: int, rng: np.random.Generator) -> pd.DataFrame:
    carat = np.round(rng.lognormal(-0.5, 0.55, n), 2)
    cut = rng.choice(CUTS, n, p=[0.03, 0.09, 0.22, 0.26, 0.40])
    color = rng.choice(COLORS, n)
    clarity = rng.choice(CLARITY, n, p=[0.01, 0.17, 0.24, 0.23, 0.15, 0.09, 0.07, 0.04])
    x = np.round(6.5 * carat ** (1 / 3) + rng.normal(0, 0.05, n), 2)
    return pd.DataFrame({
        "carat": carat, "cut": cut, "color": color, "clarity": clarity,
        "depth": np.round(rng.normal(61.7, 1.4, n), 1), "table": np.round(rng.normal(57, 2.2, n)),
        "price": np.round(3900 * carat ** 1.7 * rng.lognormal(0, 0.2, n)).astype(np.int64),
        "x": x, "y": np.round(x + rng.normal(0, 0.05, n), 2),
        "z": np.round(0.62 * x + rng.normal(0, 0.03, n), 2),
    })


def load_data(n: int | None, seed: int = 1) -> pd.DataFrame:
    """The real diamonds (n None) or ``n`` diamonds-shaped rows."""
    rng = np.random.default_rng(seed)
    if DIAMONDS.is_file():
        base = pd.read_csv(DIAMONDS)
        if n is None:
            return base
        df = base.iloc[rng.integers(0, len(base), n)].reset_index(drop=True)
        for c, step in (("carat", 0.01), ("depth", 0.1), ("x", 0.01), ("y", 0.01), ("z", 0.01)):
            df[c] = np.round(df[c] + step * rng.integers(-2, 3, n), 2)
        return df
    return _generate(53_940 if n is None else n, rng)


CONFIGS = {
    "exact": {},
    "exact, 2 threads": {"n_jobs": 2},
    "max_bins=255, 2 threads": {"n_jobs": 2, "max_bins": 255},
}


def run_one(n: int | None, config: str = "exact") -> dict[str, float]:
    from synthguard.synthesis import Synthesizer, available_methods

    available_methods()  # import every method module now, so imports are not measured
    df = load_data(n)
    # warm up on a few rows: scikit-learn and pandas import modules lazily on first use
    Synthesizer(random_state=0).fit(df.head(500)).sample(diagnostics=False)
    size_mb = df.memory_usage(deep=True).sum() / 2**20
    opts = dict(CONFIGS[config])
    params = {}
    if "max_bins" in opts:
        bins = opts.pop("max_bins")
        params = {c: {"max_bins": bins} for c in df.columns[1:]}  # the cart columns
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    c0 = time.process_time()
    t0 = time.perf_counter()
    syn = Synthesizer(random_state=1, method_params=params or None, **opts).fit(df)
    t1 = time.perf_counter()
    res = syn.sample(diagnostics=False)
    t2 = time.perf_counter()
    c1 = time.process_time()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = res.implicates[0]
    assert out.shape == df.shape
    return {
        "rows": len(df), "cols": df.shape[1], "data_mb": size_mb,
        "fit_s": t1 - t0, "sample_s": t2 - t1, "total_s": t2 - t0, "cpu_s": c1 - c0,
        "tracemalloc_peak_mb": peak / 2**20, "rss_growth_mb": max(rss1 - rss0, 0.0),
        "price_mean_conf": float(df["price"].mean()), "price_mean_syn": float(out["price"].mean()),
    }


def main() -> None:
    if len(sys.argv) > 3 and sys.argv[1] == "--one":
        arg = sys.argv[2]
        print(json.dumps(run_one(None if arg == "diamonds" else int(arg), sys.argv[3])))
        return
    quick = "--quick" in sys.argv
    runs = [(s, "exact") for s in ("diamonds", "10000", "100000")]
    if not quick:
        runs += [("1000000", c) for c in CONFIGS]
    src = "real diamonds.csv" if DIAMONDS.is_file() else "generated diamonds-like data"
    print(f"CART synthesis (defaults: sample, then cart), one implicate; data: {src}")
    print("wall seconds depend on other load on the machine; CPU seconds (all threads) do not")
    print(f"{'rows':>9} {'config':<24} {'data MB':>8} {'fit s':>7} {'draw s':>7} {'total s':>8} "
          f"{'CPU s':>7} {'tracemalloc MB':>15} {'x data':>7} {'RSS growth MB':>14} {'x data':>7}")
    goal = None
    for size, config in runs:
        proc = subprocess.run([sys.executable, __file__, "--one", size, config],
                              capture_output=True, text=True, check=True)
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        if size == "1000000" and config == "exact":
            goal = r
        print(f"{r['rows']:>9,} {config:<24} {r['data_mb']:>8.1f} {r['fit_s']:>7.2f} "
              f"{r['sample_s']:>7.2f} {r['total_s']:>8.2f} {r['cpu_s']:>7.2f} "
              f"{r['tracemalloc_peak_mb']:>15.1f} {r['tracemalloc_peak_mb'] / r['data_mb']:>7.2f} "
              f"{r['rss_growth_mb']:>14.1f} {r['rss_growth_mb'] / r['data_mb']:>7.2f}", flush=True)
    print("goal: 1M x 10 in < 60 s, peak memory < 3 x data size")
    if goal is not None:
        tm, rss = (goal[k] / goal["data_mb"] for k in ("tracemalloc_peak_mb", "rss_growth_mb"))
        print(f"1M x 10, exact: {goal['total_s']:.1f} s "
              f"({'met' if goal['total_s'] < 60 else 'MISSED'}); peak memory "
              f"{tm:.2f}x data by tracemalloc ({'met' if tm < 3 else 'MISSED'}), "
              f"{rss:.2f}x by RSS growth ({'met' if rss < 3 else 'MISSED'})")


if __name__ == "__main__":
    main()
