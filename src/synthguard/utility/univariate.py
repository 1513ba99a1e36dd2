"""Univariate comparison of a release with the confidential data: level counts and shares of
categorical variables; moments, percentiles, zeros and missing values of numeric variables
(Urban Institute course, ch. 3, "Univariate")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.data import Schema
from synthguard.data._backend import any_dask, dask_backend
from synthguard.data.counts import ValueCounts, quantiles_from_counts
from synthguard.errors import DataError, ParameterError
from synthguard.utility._inputs import (
    case_weights,
    category_codes,
    check_conf,
    check_weights_column,
    level_counts,
    numeric_counts,
    numeric_values,
    resolve,
)
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = [
    "PERCENTILES",
    "UnivariateComparison",
    "rows_of_counts",
    "univariate",
    "univariate_of_counts",
]

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass(frozen=True)
class UnivariateComparison(ResultDisplay, Summarized):
    """Per-variable summaries of the confidential data and the release.

    Attributes
    ----------
    numeric : rows ``(variable, statistic)`` with statistics n, mean, sd, skewness, kurtosis
        (excess, bias-corrected as pandas computes them), p1 ... p99, share_zero,
        share_missing; columns ``confidential``, ``synthetic`` (mean over implicates) and
        ``difference`` (synthetic - confidential).
    categorical : rows ``(variable, level)`` (missing values as level ``<missing>``), columns
        ``count_conf``, ``share_conf``, ``count_syn`` (mean over implicates), ``share_syn`` and
        ``difference`` (share_syn - share_conf).
    max_share_difference : largest absolute share difference over all categorical levels.
    """

    numeric: pd.DataFrame
    categorical: pd.DataFrame
    max_share_difference: float

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "max_share_difference": MetricInfo(
            "max_share_difference", "minimize", 0.0, 1.0,
            description="largest absolute difference in a category's share",
        ),
    }

    def to_frame(self) -> pd.DataFrame:
        """Both tables stacked long: variable, kind, statistic, confidential, synthetic,
        difference (categorical rows use ``share:<level>`` and ``count:<level>``)."""
        num = self.numeric.reset_index()
        num.insert(1, "kind", "numeric")
        parts = [num]
        if len(self.categorical):
            cat = self.categorical.reset_index()
            for what, c, s in (("share", "share_conf", "share_syn"),
                               ("count", "count_conf", "count_syn")):
                part = pd.DataFrame({
                    "variable": cat["variable"],
                    "kind": "categorical",
                    "statistic": [f"{what}:{lv}" for lv in cat["level"]],
                    "confidential": cat[c].astype(float),
                    "synthetic": cat[s].astype(float),
                })
                part["difference"] = part["synthetic"] - part["confidential"]
                parts.append(part)
        return pd.concat(parts, ignore_index=True)

    def summary(self) -> str:
        nv = self.numeric.index.get_level_values(0).nunique() if len(self.numeric) else 0
        cv = self.categorical.index.get_level_values(0).nunique() if len(self.categorical) else 0
        return (
            f"Univariate comparison of {nv} numeric and {cv} categorical variables; largest "
            f"share difference {self.max_share_difference:.4g}"
        )


def weighted_quantiles(x: np.ndarray, w: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Quantiles of ``x`` with case weights ``w``, linear between order statistics: the k-th
    smallest value sits at ``(S_k - w_k)/(W - w_(n))`` (``S_k`` the cumulative weight, ``W``
    the total), the weighted analogue of R's type 7, which it equals for equal weights
    (``(k-1)/(n-1)``)."""
    o = np.argsort(x, kind="stable")
    xs, ws = x[o], w[o]
    if xs.size == 1:
        return np.full(len(probs), xs[0])
    cw = np.cumsum(ws)
    denom = cw[-1] - ws[-1]
    pos = (cw - ws) / denom if denom > 0 else np.linspace(0.0, 1.0, xs.size)
    return np.interp(probs, pos, xs)


def _numeric_stats(v: np.ndarray, w: np.ndarray | None = None) -> dict[str, float]:
    if w is not None:
        return _weighted_numeric_stats(v, w)
    s = pd.Series(v)
    x = v[~np.isnan(v)]
    out = {
        "n": float(x.size),
        "mean": float(s.mean()) if x.size else np.nan,
        "sd": float(s.std()) if x.size > 1 else np.nan,
        "skewness": float(np.asarray(s.skew())) if x.size > 2 else np.nan,
        "kurtosis": float(np.asarray(s.kurt())) if x.size > 3 else np.nan,
    }
    q = np.quantile(x, np.array(PERCENTILES) / 100.0) if x.size else np.full(len(PERCENTILES), np.nan)
    for p, val in zip(PERCENTILES, q):
        out[f"p{p}"] = float(val)
    out["share_zero"] = float(np.mean(x == 0)) if x.size else np.nan
    out["share_missing"] = float(np.mean(np.isnan(v))) if v.size else np.nan
    return out


def _numeric_stats_of_counts(x: np.ndarray, c: np.ndarray, n_missing: int) -> dict[str, float]:
    """:func:`_numeric_stats` of the values that hold each of the sorted distinct non-missing
    ``x`` ``c`` times, plus ``n_missing`` missing ones, without building them.

    Percentiles (:func:`~synthguard.data.counts.quantiles_from_counts`), ``n`` and the shares
    are numpy's figures to the bit. The moments are count-weighted sums around the most
    frequent value ``r``: ``mean = r + Σ c (x - r) / n``, ``m_k = Σ c (x - mean)^k``, then
    pandas' estimators (``sd = sqrt(m_2 / (n - 1))``, skewness
    ``m_3 / m_2^{3/2} · n sqrt(n - 1) / (n - 2)``, excess kurtosis
    ``(n - 1) / ((n - 2)(n - 3)) · (n (n + 1) m_4 / m_2² - 3 (n - 1))``; NaN when ``m_2 = 0``):
    equal to pandas' sums over the records to floating-point rounding (a constant column
    gives ``m_2 = 0`` exactly, as pandas does)."""
    n = int(c.sum())
    out: dict[str, float] = {"n": float(n)}
    stats = dict.fromkeys(("mean", "sd", "skewness", "kurtosis"), np.nan)
    if n:
        ref = x[int(np.argmax(c))]
        mean = float(ref + np.sum(c * (x - ref)) / n)
        d = x - mean
        m2, m3, m4 = (np.float64(np.sum(c * d**k)) for k in (2, 3, 4))
        dn = np.float64(n)
        stats["mean"] = mean
        with np.errstate(invalid="ignore", divide="ignore"):
            if n > 1:
                stats["sd"] = float(np.sqrt(m2 / (dn - 1)))
            if n > 2:
                stats["skewness"] = float(m3 / (m2 * np.sqrt(m2)) * (dn * np.sqrt(dn - 1) / (dn - 2)))
            if n > 3:
                stats["kurtosis"] = float((dn - 1) / ((dn - 2) * (dn - 3))
                                          * (dn * (dn + 1) * (m4 / (m2 * m2)) - 3 * (dn - 1)))
    out.update(stats)
    q = (quantiles_from_counts(x, c, np.array(PERCENTILES) / 100.0) if n
         else np.full(len(PERCENTILES), np.nan))
    for p, val in zip(PERCENTILES, q):
        out[f"p{p}"] = float(val)
    out["share_zero"] = float(int(c[x == 0].sum()) / n) if n else np.nan
    total = n + n_missing
    out["share_missing"] = float(n_missing / total) if total else np.nan
    return out


def _weighted_numeric_stats(v: np.ndarray, w: np.ndarray) -> dict[str, float]:
    """As :func:`_numeric_stats` with case weights rescaled to sum to the number of values
    (frequency-weight moments with pandas' bias corrections, :func:`weighted_quantiles`,
    weighted shares); weights of 1 give the unweighted figures."""
    miss = np.isnan(v)
    x, wx = v[~miss], w[~miss]
    n = x.size
    out: dict[str, float] = {"n": float(n)}
    if n and wx.sum() > 0:
        f = wx * (n / wx.sum())
        mean = float(np.sum(f * x) / n)
        d = x - mean
        m2, m3, m4 = (float(np.sum(f * d**k) / n) for k in (2, 3, 4))
        out["mean"] = mean
        out["sd"] = float(np.sqrt(m2 * n / (n - 1))) if n > 1 else np.nan
        g1 = m3 / m2**1.5 if m2 > 0 else np.nan
        g2 = m4 / m2**2 - 3.0 if m2 > 0 else np.nan
        out["skewness"] = float(np.sqrt(n * (n - 1)) / (n - 2) * g1) if n > 2 else np.nan
        out["kurtosis"] = (float((n - 1) / ((n - 2) * (n - 3)) * ((n + 1) * g2 + 6.0))
                           if n > 3 else np.nan)
        q = weighted_quantiles(x, wx, np.array(PERCENTILES) / 100.0)
        out["share_zero"] = float(np.sum(wx * (x == 0)) / wx.sum())
    else:
        out.update(dict.fromkeys(("mean", "sd", "skewness", "kurtosis", "share_zero"), np.nan))
        q = np.full(len(PERCENTILES), np.nan)
    for p, val in zip(PERCENTILES, q):
        out[f"p{p}"] = float(val)
    out["share_missing"] = float(np.sum(w * miss) / w.sum()) if v.size and w.sum() > 0 else np.nan
    stat_order = ["n", "mean", "sd", "skewness", "kurtosis", *[f"p{p}" for p in PERCENTILES],
                  "share_zero", "share_missing"]
    return {k: out[k] for k in stat_order}


@dask_backend
@renamed(synth="synthetic")
def univariate(
    conf: Any,
    synthetic: Any,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    weights: str | None = None,
) -> UnivariateComparison:
    """Compare every variable's distribution in the release with the confidential data.

    Categorical, ordinal and binary columns: count and share of every level (missing values
    as a level). Numeric and count columns: number of non-missing values, mean, standard
    deviation, skewness and excess kurtosis (the bias-corrected sample estimators G1 and G2),
    percentiles 1, 5, 10, 25, 50, 75, 90, 95, 99 (linear interpolation), share of zeros among
    non-missing values and share missing. Synthetic figures are averaged over implicates.

    Parameters
    ----------
    conf, synthetic : confidential DataFrame and the release.
    schema : column kinds (default: inferred from ``conf``).
    columns : variables to compare (default: all shared columns but ``weights``).
    weights : sampling-weight column of the data. Shares, moments, percentiles and shares of
        zeros and missing values are then weighted, i.e. estimates for the population the
        weights stand for (an implicate with the column uses its own weights, one without
        counts every record once); ``n`` and the ``count_*`` columns stay record counts.
        The moments use the weights rescaled to sum to ``n`` with pandas' bias corrections,
        the percentiles :func:`weighted_quantiles`; weights of 1 give the unweighted table.

    Returns
    -------
    UnivariateComparison
    """
    if any_dask(conf, synthetic):  # from every column's exact value counts
        if weights is not None:
            raise ParameterError(
                "parameter 'weights': case weights are not supported on Dask data; leave "
                "them out or pass pandas frames"
            )
        from synthguard.utility._on_dask.measures import univariate_rows

        return _comparison(*univariate_rows(conf, synthetic, schema=schema, columns=columns))
    check_conf(conf)
    check_weights_column(conf, weights)
    if columns is None and weights is not None:
        columns = [c for c in conf.columns if c != weights]
    conf, imps, schema, cols = resolve(conf, synthetic, schema, columns)
    cw = case_weights(conf, weights, "confidential data")
    iws = [case_weights(df, weights, f"synthetic implicate {i}") for i, df in enumerate(imps)]
    num_rows: list[tuple[Any, ...]] = []
    cat_rows: list[tuple[Any, ...]] = []
    for c in cols:
        col = schema[c]
        if col.is_numeric:
            sc = _numeric_stats(numeric_values(conf[c], c), cw)
            num_rows += _numeric_rows(c, sc, [_numeric_stats(numeric_values(df[c], c), iw)
                                              for df, iw in zip(imps, iws, strict=True)])
        else:
            codes, nl, levels = category_codes([conf[c], *[df[c] for df in imps]], col.levels)
            counts = [np.bincount(k, minlength=nl) for k in codes]
            shares = [
                np.bincount(k, minlength=nl) / k.size if w is None
                else np.bincount(k, weights=w, minlength=nl) / w.sum()
                for k, w in zip(codes, [cw, *iws], strict=True)
            ]
            cat_rows += _level_rows(c, [*levels, "<missing>"], counts, shares)
    return _comparison(num_rows, cat_rows)


def univariate_of_counts(
    conf: Mapping[str, ValueCounts],
    synthetic: Sequence[Mapping[str, ValueCounts]],
    *,
    schema: Schema,
    columns: Sequence[str],
    levels: Mapping[str, Sequence[Any]] | None = None,
) -> UnivariateComparison:
    """:func:`univariate` (without weights) of data given by each column's value counts
    (:class:`~synthguard.data.counts.ValueCounts`: column -> counts, for the confidential
    data and for each implicate): the same tables from one entry per distinct value, never
    one per record, for data too big to hold (:mod:`synthguard.scale`).

    Counts, shares, percentiles and the shares of zeros and missing values are
    :func:`univariate`'s figures to the bit; means, standard deviations, skewness and
    kurtosis are count-weighted sums (:func:`_numeric_stats_of_counts`), equal to rounding.
    ``levels`` gives, for a categorical column whose schema lists no levels, its values in
    order of first appearance in the data then the implicates (what :func:`univariate` finds
    on the records; the counts do not keep the order of the records)."""
    return _comparison(*rows_of_counts(conf, synthetic, schema=schema, columns=columns,
                                       levels=levels))


def rows_of_counts(
    conf: Mapping[str, ValueCounts],
    synthetic: Sequence[Mapping[str, ValueCounts]],
    *,
    schema: Schema,
    columns: Sequence[str],
    levels: Mapping[str, Sequence[Any]] | None = None,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The numeric and categorical rows of :func:`univariate_of_counts` (the kernel of a
    column's counts; the Dask path assembles the rows of all columns once)."""
    num_rows: list[tuple[Any, ...]] = []
    cat_rows: list[tuple[Any, ...]] = []
    for c in columns:
        col = schema[c]
        frames = [conf[c], *[imp[c] for imp in synthetic]]
        if col.is_numeric:
            conf_s, *syn_s = (_numeric_stats_of_counts(*numeric_counts(vc, c)) for vc in frames)
            num_rows += _numeric_rows(c, conf_s, syn_s)
        else:
            lv = col.levels if col.levels is not None else (levels or {}).get(c)
            if lv is None:
                raise DataError(f"column '{c}': a categorical column without levels in the "
                                f"schema needs its levels in order of first appearance")
            counts, _ = level_counts(frames, lv)
            shares = [k / vc.n for k, vc in zip(counts, frames, strict=True)]
            cat_rows += _level_rows(c, [*lv, "<missing>"], counts, shares)
    return num_rows, cat_rows


def _numeric_rows(c: str, conf_stats: dict[str, float],
                  syn_stats: list[dict[str, float]]) -> list[tuple[Any, ...]]:
    """Rows (variable, statistic, confidential, synthetic mean over implicates)."""
    ss = pd.DataFrame(syn_stats).mean()
    return [(c, stat, val, float(ss[stat])) for stat, val in conf_stats.items()]


def _level_rows(c: str, labels: list[Any], counts: list[np.ndarray],
                shares: list[np.ndarray]) -> list[tuple[Any, ...]]:
    """Rows (variable, level, count_conf, share_conf, count_syn, share_syn) from each data
    set's count and share of every code (the data first); the missing level only when held."""
    nl = len(labels)
    cc = counts[0].astype(float)
    cs = np.mean(counts[1:], axis=0)
    share_c = shares[0]
    shs = np.mean(shares[1:], axis=0)
    rows = []
    for i, lab in enumerate(labels):
        if i == nl - 1 and cc[i] == 0 and cs[i] == 0:
            continue
        rows.append((c, str(lab), cc[i], share_c[i], cs[i], shs[i]))
    return rows


def _comparison(num_rows: list[tuple[Any, ...]],
                cat_rows: list[tuple[Any, ...]]) -> UnivariateComparison:
    numeric = pd.DataFrame(num_rows, columns=["variable", "statistic", "confidential", "synthetic"])
    numeric["difference"] = numeric["synthetic"] - numeric["confidential"]
    numeric = numeric.set_index(["variable", "statistic"])
    categorical = pd.DataFrame(
        cat_rows,
        columns=["variable", "level", "count_conf", "share_conf", "count_syn", "share_syn"],
    )
    categorical["difference"] = categorical["share_syn"] - categorical["share_conf"]
    categorical = categorical.set_index(["variable", "level"])
    msd = float(categorical["difference"].abs().max()) if len(categorical) else np.nan
    return UnivariateComparison(numeric, categorical, msd)
