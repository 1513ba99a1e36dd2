"""Risk weights against brute-force eqs. (2)-(3) and (6)-(9); survey weights."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.bayes import combine_weights, normalize_survey_weights, risk_weights
from synthguard.errors import DataError, DisclosureWarning, ParameterError


def _inside(y, i, h, r):
    # B(y_i, r) = {v : |v - y_i| < r |y_i|}, boundary outside, the centre always inside
    return abs(y[h] - y[i]) < r * abs(y[i]) or y[h] == y[i]


def _brute(conf, keys, target, r):
    y = conf[target].to_numpy(float)
    pat = conf[keys].astype(str).agg("|".join, axis=1).to_numpy()
    n = len(y)
    marg = np.empty(n)
    pair = np.full(n, np.nan)
    for i in range(n):
        M = [h for h in range(n) if pat[h] == pat[i]]
        marg[i] = sum(not _inside(y, i, h, r) for h in M) / len(M)
        if len(M) > 1:
            irs = [
                sum((not _inside(y, i, h, r)) and (not _inside(y, j, h, r)) for h in M) / len(M)
                for j in M
                if j != i
            ]
            pair[i] = 1 - sum(irs) / (len(M) - 1)
    return 1 - marg, pair


def _conf(seed, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 2, n),
            "b": rng.integers(0, 3, n),
            "y": np.round(rng.lognormal(3, 0.6, n), 1),
        }
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_marginal_and_pairwise_match_brute_force(seed):
    conf = _conf(seed)
    marg, pair = _brute(conf, ["a", "b"], "y", 0.15)
    m = risk_weights(conf, ["a", "b"], "y", 0.15, "marginal")
    np.testing.assert_allclose(m.weights, marg, atol=1e-12)
    np.testing.assert_allclose(m.risk, 1 - marg, atol=1e-12)
    p = risk_weights(conf, ["a", "b"], "y", 0.15, "pairwise")
    np.testing.assert_allclose(p.weights, pair, atol=1e-12)
    assert np.all((p.weights >= 0) & (p.weights <= 1))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from([-20.0, -5.0, 0.0, 4.0, 5.0, 5.5, 9.0, 30.0])),
        min_size=2,
        max_size=25,
    ),
    st.sampled_from([0.1, 0.2, 0.5]),
)
def test_weights_match_brute_force_with_ties_zeros_and_negatives(rows, r):
    conf = pd.DataFrame(rows, columns=["k", "y"])
    marg, pair = _brute(conf, ["k"], "y", r)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DisclosureWarning)  # singletons: checked below
        m = risk_weights(conf, ["k"], "y", r, "marginal")
        p = risk_weights(conf, ["k"], "y", r, "pairwise")
    np.testing.assert_allclose(m.weights, marg, atol=1e-12)
    single = np.isnan(pair)
    np.testing.assert_allclose(p.weights[~single], pair[~single], atol=1e-12)
    np.testing.assert_allclose(p.weights[single], marg[single], atol=1e-12)  # default policy
    assert np.all((p.weights >= 0) & (p.weights <= 1)) and not np.isnan(p.weights).any()


def test_singletons_get_marginal_weight_by_default_and_warn():
    conf = pd.DataFrame({"k": [1, 1, 1, 2], "y": [10.0, 11.0, 30.0, 5.0]})
    with pytest.warns(DisclosureWarning, match="alone in their pattern"):
        p = risk_weights(conf, ["k"], "y", 0.2, "pairwise")
    assert p.weights[3] == 1.0 and p.singleton.tolist() == [False, False, False, True]
    with pytest.warns(DisclosureWarning):
        z = risk_weights(conf, ["k"], "y", 0.2, "pairwise", singleton_weight=0.0)
    assert z.weights[3] == 0.0
    assert not np.isnan(z.weights).any()


def test_floor_and_rescale_trade_utility_back():
    conf = _conf(3)
    base = risk_weights(conf, ["a"], "y", 0.1)
    fl = risk_weights(conf, ["a"], "y", 0.1, floor=0.6)
    np.testing.assert_allclose(fl.weights, np.maximum(base.weights, 0.6))
    rs = risk_weights(conf, ["a"], "y", 0.1, rescale=(0.5, 0.5))
    np.testing.assert_allclose(rs.weights, 0.5 * base.weights + 0.5)
    np.testing.assert_array_equal(rs.raw, base.weights)
    assert risk_weights(conf, ["a"], "y", 0.1, floor=1.0).n_downweighted == 0


def test_record_of_downweighting():
    conf = pd.DataFrame({"k": [1, 1, 1, 1], "y": [10.0, 11.0, 30.0, 60.0]})
    rw = risk_weights(conf, ["k"], "y", 0.2)
    f = rw.to_frame()
    assert list(f.columns) == [
        "pattern_size", "singleton", "risk", "raw_weight", "weight", "downweighting",
    ]
    np.testing.assert_allclose(f["downweighting"], [0.5, 0.5, 0.75, 0.75])
    assert rw.n_downweighted == 4 and rw.mean == pytest.approx(0.375)
    assert "marginal risk weights for 4 records" in rw.summary()


def test_bad_parameters():
    conf = _conf(4)
    with pytest.raises(ParameterError):
        risk_weights(conf, ["a"], "y", 0.1, kind="triple")
    with pytest.raises(ParameterError):
        risk_weights(conf, ["a"], "y", 0.1, floor=1.5)
    with pytest.raises(ParameterError):
        risk_weights(conf, ["a"], "y", 0.1, rescale=(-1.0, 0.0))


def test_survey_weights_normalised_and_combined():
    s = np.array([100.0, 300.0, 600.0, 1000.0])
    ns = normalize_survey_weights(s)
    assert ns.sum() == pytest.approx(4.0)
    np.testing.assert_allclose(ns / ns[0], s / s[0])
    alpha = np.array([1.0, 0.5, 0.25, 0.0])
    np.testing.assert_allclose(combine_weights(alpha, s), alpha * ns)
    np.testing.assert_allclose(combine_weights(survey=s), ns)
    with pytest.raises(DataError):
        normalize_survey_weights([1.0, np.nan])
    with pytest.raises(DataError):
        combine_weights(alpha, s[:3])
