"""Household size distribution of a release against the data's: the design-weighted share of
households of each size and the total variation distance between the two (issue 33)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from synthguard._display import Summarized
from synthguard.utility._households import households, total_variation, weighted_shares
from synthguard.utility._metric import MetricInfo

__all__ = ["HouseholdSize", "household_size"]


@dataclass(frozen=True)
class HouseholdSize(Summarized):
    """Household sizes in the data and the release.

    Attributes
    ----------
    tv : total variation distance 1/2 sum_s |p_s - q_s| between the weighted shares of
        households of size s in the data (p) and the release (q).
    mean_data, mean_release : weighted mean household size.
    table : shares by size (index: size; columns ``data``, ``release``).
    """

    tv: float
    mean_data: float
    mean_release: float
    table: pd.DataFrame

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "tv": MetricInfo("tv", "minimize", 0.0, 1.0,
                         description="total variation of the household-size distribution"),
    }

    def to_frame(self) -> pd.DataFrame:
        """Weighted share of households by size, data and release."""
        return self.table

    def summary(self) -> str:
        return (f"Household size: TV {self.tv:.4f}; mean size {self.mean_data:.3f} (data), "
                f"{self.mean_release:.3f} (release)")


def household_size(
    conf: pd.DataFrame, release: pd.DataFrame, household: str, *, weights: str | None = None,
) -> HouseholdSize:
    """Compare the household size distributions of ``conf`` and ``release``.

    The size of a household is its number of records. With ``weights`` (a household design
    weight, e.g. EU-SILC's ``DB090``; its value at the household's first listed member) the
    shares are p_s = sum_{h: size h = s} w_h / sum_h w_h (Horvitz-Thompson estimates of the
    population shares); a file without the weight column counts each household once. TV =
    1/2 sum_s |p_s - q_s| over every size seen in either file.
    """
    hd = households(conf, household, name="data", weights=weights)
    hr = households(release, household, name="release", weights=weights)
    p = weighted_shares(hd.size, hd.weight)
    q = weighted_shares(hr.size, hr.weight)
    tv, table = total_variation(p, q)
    table.index.name = "size"
    return HouseholdSize(
        tv=tv,
        mean_data=float((hd.size * hd.weight).sum() / hd.weight.sum()) if hd.n_households else 0.0,
        mean_release=(float((hr.size * hr.weight).sum() / hr.weight.sum())
                      if hr.n_households else 0.0),
        table=table.sort_index(),
    )
