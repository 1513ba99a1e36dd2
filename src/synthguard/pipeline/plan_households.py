"""Households in a plan (issue 33): a ``synthesis`` release's ``household: <id>`` and the
evaluation's ``household: <id>`` and ``household_roles: {role: column}``.

```yaml
releases:
  households:
    method: synthesis
    household: hid               # households first, then members (Synthesizer(household=))
evaluation:
  keys: [region, sex, age]
  targets: [income]
  household: hid                 # default: the releases' household id
  household_roles: {relationship: relat, age: age, sex: sex, income: income}
```

The evaluation's household id defaults to the one the synthesis releases name (they must
agree); with it the evaluation measures household risk, replicated households and household
utility (:func:`synthguard.evaluate` with ``household=``, ``household_roles=``). A household
plan sets no records aside (``holdout``): a holdout drawn record by record would cut
households in two, putting members of one household on both sides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from synthguard.evaluation.households import ROLES

__all__ = ["HOUSEHOLD_EVAL_KEYS", "check_plan_households", "household_columns"]

HOUSEHOLD_EVAL_KEYS = ("household", "household_roles")

_COLUMN_ROLES = ("relationship", "age", "sex", "income", "totals")

Add = Callable[[tuple[Any, ...], str], None]


def _release_ids(specs: Sequence[Any]) -> dict[str, Any]:
    return {s.name: s.params.get("household") for s in specs
            if s.method == "synthesis" and s.params.get("household") is not None}


def check_plan_households(ev: Mapping[str, Any], specs: Sequence[Any], holdout: float,
                          keys: Sequence[str], targets: Sequence[str], add: Add
                          ) -> tuple[str | None, dict[str, Any] | None]:
    """The evaluation's ``(household, household_roles)``, each problem reported through
    ``add(path, message)`` (the plan's PlanError collects them with their lines)."""
    ids = _release_ids(specs)
    for name, hid in ids.items():
        if not isinstance(hid, str) or not hid:
            add(("releases", name, "household"), "expected the name of the household-id "
                "column, e.g. household: ori_hid")
    named = sorted({h for h in ids.values() if isinstance(h, str) and h})
    household = ev.get("household")
    if household is not None and (not isinstance(household, str) or not household):
        add(("evaluation", "household"), "expected the name of the household-id column, e.g. "
            "household: ori_hid")
        household = None
    if household is None and len(named) == 1:
        household = named[0]
    elif household is None and len(named) > 1:
        add(("evaluation", "household"), f"the releases name different household ids "
            f"({', '.join(named)}); one data file has one: name it here")
    elif household is not None and named and named != [household]:
        add(("evaluation", "household"), f"'{household}' differs from the releases' household "
            f"id ({', '.join(named)}); name the same column")
    roles = ev.get("household_roles")
    if roles is not None:
        if household is None:
            add(("evaluation", "household_roles"), "household roles need the household id: "
                "add evaluation.household: <id column>")
        if not isinstance(roles, Mapping):
            add(("evaluation", "household_roles"), "expected a mapping of role to column, e.g. "
                "{relationship: relat, age: age, sex: sex, income: income}")
            roles = None
        else:
            for k, v in roles.items():
                if k not in ROLES:
                    add(("evaluation", "household_roles", k), f"unknown role; use one of "
                        f"{', '.join(ROLES)}")
                elif k in _COLUMN_ROLES and not (
                        isinstance(v, str) or (isinstance(v, list)
                                               and all(isinstance(x, str) for x in v))):
                    add(("evaluation", "household_roles", k), "expected a column name (income "
                        "and totals: a name or a list of names)")
            roles = dict(roles)
    if household is not None:
        if household in keys or household in targets:
            add(("evaluation", "household"), f"'{household}' is also a key or target; a "
                f"household id is neither")
        if holdout:
            add(("holdout",), "a household plan sets no records aside: a holdout drawn record "
                "by record would put members of one household on both sides; remove holdout")
    return household, roles


def household_columns(household: str | None, roles: Mapping[str, Any] | None
                      ) -> list[tuple[str, list[str]]]:
    """``(plan field, columns)`` the household settings name, to check against the data."""
    out: list[tuple[str, list[str]]] = []
    if household is not None:
        out.append(("evaluation.household", [household]))
    for k, v in (roles or {}).items():
        if k in _COLUMN_ROLES and v is not None:
            out.append((f"evaluation.household_roles.{k}", [v] if isinstance(v, str) else
                        [str(x) for x in v]))
    return out
