"""The answer to one session query: values per group with their intervals, and how it was made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["QueryResult"]


@dataclass(frozen=True)
class QueryResult:
    """A released query.

    Attributes
    ----------
    frame : one row per group: the keys, each aggregation and ``<name>_lower``/``<name>_upper``
        (the (1 − α) interval for the noise; NaN for a quantile, whose error is in ranks,
        see ``plan``).
    plan : per aggregation, its ε, unit-level sensitivity, noise scales, half-width.
    label : the query's name on the ledger.
    epsilon, delta : what the query charged (unit level).
    privacy_unit : the unit it protects, with its bounds in words.
    alpha : 1 − confidence of the intervals.
    noise : where the noise came from ('opendp', or the numpy simulation path).
    keys : 'public' or 'selected' (chosen privately, charged).
    bounds : clamping bounds used per aggregation (estimated ones included).
    raw_noisy : False when counts were published as non-negative integers
        (:mod:`synthguard.dp.session.publish`), True for the raw noisy values.
    """

    frame: pd.DataFrame
    plan: pd.DataFrame
    label: str
    epsilon: float
    delta: float
    privacy_unit: str
    alpha: float
    noise: str
    keys: str
    bounds: dict[str, Any] = field(default_factory=dict)
    raw_noisy: bool = False

    def to_frame(self) -> pd.DataFrame:
        """The released table (a copy)."""
        return self.frame.copy()

    def summary(self) -> str:
        return (f"query '{self.label}': epsilon={self.epsilon:g}, delta={self.delta:g} "
                f"(unit: {self.privacy_unit}); {len(self.frame)} group(s), "
                f"{100 * (1 - self.alpha):g}% intervals; noise: {self.noise}\n"
                + self.frame.to_string(index=False))

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        return self.frame.to_html(index=False)
