"""Empirical-CDF utility: the largest and the mean squared ECDF difference over the pooled
sample (Woo, Reiter, Oganian & Karr 2009; Hu, Savitsky & Williams, Tables 5 and 7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import DataError
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["ECDFUtility", "ecdf_distances", "ecdf_utility"]


def ecdf_distances(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """``(U_m, U_a)`` for two 1-d samples without missing values.

    With the pooled sample ``z_1..z_N`` (``N = n_a + n_b``) and the two ECDFs
    ``F_a(z) = #{a_i <= z} / n_a`` and ``F_b``:
    ``U_m = max_j |F_a(z_j) - F_b(z_j)|`` and ``U_a = (1/N) sum_j (F_a(z_j) - F_b(z_j))^2``
    (Woo et al. 2009). Sorting and ``searchsorted`` make it O(N log N).
    """
    a = np.sort(np.asarray(a, dtype=float))
    b = np.sort(np.asarray(b, dtype=float))
    z = np.concatenate([a, b])
    fa = np.searchsorted(a, z, side="right") / a.size
    fb = np.searchsorted(b, z, side="right") / b.size
    d = fa - fb
    return float(np.max(np.abs(d))), float(np.mean(d * d))


@dataclass(frozen=True)
class ECDFUtility(ResultDisplay, Summarized):
    """ECDF utility of one variable, per implicate and averaged.

    Attributes
    ----------
    u_max : ``U_m``, the largest absolute ECDF difference (average over implicates).
    u_avg : ``U_a``, the mean squared ECDF difference over the pooled values (average over
        implicates).
    u_max_implicates, u_avg_implicates : the values for each implicate.
    n_conf, n_syn : numbers of non-missing values used (``n_syn`` of the first implicate).
    n_missing_conf : missing values dropped from the confidential values.
    """

    u_max: float
    u_avg: float
    u_max_implicates: tuple[float, ...]
    u_avg_implicates: tuple[float, ...]
    n_conf: int
    n_syn: int
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


def ecdf_utility(conf_values: Any, synth_values: Any) -> ECDFUtility:
    """ECDF utility ``U_m`` and ``U_a`` of a numeric variable (Woo et al. 2009).

    Both ECDFs are evaluated at every value of the pooled sample (confidential and
    synthetic together, ``N = n_conf + n_syn`` points):

    ``U_m = max_j |F_conf(z_j) - F_syn(z_j)|``,
    ``U_a = (1/N) sum_j (F_conf(z_j) - F_syn(z_j))^2``,

    as reported in Hu, Savitsky & Williams, Tables 5 and 7. Missing values are dropped.

    Parameters
    ----------
    conf_values : 1-d array-like or Series of confidential values.
    synth_values : 1-d array-like of synthetic values, or a list of them (one per implicate);
        the result averages over implicates.

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
    conf = _as_values(conf_values, "conf_values")
    if isinstance(synth_values, list | tuple) and synth_values and not np.isscalar(
        synth_values[0]
    ):
        synths: Sequence[Any] = synth_values
    else:
        synths = [synth_values]
    miss = np.isnan(conf)
    conf = conf[~miss]
    if conf.size == 0:
        raise DataError("conf_values: no non-missing value")
    um, ua, n_syn = [], [], []
    for i, s in enumerate(synths):
        sv = _as_values(s, f"synth_values[{i}]")
        sv = sv[~np.isnan(sv)]
        if sv.size == 0:
            raise DataError(f"synth_values[{i}]: no non-missing value")
        m, a = ecdf_distances(conf, sv)
        um.append(m)
        ua.append(a)
        n_syn.append(sv.size)
    return ECDFUtility(
        u_max=float(np.mean(um)),
        u_avg=float(np.mean(ua)),
        u_max_implicates=tuple(um),
        u_avg_implicates=tuple(ua),
        n_conf=int(conf.size),
        n_syn=int(n_syn[0]),
        n_missing_conf=int(miss.sum()),
    )
