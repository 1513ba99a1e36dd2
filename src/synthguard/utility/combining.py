"""Combining rules: one estimate, variance and t reference distribution from the m implicates.

* partially synthetic data, Reiter (2003): ``T_p = b_m/m + v̄_m``,
  ``ν_p = (m-1)(1 + v̄_m/(b_m/m))^2``;
* fully synthetic data, Reiter (2002) (Raghunathan, Reiter & Rubin 2003):
  ``T_f = (1 + 1/m) b_m - v̄_m``, ``ν_f = (m-1)(1 - v̄_m/((1 + 1/m) b_m))^2``, and when
  ``T_f < 0`` the non-negative alternative ``T_f* = max(0, T_f) + δ (n_synthetic/n) v̄_m`` with
  ``δ = 1`` (J. Hu's lecture "Methods for utility evaluation part 2", eq. (8));
* one implicate (``m = 1``), where ``b_m`` cannot be estimated: the rule of Raab, Nowok &
  Dibben (2016) for synthesis from a fitted model, ``T_s = v̄_m (1/m + n_synthetic/n)`` with a normal
  reference distribution (a :class:`~synthguard.errors.UtilityWarning` says so);
* fully synthetic data drawn from the posterior predictive ("proper" synthesis: new parameters
  drawn from their posterior for every implicate), Raab, Nowok & Dibben (2016), as synthpop's
  ``summary(..., population.inference = TRUE)`` with ``proper = TRUE``:
  ``T_r = v̄_m (n_synthetic/n + (1 + n_synthetic/n)/m)`` with a normal reference distribution. It needs no
  ``b_m``, so it also holds for ``m = 1``, and it avoids the tiny ``ν_f`` that makes Reiter's
  (2002) intervals over-cover when ``v̄_m`` is close to ``(1 + 1/m) b_m``.

Here ``q̄_m = Σ q^(l)/m``, ``b_m = Σ (q^(l) - q̄_m)^2/(m-1)``, ``v̄_m = Σ v^(l)/m``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.errors import DataError, ParameterError, UtilityWarning
from synthguard.utility._inputs import check_level
from synthguard.utility._metric import ResultDisplay

__all__ = ["CombinedEstimate", "combine"]

CombineMethod = Literal["partial", "full", "simple", "proper", "none"]


@dataclass(frozen=True)
class CombinedEstimate(ResultDisplay, Summarized):
    """An estimate combined over implicates.

    Attributes are floats for one estimand, or arrays when ``combine`` was given arrays of
    shape ``(m, ...)`` (one estimand per trailing position).

    Attributes
    ----------
    estimate : ``q̄_m``.
    variance : the combining rule's variance (``T_p``, ``T_f``/``T_f*``, ``T_s`` or ``T_r``).
    df : degrees of freedom of the t reference distribution (``inf``: normal).
    b_m : between-implicate variance (NaN for ``m = 1``).
    v_bar : mean within-implicate variance ``v̄_m``.
    m : number of implicates.
    method : ``"partial"``, ``"full"``, ``"simple"``, ``"proper"`` or ``"none"`` — the rule
        actually applied.
    adjusted : for ``"full"``, where ``T_f < 0`` so that ``T_f*`` replaced it.
    """

    estimate: Any
    variance: Any
    df: Any
    b_m: Any
    v_bar: Any
    m: int
    method: str
    adjusted: Any = False

    @property
    def se(self) -> Any:
        """Standard error ``sqrt(variance)``."""
        return np.sqrt(self.variance)

    def ci(self, level: float = 0.95) -> tuple[Any, Any]:
        """``q̄_m ± t_ν((1+level)/2) sqrt(T)``: the ``level`` confidence interval."""
        from scipy import stats

        level = check_level(level)
        df = np.asarray(self.df, dtype=float)
        p = 0.5 + level / 2.0
        with np.errstate(invalid="ignore"):
            crit = np.where(np.isinf(df), stats.norm.ppf(p), stats.t.ppf(p, np.where(
                np.isinf(df), 1.0, df)))
        half = crit * np.sqrt(np.asarray(self.variance, dtype=float))
        lo = np.asarray(self.estimate) - half
        hi = np.asarray(self.estimate) + half
        if lo.ndim == 0:
            return float(lo), float(hi)
        return lo, hi

    def to_frame(self, level: float = 0.95) -> pd.DataFrame:
        """One row per estimand: estimate, se, df, lower, upper, b_m, v_bar."""
        lo, hi = self.ci(level)
        return pd.DataFrame(
            {
                "estimate": np.atleast_1d(self.estimate),
                "se": np.atleast_1d(self.se),
                "df": np.atleast_1d(self.df),
                "lower": np.atleast_1d(lo),
                "upper": np.atleast_1d(hi),
                "b_m": np.atleast_1d(self.b_m),
                "v_bar": np.atleast_1d(self.v_bar),
            }
        )

    def summary(self, level: float = 0.95) -> str:
        lo, hi = self.ci(level)
        if np.ndim(self.estimate) == 0:
            return (
                f"{self.method} synthesis rule over m = {self.m}: estimate {self.estimate:.6g}, "
                f"se {float(self.se):.4g}, df {float(self.df):.4g}, "
                f"{level:.0%} CI [{lo:.6g}, {hi:.6g}]"
            )
        return self.to_frame(level).to_string()


@renamed(n_syn="n_synthetic")
def combine(
    q: Any,
    v: Any,
    method: CombineMethod = "partial",
    n: int | None = None,
    n_synthetic: int | None = None,
) -> CombinedEstimate:
    """Combine the implicates' estimates ``q^(l)`` and variances ``v^(l)``.

    Parameters
    ----------
    q, v : array-like of shape ``(m,)`` or ``(m, ...)``: point and variance estimates from each
        implicate; trailing dimensions are independent estimands (vectorised).
    method : ``"partial"`` (Reiter 2003), ``"full"`` (Reiter 2002) or ``"simple"`` (Raab, Nowok
        & Dibben 2016, ``T_s = v̄_m (1/m + n_synthetic/n)``, normal reference; synthesis from a fitted
        model rather than posterior draws) or ``"proper"`` (Raab, Nowok & Dibben 2016 for
        fully synthetic data from the posterior predictive, ``T_r = v̄_m (n_synthetic/n + (1 +
        n_synthetic/n)/m)``, normal reference; see Notes), or ``"none"``: one released file
        analysed as if it were the data, ``T = v``, as an analyst of a masked (SDC-protected)
        file does (Karr et al. 2006 measure such files' interval overlap this way); ``m = 1`` only.
    n, n_synthetic : sizes of the confidential data and of each synthetic implicate. Used by ``T_f*``
        and by the ``m = 1`` / ``"simple"`` / ``"proper"`` rules; ``n_synthetic/n`` is taken as 1 when
        either is None.

    Returns
    -------
    CombinedEstimate
        With ``ci(level)``.

    Raises
    ------
    ParameterError
        Unknown ``method``, shapes of ``q`` and ``v`` that differ, negative variances.

    Notes
    -----
    Partially synthetic (Reiter 2003): ``T_p = b_m/m + v̄_m`` and
    ``ν_p = (m-1)(1 + v̄_m/(b_m/m))^2``. Fully synthetic (Reiter 2002):
    ``T_f = (1 + 1/m) b_m - v̄_m`` and ``ν_f = (m-1)(1 - v̄_m/((1 + 1/m) b_m))^2``; where
    ``T_f < 0`` the variance is ``T_f* = (n_synthetic/n) v̄_m`` (lecture eq. (8)) and, our choice since
    ``ν_f`` is meaningless there, the conservative ``ν = m - 1``. With ``m = 1`` neither rule can
    estimate ``b_m``; the ``"simple"`` rule applies and a UtilityWarning says so.

    ``"proper"`` (Raab, Nowok & Dibben 2016, Section 3; synthpop's population inference for
    ``proper = TRUE``). Write ``k = n_synthetic/n`` and let ``v`` be the variance of the estimator
    ``θ̂`` on the ``n`` confidential records, ``Var(θ̂ - θ) = v``. Implicate ``l`` draws
    parameters from the posterior, ``θ_l = θ̂ + d_l`` with ``Var(d_l) ≈ v``, then ``n_synthetic``
    records from the model at ``θ_l``, so ``q^(l) = θ_l + e_l`` with ``Var(e_l) ≈ v/k``; the
    ``d_l`` and ``e_l`` are independent across implicates and of ``θ̂``. Hence
    ``q̄_m - θ = (θ̂ - θ) + Σ (d_l + e_l)/m`` has variance ``v + (v + v/k)/m``. Each implicate's
    own variance estimate ``v^(l)`` (from ``n_synthetic`` records) estimates ``v/k``, so ``k v̄_m``
    estimates ``v`` and ``T_r = k v̄_m (1 + (1 + 1/k)/m) = v̄_m (k + (1 + k)/m)``; ``q̄_m`` is
    asymptotically normal, so the reference distribution is normal (``df = inf``). For the
    ``"simple"`` rule (parameters fixed at ``θ̂``) the ``d_l`` vanish: ``T_s = v̄_m (k + 1/m)``.
    Both assume the synthesis model is correct and every variable of the analysis synthesised.

    Examples
    --------
    >>> r = combine([1.0, 2.0, 3.0], [0.5, 0.5, 0.5], method="partial")
    >>> round(r.variance, 6), round(r.df, 6)
    (0.833333, 12.5)
    """
    if method not in ("partial", "full", "simple", "proper", "none"):
        raise ParameterError(
            "parameter 'method': expected 'partial', 'full', 'simple', 'proper' or 'none', "
            f"got {method!r}"
        )
    qa = np.asarray(q, dtype=float)
    va = np.asarray(v, dtype=float)
    if qa.ndim == 0 or qa.shape != va.shape:
        raise ParameterError(
            "parameters 'q' and 'v': expected arrays of the same shape (m,) or (m, ...), "
            "one entry per implicate"
        )
    if np.any(va < 0):
        raise ParameterError("parameter 'v': variances must be non-negative")
    if np.any(~np.isfinite(qa)) or np.any(~np.isfinite(va)):
        raise DataError("parameters 'q' and 'v': estimates and variances must be finite")
    m = qa.shape[0]
    ratio = 1.0 if n is None or n_synthetic is None else float(n_synthetic) / float(n)
    q_bar = qa.mean(axis=0)
    v_bar = va.mean(axis=0)
    scalar = qa.ndim == 1

    def out(x: Any) -> Any:
        return float(x) if scalar else np.asarray(x, dtype=float)

    if method == "none":
        if m != 1:
            raise ParameterError(
                "parameter 'method': 'none' analyses one released file as the data; with "
                f"{m} implicates use 'partial', 'full', 'simple' or 'proper'"
            )
        nan = np.full_like(q_bar, np.nan)
        return CombinedEstimate(
            out(q_bar), out(v_bar), out(np.full_like(q_bar, np.inf)), out(nan), out(v_bar), 1,
            "none",
        )
    if m == 1 and method in ("partial", "full"):
        warnings.warn(
            f"combine: one implicate, so the between-implicate variance of the {method} "
            "synthesis rule cannot be estimated; using T = v̄(1/m + n_synthetic/n) with a normal "
            "reference (Raab, Nowok & Dibben 2016). Release m >= 2 implicates for Reiter's rules",
            UtilityWarning,
            stacklevel=2,
        )
        method = "simple"
    if method in ("simple", "proper"):
        # Raab, Nowok & Dibben (2016): T_s = v̄ (k + 1/m), T_r = v̄ (k + (1 + k)/m), k = n_synthetic/n
        t = v_bar * (ratio + (1.0 / m if method == "simple" else (1.0 + ratio) / m))
        b = qa.var(axis=0, ddof=1) if m > 1 else np.full_like(q_bar, np.nan)
        return CombinedEstimate(
            out(q_bar), out(t), out(np.full_like(q_bar, np.inf)), out(b), out(v_bar), m, method
        )
    b = qa.var(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "partial":
            t = b / m + v_bar
            r = np.where(b > 0, v_bar / (b / m), np.inf)
            df = np.where(np.isinf(r), np.inf, (m - 1) * (1.0 + r) ** 2)
            return CombinedEstimate(out(q_bar), out(t), out(df), out(b), out(v_bar), m, "partial")
        tf = (1.0 + 1.0 / m) * b - v_bar
        adjusted = tf < 0
        t = np.where(adjusted, np.maximum(0.0, tf) + ratio * v_bar, tf)
        df_f = (m - 1) * (1.0 - v_bar / ((1.0 + 1.0 / m) * b)) ** 2
        df = np.where(adjusted, float(m - 1), df_f)
    adj: Any = bool(adjusted) if scalar else np.asarray(adjusted)
    return CombinedEstimate(out(q_bar), out(t), out(df), out(b), out(v_bar), m, "full", adj)
