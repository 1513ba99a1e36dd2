"""``ctree``: the conditional inference tree against brute force on tiny data."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthguard import Synthesizer
from synthguard.errors import ParameterError
from synthguard.synthesis.methods import CtreeMethod
from synthguard.synthesis.methods.ctree import _NodeTest, linear_test, split_statistic


def _brute_linear(g: np.ndarray, h: np.ndarray) -> tuple[float, int]:
    """Strasser & Weber's statistic with the covariance built as the Kronecker product."""
    n = len(g)
    t = np.kron(h, np.ones((1, g.shape[1]))) * np.tile(g, (1, h.shape[1]))  # rows vec(g h')
    tvec = t.sum(axis=0)
    eh = h.mean(axis=0)
    vh = sum(np.outer(r - eh, r - eh) for r in h) / n
    sg = g.sum(axis=0)
    mu = np.kron(eh, sg)
    cov = n / (n - 1) * np.kron(vh, g.T @ g) - 1 / (n - 1) * np.kron(vh, np.outer(sg, sg))
    d = tvec - mu
    return float(d @ np.linalg.pinv(cov) @ d), int(np.linalg.matrix_rank(cov))


def test_linear_statistic_matches_its_definition_and_known_special_cases():
    rng = np.random.default_rng(0)
    n = 30
    x = rng.normal(size=n)
    y = 2 * x + rng.normal(size=n)
    # numeric x numeric: (n - 1) r^2, one degree of freedom
    stat, df = linear_test(x[:, None], y[:, None])
    r = np.corrcoef(x, y)[0, 1]
    assert df == 1 and stat == pytest.approx((n - 1) * r**2, rel=1e-10)
    assert _NodeTest(y, False).ordered(x) == pytest.approx((stat, 1), rel=1e-10)
    # nominal x categorical: Pearson's chi-square times (n - 1) / n, (L - 1)(K - 1) df
    a = rng.integers(0, 3, n)
    b = rng.integers(0, 4, n)
    g = np.eye(3)[a]
    h = np.eye(4)[b]
    stat, df = linear_test(g, h)
    brute = _brute_linear(g, h)
    assert stat == pytest.approx(brute[0], rel=1e-9) and df == brute[1] == 6
    pearson = stats.chi2_contingency(pd.crosstab(a, b).to_numpy(), correction=False)[0]
    assert stat == pytest.approx(pearson * (n - 1) / n, rel=1e-10)
    assert _NodeTest(b, True).nominal(a.astype(float)) == pytest.approx((stat, 6), rel=1e-10)
    # numeric x categorical, and nominal x numeric: the closed forms equal the definition
    for gg, hh, fast in ((x[:, None], h, _NodeTest(b, True).ordered(x)),
                         (g, y[:, None], _NodeTest(y, False).nominal(a.astype(float)))):
        assert fast == pytest.approx(_brute_linear(gg, hh), rel=1e-9)


def _best_threshold(x: np.ndarray, y: np.ndarray, leaf: int) -> float:
    """Brute force: the observed value c maximising n_L n_R (mean_L - mean_R)^2."""
    best, arg = -1.0, None
    for c in np.unique(x):
        left = x <= c
        nl, nr = left.sum(), (~left).sum()
        if nl < leaf or nr < leaf:
            continue
        v = nl * nr * (y[left].mean() - y[~left].mean()) ** 2
        if v > best + 1e-12:
            best, arg = v, c
    assert arg is not None
    return float(arg)


def test_root_split_matches_brute_force_on_tiny_data():
    rng = np.random.default_rng(11)
    n = 60
    x_num = rng.normal(size=n)  # noise
    x_nom = rng.integers(0, 4, n).astype(float)  # levels 1 and 3 raise y
    x_ord = rng.integers(0, 5, n).astype(float)  # noise
    y = np.where(np.isin(x_nom, [1, 3]), 3.0, 0.0) + rng.normal(size=n)
    X = np.c_[x_num, x_nom, x_ord]
    m = CtreeMethod(min_samples_leaf=5).fit(X, y, kinds=["numeric", "nominal", "ordinal"])
    # brute force p-values: (n - 1) r^2 for the ordered ones, the definition for the nominal
    p = np.array([
        stats.chi2.sf((n - 1) * np.corrcoef(x_num, y)[0, 1] ** 2, 1),
        stats.chi2.sf(*_brute_linear(np.eye(4)[x_nom.astype(int)], y[:, None])),
        stats.chi2.sf((n - 1) * np.corrcoef(x_ord, y)[0, 1] ** 2, 1),
    ])
    adjusted = 1 - (1 - p) ** 3
    node, feature, p_adj = m.p_values_[0]
    assert node == 0 and feature == int(np.argmin(adjusted)) == 1
    assert p_adj == pytest.approx(adjusted[1], rel=1e-6, abs=1e-300)
    # the best subset split by brute force over every subset of the 4 levels
    best, arg = -1.0, None
    for k in range(1, 4):
        for subset in itertools.combinations(range(4), k):
            left = np.isin(x_nom, subset)
            nl, nr = left.sum(), (~left).sum()
            if min(nl, nr) < 5:
                continue
            v = nl * nr * (y[left].mean() - y[~left].mean()) ** 2
            if v > best + 1e-12:
                best, arg = v, set(subset)
    assert arg is not None
    tree = m.tree_
    left_levels = {c for c in range(4) if tree.left_levels[tree.level_row[0], c]}
    assert left_levels in (arg, set(range(4)) - arg) and left_levels <= {0, 2} | arg
    assert {1, 3} in (arg, set(range(4)) - arg)


def test_numeric_split_point_and_stopping_rule():
    rng = np.random.default_rng(5)
    n = 80
    x = np.round(rng.uniform(0, 10, n), 1)
    y = np.where(x > 6.2, 5.0, 0.0) + rng.normal(scale=0.5, size=n)
    m = CtreeMethod().fit(x[:, None], y)
    assert m.tree_.feature[0] == 0
    # (the design is float32, as cart's: the threshold is the observed value in float32)
    assert m.tree_.threshold[0] == np.float32(_best_threshold(x, y, 5))
    # the two-sample statistic agrees with its general form
    order = np.argsort(x)
    nl = np.array([20, 40])
    tl = np.array([[y[order[:20]].sum()], [y[order[:40]].sum()]])
    sp = split_statistic(tl, nl, y[:, None])
    brute = [(n - 1) * k * (n - k) * (y[order[:k]].mean() - y[order[k:]].mean()) ** 2
             / (n * n * y.var()) for k in (20, 40)]
    np.testing.assert_allclose(sp, brute, rtol=1e-10)
    # the test decides: p = 0.79 (seed 2) stops at the root, p = 0.026 (seed 0) splits
    for seed, splits in ((2, False), (0, True)):
        noise = np.random.default_rng(seed).normal(size=n)
        fitted = CtreeMethod().fit(x[:, None], noise)
        p_root = stats.chi2.sf((n - 1) * np.corrcoef(x, noise)[0, 1] ** 2, 1)
        assert bool(p_root < 0.1) is splits and bool(fitted.n_leaves_ > 1) is splits
        if splits:
            assert fitted.p_values_[0][2] == pytest.approx(p_root, rel=1e-5)  # float32 x
    noise = np.random.default_rng(2).normal(size=n)
    # mincriterion 0 splits whenever a split is admissible
    assert CtreeMethod(mincriterion=0.0).fit(x[:, None], noise).n_leaves_ > 1


def test_draws_are_leaf_donors_reproducible_and_run_in_the_synthesizer():
    rng = np.random.default_rng(2)
    n = 300
    df = pd.DataFrame({
        "g": rng.choice(["a", "b", "c"], n),
        "x": np.round(rng.normal(50, 10, n), 1),
    })
    df["y"] = np.round(df["x"] * np.where(df["g"] == "a", 2.0, 1.0) + rng.normal(0, 3, n), 1)
    df["cls"] = np.where(df["y"] > df["y"].median(), "hi", "lo")
    m = CtreeMethod().fit(df[["x"]].to_numpy(), df["y"].to_numpy())
    X = df[["x"]].to_numpy()
    leaf = m.leaf_index(X)
    out = m.draw(X, np.random.default_rng(1))
    donors = [set(m.donors_[s:s + z]) for s, z in zip(m.leaf_start_, m.leaf_size_)]
    assert all(v in donors[i] for v, i in zip(out, leaf))
    np.testing.assert_array_equal(out, m.draw(X, np.random.default_rng(1)))
    res = Synthesizer(methods={"x": "ctree", "y": "ctree:mincriterion=0.99",
                               "cls": "ctree:min_samples_leaf=10"},
                      random_state=4, rare_values=0, extremes=0).fit(df).sample()
    assert res.methods["y"] == "ctree"
    s = res.implicates[0]
    assert set(s["cls"]) <= {"hi", "lo"} and len(s) == n
    # the interaction the tree found survives: y is about twice as large in group a
    # (data: 96.9, 49.3, 49.9; a model ignoring g would give about 65 in each)
    means = s.groupby("g")["y"].mean()
    conf = df.groupby("g")["y"].mean()
    assert (means - conf).abs().max() < 3
    with pytest.raises(ParameterError, match="mincriterion"):
        CtreeMethod(mincriterion=1.5).fit(X, df["y"].to_numpy())
