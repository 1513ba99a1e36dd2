"""Where DP noise comes from: OpenDP's vetted samplers, or a seeded numpy path for simulation.

With ``random_state=None`` every sample is drawn by OpenDP (Rust, exact arithmetic,
cryptographic randomness; immune to the floating-point attack of Mironov 2012). OpenDP
samplers cannot be seeded by design.

With an int or a ``numpy.random.Generator`` the noise is drawn by numpy so that teaching
examples, simulations and tests are reproducible. **That path is not for releases**: numpy's
floating-point Laplace and Gaussian samplers leak through the low bits of their outputs
(Mironov 2012) and a seed is a secret that reproduces the noise. Every call that takes the
seeded path emits a :class:`~synthguard.errors.PrivacyWarning` whose message starts with
``"seeded numpy noise"`` (filter it with
``warnings.filterwarnings("ignore", "seeded numpy noise", PrivacyWarning)`` in simulations).

All samplers take a 1-d array of true values and return ``values + noise`` vectorised (one
OpenDP measurement over a vector domain, not one call per cell).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from synthguard._random import RandomState, check_random_state
from synthguard.errors import ParameterError, PrivacyWarning

__all__ = [
    "NOISE_NUMPY",
    "NOISE_OPENDP",
    "add_discrete_gaussian",
    "add_discrete_laplace",
    "add_gaussian",
    "add_laplace",
    "noise_source",
    "resolve_noise",
]

NOISE_OPENDP = "opendp"
NOISE_NUMPY = "numpy-simulation (not for release)"

_dp: Any = None


def _opendp() -> Any:
    """Import OpenDP once and enable the 'contrib' features its samplers need."""
    global _dp
    if _dp is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import opendp.prelude as dp

            dp.enable_features("contrib")
        _dp = dp
    return _dp


def noise_source(random_state: RandomState) -> str:
    """``"opendp"`` for ``random_state=None``, else the numpy simulation label."""
    return NOISE_OPENDP if random_state is None else NOISE_NUMPY


def resolve_noise(random_state: RandomState, *, stacklevel: int = 3) -> np.random.Generator | None:
    """None (use OpenDP) or a numpy Generator, warning that a seeded path is not for release."""
    if random_state is None:
        return None
    rng = check_random_state(random_state)
    warnings.warn(
        "seeded numpy noise is for simulation and teaching, not for releases: its "
        "floating-point samplers are not hardened (Mironov 2012); pass random_state=None to "
        "draw the noise from OpenDP",
        PrivacyWarning,
        stacklevel=stacklevel,
    )
    return rng


def _check_scale(scale: float, name: str = "scale") -> float:
    scale = float(scale)
    if not math.isfinite(scale) or scale < 0:
        raise ParameterError(f"noise {name}: expected a finite number >= 0")
    return scale


def add_laplace(values: np.ndarray, scale: float, rng: np.random.Generator | None) -> np.ndarray:
    """``values + Laplace(0, scale)`` noise, elementwise (float)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    scale = _check_scale(scale)
    if scale == 0 or x.size == 0:
        return x.copy()
    if rng is not None:
        return x + rng.laplace(0.0, scale, size=x.size)
    dp = _opendp()
    m = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=scale
    )
    return np.asarray(m(x.tolist()), dtype=np.float64)


def add_gaussian(values: np.ndarray, sigma: float, rng: np.random.Generator | None) -> np.ndarray:
    """``values + N(0, sigma^2)`` noise, elementwise (float)."""
    x = np.asarray(values, dtype=np.float64).ravel()
    sigma = _check_scale(sigma, "sigma")
    if sigma == 0 or x.size == 0:
        return x.copy()
    if rng is not None:
        return x + rng.normal(0.0, sigma, size=x.size)
    dp = _opendp()
    m = dp.m.make_gaussian(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float), scale=sigma
    )
    return np.asarray(m(x.tolist()), dtype=np.float64)


def _as_int(values: np.ndarray) -> np.ndarray:
    x = np.asarray(values)
    if x.dtype.kind == "f":
        if not np.all(np.isfinite(x)) or np.any(x != np.round(x)):
            raise ParameterError(
                "discrete noise: expected integer values (counts); round them first or use "
                "the continuous mechanism"
            )
    return x.astype(np.int64).ravel()


def _numpy_discrete_laplace(size: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    # difference of two iid geometric variables with success prob 1 - exp(-1/scale) is the
    # discrete Laplace with P(k) ∝ exp(-|k|/scale) (Inusah & Kozubowski 2006)
    p = -math.expm1(-1.0 / scale)
    return rng.geometric(p, size=size) - rng.geometric(p, size=size)


def _numpy_discrete_gaussian(size: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    # Canonne, Kamath & Steinke (2020), Algorithm 3: rejection sampling from a discrete
    # Laplace with scale t = floor(sigma) + 1, vectorised over batches
    t = math.floor(sigma) + 1.0
    out = np.empty(0, dtype=np.int64)
    while out.size < size:
        need = size - out.size
        batch = max(64, int(need * 1.6))
        y = _numpy_discrete_laplace(batch, t, rng)
        accept = rng.random(batch) < np.exp(-((np.abs(y) - sigma**2 / t) ** 2) / (2 * sigma**2))
        out = np.concatenate([out, y[accept][:need]])
    return out


def add_discrete_laplace(
    values: np.ndarray, scale: float, rng: np.random.Generator | None
) -> np.ndarray:
    """``values + discrete Laplace(scale)`` noise on integers: P(k) ∝ exp(-|k|/scale)."""
    x = _as_int(values)
    scale = _check_scale(scale)
    if scale == 0 or x.size == 0:
        return x.copy()
    if rng is not None:
        return x + _numpy_discrete_laplace(x.size, scale, rng)
    dp = _opendp()
    m = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale
    )
    return np.asarray(m([int(v) for v in x]), dtype=np.int64)


def add_discrete_gaussian(
    values: np.ndarray, sigma: float, rng: np.random.Generator | None
) -> np.ndarray:
    """``values + discrete Gaussian(sigma)`` noise on integers: P(k) ∝ exp(-k^2 / (2 sigma^2))."""
    x = _as_int(values)
    sigma = _check_scale(sigma, "sigma")
    if sigma == 0 or x.size == 0:
        return x.copy()
    if rng is not None:
        return x + _numpy_discrete_gaussian(x.size, sigma, rng)
    dp = _opendp()
    m = dp.m.make_gaussian(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=sigma
    )
    return np.asarray(m([int(v) for v in x]), dtype=np.int64)
