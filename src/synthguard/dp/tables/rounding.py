"""Consistent non-negative estimates of child counts: least squares, then an integer programme.

The two post-processing steps of the 2020 Census TopDown Algorithm (Abowd et al. 2022, "The
2020 Census Disclosure Avoidance System TopDown Algorithm", Harvard Data Science Review,
§§ 6–7; the "L2 optimizer" then the "rounder"), for one parent and its k children over m
attribute cells. Given noisy children ``Y`` (k × m), the parent's already final integer
vector ``P`` (m) and, when declared invariant, the children's exact totals ``T`` (k):

1. **weighted least squares** — X̃ = argmin ‖X − Y‖² over {X ≥ 0, Σ_c X[c, a] = P[a],
   Σ_a X[c, a] = T[c]} (all cells of one level carry the same noise variance, so the weights
   are equal). Without ``T`` the problem splits into one Euclidean projection onto a simplex
   per attribute cell (Duchi et al. 2008; exact). With ``T`` it is the projection onto a
   transportation polytope, computed by Dykstra's alternating projections between the two
   products of simplices (Boyle & Dykstra 1986), which converges to the exact projection.
2. **controlled rounding** — the integers X = argmin Σ |X − X̃| under the same constraints, an
   integer programme solved by HiGHS through :func:`scipy.optimize.milp` (the constraint
   matrix of a transportation problem is totally unimodular, so it is solved at the root).

Structural-zero attribute cells are removed before both steps and come back as exact zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthguard.dp.postprocess import simplex_projection
from synthguard.errors import ConvergenceError

__all__ = ["controlled_round", "least_squares_fit"]


def _rows(x: np.ndarray, totals: np.ndarray) -> np.ndarray:
    return np.vstack([simplex_projection(x[i], totals[i]) for i in range(x.shape[0])])


def _cols(x: np.ndarray, totals: np.ndarray) -> np.ndarray:
    return _rows(x.T, totals).T


def least_squares_fit(y: np.ndarray, parent: np.ndarray | None = None,
                      totals: np.ndarray | None = None, *, tol: float = 1e-7,
                      max_iter: int = 5000) -> np.ndarray:
    """Least-squares projection of ``y`` (k × m) onto {x ≥ 0, column sums = parent, row sums
    = totals} (either constraint optional)."""
    y = np.asarray(y, dtype=np.float64)
    if parent is None and totals is None:
        return np.maximum(y, 0.0)
    if totals is None:
        return _cols(y, np.asarray(parent, dtype=np.float64))
    if parent is None:
        return _rows(y, np.asarray(totals, dtype=np.float64))
    p = np.asarray(parent, dtype=np.float64)
    t = np.asarray(totals, dtype=np.float64)
    # Dykstra: x ← P_B(x + q); q ← x + q − P_B(..); alternating with P_A
    x = y.copy()
    p_inc = np.zeros_like(y)
    q_inc = np.zeros_like(y)
    scale = max(1.0, float(p.sum()))
    for _ in range(max_iter):
        a = _rows(x + p_inc, t)
        p_inc = x + p_inc - a
        b = _cols(a + q_inc, p)
        q_inc = a + q_inc - b
        x = b
        if np.abs(x.sum(axis=1) - t).max() <= tol * scale:
            return x
    return x  # the rounder below enforces the constraints exactly


def _largest_remainder(x: np.ndarray, total: float) -> np.ndarray | None:
    """Integers closest in L1 to ``x`` (≥ 0, Σx = total) with the same sum: floors, plus one
    for the largest remainders (optimal for one sum constraint). None if ``x`` is off."""
    f = np.floor(x)
    short = round(total - f.sum())
    if short < 0 or short > x.size:
        return None
    out = f.astype(np.int64)
    out[np.argsort(-(x - f), kind="stable")[:short]] += 1
    return out


def _milp(x: np.ndarray, parent: np.ndarray | None, totals: np.ndarray | None,
          binary: bool) -> np.ndarray | None:
    """The integer programme; ``binary``: x = ⌊x̃⌋ + z with z ∈ {0, 1} (n variables,
    objective Σ (1 − 2 frac) z); else general integers with D ≥ |X − x̃| (2n variables)."""
    from scipy import optimize, sparse

    k, m = x.shape
    n = k * m
    flat = x.ravel()
    blocks: list[Any] = []
    lo: list[np.ndarray] = []
    hi: list[np.ndarray] = []
    base = np.floor(flat) if binary else np.zeros(n)
    width = n if binary else 2 * n
    if not binary:
        eye = sparse.identity(n, format="csr")
        blocks += [sparse.hstack([-eye, eye]), sparse.hstack([eye, eye])]
        lo += [-flat, flat]
        hi += [np.full(n, np.inf), np.full(n, np.inf)]
    pad = (lambda a: a) if binary else (lambda a: sparse.hstack([a, sparse.csr_matrix(
        (a.shape[0], n))]))
    if parent is not None:
        a = sparse.kron(sparse.csr_matrix(np.ones((1, k))), sparse.identity(m), format="csr")
        rhs = np.asarray(parent, dtype=np.float64) - a @ base
        blocks.append(pad(a))
        lo.append(rhs)
        hi.append(rhs)
    if totals is not None:
        a = sparse.kron(sparse.identity(k), sparse.csr_matrix(np.ones((1, m))), format="csr")
        rhs = np.asarray(totals, dtype=np.float64) - a @ base
        blocks.append(pad(a))
        lo.append(rhs)
        hi.append(rhs)
    cons = optimize.LinearConstraint(sparse.vstack(blocks).tocsr(), np.concatenate(lo),
                                     np.concatenate(hi))
    if binary:
        c = 1.0 - 2.0 * (flat - base)
        res = optimize.milp(c, constraints=cons, integrality=np.ones(n),
                            bounds=optimize.Bounds(0, 1))
    else:
        c = np.concatenate([np.zeros(n), np.ones(n)])
        res = optimize.milp(c, constraints=cons,
                            integrality=np.concatenate([np.ones(n), np.zeros(n)]),
                            bounds=optimize.Bounds(0, np.inf))
    if res.status != 0 or res.x is None:
        return None
    assert width == res.x.size
    return (base + np.rint(res.x[:n])).astype(np.int64).reshape(k, m)


def controlled_round(x: np.ndarray, parent: np.ndarray | None = None,
                     totals: np.ndarray | None = None) -> np.ndarray:
    """Non-negative integers closest in L1 to ``x`` with exact column sums ``parent`` and row
    sums ``totals`` (each optional).

    With one kind of constraint the problem splits into one sum per column (or row), solved
    exactly by largest remainders; with both, by :func:`scipy.optimize.milp` over
    x = ⌊x̃⌋ + z, z ∈ {0, 1} (a zero-restricted controlled rounding, which exists for a
    two-way table with integer margins, Cox 1987), or over all non-negative integers if
    ``x`` misses the margins.
    """
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    if parent is None and totals is None:
        return np.rint(x).astype(np.int64)
    if totals is None or parent is None:
        by_col = totals is None
        sums = np.asarray(parent if by_col else totals, dtype=np.float64)
        mat = x.T if by_col else x
        got_rows = [_largest_remainder(mat[i], sums[i]) for i in range(mat.shape[0])]
        out = [o for o in got_rows if o is not None]
        if len(out) == len(got_rows):
            res = np.vstack(out) if out else np.zeros(mat.shape, dtype=np.int64)
            return res.T if by_col else res
    got = _milp(x, parent, totals, binary=True)
    if got is None:
        got = _milp(x, parent, totals, binary=False)
    if got is None:
        raise ConvergenceError(
            "controlled rounding: the integer programme has no solution (the invariants and "
            "structural zeros contradict each other, e.g. a positive total with every cell a "
            "structural zero); check the declared invariants and zeros")
    return got
