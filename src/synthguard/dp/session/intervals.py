"""Half-widths of (1 − α) intervals for released values, stated before any budget is spent.

A released value is ``θ̂ = g(T + E)`` where ``T`` are exact statistics of the bounded data and
``E`` independent Laplace noises of known scales ``b_i``. The interval covers the noise only:
the target is the statistic of the bounded data (what the release estimates), not a
population value.

* One Laplace noise (count, sum, count of distinct units): P(|E| > t) = exp(−t/b), so the
  half-width is t = b ln(1/α) exactly (Dwork & Roth 2014, Fact 3.7).
* Two noises (a mean: sum over count), linearised (delta method):
  θ̂ − θ ≈ c₁E₁ + c₂E₂ with cᵢ the partial derivatives at the noisy estimate. For independent
  Laplace variables of scales a = |c₁|b₁ ≠ b = |c₂|b₂ the tail is
  P(|Z| > t) = (a² e^{−t/a} − b² e^{−t/b}) / (a² − b²), and e^{−t/a}(1 + t/(2a)) when a = b
  (from the density of a sum of two Laplace variables, Kotz, Kozubowski & Podgórski 2001,
  §2.3); t solves P(|Z| > t) = α by bisection.
* Three or more (a variance): the α quantile of |Σ cᵢEᵢ| computed by simulation with a fixed
  internal seed (50,000 draws; not noise of a release, a numerical integral), so the same
  inputs always give the same half-width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["check_alpha", "laplace_halfwidth", "laplace_sum_halfwidth"]

_DRAWS = 50_000
_SEED = 20210101


def check_alpha(alpha: float) -> float:
    alpha = float(alpha)
    if not 0 < alpha < 1:
        raise ParameterError("parameter 'alpha': expected 0 < alpha < 1 (0.05 for 95% intervals)")
    return alpha


def laplace_halfwidth(scale: float, alpha: float) -> float:
    """t with P(|Laplace(0, b)| > t) = α: t = b ln(1/α)."""
    return float(scale) * math.log(1.0 / check_alpha(alpha))


def _two_tail(t: float, a: float, b: float) -> float:
    if math.isclose(a, b, rel_tol=1e-9):
        return math.exp(-t / a) * (1.0 + t / (2.0 * a))
    return (a * a * math.exp(-t / a) - b * b * math.exp(-t / b)) / (a * a - b * b)


def laplace_sum_halfwidth(scales: Sequence[float], alpha: float) -> float:
    """t with P(|Σ Eᵢ| > t) = α for independent Eᵢ ~ Laplace(0, sᵢ) (module docstring)."""
    from scipy import optimize

    alpha = check_alpha(alpha)
    s = [abs(float(v)) for v in scales if abs(float(v)) > 0 and math.isfinite(float(v))]
    if any(not math.isfinite(float(v)) for v in scales):
        return math.inf
    if not s:
        return 0.0
    if len(s) == 1:
        return laplace_halfwidth(s[0], alpha)
    if len(s) == 2:
        a, b = s
        hi = (a + b) * (math.log(1.0 / alpha) + 10.0)
        return float(optimize.brentq(lambda t: _two_tail(t, a, b) - alpha, 0.0, hi,
                                     xtol=1e-12 * (a + b)))
    rng = np.random.default_rng(_SEED)
    z = np.abs(sum(rng.laplace(0.0, v, size=_DRAWS) for v in s))
    return float(np.quantile(z, 1.0 - alpha))
