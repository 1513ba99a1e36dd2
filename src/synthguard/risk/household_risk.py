"""Household (hierarchical) re-identification risk from the individual risks of the members,
as sdcMicro's ``measure_risk(..., hid=)`` computes it (its ``hier_risk``; Templ, Kowarik &
Meindl 2015, section 4.2; the mu-Argus manual's household risk)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import DataError, ParameterError

__all__ = ["HierRisk", "HouseholdRisk", "hier_risk", "household_ids", "household_risk"]


@dataclass(frozen=True, eq=False)
class HouseholdRisk(Summarized):
    """Risk that a household is re-identified through at least one of its members.

    Attributes
    ----------
    household : the household-id column.
    risk : every record's household risk, 1 - prod over its household's members (1 - r_i)
        (sdcMicro's ``hier_risk`` column of ``Res``).
    expected_reidentifications : the sum of ``risk`` over the **records** (sdcMicro's
        ``hier_risk_ER``: each household counts once per member).
    global_risk : ``expected_reidentifications`` / number of records (sdcMicro's
        ``hier_risk``).
    n_households : number of households.
    """

    household: str
    risk: np.ndarray
    expected_reidentifications: float
    global_risk: float
    n_households: int
    codes: np.ndarray = field(repr=False)
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0), repr=False)

    goal = "minimize"

    @property
    def global_risk_pct(self) -> float:
        """``global_risk`` in percent (sdcMicro's ``hier_risk_pct``)."""
        return 100.0 * self.global_risk

    @property
    def n(self) -> int:
        return int(self.risk.shape[0])

    def household_frame(self) -> pd.DataFrame:
        """One row per household (in order of first appearance): its size and its risk."""
        first = np.unique(self.codes, return_index=True)[1]
        size = np.bincount(self.codes)
        return pd.DataFrame({"size": size, "risk": self.risk[first]},
                            index=pd.RangeIndex(self.n_households, name="household"))

    def to_frame(self) -> pd.DataFrame:
        """One row per record in the data's order: ``hier_risk``."""
        return pd.DataFrame({"hier_risk": self.risk}, index=self.index)

    def summary(self) -> str:
        return "\n".join([
            f"Household risk ({self.n_households} households of '{self.household}', "
            f"{self.n} records)",
            f"  expected re-identifications (hier_risk_ER): "
            f"{self.expected_reidentifications:.2f} ({self.global_risk_pct:.2f}%)",
            f"  highest household risk: {float(self.risk.max()) if self.n else 0.0:.4f}",
        ])

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def household_ids(data: pd.DataFrame, household: str, *, name: str = "data") -> np.ndarray:
    """Codes 0..H-1 of the households of ``data`` (in order of first appearance).

    Raises DataError when the column is absent or has missing values (a person outside any
    household cannot be placed)."""
    if household not in data.columns:
        raise DataError(f"{name}: household-id column '{household}' not found; name the "
                        f"column that identifies each record's household")
    col = data[household]
    if col.isna().any():
        raise DataError(f"{name}: household-id column '{household}' has missing values; give "
                        f"every record a household id")
    return np.asarray(pd.factorize(col.reset_index(drop=True))[0], dtype=np.int64)


def household_risk(
    risk: np.ndarray, codes: np.ndarray, *, household: str = "household",
    index: pd.Index | None = None,
) -> HouseholdRisk:
    """Household risk of every record from the individual risks ``risk`` of the records and
    their household ``codes`` (0..H-1).

    For household h with members i, the risk that at least one member is re-identified,
    the members' re-identifications taken as independent events, is

        r_h = 1 - prod_{i in h} (1 - r_i)

    (sdcMicro's ``measure_risk``, ``fast_hier = TRUE``: ``1 - prod(1 - x)`` by household;
    its C++ ``measure_hierachical`` gives the same value by Boole's inclusion-exclusion
    formula). Every record carries its household's r_h; the global figures sum over records:

        hier_risk_ER = sum_i r_{h(i)},   hier_risk = hier_risk_ER / n,
        hier_risk_pct = 100 * hier_risk.

    The product runs over the members in the data's order, as R's ``prod`` does.
    """
    r = np.asarray(risk, dtype=np.float64)
    c = np.asarray(codes, dtype=np.int64)
    n = r.shape[0]
    n_h = int(c.max()) + 1 if n else 0
    if n:
        order = np.argsort(c, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(c[order]) != 0])
        hh = 1.0 - np.multiply.reduceat(1.0 - r[order], starts)
        per_record = hh[c]
    else:
        per_record = np.zeros(0)
    er = float(per_record.sum())
    return HouseholdRisk(
        household=household, risk=per_record, expected_reidentifications=er,
        global_risk=er / n if n else 0.0, n_households=n_h, codes=c,
        index=index if index is not None else pd.RangeIndex(n),
    )


@dataclass(frozen=True)
class HierRisk(Summarized):
    """sdcMicro's global household risk figures (:func:`hier_risk`): no per-record array, so
    a Dask frame's figures need nothing per record on the client.

    Attributes
    ----------
    household, keys : the household-id column and the key variables.
    n, n_households : records and households.
    expected_reidentifications : ``hier_risk_ER``, the sum over records of their household's
        risk.
    global_risk : ``hier_risk`` = expected_reidentifications / n.
    highest : the highest household risk.
    weighted : whether sampling weights were used.
    """

    household: str
    keys: tuple[str, ...]
    n: int
    n_households: int
    expected_reidentifications: float
    global_risk: float
    highest: float
    weighted: bool

    goal = "minimize"

    @property
    def global_risk_pct(self) -> float:
        """``global_risk`` in percent (sdcMicro's ``hier_risk_pct``)."""
        return 100.0 * self.global_risk

    def summary(self) -> str:
        return "\n".join([
            f"Household risk on keys {', '.join(self.keys)} ({self.n_households} households "
            f"of '{self.household}', {self.n} records)",
            f"  expected re-identifications (hier_risk_ER): "
            f"{self.expected_reidentifications:.2f} ({self.global_risk_pct:.2f}%)",
            f"  highest household risk: {self.highest:.4f}",
        ])


@dask_backend
def hier_risk(data: Any, keys: Sequence[str], household: str, *,
              weights: str | None = None) -> HierRisk:
    """sdcMicro's household risk figures (``measure_risk(..., hid=)``'s ``hier_risk``,
    ``hier_risk_ER``) of a pandas or a Dask frame.

    The figures of :func:`synthguard.risk.individual_risk` with ``household=`` (see
    :func:`household_risk` for the formula), without the per-record arrays.

    Notes
    -----
    On Dask (``data`` a Dask DataFrame, ``weights`` a column name) the key combinations are
    counted on the workers, their risks computed once on the client, and the frame shuffled
    on the household id so each household lies whole in one partition, where its risk is
    formed (:mod:`synthguard.risk._on_dask.household`). Equal to pandas up to floating-point
    rounding.
    """
    from synthguard.risk._common import as_list

    if not isinstance(household, str):
        raise ParameterError("parameter 'household': expected the name of the household-id "
                             "column")
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if household in keys_l:
        raise ParameterError(f"parameter 'household': '{household}' is also a key variable; "
                             f"an id is not something an intruder matches on")
    if weights is not None and not isinstance(weights, str):
        raise ParameterError("parameter 'weights': name the weight column")
    lacking = [c for c in [*keys_l, household, *([weights] if weights else [])]
               if c not in meta_of(data).columns]
    if lacking:
        raise DataError(f"data: column(s) {', '.join(lacking)} not found; check the names")
    if any_dask(data):
        from synthguard.risk._on_dask.household import household_risk_figures

        f = household_risk_figures(data, keys_l, weights, household)
        return HierRisk(household=household, keys=tuple(keys_l), n=int(f["n"]),
                        n_households=int(f["n_households"]),
                        expected_reidentifications=float(f["expected_reidentifications"]),
                        global_risk=float(f["global_risk"]), highest=float(f["highest"]),
                        weighted=weights is not None)
    from synthguard.risk.individual_risk import individual_risk

    hh = individual_risk(data, keys_l, weights=weights, household=household).household
    assert hh is not None
    return HierRisk(household=household, keys=tuple(keys_l), n=hh.n,
                    n_households=hh.n_households,
                    expected_reidentifications=hh.expected_reidentifications,
                    global_risk=hh.global_risk,
                    highest=float(hh.risk.max()) if hh.n else 0.0,
                    weighted=weights is not None)
