"""Agreement of a synthetic-data interval with the confidential one: interval overlap (two
definitions) and the sign, significance and overlap (SSO) match."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["SSOResult", "ci_overlap", "posterior_overlap", "sso"]

OVERLAP_SNOKE = MetricInfo(
    "overlap", "maximize", -np.inf, 1.0,
    description="interval overlap (Snoke et al. 2018; negative for gaps)",
)
OVERLAP_DR = MetricInfo(
    "overlap", "maximize", 0.0, 1.0,
    description="interval overlap (Drechsler & Reiter 2009; 0 when disjoint)",
)


def _interval(ci: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(ci, dtype=float)
    if arr.shape == (2,):
        lo, hi = arr[0], arr[1]
    elif arr.ndim == 2 and arr.shape[1] == 2:
        lo, hi = arr[:, 0], arr[:, 1]
    else:
        raise ParameterError(
            f"parameter '{name}': expected an interval (lower, upper) or an array of shape (k, 2)"
        )
    if np.any(hi < lo):
        raise ParameterError(f"parameter '{name}': the upper end lies below the lower end")
    return lo, hi


@renamed(synth_ci="synthetic_ci")
def ci_overlap(
    conf_ci: Any,
    synthetic_ci: Any,
    method: Literal["snoke", "drechsler_reiter"] = "snoke",
) -> Any:
    """Overlap of the confidential interval ``(L_c, U_c)`` and the synthetic ``(L_s, U_s)``.

    With ``L_i = max(L_c, L_s)`` and ``U_i = min(U_c, U_s)``:

    ``IO = ½ [(U_i - L_i)/(U_c - L_c) + (U_i - L_i)/(U_s - L_s)]``

    * ``"snoke"`` (Snoke et al. 2018, after Karr et al. 2006; the course's definition): used
      as is, so a gap between the intervals gives a negative value that falls as the gap
      widens; 1 for identical intervals.
    * ``"drechsler_reiter"`` (Drechsler & Reiter 2009): 0 when the intervals are disjoint.

    Parameters
    ----------
    conf_ci, synthetic_ci : ``(lower, upper)``, or arrays of shape ``(k, 2)`` (vectorised).
    method : ``"snoke"`` or ``"drechsler_reiter"``.

    Returns
    -------
    float or ndarray
        In ``(-inf, 1]`` (Snoke) or ``[0, 1]`` (Drechsler & Reiter); higher is better.

    Examples
    --------
    >>> ci_overlap((0, 2), (1, 3))
    0.5
    >>> ci_overlap((0, 1), (2, 3)), ci_overlap((0, 1), (2, 3), method="drechsler_reiter")
    (-1.0, 0.0)
    """
    if method not in ("snoke", "drechsler_reiter"):
        raise ParameterError(
            f"parameter 'method': expected 'snoke' or 'drechsler_reiter', got {method!r}"
        )
    lc, uc = _interval(conf_ci, "conf_ci")
    ls, us = _interval(synthetic_ci, "synthetic_ci")
    li = np.maximum(lc, ls)
    ui = np.minimum(uc, us)
    with np.errstate(divide="ignore", invalid="ignore"):
        io = 0.5 * ((ui - li) / (uc - lc) + (ui - li) / (us - ls))
    if method == "drechsler_reiter":
        io = np.where(li <= ui, io, 0.0)
    return float(io) if np.ndim(io) == 0 else io


@dataclass(frozen=True)
class SSOResult(ResultDisplay, Summarized):
    """Sign, significance and overlap match (Barrientos et al. 2021).

    Attributes
    ----------
    sign_match : the two estimates have the same sign.
    significance_match : both intervals exclude ``null_value``, or both include it.
    overlap_match : the intervals overlap.
    match : all three hold (the SSO match).
    """

    sign_match: bool
    significance_match: bool
    overlap_match: bool
    match: bool

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "match": MetricInfo("match", "maximize", 0.0, 1.0, description="SSO match"),
    }

    def __bool__(self) -> bool:
        return self.match

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "sign_match": [self.sign_match],
                "significance_match": [self.significance_match],
                "overlap_match": [self.overlap_match],
                "sso_match": [self.match],
            }
        )

    def summary(self) -> str:
        yn = {True: "yes", False: "no"}
        return (
            f"SSO match: {yn[self.match]} (sign {yn[self.sign_match]}, significance "
            f"{yn[self.significance_match]}, overlap {yn[self.overlap_match]})"
        )


@renamed(synth_estimate="synthetic_estimate", synth_ci="synthetic_ci")
def sso(
    conf_estimate: float,
    conf_ci: Any,
    synthetic_estimate: float,
    synthetic_ci: Any,
    null_value: float = 0.0,
) -> SSOResult:
    """Sign, significance and overlap (SSO) match (Barrientos et al. 2021).

    Sign: ``sign(conf_estimate - null_value) == sign(synthetic_estimate - null_value)``.
    Significance: each interval excludes ``null_value`` or each includes it (the test of
    ``H0: Q = null_value`` at the intervals' level agrees). Overlap: the intervals intersect.

    Examples
    --------
    The course's exercise 4 (Urban Institute course, chapter 3):

    >>> sso(2.7926609, (2.308338, 3.276984), 2.0845291, (1.512416, 2.656643)).match
    True
    """
    lc, uc = (float(x) for x in _interval(conf_ci, "conf_ci"))
    ls, us = (float(x) for x in _interval(synthetic_ci, "synthetic_ci"))
    sign = bool(np.sign(conf_estimate - null_value) == np.sign(synthetic_estimate - null_value))
    sig_c = not (lc <= null_value <= uc)
    sig_s = not (ls <= null_value <= us)
    signif = sig_c == sig_s
    overlap = max(lc, ls) <= min(uc, us)
    return SSOResult(sign, signif, bool(overlap), bool(sign and signif and overlap))


def posterior_overlap(conf_posterior: Any, synthetic_posterior: Any, *,
                      level: float = 0.95) -> float:
    """Interval overlap weighted by the posterior distributions (Karr et al. 2006, §2.1).

    For credible intervals, the lecture on utility (part 2) points to Karr et al.'s measure
    that uses the posteriors over the intervals rather than their lengths: with ``I_c`` and
    ``I_s`` the central ``level`` credible intervals of the confidential and the synthetic
    posterior and ``I = I_c ∩ I_s``,

    ``J = ½ [P_c(θ ∈ I) / P_c(θ ∈ I_c) + P_s(θ ∈ I) / P_s(θ ∈ I_s)]``

    so an overlap where a posterior puts little mass (its tail) counts for little. ``J`` is 1
    for identical posteriors and 0 for disjoint intervals.

    Parameters
    ----------
    conf_posterior, synthetic_posterior : posterior draws (a 1-d array), or ``(mean, sd)`` of
        a normal posterior (or its normal approximation).
    level : the credible level of the intervals.

    Examples
    --------
    >>> posterior_overlap((0.0, 1.0), (0.0, 1.0))
    1.0
    >>> posterior_overlap((0.0, 1.0), (10.0, 1.0))
    0.0
    """
    from scipy.stats import norm

    if not 0 < float(level) < 1:
        raise ParameterError("parameter 'level': expected a probability in (0, 1)")
    a = (1 - float(level)) / 2

    def law(p: Any, name: str) -> tuple[tuple[float, float], Any]:
        arr = np.asarray(p, dtype=float)
        if arr.ndim == 1 and arr.size == 2 and not isinstance(p, np.ndarray):
            mean, sd = float(arr[0]), float(arr[1])
            if not (np.isfinite(mean) and sd > 0):
                raise ParameterError(f"parameter '{name}': (mean, sd) needs a finite mean and "
                                     "sd > 0")
            lo, hi = norm.ppf([a, 1 - a], loc=mean, scale=sd)
            return (float(lo), float(hi)), (lambda x, y: float(
                norm.cdf(y, mean, sd) - norm.cdf(x, mean, sd)))
        draws = arr.ravel()
        draws = draws[np.isfinite(draws)]
        if draws.size < 10:
            raise ParameterError(f"parameter '{name}': expected posterior draws (10 or more) "
                                 "or (mean, sd)")
        lo, hi = np.quantile(draws, [a, 1 - a])
        return (float(lo), float(hi)), (lambda x, y: float(((draws >= x) & (draws <= y)).mean()))

    (lc, uc), mass_c = law(conf_posterior, "conf_posterior")
    (ls, us), mass_s = law(synthetic_posterior, "synthetic_posterior")
    li, ui = max(lc, ls), min(uc, us)
    if li >= ui:
        return 0.0
    return 0.5 * (mass_c(li, ui) / mass_c(lc, uc) + mass_s(li, ui) / mass_s(ls, us))
