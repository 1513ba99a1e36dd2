"""The subtree CART hands to scikit-learn is the tree scikit-learn grows with its checks on.

``_tree`` fits small nodes with ``fit(..., check_input=False)`` and parameter validation
skipped (a third of the time of those fits); the design is finite float32, so the tree must
be the one a plain ``fit`` grows: same leaves for every record.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from synthguard.synthesis.methods._tree import grow_tree


def _partition(leaf: np.ndarray) -> list[tuple[int, ...]]:
    return sorted(tuple(np.flatnonzero(leaf == u)) for u in np.unique(leaf))


@pytest.mark.parametrize("cls", [False, True])
def test_handed_over_subtree_is_the_checked_fit(cls):
    rng = np.random.default_rng(11)
    n = 600
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 7, n), rng.uniform(size=n)])
    y = X[:, 0] * X[:, 2] + 0.3 * X[:, 1] + rng.normal(size=n)
    if cls:
        y = np.digitize(y, [0.0, 1.0, 2.0]).astype(np.int64)
    X32 = np.asfortranarray(X, dtype=np.float32)
    # exact_min above n: the root itself goes to scikit-learn; a negative cp prunes nothing
    # (every subtree's risk is at most its root's), so the grown tree is compared as it is
    _, leaf = grow_tree(X32, y, np.zeros(3, dtype=np.int64), n_classes=4 if cls else 0,
                        min_leaf=5, min_split=15, max_depth=None, cp=-1.0, exact_min=n + 1)
    common = dict(min_samples_leaf=5, min_samples_split=15, random_state=0)
    ref = (DecisionTreeClassifier(criterion="gini", **common) if cls
           else DecisionTreeRegressor(criterion="squared_error", **common)).fit(X32, y)
    assert len(np.unique(leaf)) > 10
    assert _partition(leaf) == _partition(ref.apply(X32))
