"""DP linear regression from noisy sufficient statistics, with confidence intervals.

Model y = β₀ + β₁x₁ + … + β_p x_p + e. Every value is clamped to its public bounds [L, U] and
centred at the bounds' midpoint c = (L + U)/2 (which shrinks the sensitivity from max(|L|,|U|)
to (U − L)/2 per value); with z = (1, x₁ − c₁, …, x_p − c_p, y − c_y) the sufficient statistics
are the entries of Σ zzᵀ (upper triangle: the count, the sums, the cross-products). The slopes
are those of the uncentred model; the intercept is β₀ = β₀' + c_y − Σ βⱼcⱼ. Each is released with Laplace noise; β̂ solves the noisy normal
equations (Sheffet 2017; the course authors' feasibility study, Barrientos et al. 2021, §3.3,
uses the same noisy sufficient statistics on administrative data).

Sensitivity, unit-level add/remove: one row changes the entry (i, j) by at most MᵢMⱼ with
Mᵢ = (Uᵢ − Lᵢ)/2 (1 for the intercept), a unit by Δ_rows·MᵢMⱼ, Δ_rows = min(R, G·Rg) over
the groups (:mod:`synthguard.dp.session.unit`). The ε is split equally over the m entries
(sequential composition): entry (i, j) gets Lap(Δ_rows·MᵢMⱼ·m/ε), so the count is not drowned
by the noise the cross-products need.

Confidence intervals (for the population coefficient, not only for the noise): the variance
of β̂ is the OLS sampling variance σ̂²(XᵀX)⁻¹, with σ̂² = (yᵀy − β̂ᵀXᵀy)/(n − p − 1) from the
noisy statistics, plus the variance the noise adds, estimated by a parametric bootstrap of the
noise (400 draws of the known Laplace noise added to the noisy statistics, re-solved; a
numerical integral with a fixed internal seed, not noise of a release). The interval is
β̂ ± z_{1−α/2}·√(sampling + noise variance) — the normal approximation of Barrientos et al.
(2021). Everything is computed from the noisy statistics: post-processing.
"""

from __future__ import annotations

import numpy as np

from synthguard.dp import _noise

__all__ = ["regression_scales", "regression_sensitivity", "regression_values"]

_BOOT = 400
_SEED = 20211023


def regression_sensitivity(bounds: list[tuple[float, float]]) -> float:
    """Σ_{i≤j} MᵢMⱼ over z = (1, x…, y): the l1 change of the upper triangle of Σzzᵀ per row."""
    m = np.array([1.0, *[(hi - lo) / 2.0 for lo, hi in bounds]])
    outer = np.outer(m, m)
    return float(outer[np.triu_indices(m.size)].sum())


def regression_scales(bounds: list[tuple[float, float]], d_rows: float, epsilon: float,
                      names: list[str]) -> dict[str, float]:
    """Laplace scale of each statistic (upper triangle of Σzzᵀ, z = (1, x…, y)), ε split
    equally: entry (i, j) gets Δ_rows·MᵢMⱼ·m/ε."""
    m = np.array([1.0, *[(hi - lo) / 2.0 for lo, hi in bounds]])
    labels = ["n", *names]
    iu = np.triu_indices(m.size)
    k = len(iu[0])
    return {("n" if i == j == 0 else labels[j] if i == 0 else f"{labels[i]}*{labels[j]}"):
            float(d_rows * m[i] * m[j] * k / epsilon) for i, j in zip(*iu)}


def _solve(s: np.ndarray, p: int) -> tuple[np.ndarray, float, float]:
    """(β̂, σ̂², n̂) from a full symmetric matrix of statistics of z = (1, x, y)."""
    xtx = s[: p + 1, : p + 1]
    xty = s[: p + 1, p + 1]
    beta = np.linalg.lstsq(xtx, xty, rcond=None)[0]
    n = max(s[0, 0], p + 2.0)
    sse = max(s[p + 1, p + 1] - beta @ xty, 0.0)
    return beta, sse / (n - p - 1), n


def _symmetric(upper: np.ndarray, d: int) -> np.ndarray:
    s = np.zeros((d, d))
    s[np.triu_indices(d)] = upper
    return s + np.triu(s, 1).T


def regression_values(x: np.ndarray, y: np.ndarray, bounds: list[tuple[float, float]],
                      scales: np.ndarray, alpha: float, rng: np.random.Generator | None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(β̂, lower, upper) of one group: ``x`` (n × p) and ``y`` clamped to ``bounds`` (x's
    then y's), noise Lap(``scales[e]``) on statistic e (upper triangle, row-major)."""
    from scipy import stats

    p = x.shape[1]
    lo = np.array([b[0] for b in bounds])
    hi = np.array([b[1] for b in bounds])
    mid = (lo + hi) / 2.0
    z = np.column_stack([np.ones(len(y)), np.clip(np.column_stack([x, y]), lo, hi) - mid])
    d = p + 2
    iu = np.triu_indices(d)
    true = (z.T @ z)[iu]
    scales = np.asarray(scales, dtype=float)
    noisy = np.array([_noise.add_laplace(np.array([v]), b, rng)[0]
                      for v, b in zip(true, scales)])
    # back to the uncentred coefficients: β = T β' + shift
    t = np.eye(p + 1)
    t[0, 1:] = -mid[:p]
    shift = np.zeros(p + 1)
    shift[0] = mid[p]
    s = _symmetric(noisy, d)
    beta_c, sigma2, _ = _solve(s, p)
    beta = t @ beta_c + shift
    cov = sigma2 * np.linalg.pinv(s[: p + 1, : p + 1])
    sampling = np.diag(t @ cov @ t.T)
    boot_rng = np.random.default_rng(_SEED)
    draws = np.empty((_BOOT, p + 1))
    for b in range(_BOOT):
        sb = _symmetric(noisy + boot_rng.laplace(0.0, scales), d)
        draws[b] = t @ _solve(sb, p)[0] + shift
    var = np.maximum(sampling, 0.0) + draws.var(axis=0)
    half = stats.norm.ppf(1 - alpha / 2) * np.sqrt(var)
    return beta, beta - half, beta + half
