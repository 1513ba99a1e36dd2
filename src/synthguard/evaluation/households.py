"""Households in the evaluation: ``evaluate(..., household="ori_hid")`` measures, beside the
person-level measures,

* the confidential data's **household risk** on the keys (sdcMicro's ``hier_risk``:
  :func:`synthguard.risk.individual_risk` with ``household=``, weighted by ``weights``);
* per release, **replicated households** (:func:`synthguard.risk.replicated_households`):
  the headline ``replicated_households`` is the largest share over the implicates, and a
  **default threshold of zero** judges synthetic releases (a protected release publishes the
  households themselves and is judged by the other measures, as for replicated uniques);
* per release, the **household-level utility** (:func:`synthguard.utility.household_utility`),
  each headline the mean over the implicates.

The person-level measures run without the household-id column: an id is not a variable.
``household_roles`` names the person columns the utility measures read: ``relationship``,
``age``, ``sex``, ``income`` (one column or a list), ``totals`` (default: ``income``), and
the relationship codes ``head_code``, ``partner_code``, ``child_code`` (default 1, 2, 3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard.errors import ParameterError, safe_error
from synthguard.risk import IndividualRisk, ReplicatedHouseholds, individual_risk
from synthguard.risk import replicated_households as _replicated
from synthguard.utility import HouseholdUtility, household_utility

__all__ = ["HOUSEHOLD_METRICS", "ROLES", "HouseholdEvaluation", "check_household",
           "evaluate_households"]

#: The risk metric and its default threshold (no replicated household in a synthetic release).
METRIC = "replicated_households"
DEFAULT_LIMIT = 0.0
#: Headline metric -> (measure of HouseholdUtility, its attribute).
HOUSEHOLD_METRICS: dict[str, tuple[str, str]] = {
    "household_size_tv": ("size", "tv"),
    "household_composition_tv": ("composition", "tv"),
    "partner_age_corr_diff": ("associations", "partner_corr_diff"),
    "children_age_corr_diff": ("associations", "children_corr_diff"),
    "household_totals_ks": ("totals", "ks"),
    "poverty_rate_diff": ("poverty", "diff"),
}
ROLES = ("relationship", "age", "sex", "income", "totals", "head_code", "partner_code",
         "child_code")
_COLUMN_ROLES = ("relationship", "age", "sex", "income", "totals")


@dataclass(frozen=True)
class HouseholdEvaluation:
    """The household measures of an evaluation.

    Attributes
    ----------
    household : the household-id column.
    roles : the person columns and codes the utility measures read.
    data_risk : the data's individual and household risk on the keys (None when it could
        not be computed: ``data_risk_error`` says why).
    replicated : release -> per implicate :class:`~synthguard.risk.ReplicatedHouseholds`.
    utility : release -> per implicate :class:`~synthguard.utility.HouseholdUtility`.
    errors : release -> measure -> why it was not computed.
    """

    household: str
    roles: Mapping[str, Any]
    data_risk: IndividualRisk | None
    data_risk_error: str | None
    replicated: Mapping[str, list[ReplicatedHouseholds]]
    utility: Mapping[str, list[HouseholdUtility]]
    errors: Mapping[str, dict[str, str]] = field(default_factory=dict)
    n_households: int = 0

    def metrics(self, release: str) -> dict[str, float | None]:
        """The headline numbers of ``release``: replicated households (largest share over
        the implicates) and the household utility measures (mean over the implicates)."""
        out: dict[str, float | None] = {}
        rep = self.replicated.get(release)
        out[METRIC] = max(r.share for r in rep) if rep else None
        utils = self.utility.get(release) or []
        for name, (measure, attr) in HOUSEHOLD_METRICS.items():
            vals = [getattr(getattr(u, measure), attr) for u in utils
                    if getattr(u, measure) is not None]
            vals = [float(v) for v in vals if v is not None and np.isfinite(v)]
            out[name] = float(np.mean(vals)) if vals else None
        return out

    def not_computed(self, release: str) -> dict[str, str]:
        return dict(self.errors.get(release, {}))


def check_household(conf: pd.DataFrame, household: Any, roles: Any, keys: Sequence[str],
                    targets: Sequence[str]) -> dict[str, Any]:
    """Check ``household`` and ``household_roles`` against the data (ParameterError naming
    the problem); returns the roles as a dict."""
    if not isinstance(household, str):
        raise ParameterError("parameter 'household': expected the name of the household-id "
                             "column")
    if household not in conf.columns:
        raise ParameterError(f"parameter 'household': column '{household}' is not in the data; "
                             f"name the column that identifies each record's household")
    if household in keys or household in targets:
        raise ParameterError(f"parameter 'household': '{household}' is also a key or target; "
                             f"a household id is neither")
    if roles is None:
        return {}
    if not isinstance(roles, Mapping):
        raise ParameterError("parameter 'household_roles': expected a mapping such as "
                             "{'relationship': 'relat', 'age': 'age', 'sex': 'sex', "
                             "'income': 'income'}")
    unknown = [k for k in roles if k not in ROLES]
    if unknown:
        raise ParameterError(f"parameter 'household_roles': unknown role(s) "
                             f"{', '.join(map(str, unknown))}; use {', '.join(ROLES)}")
    out = dict(roles)
    for role in _COLUMN_ROLES:
        cols = out.get(role)
        if cols is None:
            continue
        names = [cols] if isinstance(cols, str) else list(cols)
        lacking = [c for c in names if c not in conf.columns]
        if lacking:
            raise ParameterError(f"parameter 'household_roles': {role} names column(s) not in "
                                 f"the data: {', '.join(map(str, lacking))}")
    return out


def evaluate_households(
    conf: pd.DataFrame,
    implicates: Mapping[str, Sequence[pd.DataFrame]],
    household: str,
    keys: Sequence[str],
    *,
    weights: str | None = None,
    roles: Mapping[str, Any] | None = None,
) -> HouseholdEvaluation:
    """The household measures of the data and every release (``implicates``: release ->
    its implicates, with the household-id column). A measure that fails is recorded in
    ``errors`` and never stops the others."""
    r = dict(roles or {})
    data_risk, risk_error = None, None
    if keys:
        try:
            data_risk = individual_risk(conf, list(keys), weights=weights, household=household)
        except Exception as e:
            risk_error = safe_error(e)
    else:
        risk_error = "not computed: no key variables were given"
    replicated: dict[str, list[ReplicatedHouseholds]] = {}
    utility: dict[str, list[HouseholdUtility]] = {}
    errors: dict[str, dict[str, str]] = {}
    for name, impl in implicates.items():
        errs: dict[str, str] = {}
        if any(household not in df.columns for df in impl):
            errs["households"] = (f"the release lacks the household-id column '{household}'; "
                                  f"the household measures need it")
            errors[name] = errs
            continue
        try:
            replicated[name] = [_replicated(conf, df, household) for df in impl]
        except Exception as e:
            errs[METRIC] = safe_error(e)
        try:
            utility[name] = [household_utility(
                conf, df, household, weights=weights, relationship=r.get("relationship"),
                age=r.get("age"), sex=r.get("sex"), income=r.get("income"),
                totals=r.get("totals"), head_code=r.get("head_code", 1),
                partner_code=r.get("partner_code", 2), child_code=r.get("child_code", 3),
            ) for df in impl]
        except Exception as e:
            errs["household utility"] = safe_error(e)
        if errs:
            errors[name] = errs
    return HouseholdEvaluation(
        household=household, roles=r, data_risk=data_risk, data_risk_error=risk_error,
        replicated=replicated, utility=utility, errors=errors,
        n_households=int(conf[household].nunique()),
    )
