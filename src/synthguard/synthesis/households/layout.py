"""The layout of a household–person file: which columns belong to the household, which to
the person, the household size, and the order of the members.

A column is **household-level** when it is constant within every household (region, dwelling,
household weight, household size), detected from the data or declared
(``household_columns=``); a declared one that varies within a household is refused. The
**size** is the data's household-size column when one equals the number of members in every
household (EU-SILC's ``hsize``), else a derived count that is synthesized but not released.

Members are drawn in order: by the ``member_order`` column ascending when given or detected
(a relationship-to-head code such as sdcMicro testdata's ``relat``: 1 head, 2 partner, 3
child, ...), else by ``age`` descending when there is such a column, else as listed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.errors import DataError, ParameterError

__all__ = ["POSITION", "SIZE", "HouseholdLayout", "household_table", "resolve_layout"]

#: Derived columns (never released unless the data hold a size column).
SIZE = "_sg_size_"
POSITION = "_sg_position_"

_RELATIONSHIP = re.compile(r"^(relat|relation|relationship|rel_?head|relhead|rb200|relate)$",
                           re.IGNORECASE)


@dataclass(frozen=True)
class HouseholdLayout:
    """Roles of the columns of a household–person file.

    Attributes
    ----------
    id : the household id column.
    household_columns : constant within every household (data order).
    person_columns : the others (data order, the id excluded).
    size : the household-size column (the data's, or :data:`SIZE`).
    size_released : whether ``size`` is a column of the data.
    order : column sorting the members (None: as listed), and ``descending``.
    """

    id: str
    household_columns: tuple[str, ...]
    person_columns: tuple[str, ...]
    size: str
    size_released: bool
    order: str | None
    descending: bool

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "household_columns": list(self.household_columns),
                "size": self.size if self.size_released else None,
                "member_order": self.order, "descending": self.descending}


def _codes(data: pd.DataFrame, household: str) -> np.ndarray:
    return pd.factorize(data[household], sort=False)[0]


def constant_within(data: pd.DataFrame, household: str, columns: Sequence[str]) -> list[str]:
    """The columns of ``columns`` whose value (missing counted as a value) is the same for
    all members of every household."""
    g = data[[household, *columns]].groupby(household, sort=False, dropna=False)
    n = g.nunique(dropna=False)
    return [c for c in columns if bool((n[c] <= 1).all())]


def resolve_layout(
    data: pd.DataFrame,
    household: str,
    household_columns: Sequence[str] | None = None,
    member_order: str | None = None,
) -> HouseholdLayout:
    """Resolve the layout of ``data`` (see the module docstring).

    Raises
    ------
    ParameterError
        The id, a declared column or ``member_order`` not in the data; ``member_order``
        household-level.
    DataError
        A missing household id; a declared household-level column that varies within a
        household.
    """
    if not isinstance(household, str) or household not in data.columns:
        raise ParameterError(f"parameter 'household': column '{household}' is not in the data; "
                             f"name the household id column")
    if data[household].isna().any():
        raise DataError(f"column '{household}' (the household id) has missing values; give "
                        f"every person a household")
    others = [c for c in data.columns if c != household]
    if household_columns is None:
        hh = constant_within(data, household, others)
    else:
        declared = [household_columns] if isinstance(household_columns, str) else list(
            household_columns)
        unknown = [c for c in declared if c not in others]
        if unknown:
            raise ParameterError(f"parameter 'household_columns' names columns that are not in "
                                 f"the data (or the id): {', '.join(map(str, unknown))}")
        varying = [c for c in declared if c not in constant_within(data, household, declared)]
        if varying:
            raise DataError(
                f"parameter 'household_columns': {', '.join(varying)} vary within households; "
                f"declare only columns with one value per household, or leave "
                f"household_columns out to detect them")
        hh = [c for c in others if c in set(declared)]
    persons = [c for c in others if c not in set(hh)]
    if not persons:
        raise DataError("household synthesis: no column varies within a household; there are "
                        "no person-level columns to synthesize")
    codes = _codes(data, household)
    sizes = np.bincount(codes)[codes]
    size, released = SIZE, False
    for c in hh:
        v = pd.to_numeric(data[c], errors="coerce").to_numpy(dtype=float)
        if np.array_equal(v, sizes.astype(float)):
            size, released = c, True
            break
    order, descending = member_order, False
    if order is not None:
        if order not in persons:
            raise ParameterError(f"parameter 'member_order': '{order}' is not a person-level "
                                 f"column of the data; name the relationship-to-head column")
    else:
        order = next((c for c in persons if _RELATIONSHIP.match(str(c))), None)
        if order is None and "age" in persons and pd.api.types.is_numeric_dtype(data["age"]):
            order, descending = "age", True
    return HouseholdLayout(household, tuple(hh), tuple(persons), size, released, order,
                           descending)


def ordered(data: pd.DataFrame, layout: HouseholdLayout) -> pd.DataFrame:
    """``data`` with members sorted within their household (households in order of first
    appearance, stable), with :data:`POSITION` (1 = head) and, when not in the data,
    :data:`SIZE`."""
    out = data.copy(deep=False)
    codes = _codes(data, layout.id)
    if layout.order is not None:
        v = pd.to_numeric(data[layout.order], errors="coerce").to_numpy(dtype=float)
        if np.isnan(v).all():  # a text relationship: its levels in order of first appearance
            v = pd.factorize(data[layout.order], sort=False)[0].astype(float)
        idx = np.lexsort((-v if layout.descending else v, codes))  # stable; codes first
    else:
        idx = np.argsort(codes, kind="stable")
    out = out.iloc[idx]
    c = codes[idx]
    first = np.r_[True, c[1:] != c[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(c)), 0))
    out[POSITION] = np.arange(len(c)) - start + 1
    if not layout.size_released:
        out[SIZE] = np.bincount(c)[c]
    return out


def household_table(members: pd.DataFrame, layout: HouseholdLayout) -> pd.DataFrame:
    """One row per household (the heads' rows of ``members`` from :func:`ordered`): the size
    first, then the household-level columns."""
    heads = members[members[POSITION] == 1]
    cols = [layout.size] + [c for c in layout.household_columns if c != layout.size]
    return heads[cols].reset_index(drop=True)
