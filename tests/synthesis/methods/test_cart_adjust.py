"""cart's within-leaf adjustment: donors moved along the within-leaf least-squares slopes."""

import numpy as np
import pandas as pd
import pytest

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.methods import CartMethod, _within
from synthguard.synthesis.methods._within import WithinSlopes


def _brute_within(X, kinds, y, leaf):
    """Least squares of y on the design plus one indicator per leaf (the dummy-variable form
    of the within estimator): the slopes of the design's columns."""
    cols = []
    for j, k in enumerate(kinds):
        if k == 2:
            for lv in np.unique(X[:, j])[1:]:
                cols.append((X[:, j] == lv).astype(float))
        else:
            cols.append(X[:, j].astype(float))
    D = np.column_stack(cols)
    L = (leaf[:, None] == np.unique(leaf)[None, :]).astype(float)
    b, *_ = np.linalg.lstsq(np.column_stack([D, L]), y, rcond=None)
    return D, b[: D.shape[1]]


@pytest.mark.parametrize("chunk", [1 << 15, 7])
def test_within_slopes_equal_least_squares_with_one_intercept_per_leaf(monkeypatch, chunk):
    monkeypatch.setattr(_within, "_CHUNK", chunk)
    rng = np.random.default_rng(3)
    n = 400
    X = np.column_stack([rng.normal(size=n) * 100, rng.integers(0, 4, n), rng.integers(0, 3, n)])
    kinds = np.array([0, 2, 1])
    leaf = rng.integers(0, 30, n)
    y = 0.5 * X[:, 0] + np.array([0.0, 3.0, -2.0, 7.0])[X[:, 1].astype(int)] - 4 * X[:, 2] \
        + leaf * 10.0 + rng.normal(size=n)
    order = np.argsort(leaf, kind="stable")
    start = np.flatnonzero(np.r_[True, np.diff(leaf[order]) != 0])
    s = WithinSlopes(kinds).fit(X, y[order], start, order)
    D, b = _brute_within(X, kinds, y, leaf)
    np.testing.assert_allclose(s.predict(X) - s.predict(X[:1]), (D - D[:1]) @ b, atol=1e-8)
    # the slopes are near the ones that made the data
    assert abs(b[0] - 0.5) < 0.01 and abs(b[-1] + 4) < 0.2


def test_adjusted_draw_follows_the_slope_inside_a_leaf():
    # one leaf (min_samples_leaf > n / 2): y = 3 x exactly, so a donor moved by
    # 3 (x* - x_d) lands on 3 x* for every synthetic x* inside the range (400 distinct
    # values: none holds the 1% of a point mass)
    x = np.arange(400, dtype=float) / 10
    y = 3 * x
    m = CartMethod(min_samples_leaf=300, adjust="within").fit(x[:, None], y)
    assert m.n_leaves_ == 1 and m.adjusts_
    xs = np.array([[2.0], [10.0], [33.0]])
    np.testing.assert_allclose(m.draw(xs, np.random.default_rng(0)), 3 * xs[:, 0])
    plain = CartMethod(min_samples_leaf=300, adjust=False).fit(x[:, None], y)
    assert not plain.adjusts_ and plain.linear_predictor(xs) is None
    d = plain.draw(xs, np.random.default_rng(0))
    assert set(d) <= set(y) and not np.allclose(d, 3 * xs[:, 0])


def test_adjusted_draw_is_the_donor_formula_with_point_masses_range_and_decimals():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(600, 2))
    y = np.round(50 + 20 * X[:, 0] + rng.normal(size=600), 1)
    y[:100] = 0.0  # a point mass, drawn unchanged
    m = CartMethod(adjust="within", draws="random").fit(X, y)
    Xs = rng.normal(size=(300, 2)) * 1.5
    out = m.draw(Xs, np.random.default_rng(5))
    u = np.random.default_rng(5).random(len(Xs))
    leaf = m.leaf_index(Xs)
    pick = m.leaf_start_[leaf] + np.minimum((u * m.leaf_size_[leaf]).astype(int),
                                             m.leaf_size_[leaf] - 1)
    donor = m.donors_[pick]
    expect = donor + m.linear_predictor(Xs) - m.donor_fit_[pick]
    lo, hi = y.min(), y.max()
    expect = np.where(expect > hi, 2 * hi - expect, expect)
    expect = np.clip(np.where(expect < lo, 2 * lo - expect, expect), lo, hi)
    expect = np.where(donor == 0.0, 0.0, np.round(expect, 1))
    np.testing.assert_allclose(out, expect, rtol=0, atol=1e-9)
    assert (out[donor == 0.0] == 0).all() and out.min() >= lo and out.max() <= hi
    assert np.allclose(out, np.round(out, 1))
    assert not np.isin(out[donor != 0], y).all()  # adjusted values are not only donors


def test_categorical_targets_and_the_parameter():
    X = np.random.default_rng(0).normal(size=(100, 1))
    m = CartMethod(adjust="within").fit(X, (X[:, 0] > 0).astype(np.int64))
    assert not m.adjusts_
    with pytest.raises(ParameterError, match="'adjust'"):
        CartMethod(adjust="global").fit(X, X[:, 0])


def test_synthesizer_keeps_a_cut_effect_the_donor_draw_shrinks():
    # y depends on a category g the tree splits on late; with a donor draw the synthetic
    # effect of g shrinks, with the adjustment it stays near the confidential one
    rng = np.random.default_rng(1)
    n = 3000
    x = rng.gamma(2.0, 1.0, n)
    g = rng.choice(["a", "b", "c"], n, p=[0.2, 0.4, 0.4])
    y = np.round(100 * x ** 1.5 + np.select([g == "b", g == "c"], [15.0, 30.0], 0.0)
                 + rng.normal(0, 20, n), 0)
    df = pd.DataFrame({"x": np.round(x, 2), "g": g, "y": y})

    def effect(d):
        y_resid = d["y"] - np.poly1d(np.polyfit(d["x"], d["y"], 3))(d["x"])
        return y_resid[d["g"] == "c"].mean() - y_resid[d["g"] == "a"].mean()

    conf = effect(df)
    kw = dict(visit_sequence=["x", "g", "y"], random_state=2, m=4)
    adj = Synthesizer(**kw, method_params={"y": {"adjust": "within"}}).fit(df).sample(
        diagnostics=False)
    plain = Synthesizer(**kw).fit(df).sample(diagnostics=False)
    e_adj = np.mean([effect(d) for d in adj.implicates])
    e_plain = np.mean([effect(d) for d in plain.implicates])
    assert abs(e_adj - conf) < abs(e_plain - conf)
    assert abs(e_adj - conf) < 0.25 * conf


def test_adjusted_synthesizer_saves_loads_and_reproduces_by_seed(tmp_path):
    from synthguard.synthesis.registry import make_method

    rng = np.random.default_rng(4)
    df = pd.DataFrame({"g": rng.choice(["a", "b"], 400), "x": np.round(rng.normal(size=400), 2)})
    df["y"] = np.round(3 * df["x"] + (df["g"] == "b") + rng.normal(size=400), 2)
    spec = make_method("cart:adjust=within")
    assert spec.adjust == "within"
    syn = Synthesizer(methods={"y": spec}, random_state=3).fit(df)
    assert syn.blocks_[0].models[-1].value.method.adjusts_
    first = syn.sample(diagnostics=False).implicates[0]
    pd.testing.assert_frame_equal(first, syn.sample(diagnostics=False).implicates[0])
    path = tmp_path / "syn.confidential.pkl"
    syn.save_confidential(path)
    again = Synthesizer.load(path).sample(diagnostics=False).implicates[0]
    pd.testing.assert_frame_equal(first, again)


def test_scaled_adjustment_moves_each_leaf_by_its_own_spread():
    # two leaves (split on g): y = x * spread_g, spread 1 in leaf a and 100 in leaf b; the
    # slope per leaf-sd unit is common, so "scaled" lands on x* spread_g in both leaves,
    # while one pooled slope ("within") cannot
    n = 400
    x = np.tile(np.arange(n // 2, dtype=float) / 20, 2)
    g = np.repeat([0.0, 1.0], n // 2)
    y = np.where(g == 0, 1.0, 100.0) * x + np.where(g == 0, 0.0, 5000.0)
    X = np.column_stack([g, x])
    kw = dict(min_samples_leaf=100, min_samples_split=300)  # one split, on g
    scaled = CartMethod(adjust="scaled", **kw).fit(X, y)
    assert scaled.n_leaves_ == 2 and scaled.adjusts_
    Xs = np.array([[0.0, 1.5], [0.0, 8.25], [1.0, 1.5], [1.0, 8.25]])
    expect = np.array([1.5, 8.25, 5150.0, 5825.0])
    np.testing.assert_allclose(scaled.draw(Xs, np.random.default_rng(0)), expect, atol=1e-6)
    pooled = CartMethod(adjust="within", **kw).fit(X, y).draw(Xs, np.random.default_rng(0))
    assert np.abs(pooled - expect).max() > 1
    # a leaf of identical values does not move
    y2 = np.where(g == 0, 7.0, 100.0 * x)
    const = CartMethod(adjust="scaled", **kw).fit(X, y2)
    assert (const.draw(Xs[:2], np.random.default_rng(1)) == 7.0).all()
