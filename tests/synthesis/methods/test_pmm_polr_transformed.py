"""``pmm``, ``polr`` and the transformed ``norm`` family against brute force and by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from synthguard import Synthesizer
from synthguard.errors import MethodError
from synthguard.synthesis.methods import (
    CubeRootNormMethod,
    LogNormMethod,
    PMMMethod,
    PolrMethod,
    SqrtNormMethod,
)


def test_pmm_draws_observed_values_from_the_k_nearest_predictions():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.round(X @ [2.0, -1.0] + rng.normal(size=60), 1)
    m = PMMMethod(donors=3).fit(X, y)
    Xn = rng.normal(size=(200, 2))
    out = m.draw(Xn, np.random.default_rng(1))
    assert np.isin(out, y).all()
    # brute force: each draw is the value of one of the 3 records with the nearest prediction
    D = np.column_stack([np.ones(60), X])
    b = np.linalg.lstsq(D, y, rcond=None)[0]
    yhat, pred = D @ b, np.column_stack([np.ones(200), Xn]) @ b
    for p, v in zip(pred, out):
        d = np.abs(yhat - p)
        kth = np.sort(d)[2]
        assert v in set(y[d <= kth + 1e-12])


def test_pmm_seed_reproduces_and_donors_one_is_the_nearest():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 1))
    y = 5 * X[:, 0] + rng.normal(size=40)
    m = PMMMethod(donors=1).fit(X, y)
    a = m.draw(X, np.random.default_rng(3))
    np.testing.assert_array_equal(a, m.draw(X, np.random.default_rng(3)))
    np.testing.assert_array_equal(a, y)  # each record's own prediction is its nearest
    assert PMMMethod(proper=True).fit(X, y).draw(X, np.random.default_rng(4)).shape == (40,)
    with pytest.raises(MethodError, match="donors"):
        PMMMethod(donors=0).fit(X, y)


def _polr_nll(theta, X, y, K):
    p = X.shape[1]
    b, cuts = theta[:p], np.cumsum(np.r_[theta[p], np.exp(theta[p + 1:])])
    eta = X @ b
    cum = np.column_stack([np.zeros(len(y)), expit(cuts[None, :] - eta[:, None]), np.ones(len(y))])
    prob = cum[np.arange(len(y)), y + 1] - cum[np.arange(len(y)), y]
    return -np.sum(np.log(np.maximum(prob, 1e-300)))


def test_polr_matches_a_hand_written_likelihood_and_draws_in_order():
    rng = np.random.default_rng(5)
    n = 500
    X = rng.normal(size=(n, 2))
    y = np.digitize(X @ [1.5, -0.5] + rng.logistic(size=n), [-1.0, 0.5, 2.0])
    m = PolrMethod().fit(X, y)
    best = minimize(_polr_nll, np.r_[0, 0, -1, 0, 0], args=(X, y, 4), method="BFGS")
    b_ref = best.x[:2]
    cuts_ref = np.cumsum(np.r_[best.x[2], np.exp(best.x[3:])])
    np.testing.assert_allclose(m.coef_, b_ref, atol=2e-3)
    np.testing.assert_allclose(m.thresholds_, cuts_ref, atol=2e-3)
    assert np.all(np.diff(m.thresholds_) > 0)
    # the draws' distribution at a fixed x is the model's, and rises with x' b
    lo = m.draw(np.tile([-1.0, 0.0], (20000, 1)), np.random.default_rng(6))
    hi = m.draw(np.tile([1.0, 0.0], (20000, 1)), np.random.default_rng(6))
    cum = m.cumulative_probabilities(np.array([[-1.0, 0.0]]))[0]
    expected = np.diff(np.r_[0.0, cum, 1.0])
    np.testing.assert_allclose(np.bincount(lo, minlength=4) / 20000, expected, atol=0.012)
    assert np.all(np.cumsum(np.bincount(hi, minlength=4))[:-1]
                  <= np.cumsum(np.bincount(lo, minlength=4))[:-1])


def test_polr_draws_only_observed_codes_and_proper_draws_vary():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 1))
    y = np.array([0, 2, 5])[np.digitize(X[:, 0] + rng.logistic(size=300), [-0.5, 0.8])]
    m = PolrMethod(proper=True).fit(X, y)
    a = m.draw(X, np.random.default_rng(1))
    assert set(a) <= {0, 2, 5}
    np.testing.assert_array_equal(a, m.draw(X, np.random.default_rng(1)))


def test_lognorm_family_fits_on_the_transformed_scale_and_rounds_like_the_data():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 1))
    y = np.round(np.exp(2.0 + 0.7 * X[:, 0] + 0.1 * rng.normal(size=400)), 2)
    m = LogNormMethod().fit(X, y)
    assert abs(m.coef_[1] - 0.7) < 0.03 and m.offset_ == 0.0 and m.decimals_ == 2
    out = m.draw(X, np.random.default_rng(9))
    assert (out > 0).all()
    np.testing.assert_array_equal(out, np.round(out, 2))
    y0 = y.copy()
    y0[:50] = 0.0
    z = LogNormMethod().fit(X, y0)
    assert z.offset_ == pytest.approx(0.5 * y0[y0 > 0].min())
    assert (z.draw(X, np.random.default_rng(1)) >= 0).all()
    with pytest.raises(MethodError, match="cubertnorm"):
        LogNormMethod().fit(X, y - 100)
    with pytest.raises(MethodError, match="non-negative"):
        SqrtNormMethod().fit(X, y - 100)
    c = CubeRootNormMethod().fit(X, (X[:, 0] * 2 + 0.01 * rng.normal(size=400)) ** 3)
    assert abs(c.coef_[1] - 2.0) < 0.01


def test_new_methods_through_the_synthesizer_by_name():
    rng = np.random.default_rng(10)
    n = 300
    x = rng.normal(size=n)
    df = pd.DataFrame({
        "x": x,
        "grade": pd.Categorical(np.array(["low", "mid", "high"])[
            np.digitize(x + rng.logistic(size=n), [-0.5, 0.8])],
            categories=["low", "mid", "high"], ordered=True),
        "amount": np.round(np.exp(1 + 0.5 * x + 0.3 * rng.normal(size=n)), 2),
        "score": np.round(10 * x + rng.normal(size=n)),
    })
    res = Synthesizer(methods={"grade": "polr", "amount": "lognorm:proper=true",
                               "score": "pmm:donors=5"}, random_state=1).fit(df).sample()
    s = res.implicates[0]
    assert res.methods == {"x": "sample", "grade": "polr", "amount": "lognorm", "score": "pmm"}
    assert np.isin(s["score"], df["score"]).all()
    assert list(s["grade"].cat.categories) == ["low", "mid", "high"]
    # ordered: synthetic x is higher, on average, where grade is higher
    means = s.groupby("grade", observed=True)["x"].mean()
    assert means["low"] < means["mid"] < means["high"]
