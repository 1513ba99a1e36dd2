"""Post-processing of noisy counts: free of privacy cost, and often a gain in accuracy.

Any function of a DP output that does not touch the confidential data is as private as the
output (the post-processing theorem; Dwork & Roth 2014, Proposition 2.1; course, "Post-Processing
Theorem"). These helpers make noisy counts usable: no negatives, integers, a known total, and
consistency between a parent count and its children — a two-level miniature of the 2020 Census
TopDown algorithm (Abowd et al. 2022), whose post-processing solves least-squares problems so
that counts are non-negative and add up across geographic levels.

Totals passed as "known" must be public (invariants); a total read from the confidential data
spends privacy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import ParameterError

__all__ = [
    "clamp_negative",
    "consistent_hierarchy",
    "rescale_to_total",
    "round_counts",
    "simplex_projection",
]


def _float(x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ParameterError("noisy counts: expected finite numbers")
    return arr


def _like(out: np.ndarray, x: Any) -> Any:
    if isinstance(x, pd.Series):
        return pd.Series(out, index=x.index, name=x.name)
    return out


def clamp_negative(counts: Any) -> Any:
    """Replace negative noisy counts by 0 (counts cannot be negative)."""
    return _like(np.maximum(_float(counts), 0.0), counts)


def round_counts(counts: Any, *, total: int | None = None) -> Any:
    """Round noisy counts to non-negative integers.

    Without ``total``, each count is clamped at 0 and rounded to the nearest integer. With a
    public ``total``, the counts are rescaled to it and rounded by largest remainders
    (Hamilton's method) so the integers add up to ``total`` exactly.
    """
    x = _float(counts)
    if total is None:
        return _like(np.rint(np.maximum(x, 0.0)).astype(np.int64), counts)
    scaled = _float(rescale_to_total(x, total))
    floor = np.floor(scaled).astype(np.int64)
    short = int(total) - int(floor.sum())
    if short > 0:
        order = np.argsort(-(scaled - floor), kind="stable")
        floor[order[:short]] += 1
    return _like(floor, counts)


def rescale_to_total(counts: Any, total: float) -> Any:
    """Clamp negatives, then scale the counts proportionally so they add up to a public total.

    If every count is ≤ 0 the total is spread evenly (nothing is known about the shape).
    """
    total = float(total)
    if not np.isfinite(total) or total < 0:
        raise ParameterError("parameter 'total': expected a finite public total >= 0")
    x = np.maximum(_float(counts), 0.0)
    s = x.sum()
    out = x * (total / s) if s > 0 else np.full(x.shape, total / max(x.size, 1))
    return _like(out, counts)


def simplex_projection(values: Any, total: float) -> np.ndarray:
    """Euclidean projection of ``values`` onto {x ≥ 0, Σx = total}.

    The least-squares closest non-negative vector with the given sum, by the sort-based
    algorithm of Duchi, Shalev-Shwartz, Singer & Chandra (2008): x = max(v − θ, 0) with θ
    chosen so the sum is ``total``. O(k log k).
    """
    v = _float(values).ravel()
    total = float(total)
    if total < 0:
        raise ParameterError("parameter 'total': expected a total >= 0")
    if v.size == 0 or total == 0:
        return np.zeros_like(v)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - total
    idx = np.arange(1, v.size + 1)
    support = np.nonzero(u - css / idx > 0)[0]
    rho = support[-1] if support.size else 0  # total below float resolution of u[0]
    theta = css[rho] / (rho + 1)
    return np.maximum(v - theta, 0.0)


def consistent_hierarchy(
    parent: Any,
    children: Any,
    groups: Any = None,
    *,
    parent_variance: float = 1.0,
    child_variance: float = 1.0,
    parent_known: bool = False,
    nonnegative: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Make noisy child counts add up to their noisy parent counts by least squares.

    For each parent p with children c₁..c_k, the weighted least-squares problem
    min (T − P)²/v_P + Σⱼ (ĉⱼ − cⱼ)²/v_C subject to Σⱼ ĉⱼ = T is solved in two steps (the
    TopDown idea in miniature, Abowd et al. 2022): the parent total is the inverse-variance
    weighted combination of its two estimates, T = (P/v_P + S/(k v_C)) / (1/v_P + 1/(k v_C))
    with S = Σ cⱼ (or T = P when ``parent_known``), and the children are then the
    least-squares projection onto {Σ ĉ = T} — ĉⱼ = cⱼ + (T − S)/k, or with ``nonnegative``
    the projection onto {ĉ ≥ 0, Σ ĉ = T} (Duchi et al. 2008) with T clamped at 0.

    Parameters
    ----------
    parent : noisy parent counts, one per group (a scalar for a single group).
    children : noisy child counts.
    groups : the parent index (0..len(parent)-1) of each child; None for a single parent.
    parent_variance, child_variance : noise variances (2b² for Laplace, σ² for Gaussian).
    parent_known : the parent counts are public invariants and are kept exactly.
    nonnegative : also require non-negative counts.

    Returns
    -------
    (parent, children) : consistent estimates; each parent equals the sum of its children.
    """
    p = np.atleast_1d(_float(parent)).ravel()
    c = _float(children).ravel()
    g = np.zeros(c.size, dtype=np.int64) if groups is None else np.asarray(groups).ravel()
    if g.size != c.size or g.min(initial=0) < 0 or (g.size and g.max() >= p.size):
        raise ParameterError(
            "parameter 'groups': expected one parent index in 0..len(parent)-1 per child"
        )
    if parent_variance <= 0 or child_variance <= 0:
        raise ParameterError("parameters 'parent_variance', 'child_variance': expected > 0")
    k = np.bincount(g, minlength=p.size).astype(np.float64)
    s = np.bincount(g, weights=c, minlength=p.size)
    if parent_known:
        t = p.copy()
    else:
        w_p = 1.0 / parent_variance
        w_s = np.where(k > 0, 1.0 / (np.maximum(k, 1.0) * child_variance), 0.0)
        t = (p * w_p + s * w_s) / (w_p + w_s)
    if not nonnegative:
        adj = np.where(k > 0, (t - s) / np.maximum(k, 1.0), 0.0)
        out = c + adj[g]
        return t, out
    t = np.maximum(t, 0.0)
    out = np.empty_like(c)
    order = np.argsort(g, kind="stable")
    bounds = np.searchsorted(g[order], np.arange(p.size + 1))
    for j in range(p.size):
        idx = order[bounds[j]:bounds[j + 1]]
        if idx.size:
            out[idx] = simplex_projection(c[idx], t[j])
    t = np.where(k > 0, np.bincount(g, weights=out, minlength=p.size), t)
    return t, out
