"""Speed and memory of the utility measures on 100k confidential + 100k synthetic rows with
20 mixed columns (12 numeric, 8 categorical with 2-12 levels).

Prints seconds (wall clock, and CPU time of the process: on a shared machine the wall clock
includes waiting for a core) and the peak resident memory added by the call (each call runs in
a forked child process)
for ``pmse`` with the logistic model (analytic null), ``pmse`` with CART (permutation null,
the default 20 permutations), ``evaluate_utility`` (logistic pMSE, ECDF, correlation fit,
univariate table, 100 random 3-way marginals, one regression), the weighted logistic pMSE, and
``domain_estimates`` of 2 numeric and 2 categorical variables in 60 domains (3 columns) with
weights, 50 strata and 2 PSUs each, on the data and 5 implicates (mean, total, median per
numeric variable). Goal: each under 30 s here. Run:

    .venv/bin/python benchmarks/utility.py [--only-domains]
"""

from __future__ import annotations

import multiprocessing as mp
import os
import resource
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from synthguard.utility import domain_estimates, evaluate_utility, pmse

N = 100_000


def make(n: int, rng: np.random.Generator, shift: float) -> pd.DataFrame:
    cols: dict[str, Any] = {}
    z = rng.standard_normal(n)
    for j in range(12):
        x = 0.5 * z + rng.standard_normal(n) + (shift if j < 3 else 0.0)
        cols[f"num{j}"] = np.exp(x) if j % 3 == 0 else x
    shares = np.random.default_rng(99)  # the same level shares in both data sets
    for j in range(8):
        levels = 2 + j * 10 // 7
        p = shares.dirichlet(np.ones(levels) * 2)
        cols[f"cat{j}"] = rng.choice([f"L{i}" for i in range(levels)], n, p=p)
    df = pd.DataFrame(cols)
    df.loc[rng.random(n) < 0.02, "num1"] = np.nan
    return df


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _child(fn: Callable[[], Any], queue: Any) -> None:
    base = _rss_mib()
    t0 = time.perf_counter()
    c0 = time.process_time()
    out = fn()
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    queue.put((secs, cpu, peak - base, out))


def measure(label: str, fn: Callable[[], Any]) -> Any:
    """Run ``fn`` in a forked child: wall and CPU seconds, and its peak resident memory above
    the resident memory at the start (the data are already loaded)."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(fn, queue))
    proc.start()
    secs, cpu, extra, out = queue.get()
    proc.join()
    flag = "ok" if secs < 30 else "over 30 s"
    print(f"{label:<32} {secs:7.2f} s wall {cpu:7.2f} s CPU   peak +{extra:7.1f} MiB RSS   {flag}")
    return out


def with_design(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    n = len(df)
    return df.assign(w=rng.uniform(0.2, 5.0, n), stratum=rng.integers(0, 50, n),
                     psu=rng.integers(0, 2, n), region=rng.integers(0, 5, n),
                     sex=rng.integers(0, 2, n), age=rng.integers(0, 6, n))


def domains(conf: pd.DataFrame, syn: pd.DataFrame, rng: np.random.Generator) -> None:
    c = with_design(conf, rng)
    imps = [with_design(syn, rng) for _ in range(5)]
    num = [x for x in conf.columns if x.startswith("num")][:2]
    cat = [x for x in conf.columns if x.startswith("cat")][:2]
    r = measure(
        "domain_estimates (60 domains, m=5)",
        lambda: len(domain_estimates(c, imps, num + cat, ["region", "sex", "age"], weights="w",
                                     strata="stratum", clusters="psu").table),
    )
    print(f"    {r} estimates")


def main() -> None:
    import sys

    rng = np.random.default_rng(1)
    conf = make(N, rng, 0.0)
    syn = make(N, rng, 0.05)
    print(f"{N:,} + {N:,} rows x {conf.shape[1]} columns")
    if "--only-domains" in sys.argv:
        domains(conf, syn, rng)
        return
    w = rng.uniform(0.2, 5.0, N)
    r = measure("pmse logistic, weighted", lambda: pmse(conf.assign(w=w), syn, weights="w",
                                                        random_state=0).summary())
    print("   ", r)
    domains(conf, syn, rng)
    r = measure("pmse logistic (analytic null)", lambda: pmse(conf, syn, random_state=0).summary())
    print("   ", r)
    r = measure("pmse cart (20 permutations)", lambda: pmse(conf, syn, "cart", random_state=0).summary())
    print("   ", r)
    r = measure(
        "evaluate_utility",
        lambda: len(evaluate_utility(conf, syn, ["num2 ~ num4 + cat1"], random_state=0).to_frame()),
    )
    print(f"    {r} headline numbers")


if __name__ == "__main__":
    main()
