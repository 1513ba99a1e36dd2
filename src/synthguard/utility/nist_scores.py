"""The NIST PSCR Differential Privacy Synthetic Data Challenge's utility scores (2018–2019).

The Urban Institute course (§8.5.4; Bowen & Snoke 2021) describes three scores, each larger
when the release preserves the data better. The "clustering" score is the 3-way marginal
comparison (:func:`synthguard.utility.kway_marginal_score`). This module holds the other two:

**Regression score** (the gender wage gap by city), the mean of two parts:

* the Gini index of income in every city of the data, in data and release::

      G = Σ_i w_i x_(i) (2 S_i − w_i) / (W Σ_i w_i x_(i)) − 1

  (x sorted, S_i the cumulative weight up to i, W the total; with unit weights
  G = 2 Σ i x_(i) / (n Σ x) − (n + 1)/n), and their mean squared deviation over the data's
  cities, ``gini_msd = mean_c (G_c − G'_c)²``;
* every city's gender pay gap ``1 − mean(income | women) / mean(income | men)``, the cities
  ranked by it in data and release, and the mean squared deviation of the ranks as shares of
  the number of cities, ``rank_msd = mean_c ((r_c − r'_c) / C)²``.

  ``score = 1 − (gini_msd + rank_msd) / 2``; a city the release lacks counts as the largest
  deviation (G' = 0, ranked last).

**Classification score** ("similarity in randomly selected subsets of the joint
distribution"): ``n_queries`` random conjunctions, each over ``k`` random columns with a
random condition per column (a random half of a categorical column's levels, or an interval
between two random quantiles of a numeric column). With p and p' the shares of data and
release records meeting a conjunction, ``score = 1 − mean |p − p'|``.

The challenge's own scorer is not public; these are the course's descriptions made exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import check_random_state
from synthguard.data import as_implicates, infer_schema
from synthguard.errors import DataError, ParameterError
from synthguard.utility._inputs import check_conf
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["NISTClassificationScore", "NISTRegressionScore", "gini_index",
           "nist_classification_score", "nist_regression_score"]


def gini_index(values: Any, weights: Any = None) -> float:
    """The Gini index of non-negative ``values`` (optionally weighted); NaN when empty or all 0.

    Examples
    --------
    >>> gini_index([1, 1, 1, 1])
    0.0
    >>> round(gini_index([0, 0, 0, 1]), 4)
    0.75
    """
    x = np.asarray(values, dtype=np.float64)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(w))
    x, w = x[keep], w[keep]
    if x.size == 0 or (x < 0).any() or (w < 0).any():
        if (x < 0).any():
            raise DataError("gini_index: income must be non-negative")
        return float("nan")
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    total_w, total = w.sum(), float((w * x).sum())
    if total_w <= 0 or total <= 0:
        return float("nan")
    s = np.cumsum(w)
    return float((w * x * (2 * s - w)).sum() / (total_w * total) - 1.0)


@dataclass(frozen=True)
class NISTRegressionScore(ResultDisplay, Summarized):
    """The challenge's regression score (module docstring), averaged over implicates.

    Attributes
    ----------
    score : ``1 − (gini_msd + rank_msd) / 2``, in [0, 1], higher is better.
    gini_msd : mean squared deviation of the cities' Gini indices.
    rank_msd : mean squared deviation of the cities' pay-gap ranks, as shares of the cities.
    cities : per city of the data: its Gini index and pay-gap rank in data and release
        (first implicate).
    """

    score: float
    gini_msd: float
    rank_msd: float
    cities: pd.DataFrame

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "score": MetricInfo("score", "maximize", 0.0, 1.0,
                            description="NIST regression score (Gini and pay-gap ranks)"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.cities.copy()

    def summary(self) -> str:
        return (f"NIST regression score {self.score:.4f} over {len(self.cities)} cities "
                f"(Gini MSD {self.gini_msd:.4g}, pay-gap rank MSD {self.rank_msd:.4g}; "
                "higher is better)")


def _city_table(df: pd.DataFrame, city: str, income: str, sex: str, female: Any,
                cities: list[Any], weights: str | None) -> tuple[np.ndarray, np.ndarray]:
    gini = np.zeros(len(cities))
    gap = np.full(len(cities), np.inf)  # a city without both sexes ranks last
    groups = df.groupby(city, observed=True, sort=False)
    index = {c: i for i, c in enumerate(cities)}
    for c, g in groups:
        i = index.get(c)
        if i is None:
            continue
        x = g[income].to_numpy(dtype=np.float64)
        w = None if weights is None else g[weights].to_numpy(dtype=np.float64)
        gi = gini_index(x, w)
        gini[i] = 0.0 if np.isnan(gi) else gi
        is_f = (g[sex] == female).to_numpy()
        ww = np.ones_like(x) if w is None else w
        if is_f.any() and (~is_f).any():
            men = np.average(x[~is_f], weights=ww[~is_f])
            women = np.average(x[is_f], weights=ww[is_f])
            if men > 0:
                gap[i] = 1.0 - women / men
    return gini, gap


def nist_regression_score(
    conf: pd.DataFrame,
    release: Any,
    *,
    city: str,
    income: str,
    sex: str,
    female: Any,
    weights: str | None = None,
) -> NISTRegressionScore:
    """The NIST challenge's regression score: Gini of income and the gender pay gap's rank,
    city by city (module docstring).

    Parameters
    ----------
    conf, release : the data and the release (a frame, implicates or a release object).
    city, income, sex : the columns; ``female`` the value of ``sex`` that marks women.
    weights : an optional weight column present in both.
    """
    conf = check_conf(conf)
    imps = as_implicates(release)
    for name, col in (("city", city), ("income", income), ("sex", sex)):
        for df in (conf, *imps):
            if col not in df.columns:
                raise DataError(f"nist_regression_score: column '{col}' (parameter '{name}') "
                                "is missing from the data or the release")
    if not pd.api.types.is_numeric_dtype(conf[income]):
        raise DataError(f"nist_regression_score: column '{income}' must be numeric (income)")
    cities = list(pd.unique(conf[city].dropna()))
    if len(cities) < 2:
        raise DataError(f"nist_regression_score: column '{city}' needs at least two cities")
    n = len(cities)
    g0, gap0 = _city_table(conf, city, income, sex, female, cities, weights)
    r0 = pd.Series(gap0).rank(method="first").to_numpy()
    ginis, ranks, first = [], [], None
    for df in imps:
        g1, gap1 = _city_table(df, city, income, sex, female, cities, weights)
        r1 = pd.Series(gap1).rank(method="first").to_numpy()
        ginis.append(float(np.mean((g0 - g1) ** 2)))
        ranks.append(float(np.mean(((r0 - r1) / n) ** 2)))
        if first is None:
            first = (g1, r1)
    assert first is not None
    gini_msd, rank_msd = float(np.mean(ginis)), float(np.mean(ranks))
    table = pd.DataFrame({"city": cities, "gini_conf": g0, "gini_release": first[0],
                          "gap_rank_conf": r0, "gap_rank_release": first[1]})
    return NISTRegressionScore(score=1.0 - (gini_msd + rank_msd) / 2.0, gini_msd=gini_msd,
                               rank_msd=rank_msd, cities=table)


@dataclass(frozen=True)
class NISTClassificationScore(ResultDisplay, Summarized):
    """The challenge's classification score (module docstring), averaged over implicates.

    Attributes
    ----------
    score : ``1 − mean |p − p'|`` over the queries, in [0, 1], higher is better.
    queries : per query: its columns and the shares in data and release (first implicate).
    """

    score: float
    queries: pd.DataFrame

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "score": MetricInfo("score", "maximize", 0.0, 1.0,
                            description="NIST classification score (random conjunctions)"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.queries.copy()

    def summary(self) -> str:
        return (f"NIST classification score {self.score:.4f} over {len(self.queries)} random "
                "conjunctions (higher is better)")


def nist_classification_score(
    conf: pd.DataFrame,
    release: Any,
    *,
    columns: Sequence[str] | None = None,
    n_queries: int = 300,
    k: int = 3,
    random_state: Any = None,
) -> NISTClassificationScore:
    """The NIST challenge's classification score: shares of random conjunctions of conditions
    in data and release (module docstring). The conditions are drawn from the data's columns
    (levels, quantiles) with ``random_state``; the same queries are asked of every implicate.
    """
    conf = check_conf(conf)
    imps = as_implicates(release)
    cols = list(conf.columns) if columns is None else list(columns)
    missing = [c for c in cols if c not in conf.columns or any(c not in d for d in imps)]
    if missing:
        raise DataError(f"nist_classification_score: column '{missing[0]}' is missing from the "
                        "data or the release")
    if not 1 <= int(k) <= len(cols):
        raise ParameterError(f"parameter 'k': expected 1 to {len(cols)} columns per query")
    if int(n_queries) < 1:
        raise ParameterError("parameter 'n_queries': expected at least 1")
    rng = check_random_state(random_state)
    schema = infer_schema(conf[cols])
    queries: list[list[tuple[str, Any]]] = []
    for _ in range(int(n_queries)):
        chosen = rng.choice(len(cols), size=int(k), replace=False)
        conds: list[tuple[str, Any]] = []
        for j in sorted(chosen):
            c = cols[j]
            if schema[c].is_categorical:
                levels = pd.unique(conf[c].dropna())
                take = max(1, len(levels) // 2)
                conds.append((c, ("in", set(rng.choice(levels, size=take, replace=False)))))
            else:
                lo, hi = np.sort(rng.uniform(0, 1, 2))
                q = conf[c].quantile([lo, hi]).to_numpy(dtype=np.float64)
                conds.append((c, ("between", (q[0], q[1]))))
        queries.append(conds)

    def shares(df: pd.DataFrame) -> np.ndarray:
        out = np.empty(len(queries))
        for i, conds in enumerate(queries):
            mask = np.ones(len(df), dtype=bool)
            for c, (kind, arg) in conds:
                if kind == "in":
                    mask &= df[c].isin(arg).to_numpy()
                else:
                    v = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64)
                    mask &= (v >= arg[0]) & (v <= arg[1])
            out[i] = mask.mean() if len(df) else 0.0
        return out

    p0 = shares(conf)
    diffs, first = [], None
    for df in imps:
        p1 = shares(df)
        diffs.append(float(np.abs(p0 - p1).mean()))
        if first is None:
            first = p1
    table = pd.DataFrame({"columns": [" x ".join(c for c, _ in q) for q in queries],
                          "share_conf": p0, "share_release": first})
    return NISTClassificationScore(score=1.0 - float(np.mean(diffs)), queries=table)
