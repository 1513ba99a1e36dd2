"""Differentially private answers to the common queries, each charging a ledger first.

Every function computes the query's sensitivity under the stated neighbouring relation
(:mod:`synthguard.dp.sensitivity`), calibrates the noise, **charges the ledger** (which raises
:class:`~synthguard.errors.PrivacyBudgetError` on overspend and, with a ledger file, records
the charge on disk) and only then draws the noise. The answer comes back as a
:class:`DPResult` that states how it was made.

``mechanism`` selects the noise: ``"laplace"`` (ε-DP), ``"discrete_laplace"`` (ε-DP, integer
output; counts and histograms), ``"gaussian"`` (analytic Gaussian, (ε, δ)-DP) or
``"discrete_gaussian"`` ((ε, δ)-DP through ρ-zCDP; counts and histograms), or
``"classic_gaussian"``, the course's Gaussian mechanism with σ = Δ₂ √(2 ln(1.25/δ)) / ε
(Dwork & Roth 2014, Theorem A.1; proven for ε < 1 only, and never less noise than the analytic
calibration: for teaching and for reproducing the course's figures).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
import pandas as pd

from synthguard._random import RandomState
from synthguard.data._backend import refuse_dask
from synthguard.dp import _noise
from synthguard.dp.mechanisms import gaussian_sigma, laplace_scale, zcdp_rho_for
from synthguard.dp.sensitivity import (
    Relation,
    Sensitivity,
    count_sensitivity,
    histogram_sensitivity,
    mean_sensitivity,
    sum_sensitivity,
)
from synthguard.errors import DataError, ParameterError, UnaccountedWarning

__all__ = [
    "DPResult",
    "Mechanism",
    "dp_count",
    "dp_histogram",
    "dp_mean",
    "dp_quantile",
    "dp_sum",
]

Mechanism = Literal["laplace", "discrete_laplace", "gaussian", "discrete_gaussian",
                    "classic_gaussian"]
_MECHANISMS = ("laplace", "discrete_laplace", "gaussian", "discrete_gaussian", "classic_gaussian")
_GAUSSIANS = ("gaussian", "discrete_gaussian", "classic_gaussian")


class _Charger(Protocol):
    def charge(self, label: str, epsilon: float, delta: float = 0.0) -> Any: ...


@dataclass(frozen=True)
class DPResult:
    """A differentially private answer and how it was made.

    ``value`` is the noisy answer (a float, an int or a Series for histograms); ``scale`` is
    the Laplace scale b or the Gaussian σ; ``noise`` says whether OpenDP drew the noise or the
    seeded numpy simulation path did (not for release).
    """

    value: Any
    query: str
    mechanism: str
    epsilon: float
    delta: float
    scale: float
    sensitivity: Sensitivity
    noise: str

    @property
    def variance(self) -> float:
        """Variance of the added noise (2b² for Laplace, σ² for Gaussian; discrete: exact)."""
        if self.mechanism == "laplace":
            return 2.0 * self.scale**2
        if self.mechanism == "discrete_laplace":
            a = math.exp(-1.0 / self.scale) if self.scale > 0 else 0.0
            return 2.0 * a / (1.0 - a) ** 2
        return self.scale**2  # Gaussian; discrete Gaussian variance ≤ σ² (Canonne et al. 2020)

    def __float__(self) -> float:
        return float(self.value)

    def to_frame(self) -> pd.DataFrame:
        value = self.value if isinstance(self.value, pd.Series) else pd.Series([self.value])
        return pd.DataFrame({"value": value, "mechanism": self.mechanism,
                             "epsilon": self.epsilon, "delta": self.delta, "scale": self.scale,
                             "noise": self.noise})


def _check_mechanism(mechanism: str, delta: float) -> None:
    if mechanism not in _MECHANISMS:
        raise ParameterError(f"parameter 'mechanism': expected one of {', '.join(_MECHANISMS)}")
    if mechanism in _GAUSSIANS and not 0 < delta < 1:
        raise ParameterError(
            f"parameter 'delta': mechanism '{mechanism}' needs 0 < delta < 1 (e.g. 1e-6)"
        )
    if mechanism in ("laplace", "discrete_laplace") and delta != 0:
        raise ParameterError(f"parameter 'delta': mechanism '{mechanism}' is pure DP; pass delta=0")


_warned_unaccounted = False


def warn_unaccounted(query: str, *, stacklevel: int = 4) -> None:
    """Warn, once per process, that ``query`` spent privacy budget with no ledger to record it:
    every call spends ε again (sequential composition, Dwork & Roth 2014, Thm 3.16), and
    without a ledger nobody can add the calls up."""
    global _warned_unaccounted
    if _warned_unaccounted:
        return
    _warned_unaccounted = True
    warnings.warn(
        f"{query}: answered without a ledger, so the privacy budget it spent is recorded "
        "nowhere and repeated calls add up unseen; keep an account with "
        "ledger = synthguard.dp.PrivacyLedger(epsilon=..., delta=..., path='ledger.json') and "
        f"pass ledger=ledger to every call (this warning is shown once per process)",
        UnaccountedWarning, stacklevel=stacklevel)


def _release(
    true: np.ndarray,
    sens: Sensitivity,
    *,
    query: str,
    epsilon: float,
    delta: float,
    mechanism: str,
    ledger: _Charger | None,
    label: str | None,
    random_state: RandomState,
    charge_epsilon: float | None = None,
    charge_delta: float | None = None,
    accounted_elsewhere: bool = False,
) -> tuple[np.ndarray, float, str]:
    """Calibrate, charge, then add noise. Returns (noisy values, scale, noise source)."""
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError("parameter 'epsilon': expected a finite number > 0")
    _check_mechanism(mechanism, delta)
    if mechanism in ("laplace", "discrete_laplace"):
        scale = laplace_scale(sens.l1, epsilon)
    elif mechanism == "gaussian":
        scale = gaussian_sigma(sens.l2, epsilon, delta, analytic=True)
    elif mechanism == "classic_gaussian":
        scale = gaussian_sigma(sens.l2, epsilon, delta, analytic=False)
    else:
        scale = sens.l2 / math.sqrt(2.0 * zcdp_rho_for(epsilon, delta))
    rng = _noise.resolve_noise(random_state, stacklevel=4)
    if ledger is not None:  # charge BEFORE any noise exists
        ledger.charge(label or query, epsilon if charge_epsilon is None else charge_epsilon,
                      delta if charge_delta is None else charge_delta)
    elif not accounted_elsewhere:
        warn_unaccounted(f"dp_{query}", stacklevel=4)
    if mechanism == "laplace":
        noisy = _noise.add_laplace(true, scale, rng)
    elif mechanism in ("gaussian", "classic_gaussian"):
        noisy = _noise.add_gaussian(true, scale, rng)
    elif mechanism == "discrete_laplace":
        noisy = _noise.add_discrete_laplace(true, scale, rng)
    else:
        noisy = _noise.add_discrete_gaussian(true, scale, rng)
    return noisy, scale, _noise.noise_source(random_state)


def _values(values: Any, name: str) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(x).any():
        raise DataError(f"{name}: missing values; drop or impute them (a public rule) first")
    return x


def dp_count(
    data: Any,
    *,
    epsilon: float,
    ledger: _Charger | None = None,
    label: str | None = None,
    relation: Relation = "add_remove",
    mechanism: Mechanism = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP count: the number of True values of a boolean array, else the number of rows.

    Sensitivity 1 under both relations (course, Exercise 1); Laplace scale 1/ε.

    Examples
    --------
    >>> from synthguard.dp import PrivacyLedger
    >>> ledger = PrivacyLedger(epsilon=1.0)
    >>> res = dp_count([True, False, True], epsilon=0.5, ledger=ledger)  # doctest: +SKIP
    """
    refuse_dask(data, "data", "synthguard.scale.dp_count")
    arr = np.asarray(data)
    true = float(arr.sum()) if arr.dtype == bool else float(len(data))
    sens = count_sensitivity(relation)
    noisy, scale, src = _release(np.array([true]), sens, query="count", epsilon=epsilon,
                                 delta=delta, mechanism=mechanism, ledger=ledger, label=label,
                                 random_state=random_state)
    value = noisy[0].item()
    return DPResult(value, "count", mechanism, float(epsilon), float(delta), scale, sens, src)


def dp_sum(
    values: Any,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    ledger: _Charger | None = None,
    label: str | None = None,
    relation: Relation = "add_remove",
    mechanism: Mechanism = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP sum of values clipped to public bounds [lower, upper].

    Sensitivity max(|L|, |U|) (add/remove) or U − L (replace); see
    :func:`~synthguard.dp.sensitivity.sum_sensitivity`. Clipping biases the sum when the bounds
    cut real values; choose them from public knowledge, never from the data.
    """
    refuse_dask(values, "values", "synthguard.scale.dp_sum")
    sens = sum_sensitivity(lower, upper, relation)
    x = np.clip(_values(values, "dp_sum"), lower, upper)
    noisy, scale, src = _release(np.array([x.sum()]), sens, query="sum", epsilon=epsilon,
                                 delta=delta, mechanism=mechanism, ledger=ledger, label=label,
                                 random_state=random_state)
    return DPResult(noisy[0].item(), "sum", mechanism, float(epsilon), float(delta), scale, sens,
                    src)


def dp_mean(
    values: Any,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    n: int | None = None,
    ledger: _Charger | None = None,
    label: str | None = None,
    mechanism: Literal["laplace", "gaussian", "classic_gaussian"] = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP mean of values clipped to public bounds [lower, upper].

    * ``n`` given (public, so neighbours are replacements): one noisy mean with sensitivity
      (U − L)/n (course, "Means", case 2). ``n`` must equal the number of values.
    * ``n`` None: a noisy sum (ε/2, sensitivity max(|L|,|U|)) over a noisy count (ε/2,
      sensitivity 1), add/remove neighbours (course, "Means", case 1), clamped to [L, U]
      (post-processing). The reported ``scale`` is the sum's.
    """
    refuse_dask(values, "values", "synthguard.scale.dp_sum and synthguard.scale.dp_count")
    x = np.clip(_values(values, "dp_mean"), lower, upper)
    if mechanism not in ("laplace", "gaussian", "classic_gaussian"):
        raise ParameterError("parameter 'mechanism': dp_mean takes 'laplace', 'gaussian' or "
                             "'classic_gaussian'")
    if n is not None:
        if int(n) != x.size:
            raise DataError(
                "dp_mean: parameter 'n' differs from the number of values; n must be the public "
                "number of records, or pass n=None to estimate it with noise"
            )
        sens = mean_sensitivity(lower, upper, int(n))
        noisy, scale, src = _release(np.array([x.mean()]), sens, query="mean", epsilon=epsilon,
                                     delta=delta, mechanism=mechanism, ledger=ledger,
                                     label=label, random_state=random_state)
        value = float(np.clip(noisy[0], lower, upper))
        return DPResult(value, "mean", mechanism, float(epsilon), float(delta), scale, sens, src)
    half = float(epsilon) / 2.0
    s_sens = sum_sensitivity(lower, upper, "add_remove")
    c_sens = count_sensitivity("add_remove")
    noisy_sum, scale, src = _release(np.array([x.sum()]), s_sens, query="mean", epsilon=half,
                                     delta=delta / 2.0, mechanism=mechanism, ledger=ledger,
                                     label=label, random_state=random_state,
                                     charge_epsilon=float(epsilon), charge_delta=float(delta))
    # the count's half was charged with the sum's (one ledger line for the whole mean)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noisy_n, _, _ = _release(np.array([float(x.size)]), c_sens, query="mean", epsilon=half,
                                 delta=delta / 2.0, mechanism=mechanism, ledger=None,
                                 label=None, random_state=_same_stream(random_state),
                                 accounted_elsewhere=True)
    value = float(np.clip(noisy_sum[0] / max(noisy_n[0], 1.0), lower, upper))
    return DPResult(value, "mean", mechanism, float(epsilon), float(delta), scale, s_sens, src)


def _same_stream(random_state: RandomState) -> RandomState:
    # an int seed would restart the stream and reuse the sum's noise; derive a distinct one
    if isinstance(random_state, int | np.integer) and not isinstance(random_state, bool):
        return np.random.default_rng([int(random_state), 1])
    return random_state


def dp_histogram(
    values: Any,
    *,
    categories: Any,
    epsilon: float,
    ledger: _Charger | None = None,
    label: str | None = None,
    relation: Relation = "add_remove",
    mechanism: Mechanism = "laplace",
    delta: float = 0.0,
    random_state: RandomState = None,
) -> DPResult:
    """DP histogram: noisy counts of every public category, zero counts included.

    One record touches one cell, so the whole vector has Δ₁ = Δ₂ = 1 (add/remove) or Δ₁ = 2,
    Δ₂ = √2 (replace) and costs ε once — parallel composition over the cells (course,
    "Parallel Composition Theorem Example"). ``categories`` must be public: levels read from
    the data would reveal which cells are non-empty.
    """
    refuse_dask(values, "values", "synthguard.scale.dp_histogram")
    cats = pd.Index(list(categories))
    if cats.has_duplicates or len(cats) == 0:
        raise ParameterError("parameter 'categories': expected a non-empty list of distinct levels")
    ser = pd.Series(np.asarray(values, dtype=object))
    codes = cats.get_indexer(ser)
    if (codes < 0).any():
        raise DataError(
            "dp_histogram: values outside the public 'categories' (or missing values); add the "
            "levels or recode the values (a public rule) first"
        )
    counts = np.bincount(codes, minlength=len(cats))
    sens = histogram_sensitivity(relation)
    noisy, scale, src = _release(counts.astype(float), sens, query="histogram", epsilon=epsilon,
                                 delta=delta, mechanism=mechanism, ledger=ledger, label=label,
                                 random_state=random_state)
    value = pd.Series(noisy, index=cats, name="count")
    return DPResult(value, "histogram", mechanism, float(epsilon), float(delta), scale, sens, src)


def _opendp_quantile(x: np.ndarray, candidates: np.ndarray, alpha: float, epsilon: float,
                     d_in: int) -> float:
    dp = _noise._opendp()
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))

    def make(scale: float) -> Any:
        return dp.m.make_private_quantile(domain, dp.symmetric_distance(), dp.max_divergence(),
                                          candidates=candidates.tolist(), alpha=alpha,
                                          scale=scale)

    scale = dp.binary_search_param(make, d_in=d_in, d_out=epsilon)
    return float(make(scale)(x.tolist()))


def dp_quantile(
    values: Any,
    q: float,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    candidates: Any = None,
    ledger: _Charger | None = None,
    label: str | None = None,
    relation: Relation = "add_remove",
    random_state: RandomState = None,
) -> DPResult:
    """DP q-quantile by the exponential mechanism over public candidate values.

    Candidates (default: 1,001 evenly spaced points of the public range [lower, upper]) are
    scored by how far they are from splitting the data at q. With ``random_state=None`` OpenDP's
    ``make_private_quantile`` (Smith 2011 scores, sampling as in McKenna & Sheldon 2020) is
    calibrated to ε; the seeded simulation path uses the exponential mechanism
    P(c) ∝ exp(ε u(c) / (2Δu)) with u(c) = −|#{x < c} − q n| and Δu = 1
    (McSherry & Talwar 2007), sampled by the Gumbel-max trick.
    """
    q = float(q)
    if not 0 <= q <= 1:
        raise ParameterError("parameter 'q': expected a probability in [0, 1]")
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError("parameter 'epsilon': expected a finite number > 0")
    sum_sensitivity(lower, upper)  # validates the public bounds
    if candidates is None:
        cand = np.linspace(float(lower), float(upper), 1001)
    else:
        cand = np.unique(np.asarray(candidates, dtype=np.float64))
        if cand.size == 0 or not np.all(np.isfinite(cand)):
            raise ParameterError("parameter 'candidates': expected finite public values")
    x = np.clip(_values(values, "dp_quantile"), lower, upper)
    sens = Sensitivity("quantile-score", relation, 1.0, 1.0)
    if relation not in ("add_remove", "replace"):
        raise ParameterError("parameter 'relation': expected 'add_remove' or 'replace'")
    rng = _noise.resolve_noise(random_state)
    if ledger is not None:
        ledger.charge(label or "quantile", epsilon, 0.0)
    else:
        warn_unaccounted("dp_quantile", stacklevel=3)
    if rng is None:
        value = _opendp_quantile(x, cand, q, epsilon, 1 if relation == "add_remove" else 2)
    else:
        below = np.searchsorted(np.sort(x), cand, side="left")
        utility = -np.abs(below - q * x.size)
        logits = epsilon * utility / 2.0
        value = float(cand[np.argmax(logits + rng.gumbel(size=cand.size))])
    return DPResult(value, "quantile", "exponential", epsilon, 0.0, 2.0 / epsilon, sens,
                    _noise.noise_source(random_state))
