"""ESS and the slice sampler against known answers."""

import numpy as np
import pytest

from synthguard.bayes import effective_sample_size
from synthguard.bayes.mcmc import slice_step


def test_ess_iid_close_to_n():
    x = np.random.default_rng(0).normal(size=20_000)
    assert effective_sample_size(x) == pytest.approx(20_000, rel=0.1)


@pytest.mark.parametrize("rho", [0.5, 0.9])
def test_ess_ar1_matches_theory(rho):
    # AR(1): integrated autocorrelation time (1 + rho) / (1 - rho)
    rng = np.random.default_rng(1)
    n = 50_000
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0]
    for t in range(1, n):
        x[t] = rho * x[t - 1] + e[t]
    expected = n * (1 - rho) / (1 + rho)
    assert effective_sample_size(x) == pytest.approx(expected, rel=0.2)


def test_ess_columns_and_constant():
    rng = np.random.default_rng(2)
    out = effective_sample_size(np.column_stack([rng.normal(size=500), np.ones(500)]))
    assert out.shape == (2,)
    assert np.isnan(out[1]) and out[0] > 300


def test_slice_step_leaves_normal_invariant():
    rng = np.random.default_rng(3)

    def logp(v: float) -> float:
        return -0.5 * (v - 2.0) ** 2 / 4.0

    x, lp = 0.0, logp(0.0)
    xs = np.empty(20_000)
    for i in range(xs.size):
        x, lp, _ = slice_step(x, logp, lp, 1.0, rng)
        xs[i] = x
    ess = effective_sample_size(xs)
    assert abs(xs.mean() - 2.0) < 4 * 2.0 / np.sqrt(ess)
    assert xs.var() == pytest.approx(4.0, rel=0.08)
