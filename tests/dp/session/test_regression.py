"""DP linear regression from noisy sufficient statistics (a session query kind)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from synthguard.dp import Session
from synthguard.dp.session.regression import regression_scales, regression_sensitivity
from synthguard.errors import PrivacyWarning


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    x1 = rng.uniform(20, 60, n)
    x2 = rng.uniform(0, 10, n)
    y = 5 + 0.5 * x1 - 2 * x2 + rng.normal(0, 3, n)
    return pd.DataFrame({"hid": np.arange(n) // 2, "x1": x1, "x2": x2, "y": y})


BOUNDS = {"x1": [20, 60], "x2": [0, 10], "y": [-30, 60]}


def test_without_noise_it_is_ordinary_least_squares():
    """At an enormous epsilon the coefficients and intervals are OLS's (brute force)."""
    df = _data()
    s = Session(df, privacy_unit="hid", max_rows=2, epsilon=1e12, noise_random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        f = s.query(aggregations={"fit": {"regression": "y", "on": ["x1", "x2"],
                                          "bounds": BOUNDS}}, epsilon=1e11).to_frame()
    x = np.column_stack([np.ones(len(df)), df["x1"], df["x2"]])
    beta, *_ = np.linalg.lstsq(x, df["y"].to_numpy(), rcond=None)
    resid = df["y"].to_numpy() - x @ beta
    se = np.sqrt(resid @ resid / (len(df) - 3) * np.diag(np.linalg.inv(x.T @ x)))
    for j, term in enumerate(["intercept", "x1", "x2"]):
        assert f[f"fit_{term}"].iloc[0] == pytest.approx(beta[j], rel=1e-6)
        assert f[f"fit_{term}_upper"].iloc[0] - beta[j] == pytest.approx(1.959964 * se[j],
                                                                         rel=1e-3)


def test_sensitivity_is_the_worst_row_of_the_statistics():
    bounds = [(20.0, 60.0), (0.0, 10.0), (-30.0, 60.0)]
    mid = np.array([(lo + hi) / 2 for lo, hi in bounds])
    worst = 0.0
    for corner in itertools.product(*bounds):
        z = np.array([1.0, *(np.array(corner) - mid)])
        worst = max(worst, float(np.abs(np.outer(z, z)[np.triu_indices(4)]).sum()))
    assert worst == pytest.approx(regression_sensitivity(bounds))
    scales = regression_scales(bounds, 2, 0.5, ["x1", "x2", "y"])
    # equal split: each of the 10 statistics costs epsilon/10, the whole costs epsilon
    m = np.array([1.0, 20.0, 5.0, 45.0])
    costs = [2 * m[i] * m[j] / b for (i, j), b in zip(zip(*np.triu_indices(4)),
                                                       scales.values())]
    assert math.isclose(sum(costs), 0.5) and scales["n"] == 2 * 10 / 0.5


def test_noisy_fit_charges_the_unit():
    df = _data(6000, seed=1)
    s = Session(df, privacy_unit="hid", max_rows=2, epsilon=2.0)
    f = s.query(aggregations={"fit": ("regression", "y", ["x1", "x2"], BOUNDS)},
                epsilon=2.0).to_frame()
    assert (f["fit_x1_lower"] < f["fit_x1"]).all() and (f["fit_x1"] < f["fit_x1_upper"]).all()
    (charge,) = s.ledger.charges
    assert charge.privacy_unit == "hid" and math.isclose(charge.epsilon, 2.0)


@pytest.mark.slow
def test_interval_covers_the_population_slope():
    """Fresh data and fresh noise 200 times: the 95% interval (sampling + noise) covers the
    true slopes about 95% of the time (binomial sd 1.5 points: 90-99% allowed)."""
    hits = np.zeros(2)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)
        for rep in range(200):
            s = Session(_data(2000, seed=100 + rep), privacy_unit="hid", max_rows=2,
                        epsilon=1.0, noise_random_state=rep)
            f = s.query(aggregations={"fit": ("regression", "y", ["x1", "x2"], BOUNDS)},
                        epsilon=1.0).to_frame()
            for j, (term, truth) in enumerate([("x1", 0.5), ("x2", -2.0)]):
                hits[j] += f[f"fit_{term}_lower"].iloc[0] <= truth <= \
                    f[f"fit_{term}_upper"].iloc[0]
    assert ((hits / 200 >= 0.90) & (hits / 200 <= 0.99)).all(), hits / 200
