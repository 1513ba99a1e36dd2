"""Household-level utility of a release: size distribution, composition, within-household
associations, household totals and the at-risk-of-poverty rate, each compared between the
data and the release with design weights where given (issue 33)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from synthguard._display import Summarized
from synthguard._params import column_list
from synthguard.errors import ParameterError
from synthguard.utility.household_associations import (
    HouseholdAssociations,
    household_associations,
)
from synthguard.utility.household_composition import HouseholdComposition, household_composition
from synthguard.utility.household_size import HouseholdSize, household_size
from synthguard.utility.household_totals import HouseholdTotals, household_totals
from synthguard.utility.poverty import PovertyComparison, compare_poverty

__all__ = ["HouseholdUtility", "household_utility"]


@dataclass(frozen=True)
class HouseholdUtility(Summarized):
    """The household-level utility measures of one release; a measure whose columns were not
    named (or that failed) is None and its reason is in ``notes``.

    Attributes
    ----------
    size : :class:`~synthguard.utility.household_size.HouseholdSize`.
    composition : :class:`~synthguard.utility.household_composition.HouseholdComposition`
        (needs ``sex`` and ``age``).
    associations : :class:`~synthguard.utility.household_associations.HouseholdAssociations`
        (needs ``age``; the partners' correlation needs ``relationship``).
    totals : :class:`~synthguard.utility.household_totals.HouseholdTotals` (needs ``totals``).
    poverty : :class:`~synthguard.utility.poverty.PovertyComparison` (needs ``income`` and
        ``age``).
    """

    household: str
    size: HouseholdSize | None
    composition: HouseholdComposition | None
    associations: HouseholdAssociations | None
    totals: HouseholdTotals | None
    poverty: PovertyComparison | None
    notes: tuple[str, ...] = field(default=())

    def to_frame(self) -> pd.DataFrame:
        """The headline numbers: one row per measure."""
        rows = {
            "household size TV": getattr(self.size, "tv", None),
            "composition TV": getattr(self.composition, "tv", None),
            "partners' age corr. diff": getattr(self.associations, "partner_corr_diff", None),
            "head's age x children corr. diff": getattr(self.associations,
                                                        "children_corr_diff", None),
            "household totals KS": getattr(self.totals, "ks", None),
            "poverty rate diff": getattr(self.poverty, "diff", None),
        }
        return pd.DataFrame({"value": pd.Series(rows, dtype=float)})

    def summary(self) -> str:
        parts = [f"Household utility (households: '{self.household}')"]
        for r in (self.size, self.composition, self.associations, self.totals, self.poverty):
            if r is not None:
                parts.append("  " + r.summary())
        parts.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(parts)


def household_utility(
    conf: pd.DataFrame,
    release: pd.DataFrame,
    household: str,
    *,
    weights: str | None = None,
    relationship: str | None = None,
    age: str | None = None,
    sex: str | None = None,
    income: str | Sequence[str] | None = None,
    totals: str | Sequence[str] | None = None,
    head_code: object = 1,
    partner_code: object = 2,
    child_code: object = 3,
) -> HouseholdUtility:
    """Every household-level utility measure whose columns are named.

    Parameters
    ----------
    conf, release : person files (one release implicate).
    household : the household-id column of both.
    weights : design weight column (household weight for household-level figures, person
        weight for the poverty rate); a release without it is unweighted.
    relationship : relationship-to-head column (``head_code``, ``partner_code``,
        ``child_code``; sdcMicro testdata's ``relat``: 1, 2, 3); without one the head is the
        oldest member and children are members under 18.
    age, sex : person columns for the composition, associations and poverty rate.
    income : person income column(s) for the poverty rate (summed per person).
    totals : person variables whose household totals are compared (default: ``income``).
    """
    if not isinstance(household, str):
        raise ParameterError("parameter 'household': expected the name of the household-id column")
    income_l = column_list(income, "income")
    totals_l = column_list(totals, "totals") or income_l
    notes: list[str] = []
    size = household_size(conf, release, household, weights=weights)
    composition = associations = tot = poverty = None
    if sex is not None and age is not None:
        composition = household_composition(conf, release, household, sex=sex, age=age,
                                            weights=weights, relationship=relationship,
                                            head_code=head_code)
    else:
        notes.append("composition: not computed: name the sex and age columns")
    if age is not None:
        associations = household_associations(
            conf, release, household, age=age, weights=weights, relationship=relationship,
            head_code=head_code, partner_code=partner_code, child_code=child_code)
        if relationship is None:
            notes.append("partners' age correlation: not computed: it needs a relationship "
                         "column (relationship=)")
    else:
        notes.append("associations: not computed: name the age column")
    if totals_l:
        tot = household_totals(conf, release, household, totals_l, weights=weights)
    else:
        notes.append("household totals: not computed: name the person variables (totals=, "
                     "income=)")
    if income_l and age is not None:
        poverty = compare_poverty(conf, release, household, income_l, age, weights=weights)
    else:
        notes.append("at-risk-of-poverty rate: not computed: name the income and age columns")
    return HouseholdUtility(household=household, size=size, composition=composition,
                            associations=associations, totals=tot, poverty=poverty,
                            notes=tuple(notes))


