"""Intervals from the known noise laws: closed forms, brute force, coverage by simulation."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp.tables import NoiseModel, dp_tables
from synthguard.errors import ParameterError, PrivacyWarning


def test_laplace_and_gaussian_closed_forms():
    assert NoiseModel("laplace", 2.0).halfwidth(0.95) == pytest.approx(2 * math.log(20))
    assert NoiseModel("gaussian", 1.0).halfwidth(0.95) == pytest.approx(1.959963985, abs=1e-8)
    assert NoiseModel("laplace", 2.0).variance == 8.0
    assert NoiseModel("laplace", 0.0).halfwidth(0.9) == 0.0


def _brute_tail(pmf, t):
    return sum(p for k, p in pmf.items() if abs(k) > t)


@pytest.mark.parametrize("mech,scale", [("discrete_laplace", 1.0), ("discrete_laplace", 7.3),
                                        ("discrete_gaussian", 0.8), ("discrete_gaussian", 6.1)])
def test_discrete_halfwidth_is_smallest_integer_with_tail_below_alpha(mech, scale):
    ks = np.arange(-400, 401)
    if mech == "discrete_laplace":
        w = np.exp(-np.abs(ks) / scale)
    else:
        w = np.exp(-(ks ** 2) / (2 * scale ** 2))
    pmf = dict(zip(ks.tolist(), (w / w.sum()).tolist()))
    nm = NoiseModel(mech, scale)
    for conf in (0.8, 0.9, 0.95, 0.99):
        t = nm.halfwidth(conf)
        assert t == int(t)
        assert _brute_tail(pmf, t) <= 1 - conf + 1e-12
        assert _brute_tail(pmf, t - 1) > 1 - conf
        assert nm.tail(t) == pytest.approx(_brute_tail(pmf, t), abs=1e-12)
    var = sum(k * k * p for k, p in pmf.items())
    assert nm.variance == pytest.approx(var, rel=1e-9)
    if mech == "discrete_gaussian":
        assert nm.variance < scale ** 2  # Canonne, Kamath & Steinke (2020), Prop. 19


def test_confidence_must_be_a_probability():
    with pytest.raises(ParameterError, match="confidence"):
        NoiseModel("laplace", 1.0).halfwidth(1.0)
    with pytest.raises(ParameterError, match="mechanism"):
        NoiseModel("cauchy", 1.0)


def test_interval_coverage_by_simulation():
    # one table of 2,000 cells is 2,000 independent trials of the interval (seeded path)
    rng = np.random.default_rng(5)
    levels = [f"c{i}" for i in range(2000)]
    df = pd.DataFrame({"cell": rng.choice(levels, 30000)})
    truth = df["cell"].value_counts().reindex(levels, fill_value=0).to_numpy()
    for mech, eps, delta in (("discrete_laplace", 0.05, 0.0),
                             ("discrete_gaussian", 0.5, 1e-6)):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
            res = dp_tables(df, ["cell"], epsilon=eps, delta=delta, mechanism=mech,
                            categories={"cell": levels}, random_state=11)
        f = res["cell"].frame
        covered = (f["count_lower"] <= truth) & (truth <= f["count_upper"])
        assert abs(covered.mean() - 0.95) <= 0.015, (mech, covered.mean())


def test_discrete_laplace_halfwidth_at_a_tiny_scale_is_zero_not_an_error():
    # ε = 10⁶: a = exp(−1/s) underflows to 0 (was a math domain error)
    assert NoiseModel("discrete_laplace", 1e-6).halfwidth(0.95) == 0.0
