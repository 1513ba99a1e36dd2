"""Property tests against brute-force references on random inputs (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from synthguard.synthesis.methods.cart import CartMethod
from synthguard.synthesis.methods.norm import NormMethod


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(5, 60),
    p=st.integers(0, 4),
    n_dup=st.integers(0, 2),
    scale=st.sampled_from([1e-3, 1.0, 1e4]),
    seed=st.integers(0, 2**31),
)
def test_norm_fitted_values_and_rss_match_lstsq(n, p, n_dup, scale, seed):
    # Brute force: numpy's SVD least squares on the full design [1, X]. Duplicated columns
    # make it rank deficient; fitted values, RSS and rank are unique even then.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * scale
    if p:
        X = np.hstack([X, X[:, :n_dup]])
    y = rng.normal(size=n) + (X.sum(axis=1) if p else 0.0)
    D = np.column_stack([np.ones(n), X])
    beta, _, rank, _ = np.linalg.lstsq(D, y, rcond=None)
    if n - rank < 1:
        return
    m = NormMethod().fit(X, y)
    fitted_ref = D @ beta
    fitted = D @ m.coef_
    tol = 1e-8 * (1 + np.abs(y).max())
    np.testing.assert_allclose(fitted, fitted_ref, atol=tol)
    assert m.rank_ == rank
    assert m.df_resid_ == n - rank
    rss_ref = float(((y - fitted_ref) ** 2).sum())
    assert abs(m.rss_ - rss_ref) <= 1e-8 * (1 + rss_ref)
    if rank == D.shape[1]:
        # Full rank: standard errors from sigma^2 (D'D)^{-1}.
        cov = m.sigma_**2 * np.linalg.inv(D.T @ D)
        np.testing.assert_allclose(m.se_, np.sqrt(np.diag(cov)), rtol=1e-6)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 300),
    p=st.integers(0, 3),
    leaf=st.integers(1, 20),
    categorical=st.booleans(),
    seed=st.integers(0, 2**31),
)
def test_cart_leaf_grouping_matches_brute_force(n, p, leaf, categorical, seed):
    # Brute force: group the confidential records by the tree's leaf with a dict.
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 1)
    y = rng.integers(0, 3, n) if categorical else np.round(rng.normal(size=n), 1)
    m = CartMethod(min_samples_leaf=leaf, adjust=False).fit(X, y)
    leaf_of = m.leaf_index(X)
    groups: dict[int, list] = {}
    for i, g in enumerate(leaf_of):
        groups.setdefault(int(g), []).append(y[i])
    diag = m.leaf_diagnostics()
    assert len(groups) == len(diag) == m.n_leaves_
    for g, values in groups.items():
        assert diag["size"][g] == len(values) >= min(leaf, n)
        assert diag["n_distinct"][g] == len(set(values))
        assert bool(diag["all_identical"][g]) == (len(set(values)) == 1)
    out = m.draw(X, np.random.default_rng(seed))
    for i in range(n):
        assert out[i] in groups[int(leaf_of[i])]
