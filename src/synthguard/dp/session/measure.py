"""Noisy grouped statistics over bounded data, with their noise scales and intervals.

Every statistic is released with Laplace noise from OpenDP's sampler (``rng=None``) or the
seeded numpy path (simulation only, :mod:`synthguard.dp._noise`). Neighbouring relation:
unit-level add/remove (:mod:`synthguard.dp.session.unit`); with ``k`` groups, a unit's rows
change the vector of per-group statistics by at most, in l1 norm,

=================  =====================================================  ==================
statistic          l1 sensitivity (unit level)                            noise
=================  =====================================================  ==================
count              Δ_rows = min(R, G·Rg)                                  Lap(Δ_rows/ε)
count_distinct     Δ_units = G (a unit counts once in each group touched)  Lap(Δ_units/ε)
sum (x in [L,U])   max(|L|, |U|)·Δ_rows                                   Lap(·/ε)
mean               sum of x − c, c = (L+U)/2, h = (U−L)/2: h·Δ_rows,      ε/2 each
                   over the count: Δ_rows; mean = c + S/N clamped to [L,U]
variance           count, sum of y = x − c and sum of y² − h²/2          ε/3 each
                   (sensitivities Δ_rows, h·Δ_rows, (h²/2)·Δ_rows);
                   var = Σ(y² − h²/2)/N + h²/2 − (Σy/N)², clamped to [0, h²]
quantile           exponential mechanism per group at ε/Δ_rows per row    OpenDP
=================  =====================================================  ==================

Sources: Laplace mechanism and l1 sensitivity (Dwork, McSherry, Nissim & Smith 2006); bounded
user contribution and the min(R, G·Rg) bound (Wilson et al. 2020, §3); mean and variance from
noisy sums and counts with centred values (Dwork & Roth 2014, §3.3; Barrientos et al. 2021,
§3 use noisy sufficient statistics the same way); the quantile as the exponential mechanism
(McSherry & Talwar 2007; Smith 2011) whose loss for a unit is at most Δ_rows times its
per-row loss (group privacy, Dwork & Roth 2014, Thm 2.2), summed over the groups a unit
touches (sequential composition).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synthguard.dp import _noise
from synthguard.dp.session.intervals import laplace_halfwidth, laplace_sum_halfwidth
from synthguard.dp.session.spec import Aggregation
from synthguard.dp.session.unit import PrivacyUnit

__all__ = ["Measured", "NoisePlan", "measure", "noise_plan", "quantile_values", "release",
           "sufficient"]

_CANDIDATES = 1001


@dataclass(frozen=True)
class NoisePlan:
    """The noise one aggregation will get, known before anything is spent.

    ``scales`` names each noisy statistic and its Laplace scale; ``halfwidth`` is the (1 − α)
    interval half-width of the released value when it does not depend on the data (count,
    sum, count_distinct), else NaN (mean, variance: it depends on the group's size; quantile:
    its error is in ranks: with probability 1 − α the released candidate's score
    |#{x < c} − q·n| is within ``rank_error`` rows of the best candidate's, McSherry & Talwar
    2007, Thm 6).
    """

    name: str
    kind: str
    epsilon: float
    sensitivity: float
    scales: dict[str, float]
    halfwidth: float
    rank_error: float = math.nan


@dataclass(frozen=True)
class Measured:
    """The released values of one aggregation, one per group, with their interval."""

    value: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def noise_plan(agg: Aggregation, epsilon: float, unit: PrivacyUnit, k: int, alpha: float,
               bounds: tuple[float, float] | None = None) -> NoisePlan:
    """Scales and half-width of ``agg`` at ``epsilon`` over ``k`` groups (module table)."""
    d_rows = unit.rows_l1(k)
    b = bounds or agg.bounds
    if agg.kind == "count":
        s = d_rows / epsilon
        return NoisePlan(agg.name, agg.kind, epsilon, d_rows, {"count": s},
                         laplace_halfwidth(s, alpha))
    if agg.kind == "count_distinct":
        d = unit.groups_l1(k)
        s = d / epsilon
        return NoisePlan(agg.name, agg.kind, epsilon, d, {"count_distinct": s},
                         laplace_halfwidth(s, alpha))
    if b is None:  # bounds still to be estimated: no scale to state yet
        return NoisePlan(agg.name, agg.kind, epsilon, math.nan, {}, math.nan)
    lo, hi = b
    h = (hi - lo) / 2.0
    if agg.kind == "sum":
        ds = max(abs(lo), abs(hi)) * d_rows
        return NoisePlan(agg.name, agg.kind, epsilon, ds, {"sum": ds / epsilon},
                         laplace_halfwidth(ds / epsilon, alpha))
    if agg.kind == "mean":
        e = epsilon / 2.0
        return NoisePlan(agg.name, agg.kind, epsilon, h * d_rows,
                         {"sum": h * d_rows / e, "count": d_rows / e}, math.nan)
    if agg.kind == "variance":
        e = epsilon / 3.0
        return NoisePlan(agg.name, agg.kind, epsilon, h * h / 2.0 * d_rows,
                         {"count": d_rows / e, "sum": h * d_rows / e,
                          "sum_squares": h * h / 2.0 * d_rows / e}, math.nan)
    if agg.kind == "regression":
        from synthguard.dp.session.regression import regression_scales, regression_sensitivity

        dr = d_rows * regression_sensitivity(list(agg.all_bounds))
        return NoisePlan(agg.name, agg.kind, epsilon, dr,
                         regression_scales(list(agg.all_bounds), d_rows, epsilon,
                                           list(agg.columns)), math.nan)
    # quantile: exponential mechanism, utility sensitivity 1 per row, ε/Δ_rows per row;
    # u(out) ≥ OPT − (2/ε_row)(ln|C| + ln(1/α)) with prob. ≥ 1 − α (McSherry & Talwar 2007)
    e_row = epsilon / d_rows
    rank = 2.0 / e_row * math.log(_CANDIDATES / alpha)
    return NoisePlan(agg.name, agg.kind, epsilon, float(d_rows), {"per_row_epsilon": e_row},
                     math.nan, rank)


def _noisy(values: np.ndarray, scale: float, rng: np.random.Generator | None) -> np.ndarray:
    return _noise.add_laplace(np.asarray(values, dtype=float), scale, rng)


def quantile_values(x: np.ndarray, codes: np.ndarray, k: int, q: float,
                    bounds: tuple[float, float], e_row: float,
                    rng: np.random.Generator | None) -> np.ndarray:
    """DP q-quantile of ``x`` in each of ``k`` groups, ε ``e_row`` per row (exp. mechanism)."""
    from synthguard.dp.queries import _opendp_quantile

    cand = np.linspace(bounds[0], bounds[1], _CANDIDATES)
    out = np.empty(k)
    for g in range(k):
        xs = np.clip(x[codes == g], bounds[0], bounds[1])
        if rng is None:
            out[g] = _opendp_quantile(xs, cand, q, e_row, 1)
        else:  # McSherry & Talwar (2007), Gumbel-max sampling: simulation only
            below = np.searchsorted(np.sort(xs), cand, side="left")
            logits = e_row * -np.abs(below - q * xs.size) / 2.0
            out[g] = cand[np.argmax(logits + rng.gumbel(size=cand.size))]
    return out


def sufficient(agg: Aggregation, codes: np.ndarray, units: np.ndarray, x: np.ndarray | None,
               k: int, bounds: tuple[float, float] | None) -> dict[str, np.ndarray]:
    """The exact per-group sums a released value is made of (module table), before noise.

    Sums over disjoint sets of units add up, so a Dask path computes them per partition (each
    unit whole in one) and adds them in a tree (:mod:`synthguard.dp.session.dask`)."""
    if agg.kind == "count":
        return {"count": np.bincount(codes, minlength=k).astype(float)}
    if agg.kind == "count_distinct":
        pair = np.unique(_unit_codes(units) * np.int64(k) + codes)  # one per (unit, group)
        return {"count_distinct": np.bincount(pair % k, minlength=k).astype(float)}
    assert x is not None and bounds is not None
    lo, hi = bounds
    xc = np.clip(x, lo, hi)
    if agg.kind == "sum":
        return {"sum": np.bincount(codes, weights=xc, minlength=k)}
    c, h = (lo + hi) / 2.0, (hi - lo) / 2.0
    y = xc - c
    out = {"count": np.bincount(codes, minlength=k).astype(float),
           "sum": np.bincount(codes, weights=y, minlength=k)}
    if agg.kind == "variance":
        out["sum_squares"] = np.bincount(codes, weights=y * y - h * h / 2.0, minlength=k)
    return out


def release(agg: Aggregation, plan: NoisePlan, stats: dict[str, np.ndarray], k: int,
            alpha: float, bounds: tuple[float, float] | None,
            rng: np.random.Generator | None) -> Measured:
    """Noise on the exact sums of :func:`sufficient` and the released value with its interval
    (one noise draw per sum, in a fixed order)."""
    if agg.kind in ("count", "count_distinct", "sum"):
        v = _noisy(stats[agg.kind], plan.scales[agg.kind], rng)
        return Measured(v, v - plan.halfwidth, v + plan.halfwidth)
    assert bounds is not None
    lo, hi = bounds
    c, h = (lo + hi) / 2.0, (hi - lo) / 2.0
    if agg.kind == "mean":
        n = _noisy(stats["count"], plan.scales["count"], rng)
        s = _noisy(stats["sum"], plan.scales["sum"], rng)
        nn = np.maximum(n, 1.0)
        ybar = np.clip(s / nn, -h, h)
        v = c + ybar
        hw = np.array([laplace_sum_halfwidth([plan.scales["sum"] / nn[g],
                                              abs(ybar[g]) * plan.scales["count"] / nn[g]],
                                             alpha) for g in range(k)])
        return Measured(v, np.maximum(v - hw, lo), np.minimum(v + hw, hi))
    n = _noisy(stats["count"], plan.scales["count"], rng)
    s = _noisy(stats["sum"], plan.scales["sum"], rng)
    z = _noisy(stats["sum_squares"], plan.scales["sum_squares"], rng)
    nn = np.maximum(n, 1.0)
    ybar, zbar = s / nn, z / nn
    v = np.clip(zbar + h * h / 2.0 - ybar**2, 0.0, h * h)
    hw = np.array([laplace_sum_halfwidth(
        [plan.scales["sum_squares"] / nn[g], 2.0 * abs(ybar[g]) * plan.scales["sum"] / nn[g],
         abs(-zbar[g] + 2.0 * ybar[g] ** 2) * plan.scales["count"] / nn[g]], alpha)
        for g in range(k)])
    return Measured(v, np.maximum(v - hw, 0.0), np.minimum(v + hw, h * h))


def measure(agg: Aggregation, plan: NoisePlan, codes: np.ndarray, units: np.ndarray,
            x: np.ndarray | None, k: int, alpha: float, bounds: tuple[float, float] | None,
            rng: np.random.Generator | None) -> Measured:
    """Release ``agg`` over bounded rows (``codes`` the group of each row, ``units`` its unit,
    ``x`` its value) with the scales of ``plan``; intervals per :mod:`.intervals`."""
    if agg.kind == "quantile":
        assert x is not None and bounds is not None
        nan = np.full(k, math.nan)
        v = quantile_values(x, codes, k, float(agg.q or 0.5), bounds,
                            plan.scales["per_row_epsilon"], rng)
        return Measured(v, nan.copy(), nan.copy())
    return release(agg, plan, sufficient(agg, codes, units, x, k, bounds), k, alpha, bounds,
                   rng)


def _unit_codes(units: np.ndarray) -> np.ndarray:
    import pandas as pd

    return pd.factorize(units)[0].astype(np.int64)
