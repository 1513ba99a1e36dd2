"""Benchmark TopDown: a 3-level hierarchy with 3,000 leaves × 4 attribute cells (issue 15).

Data: ``--rows`` records (default 300,000) spread over 50 states × 6 counties × 10 tracts
(3,000 leaf units) with two binary attributes (4 cells), seeded. The hierarchy total → state →
county → tract is measured with discrete Gaussian noise (ε = 1, δ = 1e-10 split equally over
the four levels; OpenDP noise, the release path) and post-processed top down, once without
invariants and once with county totals invariant (the integer programme then runs per
parent). Prints the seconds of each run and the RMSE by level of the consistent counts and of
the raw noisy measurements. Target: under 30 s per run.

Run:  .venv/bin/python benchmarks/dp_tables.py [--rows 300000] [--seed 0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from synthguard.dp.tables import topdown, topdown_accuracy


def hierarchy(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    st = rng.integers(0, 50, n)
    co = rng.integers(0, 6, n)
    tr = rng.integers(0, 10, n)
    return pd.DataFrame({"state": st.astype(str), "county": (st * 100 + co).astype(str),
                         "tract": (st * 10000 + co * 100 + tr).astype(str),
                         "sex": rng.choice(["F", "M"], n), "age": rng.choice(["<65", "65+"], n)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=300_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    df = hierarchy(args.rows, args.seed)
    units = df[["state", "county", "tract"]].drop_duplicates()
    cats = {"sex": ["F", "M"], "age": ["<65", "65+"]}
    print(f"{len(df):,} records, {len(units):,} leaf units x 4 attribute cells")
    for inv in ([], ["county"]):
        t = time.perf_counter()
        res = topdown(df, ["state", "county", "tract"], ["sex", "age"], epsilon=1.0,
                      delta=1e-10, mechanism="discrete_gaussian", units=units,
                      categories=cats, invariants=inv)
        secs = time.perf_counter() - t
        acc = topdown_accuracy(df, res).pivot(index="level", columns="estimate", values="rmse")
        print(f"\ninvariants {inv or 'none'}: {secs:.1f} s")
        print(acc.reindex(["total", "state", "county", "tract"]).round(3).to_string())


if __name__ == "__main__":
    main()
