"""zCDP ↔ (ε, δ)-DP: the tight conversion of Canonne, Kamath & Steinke (2020), both ways.

A ρ-zCDP mechanism (Bun & Steinke 2016) is (ε, δ)-DP for every δ > 0 with

* **tight** (Canonne, Kamath & Steinke 2020, "The Discrete Gaussian for Differential Privacy",
  Proposition 12 / Corollary 13; also used by OpenDP's ``cdp_epsilon`` and Private-PGM):

      ε = inf_{α > 1}  αρ + ln(1/(αδ)) / (α − 1) + ln(1 − 1/α),

  equivalently δ = inf_{α > 1} exp((α − 1)(αρ − ε)) · (1 − 1/α)^(α−1) / α;
* **simple** (Bun & Steinke 2016, Proposition 1.3): ε = ρ + 2√(ρ ln(1/δ)).

Every α > 1 gives a valid bound, so the minimisation need not be exact to be sound: it is
done by bisection on the sign of the derivative, ρ + ln(αδ)/(α − 1)², and the result is never
above the simple bound (the smaller of the two is returned). The tight bound buys more ρ for
the same promise: at ε = 1, δ = 1e-9, ρ = 0.01497 instead of 0.01178; ρ = 2.56 (the 2020
Census redistricting data) is worth ε ≈ 17.16 at δ = 1e-10 instead of 17.92.

The other direction, :func:`epsilon_to_rho`, is the largest ρ (found by bisection) whose
conversion does not exceed ε, so ``rho_to_epsilon(epsilon_to_rho(e, d), d) <= e`` holds
exactly in floating point.
"""

from __future__ import annotations

import math

from synthguard.errors import ParameterError

__all__ = ["CONVERSIONS", "epsilon_to_rho", "rho_to_delta", "rho_to_epsilon"]

CONVERSIONS = ("tight", "simple")


def _check(rho: float | None = None, delta: float | None = None, epsilon: float | None = None,
           method: str = "tight") -> None:
    if method not in CONVERSIONS:
        raise ParameterError(
            f"parameter 'conversion': expected one of {', '.join(CONVERSIONS)}, got {method!r}")
    if rho is not None and (not math.isfinite(rho) or rho < 0):
        raise ParameterError("parameter 'rho': expected a finite number >= 0")
    if delta is not None and not 0 < delta < 1:
        raise ParameterError("parameter 'delta': expected 0 < delta < 1 to convert zCDP")
    if epsilon is not None and (not math.isfinite(epsilon) or epsilon < 0):
        raise ParameterError("parameter 'epsilon': expected a finite number >= 0")


def _simple_epsilon(rho: float, delta: float) -> float:
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def _eps_at(alpha: float, rho: float, delta: float) -> float:
    return (alpha * rho + math.log(1.0 / (alpha * delta)) / (alpha - 1.0)
            + math.log1p(-1.0 / alpha))


def _tight_epsilon(rho: float, delta: float) -> float:
    # the derivative of ε(α) is ρ + ln(αδ)/(α−1)²: negative then positive on (1, ∞)
    def rising(a: float) -> bool:
        return rho + math.log(a * delta) / (a - 1.0) ** 2 > 0

    lo, hi = 1.0 + 1e-9, 2.0
    while not rising(hi) and hi < 1e12:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if rising(mid):
            hi = mid
        else:
            lo = mid
    return min(_eps_at(a, rho, delta) for a in (lo, hi))


def rho_to_epsilon(rho: float, delta: float, *, conversion: str = "tight") -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP (Canonne, Kamath & Steinke 2020, Prop. 12).

    ``conversion="tight"``: ε = inf_{α>1} αρ + ln(1/(αδ))/(α−1) + ln(1−1/α), never above the
    simple bound; ``conversion="simple"``: ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3).

    Examples
    --------
    >>> round(rho_to_epsilon(2.56, 1e-10), 2)
    17.16
    >>> round(rho_to_epsilon(2.56, 1e-10, conversion="simple"), 2)
    17.92
    """
    rho, delta = float(rho), float(delta)
    _check(rho=rho, delta=delta, method=conversion)
    if rho == 0:
        return 0.0
    simple = _simple_epsilon(rho, delta)
    if conversion == "simple":
        return simple
    return max(0.0, min(simple, _tight_epsilon(rho, delta)))


def rho_to_delta(rho: float, epsilon: float) -> float:
    """Smallest δ found such that ρ-zCDP implies (ε, δ)-DP (Canonne, Kamath & Steinke 2020).

    δ = inf_{α>1} exp((α − 1)(αρ − ε)) · (1 − 1/α)^(α−1) / α, capped at 1. The logarithm of
    the bound is convex in α (each of its three terms is), so the infimum is found by
    golden-section search; any α gives a valid δ.
    """
    rho, epsilon = float(rho), float(epsilon)
    _check(rho=rho, epsilon=epsilon)
    if rho == 0:
        return 0.0

    def log_delta(a: float) -> float:
        return (a - 1.0) * (a * rho - epsilon) + (a - 1.0) * math.log1p(-1.0 / a) - math.log(a)

    # log δ(α) is convex in α; golden-section search on a bracket found by doubling
    lo, hi = 1.0 + 1e-9, 2.0
    while log_delta(hi * 2.0) < log_delta(hi) and hi < 1e12:
        hi *= 2.0
    hi *= 2.0
    g = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(300):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if log_delta(a) < log_delta(b):
            hi = b
        else:
            lo = a
        if hi - lo < 1e-12 * hi:
            break
    best = min(log_delta(lo), log_delta(hi))
    return min(1.0, math.exp(best))


def epsilon_to_rho(epsilon: float, delta: float, *, conversion: str = "tight") -> float:
    """Largest ρ such that ρ-zCDP implies (ε, δ)-DP under the chosen conversion.

    ``conversion="simple"`` inverts ε = ρ + 2√(ρ ln(1/δ)) in closed form,
    ρ = (√(ln(1/δ) + ε) − √(ln(1/δ)))² (Bun & Steinke 2016); ``"tight"`` (default) bisects on
    ρ over :func:`rho_to_epsilon` (Canonne, Kamath & Steinke 2020), whose ε increases with ρ, and
    returns the largest ρ found whose conversion is ≤ ε.

    Examples
    --------
    >>> round(epsilon_to_rho(1.0, 1e-9), 5)
    0.01497
    >>> round(epsilon_to_rho(1.0, 1e-9, conversion="simple"), 5)
    0.01178
    """
    epsilon, delta = float(epsilon), float(delta)
    _check(delta=delta, epsilon=epsilon, method=conversion)
    if epsilon == 0:
        return 0.0
    log_term = math.log(1.0 / delta)
    simple = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    if conversion == "simple":
        while simple > 0 and _simple_epsilon(simple, delta) > epsilon:  # rounding only
            simple = math.nextafter(simple, 0.0)
        return simple
    lo, hi = simple, 2.0 * simple + 1e-12
    while rho_to_epsilon(hi, delta) <= epsilon:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if rho_to_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo
