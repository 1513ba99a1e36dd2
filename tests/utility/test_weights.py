"""weights= in the univariate comparison, the ECDF distances and the pMSE family: weights of 1
give the unweighted results, hand-computed weighted values, integer weights equal to repeated
records for the propensity measures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import DataError
from synthguard.utility import ecdf_utility, evaluate_utility, pmse, univariate
from synthguard.utility.ecdf import ecdf_distances


@pytest.fixture
def pair() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    n = 300
    conf = pd.DataFrame({
        "g": rng.choice(["a", "b", "c"], n),
        "x": np.round(rng.normal(10, 3, n), 1),
        "y": rng.poisson(2.0, n).astype(float),
    })
    syn = pd.DataFrame({
        "g": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
        "x": np.round(rng.normal(10.5, 3, n), 1),
        "y": rng.poisson(2.2, n).astype(float),
    })
    return conf, syn


def test_weights_of_one_give_the_unweighted_results(pair) -> None:  # type: ignore[no-untyped-def]
    conf, syn = pair
    c1, s1 = conf.assign(w=1.0), syn.assign(w=1.0)
    a = univariate(c1, s1, weights="w")
    b = univariate(conf, syn)
    pd.testing.assert_frame_equal(a.numeric, b.numeric, rtol=1e-10)
    pd.testing.assert_frame_equal(a.categorical, b.categorical, rtol=1e-10)
    e1 = ecdf_utility(conf.x, syn.x, conf_weights=np.ones(len(conf)),
                      synthetic_weights=np.ones(len(syn)))
    e0 = ecdf_utility(conf.x, syn.x)
    assert (e1.u_max, e1.u_avg) == pytest.approx((e0.u_max, e0.u_avg), rel=1e-12)
    p1 = pmse(c1, s1, weights="w", random_state=0)
    p0 = pmse(conf, syn, random_state=0)
    for k in ("pmse", "specks", "auc", "ratio"):
        assert getattr(p1, k) == pytest.approx(getattr(p0, k), rel=1e-9), k


def test_univariate_hand_computed() -> None:
    conf = pd.DataFrame({"c": ["a", "a", "b"], "y": [1.0, 2.0, 3.0], "w": [1.0, 1.0, 2.0]})
    r = univariate(conf, conf, weights="w")
    assert r.categorical.loc[("c", "a"), "share_conf"] == pytest.approx(0.5)
    assert r.categorical.loc[("c", "a"), "count_conf"] == 2  # counts stay record counts
    assert r.numeric.loc[("y", "mean"), "confidential"] == pytest.approx(9 / 4)
    # weighted type 7: values at (S_k - w_k)/(W - w_n) = 0, 1/2, 1 -> the median is 2
    assert r.numeric.loc[("y", "p50"), "confidential"] == pytest.approx(2.0)
    # rescaled weights 3/4, 3/4, 3/2: m2 = (3/4 1.5625 + 3/4 0.0625 + 3/2 0.5625)/3 = 0.6875,
    # sd = sqrt(m2 n/(n-1))
    assert r.numeric.loc[("y", "sd"), "confidential"] == pytest.approx(np.sqrt(0.6875 * 1.5))
    assert ("w", "mean") not in r.numeric.index  # the weight column is not compared


def test_ecdf_hand_computed() -> None:
    # F_a(1) = 3/4, F_b(1) = 1/2; at 2 both 1. Pooled points 1, 2, 1, 2.
    um, ua = ecdf_distances(np.array([1.0, 2.0]), np.array([1.0, 2.0]),
                            np.array([3.0, 1.0]), np.array([1.0, 1.0]))
    assert um == pytest.approx(0.25)
    # rescaled weights (1.5, 0.5) and (1, 1): (1.5 + 1) 0.0625 / 4
    assert ua == pytest.approx(2.5 * 0.0625 / 4)
    with pytest.raises(DataError, match="one weight per value"):
        ecdf_utility([1.0, 2.0], [1.0], conf_weights=[1.0])


def test_integer_weights_equal_repeated_records(pair) -> None:  # type: ignore[no-untyped-def]
    conf, syn = pair
    rng = np.random.default_rng(2)
    # the same mean weight in both files, so rescaling keeps the groups' shares
    wc = rng.permutation(np.repeat([1, 2], len(conf) // 2))
    ws = rng.permutation(np.repeat([1, 2], len(syn) // 2))
    weighted = pmse(conf.assign(w=wc), syn.assign(w=ws), weights="w", random_state=0)
    repeated = pmse(conf.loc[conf.index.repeat(wc)], syn.loc[syn.index.repeat(ws)],
                    random_state=0)
    for k in ("pmse", "specks", "auc"):
        assert getattr(weighted, k) == pytest.approx(getattr(repeated, k), rel=1e-6), k
    e_w = ecdf_utility(conf.x, syn.x, conf_weights=wc, synthetic_weights=ws)
    e_r = ecdf_utility(conf.x.repeat(wc), syn.x.repeat(ws))
    assert e_w.u_max == pytest.approx(e_r.u_max)
    # U_a: each pooled point counts its rescaled weight, as the repeated points do
    assert e_w.u_avg == pytest.approx(e_r.u_avg)


def test_cart_propensity_takes_weights(pair) -> None:  # type: ignore[no-untyped-def]
    conf, syn = pair
    c1, s1 = conf.assign(w=1.0), syn.assign(w=1.0)
    a = pmse(c1, s1, model="cart", weights="w", random_state=3, n_permutations=2)
    b = pmse(conf, syn, model="cart", random_state=3, n_permutations=2)
    assert a.pmse == pytest.approx(b.pmse, rel=1e-9)
    assert a.auc == pytest.approx(b.auc, rel=1e-9)


def test_evaluate_utility_passes_weights(pair) -> None:  # type: ignore[no-untyped-def]
    conf, syn = pair
    rng = np.random.default_rng(4)
    c = conf.assign(w=rng.uniform(0.5, 2.0, len(conf)))
    r = evaluate_utility(c, syn, weights="w", random_state=0, statistics=None)
    assert "w" not in r.ecdf
    direct = univariate(c, syn, weights="w")
    pd.testing.assert_frame_equal(r.univariate.numeric, direct.numeric)
    with pytest.raises(DataError, match="weights"):
        evaluate_utility(conf, syn, weights="nope", random_state=0)
