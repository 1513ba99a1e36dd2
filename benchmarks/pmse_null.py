"""The logistic pMSE's permutation null on Adult: ways of refitting permuted labels, measured.

Adult complete cases against synthpop's default release (30,162 + 30,162 rows, the one-hot
main-effects design of ``pmse(..., "logistic")``, k = 97 parameters). The same permutations
(``numpy.random.default_rng(1)``) are refitted by each candidate:

* ``irls``: the full Newton-Raphson/IRLS fit of each permutation from the null start (what
  ``pmse`` did before issue 35: a weighted Gram matrix, N p^2, per iteration, plus the rank and
  covariance of a fit whose importance nobody reads);
* ``irls-warm``: the same, started from the unpermuted fit's coefficients;
* ``chord``: :class:`synthguard.utility._propensity.NullLogistic`, a fixed-Hessian Newton
  iteration: ``X1'X1`` formed and decomposed once, then two matrix-vector products per step
  (what ``pmse`` does now); permutations it cannot fit (separation) go back to IRLS;
* ``closed form``: no refits, the expectation of the pMSE of two independent samples,
  ``(k-1) c (1-c) / N`` (see ``pmse``'s docstring), for comparison with the permuted mean.

Printed: CPU seconds per permutation, the mean and SD of the permuted pMSEs, the largest
relative difference of a permutation's pMSE from IRLS's, and (chord) how many fell back.
The Monte-Carlo standard error of the permuted mean is SD / sqrt(n).

Measured (issue 35, 8 permutations, load 11-15, CPU seconds a permutation): irls 0.53,
irls-warm 0.38, chord 0.20 (0.06-0.08 for the 6 permutations it fitted alone, 0.46-0.48 for
the 2 whose two-row level of native_country took one label, finished by Newton); null mean
0.000399221 in all three (Monte-Carlo SE 1.6e-05), largest difference of one permutation's
pMSE from IRLS's 3.2e-06 relative (the separated ones, whose coefficient has no finite
maximum); closed form 0.000397852.

Run: ``.venv/bin/python benchmarks/pmse_null.py [--n 20] [--candidates irls chord ...]``
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from synthguard.data import infer_schema
from synthguard.utility._design import stacked_design
from synthguard.utility._propensity import (
    NullLogistic,
    fit_logistic,
    predict_logistic,
)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SYNTHGUARD_SHARED_DATA", ROOT.parents[1] / "shared" / "data"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20, help="permutations")
    ap.add_argument("--candidates", nargs="+", default=["irls", "irls-warm", "chord"])
    args = ap.parse_args()
    rel = SHARED / "synthpop_releases"
    conf = pd.read_csv(rel / "adult_complete_cases.csv")
    syn = pd.read_csv(rel / "adult_syn_default_seed1.csv")
    cols = list(conf.columns)
    design = stacked_design(conf, syn, infer_schema(conf), cols, encoding="onehot")
    X, y = design.X, design.y
    N = len(y)
    c = float(y.mean())
    rng = np.random.default_rng(1)
    perms = [y[rng.permutation(N)] for _ in range(args.n)]
    with threadpool_limits(limits=1):
        full = fit_logistic(X, y)
        k = full.rank
        print(f"N = {N}, k = {k}, observed pMSE {np.mean((predict_logistic(full, X) - c) ** 2):.6g};"
              f" closed form (k-1)c(1-c)/N = {(k - 1) * c * (1 - c) / N:.6g}")
        ref: np.ndarray | None = None
        print(f"{'candidate':<11}{'cpu s/perm':>11}{'null mean':>12}{'null sd':>11}"
              f"{'mc se':>10}{'max rel diff':>14}{'fallbacks':>10}")
        for cand in args.candidates:
            t0 = time.process_time()
            vals = []
            fb = ""
            if cand == "chord":
                null = NullLogistic(X)
                for yp in perms:
                    vals.append(np.mean((null.predict(yp) - c) ** 2))
                fb = str(null.newton_finishes)
            else:
                for yp in perms:
                    if cand == "irls":
                        fit = fit_logistic(X, yp)
                    else:  # warm start: one more IRLS loop from the unpermuted fit
                        fit = _warm(X, yp, full.coef)
                    vals.append(np.mean((predict_logistic(fit, X) - c) ** 2))
            cpu = (time.process_time() - t0) / len(perms)
            v = np.array(vals)
            if ref is None:
                ref = v
            diff = float(np.max(np.abs(v - ref) / ref))
            print(f"{cand:<11}{cpu:>11.3f}{v.mean():>12.6g}{v.std(ddof=1):>11.4g}"
                  f"{v.std(ddof=1) / np.sqrt(len(v)):>10.3g}{diff:>14.2e}{fb:>10}", flush=True)


def _warm(X: np.ndarray, y: np.ndarray, start: np.ndarray) -> object:
    """IRLS from ``start``: fit_logistic on the offset-free design with the start folded in
    is not available, so a small Newton loop of its own (same criteria as fit_logistic)."""
    from scipy.special import expit

    X1 = np.hstack([np.ones((X.shape[0], 1)), X])
    beta = start.copy()
    ridge = 1e-10 * X1.shape[0] * np.eye(X1.shape[1])
    ll = float(np.sum(y * (X1 @ beta) - np.logaddexp(0.0, X1 @ beta)))
    for _ in range(30):
        mu = expit(X1 @ beta)
        w = mu * (1 - mu)
        step = np.linalg.lstsq((X1 * w[:, None]).T @ X1 + ridge, X1.T @ (y - mu), rcond=None)[0]
        t = 1.0
        while True:
            new = beta + t * step
            eta = X1 @ new
            ll_new = float(np.sum(y * eta - np.logaddexp(0.0, eta)))
            if ll_new >= ll - 1e-12 or t < 1e-4:
                break
            t /= 2
        beta, ll_old, ll = new, ll, ll_new
        if np.max(np.abs(t * step)) < 1e-8 or abs(ll - ll_old) < 1e-8 * (abs(ll) + 1):
            break

    class _Fit:
        coef = beta

    return _Fit()


if __name__ == "__main__":
    main()
