"""Likelihood weights of ``pmm`` and ``polr``: 0 drops a record, integer weights copy it."""

from collections import Counter

import numpy as np
import pytest

from synthguard.errors import MethodError
from synthguard.synthesis.methods import PMMMethod, PolrMethod
from synthguard.synthesis.methods.pmm import _weighted_pools


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = np.round(2 * x[:, 0] - x[:, 1] + rng.normal(size=n), 1)
    w = rng.integers(0, 4, size=n).astype(float)
    return x, y, w


def _pool(m, pred):
    """The donors' values (with multiplicity) each prediction's pool holds."""
    if m.cum_weight_ is None:
        # brute force on the unweighted fit: the records within the k-th smallest distance
        out = []
        for p in pred:
            d = np.abs(m.yhat_ - p)
            dk = np.sort(d)[m.donors - 1]
            out.append(Counter(m.values_[d <= dk + 1e-12 * max(1.0, abs(p))].tolist()))
        return out
    first, stop = _weighted_pools(m.yhat_, m.cum_weight_, pred, float(m.donors))
    w = np.diff(np.r_[0.0, m.cum_weight_])
    out = []
    for a, b in zip(first, stop):
        c: Counter = Counter()
        for v, wt in zip(m.values_[a:b], w[a:b]):
            c[v] += round(wt)
        out.append(c)
    return out


def test_pmm_integer_weights_equal_copies():
    x, y, w = _data()
    copies = np.repeat(np.arange(len(y)), w.astype(int))
    weighted = PMMMethod(donors=5).fit(x, y, w)
    copied = PMMMethod(donors=5).fit(x[copies], y[copies])
    np.testing.assert_allclose(weighted.norm_.coef_, copied.norm_.coef_, rtol=1e-10)
    assert weighted.norm_.df_resid_ == copied.norm_.df_resid_
    np.testing.assert_allclose(weighted.norm_.se_, copied.norm_.se_, rtol=1e-8)
    pred = np.linspace(y.min() - 1, y.max() + 1, 41)
    # the same donors with the same multiplicity (draw probabilities) as on the copies
    assert _pool(weighted, pred) == _pool(copied, pred)


def test_pmm_zero_weight_is_never_drawn_and_draws_reproduce():
    x, y, _ = _data(80, seed=3)
    w = np.ones(len(y))
    w[y > np.median(y)] = 0.0
    m = PMMMethod().fit(x, y, w)
    xs = np.random.default_rng(5).normal(size=(2000, 2))
    out = m.draw(xs, np.random.default_rng(1))
    assert set(out.tolist()) <= set(y[w > 0].tolist())
    np.testing.assert_array_equal(out, m.draw(xs, np.random.default_rng(1)))
    proper = PMMMethod(proper=True).fit(x, y, w)
    np.testing.assert_array_equal(proper.draw(xs, np.random.default_rng(2)),
                                  proper.draw(xs, np.random.default_rng(2)))


def test_pmm_draws_donors_in_proportion_to_weight():
    # one predictor value, three donors at the same prediction: shares 1:2:3
    x = np.zeros((3, 1))
    y = np.array([1.0, 2.0, 3.0])
    m = PMMMethod(donors=3)
    m.fit(np.r_[x, [[1.0]], [[2.0]]], np.r_[y, 4.0, 5.0], np.array([1.0, 2.0, 3.0, 0.0, 0.0]))
    out = m.draw(np.zeros((60000, 1)), np.random.default_rng(0))
    shares = np.array([np.mean(out == v) for v in (1.0, 2.0, 3.0)])
    np.testing.assert_allclose(shares, [1 / 6, 2 / 6, 3 / 6], atol=0.01)


def test_pmm_all_zero_weights_refused():
    x, y, _ = _data(20)
    with pytest.raises(MethodError, match="every weight is 0"):
        PMMMethod().fit(x, y, np.zeros(20))


def _ordered(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    y = np.digitize(1.5 * x[:, 0] + rng.logistic(size=n), [-1.0, 0.5, 2.0])
    w = rng.integers(0, 3, size=n).astype(float)
    return x, y, w


def test_polr_integer_weights_equal_copies():
    x, y, w = _ordered()
    copies = np.repeat(np.arange(len(y)), w.astype(int))
    weighted = PolrMethod().fit(x, y, w)
    copied = PolrMethod().fit(x[copies], y[copies])
    np.testing.assert_allclose(weighted.coef_, copied.coef_, atol=1e-4)
    np.testing.assert_allclose(weighted.thresholds_, copied.thresholds_, atol=1e-4)


def test_polr_level_of_zero_weight_records_is_never_drawn():
    x, y, _ = _ordered(300, seed=2)
    w = np.where(y == 3, 0.0, 1.0)
    m = PolrMethod().fit(x, y, w)
    assert m.levels_.tolist() == [0, 1, 2]
    out = m.draw(np.random.default_rng(1).normal(size=(3000, 1)) + 3, np.random.default_rng(0))
    assert 3 not in set(out.tolist())


def test_ranger_has_ranger_defaults_and_draws_donors():
    from synthguard.synthesis.methods import RangerMethod

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 9))
    y = np.round(10 * X[:, 0] + rng.normal(size=300), 1)
    m = RangerMethod().fit(X, y, rng=np.random.default_rng(1))
    # ranger: 500 trees, mtry = floor(sqrt(9)) = 3 for a regression too (rf would try 9 // 3)
    assert len(m.forest_.estimators_) == 500 and m.forest_.max_features == 3
    assert m.forest_.min_samples_leaf == 5
    w = np.where(y > 0, 1.0, 0.0)
    out = RangerMethod(ntree=40).fit(X, y, w, rng=np.random.default_rng(1)).draw(
        X, np.random.default_rng(2))
    assert set(out.tolist()) <= set(y[y > 0].tolist())
