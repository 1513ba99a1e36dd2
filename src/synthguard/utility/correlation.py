"""Correlation fit: how well a release keeps the pairwise relationships (Urban Institute course,
chapter 3, "Correlation fit"): Pearson correlations of numeric pairs and Cramér's V of
categorical pairs, differenced, summarised by MAE, RMSE and the total absolute difference."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.data import Schema, as_implicates
from synthguard.data._backend import any_dask, dask_backend
from synthguard.errors import DataError
from synthguard.utility._inputs import category_codes, check_conf, numeric_values, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["CorrelationFit", "correlation_fit", "cramers_v_matrix", "cramers_v_of_table", "fit_of"]


@dataclass(frozen=True)
class CorrelationFit(ResultDisplay, Summarized):
    """Differences of correlation matrices, synthetic minus confidential.

    Attributes
    ----------
    difference : lower triangle of ``mean over implicates of R_syn - R_conf`` (upper triangle
        and diagonal NaN), as a DataFrame labelled by variable.
    mae : mean absolute difference over the lower triangle (averaged over implicates).
    rmse : root mean squared difference over the lower triangle (averaged over implicates).
    total : sum of absolute differences over the lower triangle — the course's "correlation
        fit" (averaged over implicates).
    cramers_v_difference : the same lower-triangle difference of Cramér's V matrices for the
        categorical columns (None when fewer than two).
    cramers_v_mae : MAE of the Cramér's V differences (NaN when not computed).
    implicates : per-implicate ``mae``, ``rmse``, ``total`` (and ``cramers_v_mae``).
    """

    difference: pd.DataFrame
    mae: float
    rmse: float
    total: float
    cramers_v_difference: pd.DataFrame | None
    cramers_v_mae: float
    implicates: pd.DataFrame

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 2.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "mae": MetricInfo("mae", "minimize", 0.0, 2.0, description="MAE of correlation differences"),
        "rmse": MetricInfo("rmse", "minimize", 0.0, 2.0, description="RMSE of correlation differences"),
        "total": MetricInfo("total", "minimize", 0.0, np.inf, description="sum of |differences|"),
        "cramers_v_mae": MetricInfo(
            "cramers_v_mae", "minimize", 0.0, 1.0, description="MAE of Cramér's V differences"
        ),
    }

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per pair with ``measure`` ("pearson" or "cramers_v") and
        ``difference``."""
        rows = []
        for measure, mat in (("pearson", self.difference), ("cramers_v", self.cramers_v_difference)):
            if mat is None:
                continue
            names = list(mat.columns)
            for i in range(len(names)):
                for j in range(i):
                    rows.append((measure, names[i], names[j], float(mat.to_numpy()[i, j])))
        return pd.DataFrame(rows, columns=["measure", "variable_1", "variable_2", "difference"])

    def summary(self) -> str:
        s = (
            f"Correlation fit: MAE {self.mae:.4g}, RMSE {self.rmse:.4g}, "
            f"total |difference| {self.total:.4g} (lower is better)"
        )
        if not np.isnan(self.cramers_v_mae):
            s += f"; Cramér's V MAE {self.cramers_v_mae:.4g}"
        return s


def _lower(d: np.ndarray) -> np.ndarray:
    i, j = np.tril_indices(d.shape[0], k=-1)
    return d[i, j]


def _fit_numbers(d: np.ndarray) -> tuple[float, float, float]:
    low = _lower(d)
    low = low[~np.isnan(low)]
    if low.size == 0:
        return np.nan, np.nan, np.nan
    return float(np.mean(np.abs(low))), float(np.sqrt(np.mean(low**2))), float(np.sum(np.abs(low)))


def _as_matrix(x: Any) -> tuple[np.ndarray, list[str]] | None:
    """A correlation matrix when ``x`` is one (2-d array, or square DataFrame whose index equals
    its columns, with unit diagonal); else None."""
    if isinstance(x, np.ndarray):
        if x.ndim == 2 and x.shape[0] == x.shape[1]:
            return x.astype(float), [str(i) for i in range(x.shape[0])]
        raise DataError("correlation matrix: expected a square 2-d array")
    if isinstance(x, pd.DataFrame) and x.shape[0] == x.shape[1] and list(x.index) == list(
        x.columns
    ):
        try:
            vals = x.to_numpy(dtype=float)
        except (TypeError, ValueError):
            return None
        if np.allclose(np.diag(vals), 1.0):
            return vals, [str(c) for c in x.columns]
    return None


def _pearson(df: pd.DataFrame, cols: list[str]) -> np.ndarray:
    x = np.column_stack([numeric_values(df[c], c) for c in cols])
    return pd.DataFrame(x).corr().to_numpy()


def cramers_v_matrix(codes: list[np.ndarray], n_levels: list[int]) -> np.ndarray:
    """Cramér's V ``sqrt(χ²/(n (min(r, c) - 1)))`` for every pair of coded columns
    (Cramér 1946; levels that never occur are ignored)."""
    p = len(codes)
    out = np.eye(p)
    for a in range(p):
        for b in range(a):
            tab = np.bincount(codes[a] * n_levels[b] + codes[b], minlength=n_levels[a] * n_levels[b])
            out[a, b] = out[b, a] = cramers_v_of_table(tab.reshape(n_levels[a], n_levels[b]))
    return out


def cramers_v_of_table(counts: np.ndarray) -> float:
    """Cramér's V ``sqrt(χ²/(n (min(r, c) - 1)))`` of a two-way table of counts (Cramér 1946);
    rows and columns without a count are dropped, NaN when fewer than two of either remain."""
    tab = np.asarray(counts).astype(float)
    tab = tab[tab.sum(axis=1) > 0][:, tab.sum(axis=0) > 0]
    r, c = tab.shape
    if min(r, c) < 2:
        return np.nan
    n = tab.sum()
    expected = np.outer(tab.sum(axis=1), tab.sum(axis=0)) / n
    chi2 = float(np.sum((tab - expected) ** 2 / expected))
    return float(np.sqrt(chi2 / (n * (min(r, c) - 1))))


@dask_backend
@renamed(synth="synthetic")
def correlation_fit(
    conf: Any,
    synthetic: Any,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
) -> CorrelationFit:
    """Correlation fit of a release (Urban Institute course, chapter 3, exercises 2 and 3).

    The difference matrix is ``D = R_syn - R_conf`` restricted to the lower triangle
    (``p(p-1)/2`` pairs ``d_k``); ``MAE = mean |d_k|``, ``RMSE = sqrt(mean d_k^2)`` and
    ``total = Σ |d_k|`` (the course's "correlation fit"). Numeric and count columns use Pearson
    correlations (pairwise-complete); categorical, ordinal and binary columns are compared by
    Cramér's V (missing values as a level).

    Parameters
    ----------
    conf, synthetic : DataFrames (``synthetic`` may be any release accepted by
        :func:`synthguard.data.as_implicates`; the metrics are averaged over implicates), or
        two correlation matrices (2-d arrays, or square DataFrames labelled by variable with a
        unit diagonal).
    schema : column kinds (default: inferred from ``conf``).
    columns : columns to compare (default: all shared ones).

    Returns
    -------
    CorrelationFit

    Examples
    --------
    The course's exercise 2:

    >>> syn = np.array([[1, .5, .75], [.5, 1, .8], [.75, .8, 1]])
    >>> con = np.array([[1, .35, .1], [.35, 1, .9], [.1, .9, 1]])
    >>> r = correlation_fit(con, syn)
    >>> round(r.mae, 6), round(r.rmse, 6)
    (0.3, 0.389444)
    """
    if any_dask(conf, synthetic):  # Pearson by Dask, Cramér's V from exact cell counts
        from synthguard.utility._on_dask.measures import correlation_matrices

        return fit_of(*correlation_matrices(conf, synthetic, schema=schema, columns=columns))
    mc = _as_matrix(conf)
    if mc is not None:
        ms = _as_matrix(synthetic)
        if ms is None or ms[0].shape != mc[0].shape:
            raise DataError(
                "synthetic: expected a correlation matrix of the same shape as conf's"
            )
        d = ms[0] - mc[0]
        mae, rmse, total = _fit_numbers(d)
        diff = pd.DataFrame(np.where(np.tri(len(d), k=-1, dtype=bool), d, np.nan),
                            index=mc[1], columns=mc[1])
        per = pd.DataFrame({"mae": [mae], "rmse": [rmse], "total": [total]})
        return CorrelationFit(diff, mae, rmse, total, None, np.nan, per)

    conf = check_conf(conf)
    conf, imps, schema, cols = resolve(conf, as_implicates(synthetic), schema, columns)
    num = [c for c in cols if schema[c].is_numeric]
    cat = [c for c in cols if schema[c].is_categorical]
    rc = _pearson(conf, num) if len(num) >= 2 else None
    cv_conf = None
    cat_levels: dict[str, Any] = {c: schema[c].levels for c in cat}
    if len(cat) >= 2:
        coded = [category_codes([conf[c]], cat_levels[c])[:2] for c in cat]
        cv_conf = cramers_v_matrix([k[0][0] for k in coded], [k[1] for k in coded])
    syn_r, syn_v = [], []
    for df in imps:
        if rc is not None:
            syn_r.append(_pearson(df, num))
        if cv_conf is not None:
            coded = [category_codes([df[c]], cat_levels[c])[:2] for c in cat]
            syn_v.append(cramers_v_matrix([k[0][0] for k in coded], [k[1] for k in coded]))
    return fit_of(rc, syn_r, num, cv_conf, syn_v, cat)


def fit_of(
    pearson: np.ndarray | None, synthetic_pearson: list[np.ndarray], numeric: list[str],
    cramers_v: np.ndarray | None, synthetic_cramers_v: list[np.ndarray], categorical: list[str],
) -> CorrelationFit:
    """The :class:`CorrelationFit` of the confidential Pearson and Cramér's V matrices (None:
    fewer than two such columns) and each implicate's: per implicate the differences'
    MAE, RMSE and total, averaged over implicates, and the mean difference matrices."""
    rc, cv_conf, num, cat = pearson, cramers_v, numeric, categorical
    if rc is None and cv_conf is None:
        raise DataError(
            "correlation_fit: needs at least two numeric or two categorical columns"
        )
    rows, diffs, vdiffs = [], [], []
    for i in range(max(len(synthetic_pearson), len(synthetic_cramers_v))):
        row: dict[str, float] = {}
        if rc is not None:
            d = synthetic_pearson[i] - rc
            diffs.append(d)
            row["mae"], row["rmse"], row["total"] = _fit_numbers(d)
        if cv_conf is not None:
            vd = synthetic_cramers_v[i] - cv_conf
            vdiffs.append(vd)
            row["cramers_v_mae"] = _fit_numbers(vd)[0]
        rows.append(row)
    per = pd.DataFrame(rows).rename_axis("implicate")

    def low_frame(mats: list[np.ndarray], names: list[str]) -> pd.DataFrame:
        d = np.mean(mats, axis=0)
        return pd.DataFrame(
            np.where(np.tri(len(d), k=-1, dtype=bool), d, np.nan), index=names, columns=names
        )

    diff = low_frame(diffs, num) if diffs else pd.DataFrame()
    vdiff = low_frame(vdiffs, cat) if vdiffs else None

    def avg(key: str) -> float:
        return float(per[key].mean()) if key in per else np.nan

    return CorrelationFit(diff, avg("mae"), avg("rmse"), avg("total"), vdiff,
                          avg("cramers_v_mae"), per)
