"""Household composition tables: the head's sex and age group by household size, in the data
and the release, with the total variation distance between them (issue 33)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.utility._households import (
    Households,
    households,
    require,
    total_variation,
)
from synthguard.utility._inputs import numeric_values
from synthguard.utility._metric import MetricInfo

__all__ = ["HouseholdComposition", "household_composition"]

#: Age groups of the head: [0, 30), [30, 45), [45, 65), [65, inf).
AGE_BREAKS: tuple[float, ...] = (30.0, 45.0, 65.0)
#: Households of this size or more share one cell.
MAX_SIZE = 5


@dataclass(frozen=True)
class HouseholdComposition(Summarized):
    """Head's sex x head's age group x household size, data and release.

    Attributes
    ----------
    tv : total variation distance between the weighted shares of households in the cells.
    table : the shares (index: head's sex, head's age group, size group; columns ``data``,
        ``release``).
    """

    tv: float
    table: pd.DataFrame

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "tv": MetricInfo("tv", "minimize", 0.0, 1.0,
                         description="total variation of the composition table"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.table

    def summary(self) -> str:
        return (f"Household composition (head's sex x age group x size, "
                f"{len(self.table)} cells): TV {self.tv:.4f}")


def _age_group(a: np.ndarray, breaks: Sequence[float]) -> np.ndarray:
    edges = [-np.inf, *breaks, np.inf]
    labels = [f"<{breaks[0]:g}"] + [f"{lo:g}-{hi:g}" for lo, hi in itertools.pairwise(breaks)]
    labels.append(f"{breaks[-1]:g}+")
    idx = np.searchsorted(np.asarray(edges[1:-1]), a, side="right")
    out = np.asarray(labels, dtype=object)[idx]
    out[np.isnan(a)] = "missing"
    return out


def _cells(frame: pd.DataFrame, h: Households, sex: str, age: str,
           breaks: Sequence[float], max_size: int) -> np.ndarray:
    sx = frame[sex].reset_index(drop=True).to_numpy(dtype=object)[h.head]
    sx = np.asarray(["missing" if pd.isna(v) else str(v) for v in sx], dtype=object)
    ag = _age_group(numeric_values(frame[age], age)[h.head], breaks)
    sz = np.asarray([str(s) if s < max_size else f"{max_size}+" for s in h.size], dtype=object)
    return np.asarray(list(zip(sx, ag, sz, strict=True)), dtype=object).reshape(-1, 3)


def household_composition(
    conf: pd.DataFrame,
    release: pd.DataFrame,
    household: str,
    *,
    sex: str,
    age: str,
    weights: str | None = None,
    relationship: str | None = None,
    head_code: object = 1,
    age_breaks: Sequence[float] = AGE_BREAKS,
    max_size: int = MAX_SIZE,
) -> HouseholdComposition:
    """Compare the composition of households: the weighted share of households in each cell
    of head's sex x head's age group x household size (``max_size`` or more pooled).

    The head is the member whose ``relationship`` is ``head_code``, else the oldest member
    (:mod:`synthguard.utility._households`). Household weights as in
    :func:`~synthguard.utility.household_size.household_size`. TV = 1/2 sum_c |p_c - q_c|
    over the cells seen in either file.
    """
    breaks = [float(b) for b in age_breaks]
    if not breaks or any(b2 <= b1 for b1, b2 in itertools.pairwise(breaks)):
        raise ParameterError("parameter 'age_breaks': expected increasing ages, e.g. (30, 45, 65)")
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ParameterError("parameter 'max_size': expected a positive integer, e.g. 5")
    shares = []
    for frame, name in ((conf, "data"), (release, "release")):
        require(frame, [sex, age], name)
        h = households(frame, household, name=name, weights=weights,
                       relationship=relationship if relationship in frame.columns else None,
                       head_code=head_code, age=age)
        cells = _cells(frame, h, sex, age, breaks, max_size)
        keys = pd.MultiIndex.from_arrays([cells[:, 0], cells[:, 1], cells[:, 2]],
                                         names=["head_sex", "head_age", "size"])
        s = pd.Series(h.weight, index=keys, dtype=float).groupby(level=[0, 1, 2]).sum()
        shares.append(s / s.sum() if s.sum() > 0 else s)
    tv, table = total_variation(shares[0], shares[1])
    return HouseholdComposition(tv=tv, table=table.sort_index())

