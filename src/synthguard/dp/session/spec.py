"""What a query asks for: the aggregations, parsed from Python or from a queries file.

Accepted forms (Python; the YAML file uses the mapping form)::

    "count"                                  rows per group
    "count_distinct"                         distinct units per group
    ("sum", "income", (0, 1e5))              clamped sum; also "mean", "variance"
    ("quantile", "age", (0, 100), 0.5)       q-quantile; ("median", "age", (0, 100))
    {"mean": "hours", "bounds": [0, 100], "weight": 2}
    {"median": "hours", "bounds": {"estimate": [0, 168], "epsilon": 0.05}}
    {"regression": "income", "on": ["age", "hours"],
     "bounds": {"income": [0, 1e5], "age": [16, 90], "hours": [0, 100]}}
    ("regression", "income", ["age"], {"income": (0, 1e5), "age": (16, 90)})

``weight`` (default 1) sets the aggregation's share of the query's ε: share_a = ε·w_a/Σw
(after any bounds estimation and private key selection have taken theirs). ``bounds`` with
``estimate`` asks the session to estimate the clamping bounds as DP 1st and 99th percentiles
within the public range given, at the declared ε (taken from the query's ε, charged with it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from synthguard.errors import ParameterError

__all__ = ["KINDS", "Aggregation", "parse_aggregations"]

KINDS = ("count", "count_distinct", "sum", "mean", "variance", "quantile", "regression")
_VALUE_KINDS = ("sum", "mean", "variance", "quantile")


@dataclass(frozen=True)
class Aggregation:
    """One aggregation of a query (see the module docstring)."""

    name: str
    kind: str
    column: str | None = None
    bounds: tuple[float, float] | None = None
    q: float | None = None
    weight: float = 1.0
    estimate: tuple[float, float] | None = None
    estimate_epsilon: float = 0.0
    on: tuple[str, ...] = ()
    all_bounds: tuple[tuple[float, float], ...] = ()

    @property
    def columns(self) -> tuple[str, ...]:
        """Every column the aggregation reads (a regression's predictors, then its outcome)."""
        return (*self.on, self.column) if self.column else ()

    @property
    def terms(self) -> tuple[str, ...]:
        """A regression's coefficients: ``intercept`` and its predictors."""
        return ("intercept", *self.on)

    def describe(self) -> str:
        if self.kind in ("count", "count_distinct"):
            return self.kind
        if self.kind == "regression":
            return f"regression({self.column} ~ {' + '.join(self.on)})"
        q = f" q={self.q:g}" if self.kind == "quantile" and self.q is not None else ""
        return f"{self.kind}({self.column}){q}"


def _bounds(value: Any, where: str) -> tuple[tuple[float, float] | None,
                                             tuple[float, float] | None, float]:
    """(bounds, estimate range, estimate epsilon) from a bounds entry."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"estimate", "epsilon"}
        if unknown or "estimate" not in value or "epsilon" not in value:
            raise ParameterError(f"{where}: bounds to estimate are {{estimate: [LOW, HIGH], "
                                 "epsilon: E}} (a public range and the epsilon spent on it)")
        rng, _, _ = _bounds(value["estimate"], where)
        eps = float(value["epsilon"])
        if not math.isfinite(eps) or eps <= 0:
            raise ParameterError(f"{where}: bounds.epsilon: expected a number > 0")
        return None, rng, eps
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ParameterError(f"{where}: bounds: expected two numbers [LOW, HIGH]") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ParameterError(f"{where}: bounds: expected finite LOW < HIGH")
    return (lo, hi), None, 0.0


def _one(name: str, spec: Any) -> Aggregation:
    where = f"aggregation '{name}'"
    if isinstance(spec, str):
        if spec not in ("count", "count_distinct"):
            raise ParameterError(f"{where}: '{spec}' alone must be 'count' or 'count_distinct'; "
                                 "other kinds need a column and bounds, e.g. "
                                 "('mean', 'hours', (0, 100))")
        return Aggregation(name, spec)
    weight = 1.0
    q: float | None = None
    if isinstance(spec, Mapping):
        kinds = [k for k in spec if k in (*KINDS, "median")]
        if len(kinds) != 1:
            raise ParameterError(f"{where}: expected one of {', '.join(KINDS)} or median as a "
                                 "key, e.g. {mean: hours, bounds: [0, 100]}")
        kind = kinds[0]
        unknown = set(spec) - {kind, "bounds", "q", "weight", "on"}
        if unknown:
            raise ParameterError(f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}"
                                 "; expected bounds, q, weight (on: a regression's predictors)")
        if kind == "regression":
            return _regression(name, spec[kind], spec.get("on"), spec.get("bounds"),
                               float(spec.get("weight", 1.0)), where)
        column = spec[kind]
        bounds_raw = spec.get("bounds")
        weight = float(spec.get("weight", 1.0))
        q = None if spec.get("q") is None else float(spec["q"])
    elif isinstance(spec, tuple | list) and spec and spec[0] == "regression":
        if len(spec) != 4:
            raise ParameterError(f"{where}: expected ('regression', outcome, [predictors], "
                                 "{column: (low, high)})")
        return _regression(name, spec[1], spec[2], spec[3], 1.0, where)
    elif isinstance(spec, tuple | list) and spec:
        kind, *rest = spec
        column = rest[0] if rest else None
        bounds_raw = rest[1] if len(rest) > 1 else None
        if len(rest) > 2:
            q = float(rest[2])
        if len(rest) > 3:
            raise ParameterError(f"{where}: expected (kind, column, bounds[, q])")
    else:
        raise ParameterError(f"{where}: expected 'count', 'count_distinct', a tuple "
                             "(kind, column, bounds) or a mapping")
    if kind == "median":
        kind, q = "quantile", 0.5 if q is None else q
    if kind not in KINDS:
        raise ParameterError(f"{where}: unknown kind '{kind}'; expected one of {', '.join(KINDS)}")
    if not math.isfinite(weight) or weight <= 0:
        raise ParameterError(f"{where}: weight: expected a number > 0")
    if kind in ("count", "count_distinct"):
        return Aggregation(name, kind, weight=weight)
    if not isinstance(column, str) or not column:
        raise ParameterError(f"{where}: {kind} needs a column name")
    if bounds_raw is None:
        raise ParameterError(f"{where}: {kind} of '{column}' needs clamping bounds [LOW, HIGH] "
                             "from public knowledge, or {estimate: [LOW, HIGH], epsilon: E}")
    bounds, est, est_eps = _bounds(bounds_raw, where)
    if kind == "quantile":
        if q is None or not 0 < q < 1:
            raise ParameterError(f"{where}: quantile needs q with 0 < q < 1")
    return Aggregation(name, kind, column, bounds, q, weight, est, est_eps)


def _regression(name: str, outcome: Any, on: Any, bounds: Any, weight: float,
                where: str) -> Aggregation:
    if not isinstance(outcome, str) or not outcome:
        raise ParameterError(f"{where}: regression needs an outcome column")
    if isinstance(on, str):
        on = [on]
    if not isinstance(on, list | tuple) or not on or not all(isinstance(c, str) for c in on):
        raise ParameterError(f"{where}: regression needs 'on', a list of predictor columns")
    if not isinstance(bounds, Mapping):
        raise ParameterError(f"{where}: regression needs bounds {{column: [LOW, HIGH]}} for "
                             "the outcome and every predictor")
    all_b = []
    for c in (*on, outcome):
        if c not in bounds:
            raise ParameterError(f"{where}: bounds: no [LOW, HIGH] for column '{c}'")
        b, _, _ = _bounds(bounds[c], where)
        if b is None:
            raise ParameterError(f"{where}: bounds of a regression are given, not estimated")
        all_b.append(b)
    if not math.isfinite(weight) or weight <= 0:
        raise ParameterError(f"{where}: weight: expected a number > 0")
    return Aggregation(name, "regression", outcome, all_b[-1], None, weight,
                       on=tuple(on), all_bounds=tuple(all_b))


def parse_aggregations(aggregations: Any) -> list[Aggregation]:
    """The aggregations of a query, in the order given (ParameterError names the bad one)."""
    if not isinstance(aggregations, Mapping) or not aggregations:
        raise ParameterError("parameter 'aggregations': expected a non-empty mapping "
                             "name -> aggregation, e.g. {'n': 'count'}")
    out = []
    for name, spec in aggregations.items():
        if not isinstance(name, str) or not name:
            raise ParameterError("parameter 'aggregations': names must be non-empty text")
        out.append(_one(name, spec))
    return out
