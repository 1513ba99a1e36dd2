"""Associations within households: the partners' age correlation and the head's age against
the number of children, in the data and the release (issue 33)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.utility._households import (
    Households,
    first_where,
    households,
    require,
    weighted_corr,
)
from synthguard.utility._inputs import numeric_values
from synthguard.utility._metric import MetricInfo

__all__ = ["HouseholdAssociations", "household_associations"]


@dataclass(frozen=True)
class HouseholdAssociations(Summarized):
    """Within-household associations in the data and the release.

    Attributes
    ----------
    partner_corr_data, partner_corr_release : weighted Pearson correlation of the head's age
        and the partner's age over households with both (NaN without a relationship column).
    partner_corr_diff : |data - release|.
    children_corr_data, children_corr_release : weighted correlation of the head's age and
        the household's number of children.
    children_corr_diff : |data - release|.
    mean_children_data, mean_children_release : weighted mean number of children.
    """

    partner_corr_data: float
    partner_corr_release: float
    partner_corr_diff: float
    children_corr_data: float
    children_corr_release: float
    children_corr_diff: float
    mean_children_data: float
    mean_children_release: float
    children_rule: str

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "partner_corr_diff": MetricInfo(
            "partner_corr_diff", "minimize", 0.0, 2.0,
            description="absolute difference of the partners' age correlation"),
        "children_corr_diff": MetricInfo(
            "children_corr_diff", "minimize", 0.0, 2.0,
            description="absolute difference of the head's age / children correlation"),
    }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"data": [self.partner_corr_data, self.children_corr_data, self.mean_children_data],
             "release": [self.partner_corr_release, self.children_corr_release,
                         self.mean_children_release]},
            index=pd.Index(["partners' age correlation", "head's age x children correlation",
                            "mean children"], name="measure"))

    def summary(self) -> str:
        return (f"Within households: partners' age correlation {self.partner_corr_data:.3f} "
                f"(data), {self.partner_corr_release:.3f} (release); head's age x children "
                f"{self.children_corr_data:.3f}, {self.children_corr_release:.3f} "
                f"(children: {self.children_rule})")


def _one(frame: pd.DataFrame, name: str, household: str, age: str, weights: str | None,
         relationship: str | None, head_code: object, partner_code: object,
         child_code: object, child_age: float) -> tuple[float, float, float]:
    rel = relationship if relationship is not None and relationship in frame.columns else None
    h: Households = households(frame, household, name=name, weights=weights,
                               relationship=rel, head_code=head_code, age=age)
    a = numeric_values(frame[age], age)
    n = a.shape[0]
    head_age = a[h.head]
    partner_corr = float("nan")
    if rel is not None:
        r = frame[rel].reset_index(drop=True)
        partner = first_where((r == partner_code).to_numpy(dtype=bool, na_value=False),
                               h.codes, h.n_households)
        has = partner < n
        partner_corr = weighted_corr(head_age[has], a[partner[has]], h.weight[has])
        is_child = (r == child_code).to_numpy(dtype=bool, na_value=False).copy()
    else:
        is_child = np.nan_to_num(a, nan=np.inf) < child_age
    is_child[h.head] = False
    children = np.bincount(h.codes[is_child], minlength=h.n_households).astype(float)
    children_corr = weighted_corr(head_age, children, h.weight)
    mean_children = (float(np.average(children, weights=h.weight)) if h.n_households
                     else float("nan"))
    return partner_corr, children_corr, mean_children


def household_associations(
    conf: pd.DataFrame,
    release: pd.DataFrame,
    household: str,
    *,
    age: str,
    weights: str | None = None,
    relationship: str | None = None,
    head_code: object = 1,
    partner_code: object = 2,
    child_code: object = 3,
    child_age: float = 18,
) -> HouseholdAssociations:
    """Compare within-household associations of ``conf`` and ``release``.

    * Partners' age correlation: over households with a head and a partner (the first member
      whose ``relationship`` is ``partner_code``), the weighted Pearson correlation
      r = sum w (x - xbar)(y - ybar) / sqrt(sum w (x - xbar)^2 sum w (y - ybar)^2) of the
      head's age x and the partner's age y, w the household weight. It needs a relationship
      column (NaN without one: partners cannot be told from other adults).
    * Head's age against the number of children: the weighted correlation of the head's age
      and the number of the head's children in the household -- members whose
      ``relationship`` is ``child_code``; without a relationship column, members other than
      the head younger than ``child_age``.

    The head is the member whose ``relationship`` is ``head_code``, else the oldest member
    (:mod:`synthguard.utility._households`). Default codes are sdcMicro testdata's ``relat``
    (1 head, 2 spouse, 3 child).
    """
    res = []
    for frame, name in ((conf, "data"), (release, "release")):
        require(frame, [age], name)
        res.append(_one(frame, name, household, age, weights, relationship, head_code,
                        partner_code, child_code, child_age))
    (pd_, cd, md), (pr, cr, mr) = res
    rule = (f"members whose {relationship} is {child_code}" if relationship is not None
            else f"members other than the head aged under {child_age:g}")
    return HouseholdAssociations(
        partner_corr_data=pd_, partner_corr_release=pr, partner_corr_diff=abs(pd_ - pr),
        children_corr_data=cd, children_corr_release=cr, children_corr_diff=abs(cd - cr),
        mean_children_data=md, mean_children_release=mr, children_rule=rule,
    )
