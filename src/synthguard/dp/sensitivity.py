"""Global sensitivities of the common queries, with the neighbouring relation made explicit.

Two data sets are neighbours when they differ in one record, and "differ" has two readings:

* ``"add_remove"`` (unbounded DP): X' is X with one record added or removed, so n changes.
  This is the course's and the article's reading ("the addition or removal of one record").
* ``"replace"`` (bounded DP): X' is X with one record replaced by another; n is fixed and
  public.

A sensitivity is only meaningful with its relation, so every helper takes ``relation`` and
returns a :class:`Sensitivity` that records it. Definitions (Dwork, McSherry, Nissim & Smith
2006): Δ₁ = sup ‖M(X) − M(X')‖₁ and Δ₂ = sup ‖M(X) − M(X')‖₂ over neighbours.

Bounds for sums and means must be **public** (known before looking at the data): bounds read
from the data make the release non-private (course, "Sums").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from synthguard.errors import ParameterError

__all__ = [
    "Relation",
    "Sensitivity",
    "count_sensitivity",
    "histogram_sensitivity",
    "mean_sensitivity",
    "sum_sensitivity",
]

Relation = Literal["add_remove", "replace"]
_RELATIONS = ("add_remove", "replace")


@dataclass(frozen=True)
class Sensitivity:
    """l1 and l2 global sensitivity of a query under a stated neighbouring relation."""

    query: str
    relation: str
    l1: float
    l2: float

    def to_dict(self) -> dict[str, object]:
        return {"query": self.query, "relation": self.relation, "l1": self.l1, "l2": self.l2}


def _check_relation(relation: str) -> str:
    if relation not in _RELATIONS:
        raise ParameterError(
            f"parameter 'relation': expected one of {', '.join(_RELATIONS)} "
            "('add_remove' = one record added or removed; 'replace' = one record changed)"
        )
    return relation


def _check_bounds(lower: float, upper: float) -> tuple[float, float]:
    lower, upper = float(lower), float(upper)
    if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
        raise ParameterError(
            "parameters 'lower', 'upper': expected finite public bounds with lower <= upper; "
            "a sum or mean of unbounded values has infinite sensitivity"
        )
    return lower, upper


def count_sensitivity(relation: Relation = "add_remove") -> Sensitivity:
    """Sensitivity of a count of records satisfying a predicate: Δ₁ = Δ₂ = 1 under both relations.

    Adding/removing one record changes the count by at most 1; replacing one record can turn
    one match into one non-match, again at most 1 (course, Exercise 1).
    """
    return Sensitivity("count", _check_relation(relation), 1.0, 1.0)


def sum_sensitivity(lower: float, upper: float, relation: Relation = "add_remove") -> Sensitivity:
    """Sensitivity of a sum of values clipped to public bounds [L, U].

    * add/remove: Δ = max(|L|, |U|) — the largest single contribution.
    * replace: Δ = U − L — the largest change of one contribution (the course's
      "observations between 6 and 10 give sensitivity 10 − 6 = 4").

    Examples
    --------
    >>> sum_sensitivity(0, 20).l1   # employees of small businesses, course Exercise 4
    20.0
    >>> sum_sensitivity(6, 10, "replace").l1
    4.0
    """
    lower, upper = _check_bounds(lower, upper)
    if _check_relation(relation) == "add_remove":
        value = max(abs(lower), abs(upper))
    else:
        value = upper - lower
    return Sensitivity("sum", relation, value, value)


def mean_sensitivity(lower: float, upper: float, n: int) -> Sensitivity:
    """Sensitivity of a mean of values clipped to [L, U] when n is known and public.

    With n public the relation is necessarily ``"replace"`` (n does not change) and
    Δ = (U − L)/n (course, "Means": GS(sum)/n). When n is not public the mean is released as a
    noisy sum over a noisy count (each with its own sensitivity and a share of ε); see
    :func:`synthguard.dp.queries.dp_mean`.
    """
    lower, upper = _check_bounds(lower, upper)
    if int(n) < 1:
        raise ParameterError("parameter 'n': expected a positive number of records")
    value = (upper - lower) / int(n)
    return Sensitivity("mean", "replace", value, value)


def histogram_sensitivity(relation: Relation = "add_remove") -> Sensitivity:
    """Sensitivity of a histogram (counts over disjoint cells, e.g. a contingency table).

    Each record falls in exactly one cell, so adding/removing one changes one cell by 1
    (Δ₁ = Δ₂ = 1); replacing one moves it between two cells (Δ₁ = 2, Δ₂ = √2).
    """
    if _check_relation(relation) == "add_remove":
        return Sensitivity("histogram", relation, 1.0, 1.0)
    return Sensitivity("histogram", relation, 2.0, math.sqrt(2.0))
