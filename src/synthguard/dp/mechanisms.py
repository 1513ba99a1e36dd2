"""The additive noise mechanisms: Laplace, Gaussian (classic and analytic), and their discrete versions.

Each mechanism releases ``M(X) + noise`` where ``M`` is a query whose global sensitivity the
caller states (see :mod:`synthguard.dp.sensitivity`, which makes the neighbouring relation
explicit). The guarantee holds for whatever neighbouring relation the sensitivity was computed
under.

=========================  ==================================  =================================
mechanism                  noise                               guarantee (Δ = sensitivity)
=========================  ==================================  =================================
:func:`laplace`            Laplace(0, b), b = Δ₁/ε             ε-DP (Dwork et al. 2006)
:func:`discrete_laplace`   P(k) ∝ exp(−|k|/b), b = Δ₁/ε        ε-DP (Ghosh et al. 2009), integers
:func:`gaussian`           N(0, σ²), σ from :func:`gaussian_sigma`   (ε, δ)-DP (Balle & Wang 2018)
:func:`discrete_gaussian`  P(k) ∝ exp(−k²/2σ²), σ = Δ₂/√(2ρ)   ρ-zCDP (Canonne et al. 2020)
=========================  ==================================  =================================

Noise source: with ``random_state=None`` OpenDP's vetted samplers draw the noise (they cannot
be seeded). An int or Generator selects a seeded numpy path for simulation and teaching; it
is **not for releases** and emits a :class:`~synthguard.errors.PrivacyWarning`
(see :mod:`synthguard.dp._noise`).

These functions do not charge a ledger; :mod:`synthguard.dp.queries` does.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from synthguard._random import RandomState
from synthguard.dp import _noise
from synthguard.dp.conversion import epsilon_to_rho
from synthguard.errors import ParameterError, PrivacyWarning

__all__ = [
    "discrete_gaussian",
    "discrete_gaussian_sigma",
    "discrete_laplace",
    "gaussian",
    "gaussian_sigma",
    "laplace",
    "laplace_scale",
]


def _check_positive(value: float, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"parameter '{name}': expected a finite number > 0")
    return value


def _check_sensitivity(value: float) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ParameterError(
            "parameter 'sensitivity': expected a finite number >= 0; an unbounded statistic "
            "(a sum or mean of unclipped values) has infinite sensitivity: clip it to public "
            "bounds first (synthguard.dp.sensitivity)"
        )
    return value


def _check_delta(delta: float) -> float:
    delta = float(delta)
    if not 0 < delta < 1:
        raise ParameterError("parameter 'delta': expected 0 < delta < 1 (e.g. 1e-6 or 1/n²)")
    return delta


def _shape_back(noisy: np.ndarray, value: Any) -> float | np.ndarray:
    if np.ndim(value) == 0:
        return noisy[0].item()
    return noisy.reshape(np.shape(value))


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ₁/ε of the Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006)."""
    return _check_sensitivity(sensitivity) / _check_positive(epsilon, "epsilon")


def laplace(
    value: float | np.ndarray,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
) -> float | np.ndarray:
    """Laplace mechanism: ``value + Laplace(0, Δ₁/ε)`` independently per element.

    Satisfies ε-DP when ``sensitivity`` is the l1 global sensitivity of the (vector) query
    under the chosen neighbouring relation (Dwork, McSherry, Nissim & Smith 2006). Variance
    of each element's noise: 2 (Δ₁/ε)².

    Parameters
    ----------
    value : the true answer, a scalar or an array (one query per element).
    sensitivity : l1 global sensitivity Δ₁ of the whole vector.
    epsilon : privacy-loss budget ε > 0 spent by this release.
    random_state : None (OpenDP's sampler; for releases) or a seed/Generator (numpy;
        simulation only, emits PrivacyWarning).

    Examples
    --------
    >>> noisy = laplace(146, sensitivity=1, epsilon=0.1)  # doctest: +SKIP
    """
    scale = laplace_scale(sensitivity, epsilon)
    rng = _noise.resolve_noise(random_state)
    return _shape_back(_noise.add_laplace(np.asarray(value, dtype=float), scale, rng), value)


def discrete_laplace(
    value: int | np.ndarray,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
) -> int | np.ndarray:
    """Discrete Laplace (geometric) mechanism for integer queries such as counts.

    Adds integer noise with P(k) ∝ exp(−|k| ε/Δ₁); ε-DP for an integer-valued query of l1
    sensitivity Δ₁ (Ghosh, Roughgarden & Sundararajan 2009). Noise variance:
    2 e^{−1/b} / (1 − e^{−1/b})² with b = Δ₁/ε. The output stays integer, so no rounding
    is needed afterwards.
    """
    scale = laplace_scale(sensitivity, epsilon)
    rng = _noise.resolve_noise(random_state)
    out = _noise.add_discrete_laplace(np.asarray(value), scale, rng)
    return int(out[0]) if np.ndim(value) == 0 else out.reshape(np.shape(value))


def _analytic_gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """δ(σ) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) (Balle & Wang 2018, Theorem 8)."""
    from scipy import special

    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    first = special.ndtr(a - b)
    second = math.exp(epsilon + special.log_ndtr(-a - b))
    return float(first - second)


def gaussian_sigma(
    sensitivity: float, epsilon: float, delta: float, analytic: bool = False
) -> float:
    """Standard deviation σ of the Gaussian mechanism for (ε, δ)-DP.

    * ``analytic=False`` — the classic calibration σ = Δ₂ √(2 ln(1.25/δ)) / ε (Dwork & Roth
      2014, Theorem A.1), proven only for ε < 1; for ε ≥ 1 a PrivacyWarning is emitted.
    * ``analytic=True`` — the analytic Gaussian mechanism (Balle & Wang 2018, Theorem 8): the
      smallest σ with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) ≤ δ, found by root finding
      (Brent's method on log σ). Exact for every ε > 0 and never larger than the classic σ.

    Parameters
    ----------
    sensitivity : l2 global sensitivity Δ₂.
    epsilon, delta : the (ε, δ) target, ε > 0, 0 < δ < 1.
    analytic : use the analytic calibration.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5), 4)
    9.6896
    """
    from scipy import optimize

    sensitivity = _check_sensitivity(sensitivity)
    epsilon = _check_positive(epsilon, "epsilon")
    delta = _check_delta(delta)
    if sensitivity == 0:
        return 0.0
    if not analytic:
        if epsilon >= 1:
            warnings.warn(
                "gaussian_sigma: the classic calibration is proven only for epsilon < 1; "
                "pass analytic=True for a sigma valid at this epsilon",
                PrivacyWarning,
                stacklevel=2,
            )
        return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon

    def excess(log_sigma: float) -> float:
        return _analytic_gaussian_delta(math.exp(log_sigma), sensitivity, epsilon) - delta

    # δ(σ) decreases from 1 (σ → 0) to 0 (σ → ∞); bracket the root in log σ
    lo, hi = math.log(sensitivity) - 10.0, math.log(sensitivity) + 10.0
    while excess(lo) < 0:
        lo -= 10.0
    while excess(hi) > 0:
        hi += 10.0
    root = optimize.brentq(excess, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
    sigma = math.exp(root)
    # step up to the feasible side so the guarantee holds exactly
    while _analytic_gaussian_delta(sigma, sensitivity, epsilon) > delta:
        sigma = math.nextafter(sigma, math.inf)
    return sigma


def gaussian(
    value: float | np.ndarray,
    sensitivity: float,
    epsilon: float,
    delta: float,
    random_state: RandomState = None,
    *,
    analytic: bool = True,
) -> float | np.ndarray:
    """Gaussian mechanism: ``value + N(0, σ²)`` per element with σ from :func:`gaussian_sigma`.

    (ε, δ)-DP for a query of l2 global sensitivity Δ₂ (Dwork & Roth 2014; Balle & Wang 2018).
    The analytic calibration is the default here because it is valid for every ε and adds
    less noise; pass ``analytic=False`` for the course's classic formula (ε < 1 only).
    """
    sigma = gaussian_sigma(sensitivity, epsilon, delta, analytic=analytic)
    rng = _noise.resolve_noise(random_state)
    return _shape_back(_noise.add_gaussian(np.asarray(value, dtype=float), sigma, rng), value)


def zcdp_rho_for(epsilon: float, delta: float, *, conversion: str = "tight") -> float:
    """Largest ρ such that ρ-zCDP implies (ε, δ)-DP.

    ``conversion="tight"`` (default) inverts the conversion of Canonne, Kamath & Steinke (2020,
    Proposition 12), ε = inf_{α>1} αρ + ln(1/(αδ))/(α−1) + ln(1−1/α), the one OpenDP and
    Private-PGM use; ``conversion="simple"`` inverts ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016,
    Proposition 1.3), which buys about a fifth less ρ for the same promise. Both are done by
    :func:`synthguard.dp.conversion.epsilon_to_rho`.

    Examples
    --------
    >>> round(zcdp_rho_for(1.0, 1e-9), 5)
    0.01497
    >>> round(zcdp_rho_for(1.0, 1e-9, conversion="simple"), 5)
    0.01178
    """
    epsilon = _check_positive(epsilon, "epsilon")
    return epsilon_to_rho(epsilon, _check_delta(delta), conversion=conversion)


def discrete_gaussian_sigma(
    sensitivity: float,
    *,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
) -> float:
    """σ of the discrete Gaussian for ρ-zCDP: σ = Δ₂/√(2ρ) (Canonne, Kamath & Steinke 2020, Thm 4).

    Give either ``rho``, or ``epsilon`` and ``delta``; the latter are turned into the largest ρ
    whose tight conversion (Canonne, Kamath & Steinke 2020; :func:`zcdp_rho_for`) is at most ε,
    so the mechanism is (ε, δ)-DP.
    """
    sensitivity = _check_sensitivity(sensitivity)
    if rho is None:
        if epsilon is None or delta is None:
            raise ParameterError(
                "discrete Gaussian: give 'rho' (zCDP) or both 'epsilon' and 'delta'"
            )
        rho = zcdp_rho_for(epsilon, delta)
    elif epsilon is not None or delta is not None:
        raise ParameterError("discrete Gaussian: give 'rho' or ('epsilon', 'delta'), not both")
    rho = _check_positive(rho, "rho")
    return sensitivity / math.sqrt(2.0 * rho)


def discrete_gaussian(
    value: int | np.ndarray,
    sensitivity: float,
    *,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    random_state: RandomState = None,
) -> int | np.ndarray:
    """Discrete Gaussian mechanism for integer queries: P(k) ∝ exp(−k²/(2σ²)).

    ρ-zCDP with σ = Δ₂/√(2ρ) (Canonne, Kamath & Steinke 2020) — the noise the 2020 US
    Census TopDown algorithm used. See :func:`discrete_gaussian_sigma` for the parameters.
    """
    sigma = discrete_gaussian_sigma(sensitivity, rho=rho, epsilon=epsilon, delta=delta)
    rng = _noise.resolve_noise(random_state)
    out = _noise.add_discrete_gaussian(np.asarray(value), sigma, rng)
    return int(out[0]) if np.ndim(value) == 0 else out.reshape(np.shape(value))
