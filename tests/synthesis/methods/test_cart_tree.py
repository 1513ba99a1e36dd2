"""CART as rpart: subset splits of nominal predictors, ordinal splits, cost-complexity pruning.

References: rpart 4.1.19 itself (``tests/reference/cart/rpart_tiny.R`` wrote the leaves of
``rpart_tiny_leaves.csv``), and a brute-force tree that tries every subset of every nominal
predictor's levels at every node and prunes by enumerating subtrees.
"""

from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthguard.errors import ParameterError
from synthguard.synthesis import Synthesizer
from synthguard.synthesis.methods import CartMethod

REF = Path(__file__).resolve().parents[2] / "reference" / "cart"
KINDS = ["numeric", "nominal", "ordinal"]


def _partition(leaf):
    return sorted(tuple(np.flatnonzero(leaf == u)) for u in np.unique(leaf))


def _tiny():
    d = pd.read_csv(REF / "tiny.csv")
    X = np.column_stack([d.x, d.g.str[1:].astype(int), d.o.str[1:].astype(int)]).astype(float)
    return d, X


@pytest.mark.parametrize("cp", [0, 0.01, 0.05])
@pytest.mark.parametrize("kind", ["anova", "class"])
@pytest.mark.parametrize("exact", [0, None])
def test_leaves_are_rparts(cp, kind, exact):
    d, X = _tiny()
    y = d.y.to_numpy(float) if kind == "anova" else d.b.to_numpy(np.int64)
    m = CartMethod(cp=cp, min_samples_leaf=5, exact_min_samples=exact).fit(X, y, kinds=KINDS)
    ref = pd.read_csv(REF / "rpart_tiny_leaves.csv")[f"{kind}_cp{cp}"].to_numpy()
    assert _partition(m.leaf_index(X)) == _partition(ref)


# -- brute force ----------------------------------------------------------------------------

def _risk(y, cls):
    if cls:
        return len(y) - np.bincount(y).max()
    return float(((y - y.mean()) ** 2).sum())


def _impurity(y, cls):
    if cls:
        c = np.bincount(y)
        return len(y) - (c @ c) / len(y)
    return _risk(y, cls)


def _brute(X, y, kinds, idx, min_leaf, min_split, cls):
    """Fully grown tree: ("leaf", idx) or ("split", idx, left, right)."""
    if len(idx) < min_split or len(idx) < 2 * min_leaf:
        return ("leaf", idx)
    base = _impurity(y[idx], cls)
    best, best_mask = 0.0, None
    for j, kind in enumerate(kinds):
        v = X[idx, j]
        levels = np.unique(v)
        if kind == "nominal":
            # every subset holding the first level (its complement gives the same split)
            rest = levels[1:]
            cands = [np.isin(v, (levels[0], *s)) for r in range(len(rest))
                     for s in combinations(rest, r)]
        else:
            cands = [v <= t for t in levels[:-1]]
        for mask in cands:
            nl = mask.sum()
            if nl < min_leaf or len(idx) - nl < min_leaf:
                continue
            gain = base - _impurity(y[idx[mask]], cls) - _impurity(y[idx[~mask]], cls)
            if gain > best + 1e-9:
                best, best_mask = gain, mask
    if best_mask is None:
        return ("leaf", idx)
    return ("split", idx,
            _brute(X, y, kinds, idx[best_mask], min_leaf, min_split, cls),
            _brute(X, y, kinds, idx[~best_mask], min_leaf, min_split, cls))


def _pruned(node, y, alpha, cls):
    """(cost R(T) + alpha |T|, leaves) of the best pruned subtree (prune on ties, as rpart)."""
    as_leaf = (_risk(y[node[1]], cls) + alpha, [node[1]])
    if node[0] == "leaf":
        return as_leaf
    cl, ll = _pruned(node[2], y, alpha, cls)
    cr, lr = _pruned(node[3], y, alpha, cls)
    return as_leaf if as_leaf[0] <= cl + cr + 1e-9 else (cl + cr, ll + lr)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cls", [False, True])
@pytest.mark.parametrize("cp", [0.0, 0.02])
def test_subset_splits_and_pruning_match_a_brute_force_tree(seed, cls, cp):
    rng = np.random.default_rng(seed)
    n = 70
    X = np.column_stack([rng.uniform(0, 1, n), rng.integers(0, 5, n), rng.integers(0, 4, n)])
    eff = rng.normal(0, 2, 5)
    y = eff[X[:, 1].astype(int)] + X[:, 2] * rng.normal() + 2 * X[:, 0] + rng.normal(0, 1, n)
    if cls:
        y = (y > np.median(y)).astype(np.int64)
    m = CartMethod(cp=cp, min_samples_leaf=4, exact_min_samples=0).fit(X, y, kinds=KINDS)
    full = _brute(X, y, KINDS, np.arange(n), 4, 12, cls)
    _, leaves = _pruned(full, y, cp * _risk(y, cls), cls)
    expected = sorted(tuple(sorted(ids)) for ids in leaves)
    assert _partition(m.leaf_index(X)) == expected


def test_a_nominal_level_is_split_off_whatever_its_code():
    # the effect sits on the first level, the one dummy coding drops: one subset split
    # separates it, one split on dummies could not
    rng = np.random.default_rng(3)
    n = 800
    g = rng.integers(0, 8, n)
    y = np.where(g == 0, 10.0, 0.0) + rng.normal(0, 1, n)
    df = pd.DataFrame({"g": pd.Categorical(g), "y": y})
    res = Synthesizer(method_params={"y": {"max_depth": 1}}, random_state=1).fit(df)
    s = res.sample(random_state=2, diagnostics=False).implicates[0]
    means = s.groupby("g", observed=True)["y"].mean()
    assert means.loc[0] == pytest.approx(10.0, abs=0.5)
    assert means.drop(0).abs().max() < 0.5


def test_ordinal_predictors_split_on_their_order():
    # levels 0 and 2 low, 1 and 3 high: a subset split would pair them, an ordinal one cannot
    x = np.repeat(np.arange(4.0), 30)[:, None]
    y = np.where(x[:, 0] % 2 == 1, 10.0, 0.0) + np.tile(np.linspace(-1, 1, 30), 4)
    nominal = CartMethod(max_depth=1).fit(x, y, kinds=["nominal"])
    ordinal = CartMethod(max_depth=1).fit(x, y, kinds=["ordinal"])
    levels = np.arange(4.0)[:, None]
    assert _partition(nominal.leaf_index(levels)) == [(0, 2), (1, 3)]
    assert _partition(ordinal.leaf_index(levels)) in ([(0,), (1, 2, 3)], [(0, 1, 2), (3,)],
                                                      [(0, 1), (2, 3)])


def test_levels_unseen_in_a_node_go_to_its_larger_child():
    x = np.r_[np.zeros(30), np.ones(10)][:, None]  # level 2 never seen
    y = np.r_[np.zeros(30), np.ones(10) * 5]
    m = CartMethod().fit(x, y, kinds=["nominal"])
    assert m.leaf_index(np.array([[2.0]]))[0] == m.leaf_index(np.array([[0.0]]))[0]


def test_kinds_are_checked():
    X = np.array([[0.0, 0.5]] * 10)
    y = np.arange(10.0)
    with pytest.raises(ParameterError, match="'kinds'"):
        CartMethod().fit(X, y, kinds=["numeric"])
    with pytest.raises(ParameterError, match="column 1 is declared 'nominal'"):
        CartMethod().fit(X, y, kinds=["numeric", "nominal"])
    with pytest.raises(ParameterError, match="exact_min_samples"):
        CartMethod(exact_min_samples=-1).fit(X, y)


@pytest.mark.parametrize("cls", [False, True])
def test_leaves_known_from_growth_are_those_of_dropping_records_down_the_tree(cls):
    # the fit assigns records to leaves while growing and pruning; apply re-derives them
    rng = np.random.default_rng(5)
    n = 3000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n), rng.integers(0, 3, n)])
    y = X[:, 0] + np.sin(X[:, 1]) + rng.normal(size=n)
    if cls:
        y = np.digitize(y, [-1, 0, 1]).astype(np.int64)
    m = CartMethod(cp=1e-3, exact_min_samples=800).fit(X, y, kinds=KINDS)
    leaf = m.leaf_index(X)
    np.testing.assert_array_equal(np.bincount(leaf, minlength=m.n_leaves_), m.leaf_size_)
    for lf in range(m.n_leaves_):
        start, size = m.leaf_start_[lf], m.leaf_size_[lf]
        np.testing.assert_array_equal(np.sort(y[leaf == lf]), m.donors_[start:start + size])


def test_multiclass_levels_ordered_by_their_class_profile_find_the_best_root_split():
    # 3 classes; levels 0 and 2 mostly class 0, levels 1 and 3 mostly class 1, level 4 class 2:
    # ordering levels by the first principal component of their class shares (Coppersmith,
    # Hong & Hosking 1999) keeps like levels together, so one split finds the best subset
    rng = np.random.default_rng(11)
    g = np.repeat(np.arange(5), 40)
    main = np.array([0, 1, 0, 1, 2])[g]
    y = np.where(rng.random(len(g)) < 0.85, main, rng.integers(0, 3, len(g))).astype(np.int64)
    x = g.astype(float)[:, None]
    m = CartMethod(max_depth=1, min_samples_leaf=5).fit(x, y, kinds=["nominal"])
    leaves = _partition(m.leaf_index(x))
    gain = _impurity(y, True) - sum(_impurity(y[list(ids)], True) for ids in leaves)
    best = max(_impurity(y, True) - _impurity(y[np.isin(g, s)], True)
               - _impurity(y[~np.isin(g, s)], True)
               for r in range(1, 5) for s in combinations(range(5), r))
    assert gain == pytest.approx(best)


def _walk(tree, x):
    """Reference for ``Tree.apply``: one row walked down the tree, node by node."""
    t = 0
    while tree.feature[t] >= 0:
        v = x[tree.feature[t]]
        if tree.level_row[t] >= 0:
            width = tree.left_levels.shape[1]
            go = (tree.left_levels[tree.level_row[t], int(v)] if 0 <= v < width
                  else tree.unseen_left[t])
        else:
            go = v <= tree.threshold[t]
        t = tree.left[t] if go else tree.right[t]
    return t


@pytest.mark.parametrize("cls", [False, True])
@pytest.mark.parametrize("exact", [0, 400, None])
def test_apply_drops_each_row_where_walking_the_tree_does(cls, exact):
    # rows with codes the fit never saw (beyond the levels, negative) and deep, unbalanced
    # trees (rows reach leaves at many depths) against the node-by-node walk
    rng = np.random.default_rng(11)
    n = 2500
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n), rng.integers(0, 4, n),
                         rng.exponential(size=n)]).astype(np.float32)
    y = X[:, 0] ** 2 + np.cos(X[:, 1]) + X[:, 3] + rng.normal(scale=0.3, size=n)
    if cls:
        y = np.digitize(y, [0.5, 1.5, 3]).astype(np.int64)
    kinds = ["numeric", "nominal", "ordinal", "numeric"]
    m = CartMethod(cp=0.0, exact_min_samples=exact).fit(X, y, kinds=kinds)
    new = np.column_stack([rng.normal(size=800), rng.integers(-1, 9, 800),
                           rng.integers(0, 4, 800), rng.exponential(size=800)]).astype(np.float32)
    got = m.tree_.apply(np.asfortranarray(new))
    np.testing.assert_array_equal(got, [_walk(m.tree_, row) for row in new])
    assert len(np.unique(got)) > 30
