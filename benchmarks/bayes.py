"""Speed of risk-weighted Bayesian synthesis (prints figures; not a test).

1. Risk weights for n = 1M records in 40 patterns (marginal, eq. 3; pairwise, eq. 9), from
   synthguard.risk.
2. bayes_norm: fit (weighted sufficient statistics) + 20 implicates for n = 1M with 5
   predictors; goal under 30 s. Also through the RiskWeightedSynthesizer end to end.
3. bayes_mixture: HMC time per 1,000 iterations at n = 10k and 100k (K = 3, 4 predictors),
   measured on a short run and scaled.
4. bayes_negbin: a full default run (2,300 iterations) at n = 1000, and at n = 1M with two
   categorical predictors (records collapse to distinct rows).

Run: ``python benchmarks/bayes.py`` (about two minutes).
"""

from __future__ import annotations

import resource
import time
import warnings

import numpy as np
import pandas as pd

from synthguard.bayes import (
    BayesMixture,
    BayesNegBin,
    BayesNorm,
    RiskWeightedSynthesizer,
    risk_weights,
)
from synthguard.errors import DisclosureWarning


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def frame(n: int, rng: np.random.Generator) -> pd.DataFrame:
    a = rng.integers(0, 5, n)
    b = rng.integers(0, 8, n)
    x = rng.normal(size=n)
    inc = np.exp(10 + 0.2 * a - 0.1 * b + 0.4 * x + rng.normal(scale=0.8, size=n))
    return pd.DataFrame({"a": pd.Categorical(a), "b": pd.Categorical(b), "x": x, "income": inc})


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    conf = frame(n, rng)
    print(f"== risk weights, n = {n:,}, 40 patterns ==")
    for kind in ("marginal", "pairwise"):
        t = time.perf_counter()
        rw = risk_weights(conf, ["a", "b"], "income", 0.2, kind)
        print(f"{kind:9s}: {time.perf_counter() - t:6.2f} s  (mean weight {rw.mean:.3f})")

    print(f"\n== bayes_norm, n = {n:,}, 5 predictors, 20 implicates ==")
    X = np.column_stack([rng.normal(size=n) for _ in range(5)])
    y = X @ np.arange(1.0, 6.0) + rng.normal(size=n)
    w = rng.uniform(size=n)
    t = time.perf_counter()
    model = BayesNorm().fit(X, y, weights=w)
    t_fit = time.perf_counter() - t
    g = np.random.default_rng(1)
    for _ in range(20):
        model.draw(X, g)
    t_all = time.perf_counter() - t
    print(f"fit {t_fit:.2f} s, fit + 20 implicates {t_all:.2f} s (goal < 30 s)")
    for diag in (False, True):
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DisclosureWarning)
            RiskWeightedSynthesizer(
                model="bayes_norm", kind="pairwise", keys=["a", "b"], targets="income",
                transform="log", m=20, random_state=1,
            ).fit(conf).sample(diagnostics=diag)
        print(f"RiskWeightedSynthesizer end to end (pairwise weights, fit, 20 implicates of "
              f"{conf.shape[1]} columns, release diagnostics {'on' if diag else 'off'}): "
              f"{time.perf_counter() - t:.2f} s")

    print("\n== bayes_mixture (HMC), K = 3, 4 predictors ==")
    for n_m, iters in ((10_000, 200), (100_000, 40)):
        Xm = rng.normal(size=(n_m, 4))
        ym = np.where(rng.random(n_m) < 0.7, 0, 3) + Xm[:, 0] + rng.normal(size=n_m)
        m = BayesMixture(burn_in=iters // 2, n_draws=iters // 2, random_state=1)
        m.fit(Xm, ym, weights=rng.uniform(size=n_m))
        d = m.diagnostics_
        per_1000 = d.seconds / iters * 1000
        print(f"n = {n_m:>7,}: {per_1000:7.1f} s per 1,000 iterations "
              f"({d.acceptance['gradients_per_iteration']:.1f} gradients per iteration; "
              f"measured over {iters})")

    print("\n== bayes_negbin (slice sampling), default run ==")
    from synthguard.data import load_dataset

    yb = load_dataset("nb_mixture")["y"].to_numpy(float)
    nb = BayesNegBin(random_state=1).fit(np.zeros((yb.size, 0)), yb)
    print(f"n = 1,000: {nb.diagnostics_.summary()}")
    Xc = np.column_stack([(conf["a"].cat.codes == k) for k in range(1, 5)]).astype(float)
    yc = rng.negative_binomial(5, 5 / (5 + 50.0), size=n).astype(float)
    t = time.perf_counter()
    nb = BayesNegBin(random_state=1).fit(Xc, yc)
    print(f"n = 1,000,000 with 4 dummies ({nb.data_[0].shape[0]:,} distinct rows): "
          f"{time.perf_counter() - t:.1f} s; min ESS {nb.diagnostics_.min_ess:.0f}")
    print(f"\npeak resident memory {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
