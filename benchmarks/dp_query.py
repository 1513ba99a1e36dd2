"""Benchmark of ``synthguard.dp.Session`` on Adult grouped into households (issue 34).

Data: Adult complete cases (``shared/data/synthpop_releases/adult_complete_cases.csv``, 30,162
rows), shuffled with a fixed seed and cut into households of 1–5 consecutive rows, the sizes
drawn uniformly with ``numpy.random.default_rng(SEED)`` (about 10,000 households). Privacy
unit: the household, ``max_rows=5`` (so the bounding keeps every row and the truth "on the
bounded data" is the statistic of the file).

Queries, by sex over the public keys [Male, Female], each at ε = 0.2 per household: count,
sum of hours_per_week in [0, 100], mean of it, median of it, count of distinct households.
For each, over ``--reps`` repetitions (default 200):

* MAE: mean absolute error against the truth, over both sexes;
* coverage of the 95% interval (the median: share of releases whose rank error is within the
  stated bound, ``rank_error``);
* the ledger's charge for the five queries (must be 1.0: the household-level cost);
* seconds per query: with OpenDP's noise (the release path) over ``--timed`` repetitions.

The errors and coverage use the seeded numpy noise path (simulation only), as a simulation
must; the timings use OpenDP.

Run:  .venv/bin/python benchmarks/dp_query.py [--reps 200] [--timed 20] [--data PATH]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from synthguard.dp import Session
from synthguard.errors import PrivacyWarning

SEED = 34
DATA = Path(os.environ.get("SYNTHGUARD_SHARED_DATA",
                          Path(__file__).resolve().parents[2] / "shared" / "data"))
ADULT = DATA / "synthpop_releases" / "adult_complete_cases.csv"
LEVELS = ["Male", "Female"]
QUERIES = {"count": "count", "sum": ("sum", "hours_per_week", (0, 100)),
           "mean": ("mean", "hours_per_week", (0, 100)),
           "median": ("median", "hours_per_week", (0, 100)),
           "count_distinct": "count_distinct"}


def households(path: Path, seed: int = SEED) -> pd.DataFrame:
    """Adult rows in households of 1–5 rows, reproducibly."""
    df = pd.read_csv(path).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=len(df))
    cut = np.searchsorted(np.cumsum(sizes), len(df))
    sizes = sizes[: cut + 1]
    sizes[-1] -= sizes.sum() - len(df)
    df["hid"] = np.repeat(np.arange(sizes.size), sizes)
    return df


def truth(df: pd.DataFrame) -> dict[str, np.ndarray]:
    g = df.groupby("sex")
    h = g["hours_per_week"]
    return {"count": g.size().reindex(LEVELS).to_numpy(float),
            "sum": h.sum().reindex(LEVELS).to_numpy(float),
            "mean": h.mean().reindex(LEVELS).to_numpy(float),
            "median": h.median().reindex(LEVELS).to_numpy(float),
            "count_distinct": g["hid"].nunique().reindex(LEVELS).to_numpy(float)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--timed", type=int, default=20)
    ap.add_argument("--data", type=Path, default=ADULT)
    args = ap.parse_args()
    df = households(args.data)
    t = truth(df)
    by = {"sex": LEVELS}
    hours = {s: np.sort(df.loc[df["sex"] == s, "hours_per_week"].to_numpy(float))
             for s in LEVELS}
    print(f"Adult in households: {len(df):,} rows, {df['hid'].nunique():,} households of "
          f"1-5 rows; unit hid, max_rows=5; epsilon 0.2 per query; {args.reps} repetitions")

    # the ledger's charge: the five queries once on a budget of 1.0
    s = Session(df, privacy_unit="hid", max_rows=5, epsilon=1.0)
    for name, agg in QUERIES.items():
        s.query(by=by, aggregations={name: agg}, epsilon=0.2, label=name)
    charge = s.spent.epsilon
    units = {c.privacy_unit for c in s.ledger.charges}

    rows = []
    warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
    for name, agg in QUERIES.items():
        sim = Session(df, privacy_unit="hid", max_rows=5, epsilon=1e9, random_state=1,
                      noise_random_state=SEED)
        err, hit = [], 0
        for _ in range(args.reps):
            r = sim.query(by=by, aggregations={name: agg}, epsilon=0.2)
            f = r.to_frame()
            v = f[name].to_numpy(float)
            err.extend(np.abs(v - t[name]))
            if name == "median":
                rank = float(r.plan["rank_error"].iloc[0])
                cand = np.linspace(0, 100, 1001)
                for s_, val in zip(LEVELS, v):
                    # the exponential mechanism's guarantee (McSherry & Talwar 2007): the score
                    # |#{x < c} - q n| of the released candidate is within rank_error of the
                    # best candidate's (ties at 40 hours keep the best above 0)
                    x = hours[s_]
                    score = np.abs(np.searchsorted(x, cand, "left") - 0.5 * x.size)
                    got = abs(np.searchsorted(x, val, "left") - 0.5 * x.size)
                    hit += int(got <= score.min() + rank)
            else:
                lo, hi = f[f"{name}_lower"].to_numpy(), f[f"{name}_upper"].to_numpy()
                hit += int(((lo <= t[name]) & (t[name] <= hi)).sum())
        rel = Session(df, privacy_unit="hid", max_rows=5, epsilon=1e9)
        start = time.perf_counter()
        for _ in range(args.timed):
            rel.query(by=by, aggregations={name: agg}, epsilon=0.2)
        sec = (time.perf_counter() - start) / args.timed
        rows.append({"statistic": name, "truth (M, F)": ", ".join(f"{v:.6g}" for v in t[name]),
                     "MAE": float(np.mean(err)),
                     "coverage %": 100.0 * hit / (len(LEVELS) * args.reps),
                     "epsilon": 0.2, "s/query (OpenDP)": sec})
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))
    print(f"ledger charge of the five queries: epsilon={charge:.6g} per household "
          f"(unit-level cost 1.0; units recorded: {sorted(units)})")
    print("median coverage: share of releases whose rank score is within rank_error of the "
          "best candidate's (the exponential mechanism's 95% guarantee)")
    print("OpenDP 0.16 Context: not run here (needs its own env with polars 1.36.1)")


if __name__ == "__main__":
    main()
