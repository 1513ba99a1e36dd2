"""The arguments of :func:`~synthguard.evaluation`, checked once into a :class:`Setting`
that every release is measured under (keys, targets, radius, thresholds, kinds, ...)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthguard.data.schema import Schema, infer_schema
from synthguard.errors import DataError, ParameterError
from synthguard.evaluation.constraints import DEFAULT_LIMIT as CONSTRAINT_LIMIT
from synthguard.evaluation.constraints import METRIC as CONSTRAINT_METRIC
from synthguard.evaluation.constraints import evaluate_constraints
from synthguard.evaluation.households import DEFAULT_LIMIT as HOUSEHOLD_LIMIT
from synthguard.evaluation.households import METRIC as HOUSEHOLD_METRIC
from synthguard.evaluation.households import check_household
from synthguard.evaluation.metrics import METRICS
from synthguard.evaluation.results import KINDS
from synthguard.evaluation.thresholds import (
    ATTACK_THRESHOLDS,
    DEFAULT_THRESHOLDS,
    SYNTHETIC_ONLY,
    Threshold,
    parse_thresholds,
)

__all__ = ["NEEDS_TARGET", "NO_NUMERIC_TARGET", "Setting", "as_tuple", "check_setting"]

NEEDS_TARGET = frozenset({
    "mean_identification_risk", "max_identification_risk", "expected_match_risk",
    "true_match_rate", "attribute_excess", "replicated_uniques", "repu", "disco",
    "inference_risk",
})
"""Metrics measured about a target variable: with ``targets=[]`` they are not computed and
their default thresholds are not applied (a threshold the caller names is: not computed)."""

NO_NUMERIC_TARGET = (
    "identification risk: not applicable: the ball of Hu, Savitsky & Williams eq. (1) needs a "
    "numeric target; for categorical targets see attribute disclosure and DiSCO"
)


@dataclass(frozen=True)
class Setting:
    """What every release is measured under: the confidential data, the intruder's keys and
    targets, the thresholds and the options of :func:`~synthguard.evaluation`."""

    conf: pd.DataFrame
    holdout: pd.DataFrame | None
    schema: Schema
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: float
    formulas: tuple[str, ...]
    thresholds: tuple[Threshold, ...]
    synthetic_only: frozenset[str]
    kinds: Mapping[str, str]
    attacks: bool
    n_attacks: int
    max_distance_records: int | None
    weights: str | None
    constrained: bool
    household: str | None = None
    household_roles: Mapping[str, Any] | None = None
    #: the default thresholds in force that the caller did not name
    defaulted: frozenset[str] = frozenset()

    @property
    def ir_targets(self) -> tuple[str, ...]:
        """The targets the ball of eq. (1) is cast around: the numeric ones (as
        :func:`~synthguard.risk.evaluate_risk` does)."""
        return tuple(t for t in self.targets if t not in self.schema or self.schema[t].is_numeric)

    @property
    def no_ball(self) -> str | None:
        """Why record-level identification risk does not apply (categorical targets only)."""
        if not self.targets:
            return "identification risk: not computed: no target was given"
        return NO_NUMERIC_TARGET if not self.ir_targets else None


def as_tuple(x: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    """A column name or names as a tuple; None as ``()``."""
    if x is None:
        return ()
    if isinstance(x, str):
        return (x,)
    out = tuple(x)
    if not all(isinstance(v, str) for v in out):
        raise ParameterError(f"parameter '{what}': expected column names (text)")
    return out


def _check_columns(conf: pd.DataFrame, keys: Any, targets: Any) -> tuple[tuple[str, ...], ...]:
    keys_t = as_tuple(keys, "keys")
    if targets is None:
        raise ParameterError("parameter 'targets': name the target variable(s), or pass "
                             "targets=[] to skip the measures that need one")
    targets_t = as_tuple(targets, "targets")
    unknown = [c for c in (*keys_t, *targets_t) if c not in conf.columns]
    if unknown:
        raise ParameterError(
            f"keys/targets name columns that are not in the data: {', '.join(unknown)}"
        )
    overlap = set(keys_t) & set(targets_t)
    if overlap:
        raise ParameterError(
            f"columns {', '.join(sorted(overlap))} are both keys and targets; a target is what the "
            f"intruder does not know"
        )
    return keys_t, targets_t


def _check_thresholds(
    conf: pd.DataFrame,
    thresholds: Mapping[str, Any] | None,
    attacks: Any,
    n_attacks: Any,
    default_thresholds: bool,
    constraints: Any,
    no_target: bool = False,
    household: bool = False,
) -> tuple[tuple[Threshold, ...], frozenset[str], frozenset[str], bool]:
    """The thresholds to check: the documented defaults (with the attacks' and the
    constraints' when they run) unless switched off, a rule the caller names replacing the
    default for its metric (so a board can relax or tighten it)."""
    user = dict(thresholds) if thresholds is not None else {}
    parse_thresholds(user)  # validate the caller's rules before merging
    if not isinstance(attacks, bool):
        raise ParameterError("parameter 'attacks': expected True or False")
    if isinstance(n_attacks, bool) or not isinstance(n_attacks, int) or n_attacks < 1:
        raise ParameterError("parameter 'n_attacks': expected a positive integer, e.g. 500")
    needs_attacks = [m for m in user if m in METRICS and METRICS[m].section == "attacks"]
    if needs_attacks and not attacks:
        raise ParameterError(
            f"threshold '{needs_attacks[0]}': an attack's risk is measured only when the attacks "
            f"run; pass attacks=True (--attacks, a plan's evaluation: {{attacks: true}}) with a "
            f"holdout"
        )
    defaults = {**DEFAULT_THRESHOLDS, **(ATTACK_THRESHOLDS if attacks else {})}
    if no_target:  # the defaults judge measures that need a target: not asked for, not applied
        defaults = {m: v for m, v in defaults.items() if m not in NEEDS_TARGET}
    merged = {**defaults, **user} if default_thresholds else user
    checked = evaluate_constraints(conf, {}, constraints)  # validates them before any work
    if checked is not None and default_thresholds and CONSTRAINT_METRIC not in user:
        merged = {**merged, CONSTRAINT_METRIC: CONSTRAINT_LIMIT}
    if household and default_thresholds and HOUSEHOLD_METRIC not in user:
        merged = {**merged, HOUSEHOLD_METRIC: HOUSEHOLD_LIMIT}
    parsed = parse_thresholds(merged or None)
    # a default that judges synthetic releases only is not applicable to protected ones,
    # unless the caller named it
    synthetic_only = (frozenset(m for m in SYNTHETIC_ONLY if m not in user)
                      if default_thresholds else frozenset())
    defaulted = (frozenset(m for m in defaults if m not in user) if default_thresholds
                 else frozenset())
    return parsed, synthetic_only, defaulted, checked is not None


def check_setting(
    conf: Any,
    releases: Any,
    keys: Any,
    targets: Any,
    *,
    holdout: Any,
    formulas: Any,
    thresholds: Mapping[str, Any] | None,
    radius: Any,
    schema: Any,
    kinds: Mapping[str, str] | None,
    max_distance_records: Any,
    default_thresholds: bool,
    weights: str | None,
    attacks: Any,
    n_attacks: Any,
    constraints: Any,
    household: Any = None,
    household_roles: Any = None,
) -> Setting:
    """Check the arguments of :func:`~synthguard.evaluation` (in the order its
    ``Raises`` lists them) into a :class:`Setting`."""
    if not isinstance(conf, pd.DataFrame):
        raise DataError("conf: expected a pandas DataFrame of the confidential data")
    if not isinstance(releases, Mapping) or not releases:
        raise ParameterError(
            "parameter 'releases': expected a non-empty mapping of release name to release"
        )
    keys_t, targets_t = _check_columns(conf, keys, targets)
    roles = None
    if household is not None:
        roles = check_household(conf, household, household_roles, keys_t, targets_t)
    elif household_roles is not None:
        raise ParameterError("parameter 'household_roles': name the household-id column too "
                             "(household=, --household)")
    if isinstance(radius, bool) or not isinstance(radius, int | float) or not radius >= 0:
        raise ParameterError("parameter 'radius': expected a number >= 0, e.g. 0.2 for 20%")
    formulas_t = as_tuple(formulas, "formulas")
    parsed, synthetic_only, defaulted, constrained = _check_thresholds(
        conf, thresholds, attacks, n_attacks, default_thresholds, constraints,
        no_target=not targets_t, household=household is not None,
    )
    kinds = dict(kinds or {})
    bad_kind = {k: v for k, v in kinds.items() if v not in KINDS}
    if bad_kind:
        raise ParameterError(
            f"parameter 'kinds': release(s) {', '.join(bad_kind)} have an unknown kind; "
            f"use one of {', '.join(KINDS)}"
        )
    if max_distance_records is not None and (
        isinstance(max_distance_records, bool) or not isinstance(max_distance_records, int)
        or max_distance_records < 100
    ):
        raise ParameterError(
            "parameter 'max_distance_records': expected None or an integer >= 100"
        )
    if holdout is not None and not isinstance(holdout, pd.DataFrame):
        raise DataError("holdout: expected a pandas DataFrame or None")
    schema_ = schema if isinstance(schema, Schema) else infer_schema(conf, schema)
    return Setting(
        conf=conf, holdout=holdout, schema=schema_, keys=keys_t, targets=targets_t,
        radius=float(radius), formulas=formulas_t, thresholds=parsed,
        synthetic_only=synthetic_only, kinds=kinds, attacks=attacks, n_attacks=n_attacks,
        max_distance_records=max_distance_records, weights=weights, constrained=constrained,
        household=household, household_roles=roles,
        defaulted=defaulted,
    )
