"""Empirical-CDF utility: the largest and the mean squared ECDF difference over the pooled
sample (Woo, Reiter, Oganian & Karr 2009; Hu, Savitsky & Williams, Tables 5 and 7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._compat import renamed, renamed_fields
from synthguard._display import Summarized
from synthguard.data._backend import any_dask, dask_backend
from synthguard.data.counts import ValueCounts, sum_of_runs
from synthguard.errors import DataError, ParameterError
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = [
    "ECDFUtility",
    "ecdf_distances",
    "ecdf_distances_of_counts",
    "ecdf_utility",
    "ecdf_utility_of_counts",
]


def _weighted_cdf(sorted_x: np.ndarray, cum_w: np.ndarray, z: np.ndarray) -> np.ndarray:
    return cum_w[np.searchsorted(sorted_x, z, side="right")] / cum_w[-1]


def ecdf_distances(
    a: np.ndarray, b: np.ndarray, wa: np.ndarray | None = None, wb: np.ndarray | None = None
) -> tuple[float, float]:
    """``(U_m, U_a)`` for two 1-d samples without missing values.

    With the pooled sample ``z_1..z_N`` (``N = n_a + n_b``) and the two ECDFs
    ``F_a(z) = #{a_i <= z} / n_a`` and ``F_b``:
    ``U_m = max_j |F_a(z_j) - F_b(z_j)|`` and ``U_a = (1/N) sum_j (F_a(z_j) - F_b(z_j))^2``
    (Woo et al. 2009). Sorting and ``searchsorted`` make it O(N log N).

    With case weights ``wa``, ``wb`` the ECDFs are weighted, ``F_a(z) = Σ_{a_i <= z} w_i /
    Σ w_i``, and ``U_a`` averages over the pooled points with each sample's weights rescaled
    to mean 1 (``Σ_j ω_j d_j² / N``); weights of 1 give the unweighted values.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    wa_ = np.ones(a.size) if wa is None else np.asarray(wa, dtype=float)
    wb_ = np.ones(b.size) if wb is None else np.asarray(wb, dtype=float)
    oa, ob = np.argsort(a, kind="stable"), np.argsort(b, kind="stable")
    a, wa_, b, wb_ = a[oa], wa_[oa], b[ob], wb_[ob]
    ca = np.concatenate([[0.0], np.cumsum(wa_)])
    cb = np.concatenate([[0.0], np.cumsum(wb_)])
    z = np.concatenate([a, b])
    d = _weighted_cdf(a, ca, z) - _weighted_cdf(b, cb, z)
    if wa is None and wb is None:
        return float(np.max(np.abs(d))), float(np.mean(d * d))
    omega = np.concatenate([wa_ * (a.size / ca[-1]), wb_ * (b.size / cb[-1])])
    return float(np.max(np.abs(d))), float(np.sum(omega * d * d) / z.size)


def ecdf_distances_of_counts(
    a: np.ndarray, ca: np.ndarray, b: np.ndarray, cb: np.ndarray
) -> tuple[float, float]:
    """:func:`ecdf_distances` (unweighted) of the samples holding each of the sorted distinct
    values ``a`` ``ca`` times and each of ``b`` ``cb`` times, without building them, to the bit.

    ``F_a(z)`` is the count of ``a`` at or below ``z`` over ``n_a``, the same two integers
    divided as :func:`ecdf_distances` divides them, so ``d(z) = F_a(z) - F_b(z)`` is its value
    at every distinct ``z``; ``U_m`` is the largest ``|d|``. ``U_a`` is numpy's mean of
    ``d²`` over the pooled sample in :func:`ecdf_distances`' order (the sorted ``a``, then the
    sorted ``b``), i.e. runs of ``ca`` and ``cb`` equal terms, summed as numpy sums them by
    :func:`~synthguard.data.counts.sum_of_runs`.
    """
    cum_a = np.concatenate([[0.0], np.cumsum(ca, dtype=np.float64)])
    cum_b = np.concatenate([[0.0], np.cumsum(cb, dtype=np.float64)])
    z = np.concatenate([a, b])
    d = _weighted_cdf(a, cum_a, z) - _weighted_cdf(b, cum_b, z)
    n = int(np.sum(ca)) + int(np.sum(cb))
    return float(np.max(np.abs(d))), sum_of_runs(d * d, np.concatenate([ca, cb])) / n


@renamed_fields(n_syn="n_synthetic")
@dataclass(frozen=True)
class ECDFUtility(ResultDisplay, Summarized):
    """ECDF utility of one variable, per implicate and averaged.

    Attributes
    ----------
    u_max : ``U_m``, the largest absolute ECDF difference (average over implicates).
    u_avg : ``U_a``, the mean squared ECDF difference over the pooled values (average over
        implicates).
    u_max_implicates, u_avg_implicates : the values for each implicate.
    n_conf, n_synthetic : numbers of non-missing values used (``n_synthetic`` of the first
        implicate; ``n_syn``, its old name, works one release with a RenamedWarning).
    n_missing_conf : missing values dropped from the confidential values.
    """

    u_max: float
    u_avg: float
    u_max_implicates: tuple[float, ...]
    u_avg_implicates: tuple[float, ...]
    n_conf: int
    n_synthetic: int
    n_missing_conf: int = 0

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "u_max": MetricInfo("u_max", "minimize", 0.0, 1.0, description="largest ECDF difference"),
        "u_avg": MetricInfo(
            "u_avg", "minimize", 0.0, 1.0, description="mean squared ECDF difference"
        ),
    }

    def to_frame(self) -> pd.DataFrame:
        """One row per implicate with ``u_max`` and ``u_avg``."""
        return pd.DataFrame(
            {"u_max": self.u_max_implicates, "u_avg": self.u_avg_implicates},
            index=pd.RangeIndex(len(self.u_max_implicates), name="implicate"),
        )

    def summary(self) -> str:
        m = len(self.u_max_implicates)
        return (
            f"ECDF utility (Woo et al. 2009) over {m} implicate(s): "
            f"U_m = {self.u_max:.4g}, U_a = {self.u_avg:.4g} (lower is better, 0 = identical)"
        )


def _weights_of(w: Any, n: int, name: str) -> np.ndarray | None:
    if w is None:
        return None
    arr = _as_values(w, name)
    if arr.size != n:
        raise DataError(f"{name}: expected one weight per value")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or not arr.sum() > 0:
        raise DataError(f"{name}: weights must be finite, non-negative and not all zero")
    return arr


def _as_values(x: Any, name: str) -> np.ndarray:
    if isinstance(x, pd.Series):
        x = pd.to_numeric(x, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"{name}: expected numeric values") from None
    if arr.ndim != 1:
        raise DataError(f"{name}: expected a 1-d array of values, got {arr.ndim} dimensions")
    return arr


def _counted(vc: ValueCounts, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Sorted distinct non-missing values of a column's counts (converted as
    :func:`ecdf_utility` converts a Series; values equal as floats merged), their counts and
    the number of missing values."""
    x = _as_values(vc.values, name)
    nan = np.isnan(x)
    u, inv = np.unique(x[~nan], return_inverse=True)
    c = np.bincount(inv.ravel(), weights=vc.counts[~nan], minlength=u.size)
    return u, np.rint(c).astype(np.int64), int(vc.counts[nan].sum())


def ecdf_utility_of_counts(conf: ValueCounts, synthetic: Sequence[ValueCounts]) -> ECDFUtility:
    """:func:`ecdf_utility` (unweighted) of a column given by its value counts
    (:class:`~synthguard.data.counts.ValueCounts`) in the data and in each implicate: the
    same result, to the bit (:func:`ecdf_distances_of_counts`), from one entry per distinct
    value, never one per record (for data too big to hold, :mod:`synthguard.scale`)."""
    a, ca, miss = _counted(conf, "conf_values")
    if a.size == 0:
        raise DataError("conf_values: no non-missing value")
    um, ua, n_syn = [], [], []
    for i, vc in enumerate(synthetic):
        b, cb, _ = _counted(vc, f"synthetic_values[{i}]")
        if b.size == 0:
            raise DataError(f"synthetic_values[{i}]: no non-missing value")
        m, u = ecdf_distances_of_counts(a, ca, b, cb)
        um.append(m)
        ua.append(u)
        n_syn.append(int(cb.sum()))
    return _result(um, ua, int(ca.sum()), n_syn[0], miss)


def _result(um: list[float], ua: list[float], n_conf: int, n_syn: int,
            n_missing: int) -> ECDFUtility:
    return ECDFUtility(
        u_max=float(np.mean(um)),
        u_avg=float(np.mean(ua)),
        u_max_implicates=tuple(um),
        u_avg_implicates=tuple(ua),
        n_conf=n_conf,
        n_synthetic=n_syn,
        n_missing_conf=n_missing,
    )


@dask_backend
@renamed(synth_values="synthetic_values", synth_weights="synthetic_weights")
def ecdf_utility(
    conf_values: Any,
    synthetic_values: Any,
    *,
    conf_weights: Any = None,
    synthetic_weights: Any = None,
) -> ECDFUtility:
    """ECDF utility ``U_m`` and ``U_a`` of a numeric variable (Woo et al. 2009).

    Both ECDFs are evaluated at every value of the pooled sample (confidential and
    synthetic together, ``N = n_conf + n_syn`` points):

    ``U_m = max_j |F_conf(z_j) - F_syn(z_j)|``,
    ``U_a = (1/N) sum_j (F_conf(z_j) - F_syn(z_j))^2``,

    as reported in Hu, Savitsky & Williams, Tables 5 and 7. Missing values are dropped.

    With ``conf_weights`` (and ``synthetic_weights``, one array per implicate, or None for a
    release without weights) the ECDFs are survey-weighted: ``F(z)`` is the weighted share
    of values at or below ``z``, so the distances compare the population distributions the
    weights estimate rather than the samples; ``U_a`` weighs each pooled point by its case
    weight rescaled to mean 1 in its sample (:func:`ecdf_distances`). Weights of 1 give the
    unweighted values.

    Parameters
    ----------
    conf_values : 1-d array-like or Series of confidential values.
    synthetic_values : 1-d array-like of synthetic values, or a list of them (one per implicate);
        the result averages over implicates.
    conf_weights : case weights of the confidential values (None: unweighted).
    synthetic_weights : case weights of the synthetic values: an array (one implicate) or a list
        with an array or None per implicate.

    Returns
    -------
    ECDFUtility

    Raises
    ------
    DataError
        Non-numeric values, or no non-missing value on one side.

    Examples
    --------
    >>> r = ecdf_utility([1, 2, 3], [1, 2, 3])
    >>> r.u_max, r.u_avg
    (0.0, 0.0)
    """
    if any_dask(conf_values, synthetic_values):  # from exact value counts, exactly
        if conf_weights is not None or synthetic_weights is not None:
            raise ParameterError(
                "parameters 'conf_weights', 'synthetic_weights': case weights are not "
                "supported on Dask data; leave them out or pass pandas values"
            )
        from synthguard.utility._on_dask.measures import ecdf_utility_dask

        return ecdf_utility_dask(conf_values, synthetic_values)
    conf = _as_values(conf_values, "conf_values")
    if isinstance(synthetic_values, list | tuple) and synthetic_values and not np.isscalar(
        synthetic_values[0]
    ):
        synths: Sequence[Any] = synthetic_values
    else:
        synths = [synthetic_values]
    miss = np.isnan(conf)
    cw = _weights_of(conf_weights, conf.size, "conf_weights")
    conf = conf[~miss]
    if cw is not None:
        cw = cw[~miss]
    if conf.size == 0:
        raise DataError("conf_values: no non-missing value")
    if synthetic_weights is None or (len(synths) == 1 and not isinstance(synthetic_weights, list)):
        sws: list[Any] = [synthetic_weights] * len(synths)
    else:
        sws = list(synthetic_weights)
        if len(sws) != len(synths):
            raise DataError("synthetic_weights: expected one array (or None) per implicate")
    um, ua, n_syn = [], [], []
    for i, s in enumerate(synths):
        sv = _as_values(s, f"synthetic_values[{i}]")
        sw = _weights_of(sws[i], sv.size, f"synthetic_weights[{i}]")
        keep = ~np.isnan(sv)
        sv = sv[keep]
        if sw is not None:
            sw = sw[keep]
        if sv.size == 0:
            raise DataError(f"synthetic_values[{i}]: no non-missing value")
        m, a = ecdf_distances(conf, sv, cw, sw) if (cw is not None or sw is not None) else (
            ecdf_distances(conf, sv))
        um.append(m)
        ua.append(a)
        n_syn.append(sv.size)
    return _result(um, ua, int(conf.size), int(n_syn[0]), int(miss.sum()))
