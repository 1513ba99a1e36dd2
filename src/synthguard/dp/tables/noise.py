"""The known distribution of the noise added to a DP table: variance and exact intervals.

A noisy count ``y = x + N`` with N drawn from a known, symmetric distribution gives the
interval ``[y − t, y + t]`` for the true ``x``, where t is the smallest value with
P(|N| > t) ≤ α; it covers x with probability ≥ 1 − α *exactly*, whatever x is, because the
noise does not depend on the data (Dwork & Roth 2014; the interval the U.S. Census Bureau's
noisy measurement files allow, Abowd et al. 2022). The four noise families used here:

=====================  ================================  =========================================
mechanism              P(N) / density                    P(|N| > t)
=====================  ================================  =========================================
``laplace``            exp(−|n|/b) / 2b                  exp(−t/b)                → t = b ln(1/α)
``discrete_laplace``   (1−a)/(1+a) · a^|k|, a = e^(−1/b)  2a^(t+1)/(1+a), t integer
``gaussian``           N(0, σ²)                          2(1 − Φ(t/σ))            → t = σ Φ⁻¹(1 − α/2)
``discrete_gaussian``  ∝ exp(−k²/2σ²)                    summed numerically over |k| ≤ 12σ + 10
=====================  ================================  =========================================

The discrete-Laplace law is Inusah & Kozubowski (2006); the discrete Gaussian is Canonne,
Kamath & Steinke (2020), whose variance is below σ² and is computed here exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["MECHANISMS", "NoiseModel"]

MECHANISMS = ("laplace", "discrete_laplace", "gaussian", "discrete_gaussian")


def _check_confidence(confidence: float) -> float:
    confidence = float(confidence)
    if not 0 < confidence < 1:
        raise ParameterError("parameter 'confidence': expected a probability in (0, 1), e.g. 0.95")
    return confidence


def _dg_pmf(sigma: float) -> np.ndarray:
    """P(|N| = k) for k = 0..K of the discrete Gaussian (K = 12σ + 10; the rest < 1e-30)."""
    k = np.arange(0, math.ceil(12.0 * sigma) + 11, dtype=np.float64)
    w = np.exp(-(k * k) / (2.0 * sigma * sigma))
    w[1:] *= 2.0  # ±k
    return w / w.sum()


@dataclass(frozen=True)
class NoiseModel:
    """Noise of one DP statistic: its mechanism and scale (Laplace b, or Gaussian σ)."""

    mechanism: str
    scale: float

    def __post_init__(self) -> None:
        if self.mechanism not in MECHANISMS:
            raise ParameterError(
                f"parameter 'mechanism': expected one of {', '.join(MECHANISMS)}")
        if not math.isfinite(self.scale) or self.scale < 0:
            raise ParameterError("noise scale: expected a finite number >= 0")

    @property
    def discrete(self) -> bool:
        return self.mechanism.startswith("discrete")

    @property
    def variance(self) -> float:
        """Variance of N: 2b² (Laplace), 2a/(1−a)² (discrete Laplace), σ² (Gaussian), exact
        sum Σ k² P(k) (discrete Gaussian)."""
        s = self.scale
        if s == 0:
            return 0.0
        if self.mechanism == "laplace":
            return 2.0 * s * s
        if self.mechanism == "discrete_laplace":
            a = math.exp(-1.0 / s)
            return 2.0 * a / (1.0 - a) ** 2
        if self.mechanism == "gaussian":
            return s * s
        p = _dg_pmf(s)
        k = np.arange(p.size, dtype=np.float64)
        return float((k * k * p).sum())

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    def tail(self, t: float) -> float:
        """P(|N| > t)."""
        s, t = self.scale, float(t)
        if t < 0:
            return 1.0
        if s == 0:
            return 0.0
        if self.mechanism == "laplace":
            return math.exp(-t / s)
        if self.mechanism == "gaussian":
            from scipy import special

            return float(2.0 * special.ndtr(-t / s))
        ti = math.floor(t)
        if self.mechanism == "discrete_laplace":
            a = math.exp(-1.0 / s)
            return min(1.0, 2.0 * a ** (ti + 1) / (1.0 + a))
        p = _dg_pmf(s)
        return float(max(0.0, p[ti + 1:].sum())) if ti + 1 < p.size else 0.0

    def halfwidth(self, confidence: float = 0.95) -> float:
        """Smallest t with P(|N| > t) ≤ 1 − confidence (an integer for discrete noise), so
        ``[y − t, y + t]`` covers the true value with probability ≥ ``confidence``."""
        alpha = 1.0 - _check_confidence(confidence)
        s = self.scale
        if s == 0:
            return 0.0
        if self.mechanism == "laplace":
            return s * math.log(1.0 / alpha)
        if self.mechanism == "gaussian":
            from scipy import special

            return float(s * special.ndtri(1.0 - alpha / 2.0))
        if self.mechanism == "discrete_laplace":
            a = math.exp(-1.0 / s)
            if a <= 0.0:  # scale far below 1 (a huge ε): P(N ≠ 0) underflows to 0
                return 0.0
            t = max(0, math.ceil(math.log(alpha * (1.0 + a) / 2.0) / math.log(a)) - 1)
            while t > 0 and self.tail(t - 1) <= alpha:  # floating-point guard, both ways
                t -= 1
            while self.tail(t) > alpha:
                t += 1
            return float(t)
        p = _dg_pmf(s)
        inside = np.cumsum(p)  # P(|N| <= t)
        t = int(np.searchsorted(inside, 1.0 - alpha - 1e-15, side="left"))
        while self.tail(t) > alpha:
            t += 1
        return float(t)

    def interval(self, values: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray,
                                                                               np.ndarray]:
        """``(values − t, values + t)`` with t = :meth:`halfwidth`."""
        v = np.asarray(values, dtype=np.float64)
        t = self.halfwidth(confidence)
        return v - t, v + t

    def to_dict(self) -> dict[str, float | str]:
        return {"mechanism": self.mechanism, "scale": self.scale, "sd": self.sd}
