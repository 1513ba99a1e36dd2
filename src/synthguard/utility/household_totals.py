"""Household totals of person variables (e.g. household income) in the data and the release:
weighted mean, median and the largest distance between their distribution functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._params import column_list
from synthguard.errors import ParameterError
from synthguard.utility._households import households, require, weighted_median
from synthguard.utility._inputs import numeric_values
from synthguard.utility._metric import MetricInfo

__all__ = ["HouseholdTotals", "household_total_values", "household_totals"]


@dataclass(frozen=True)
class HouseholdTotals(Summarized):
    """Household totals of person variables, data against release.

    Attributes
    ----------
    table : one row per variable: weighted mean and median of the household totals in the
        data and the release, the relative difference of the means and ``ks``.
    ks : the largest ``ks`` over the variables: sup_t |F(t) - G(t)| of the weighted
        distribution functions of the household totals.
    """

    table: pd.DataFrame
    ks: float

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "ks": MetricInfo("ks", "minimize", 0.0, 1.0,
                         description="largest KS distance of the household totals"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        return (f"Household totals of {', '.join(self.table.index)}: largest KS distance "
                f"{self.ks:.4f}")


def household_total_values(frame: pd.DataFrame, codes: np.ndarray, n_households: int,
                           column: str) -> np.ndarray:
    """Per household, the sum of ``column`` over its members (a missing value counts 0),
    rounded to 6 decimals so that the order of the members does not split equal totals."""
    v = np.nan_to_num(numeric_values(frame[column], column), nan=0.0)
    return np.round(np.bincount(codes, weights=v, minlength=n_households), 6)


def _weighted_ks(x: np.ndarray, wx: np.ndarray, y: np.ndarray, wy: np.ndarray) -> float:
    """sup_t |F(t) - G(t)| of two weighted empirical distribution functions."""
    if x.size == 0 or y.size == 0:
        return float("nan")
    grid = np.unique(np.concatenate([x, y]))

    def cdf(v: np.ndarray, w: np.ndarray) -> np.ndarray:
        order = np.argsort(v, kind="stable")
        cw = np.concatenate([[0.0], np.cumsum(w[order])]) / w.sum()
        return np.asarray(cw[np.searchsorted(v[order], grid, side="right")])

    return float(np.max(np.abs(cdf(x, wx) - cdf(y, wy))))


def household_totals(
    conf: pd.DataFrame,
    release: pd.DataFrame,
    household: str,
    columns: str | Sequence[str],
    *,
    weights: str | None = None,
) -> HouseholdTotals:
    """Compare household totals T_h = sum_{i in h} x_i of each person variable in
    ``columns`` (missing values count 0, as a person without income adds none).

    Weighted by the household weight w_h (its value at the first listed member): mean
    sum w_h T_h / sum w_h, the weighted median (laeken's ``weightedMedian``) and the KS
    distance sup_t |F(t) - G(t)| of the weighted distribution functions of T_h in the data
    and the release.
    """
    cols = column_list(columns, "columns")
    if not cols:
        raise ParameterError("parameter 'columns': name at least one person variable to total")
    out = {}
    hs = []
    for frame, name in ((conf, "data"), (release, "release")):
        require(frame, cols, name)
        hs.append(households(frame, household, name=name, weights=weights))
    for c in cols:
        td = household_total_values(conf, hs[0].codes, hs[0].n_households, c)
        tr = household_total_values(release, hs[1].codes, hs[1].n_households, c)
        md = float(np.average(td, weights=hs[0].weight)) if td.size else float("nan")
        mr = float(np.average(tr, weights=hs[1].weight)) if tr.size else float("nan")
        out[c] = {
            "mean_data": md, "mean_release": mr,
            "mean_rel_diff": (mr - md) / abs(md) if md else float("nan"),
            "median_data": weighted_median(td, hs[0].weight) if td.size else float("nan"),
            "median_release": weighted_median(tr, hs[1].weight) if tr.size else float("nan"),
            "ks": _weighted_ks(td, hs[0].weight, tr, hs[1].weight),
        }
    table = pd.DataFrame.from_dict(out, orient="index")
    table.index.name = "variable"
    return HouseholdTotals(table=table, ks=float(table["ks"].max()))
