"""Benchmark the report: 100k rows × 20 columns, 4 releases of m = 5 implicates.

Prints seconds per stage (evaluate: utility and risk of each release; report: figures and
HTML) and the peak Python memory (tracemalloc is off by default: it slows numpy-heavy code;
pass --trace-memory to turn it on). Goal (issue 8): the whole report under 2 minutes here.

    python benchmarks/report.py [--rows 100000] [--trace-memory]
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def make_data(n: int, rng: np.random.Generator) -> pd.DataFrame:
    cols: dict[str, object] = {}
    for j, k in enumerate((2, 3, 4, 5, 6, 8, 10, 12)):  # 8 categorical columns
        p = rng.dirichlet(np.ones(k) * 2)
        cols[f"cat{j}"] = pd.Categorical(rng.choice(k, size=n, p=p))
    for j in range(4):  # 4 counts
        cols[f"count{j}"] = rng.poisson(1.0 + j, size=n).astype(np.int64)
    base = rng.normal(size=n)
    for j in range(8):  # 8 correlated numerics, some skewed
        x = 0.6 * base + 0.8 * rng.normal(size=n)
        cols[f"num{j}"] = np.round(np.exp(10 + 0.7 * x), 2) if j % 2 == 0 else np.round(x * 10, 3)
    return pd.DataFrame(cols)


def perturb(df: pd.DataFrame, rng: np.random.Generator, cols: list[str], scale: float,
            resample: bool = False) -> pd.DataFrame:
    out = df.sample(n=len(df), replace=True, random_state=rng.integers(2**31)).reset_index(
        drop=True) if resample else df.copy()
    for c in cols:
        v = out[c].to_numpy(dtype=float)
        out[c] = v * np.exp(rng.normal(0, scale, size=len(v))) if v.min() > 0 else \
            v + rng.normal(0, scale * v.std(), size=len(v))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--m", type=int, default=5)
    ap.add_argument("--trace-memory", action="store_true")
    args = ap.parse_args()
    from synthguard.report import evaluate, write_report

    rng = np.random.default_rng(1)
    t = time.perf_counter()
    data = make_data(args.rows + args.rows // 10, rng)
    conf = data.iloc[: args.rows].reset_index(drop=True)
    holdout = data.iloc[args.rows:].reset_index(drop=True)  # 10% more, never released
    nums = [c for c in conf.columns if c.startswith("num")]
    top = conf.copy()
    top["num0"] = top["num0"].clip(upper=float(np.quantile(top["num0"], 0.94)))
    releases = {
        "partial": [perturb(conf, rng, nums[:2], 0.2) for _ in range(args.m)],
        "partial_wide": [perturb(conf, rng, nums[:2], 0.5) for _ in range(args.m)],
        "full": [perturb(conf, rng, nums, 0.1, resample=True) for _ in range(args.m)],
        "topcoded": [perturb(top, rng, nums[1:2], 0.05) for _ in range(args.m)],
    }
    kinds = {"partial": "partial", "partial_wide": "partial", "full": "full",
             "topcoded": "protected"}
    t_data = time.perf_counter() - t
    print(f"data: {args.rows:,} rows x {conf.shape[1]} columns, {len(releases)} releases of "
          f"m = {args.m} ({t_data:.1f} s to generate)")
    if args.trace_memory:
        tracemalloc.start()
    stages: list[tuple[str, float, float]] = []
    last = [time.perf_counter(), time.process_time()]

    def progress(stage: str, done: int, total: int) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        stages.append((stage, now - last[0], cpu - last[1]))
        last[0], last[1] = now, cpu

    t0 = time.perf_counter()
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(conf, releases, keys=["cat0", "cat1", "cat2"], targets="num0",
                      holdout=holdout,
                      formulas=["num1 ~ num0 + count0 + cat0"], random_state=1,
                      kinds=kinds, progress=progress)
    t_eval = time.perf_counter() - t0
    for stage, sec, cpu in stages:
        print(f"  evaluate {stage:<28} {sec:7.1f} s wall {cpu:7.1f} s CPU")
    for name, r in ev.releases.items():
        if r.errors:
            print(f"  ({name}: not computed: {', '.join(r.errors)})")
    stages.clear()
    last[0], last[1] = time.perf_counter(), time.process_time()
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        path = write_report(ev, Path(d) / "report.html", progress=progress)
        size = path.stat().st_size
    t_report = time.perf_counter() - t1
    for stage, sec, cpu in stages:
        print(f"  report   {stage:<28} {sec:7.1f} s wall {cpu:7.1f} s CPU")
    total = t_eval + t_report
    cpu_total = time.process_time() - c0
    print(f"CPU time of the process (all threads): {cpu_total:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall time grows with the load)")
    print(f"evaluate {t_eval:.1f} s, report {t_report:.1f} s, total {total:.1f} s "
          f"(goal < 120 s: {'met' if total < 120 else 'MISSED'}); report file {size / 1e6:.2f} MB")
    if args.trace_memory:
        _, peak = tracemalloc.get_traced_memory()
        print(f"peak traced Python memory: {peak / 1e6:.0f} MB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"peak resident memory of the process: {rss:.0f} MB")
    print(ev.to_frame().dropna(axis=1, how="all").to_string(float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
