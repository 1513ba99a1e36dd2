"""One budget split across several tables and statistics, stated before any noise is drawn.

Every record falls in one cell of each table, so each table's count vector has sensitivity 1
(add/remove) and tables on the same records compose sequentially: their ε add up (pure DP,
Dwork & Roth 2014, Thm 3.16) or their ρ add up (zCDP, Bun & Steinke 2016, Lemma 2.3). The
budget is split in proportion to ``weights``:

* pure DP (``discrete_laplace`` counts, ``laplace`` sums): εᵢ = ε · wᵢ / Σw;
* zCDP (``discrete_gaussian`` counts, ``gaussian`` sums): ρ = ρ(ε, δ) by the tight conversion
  of Canonne, Kamath & Steinke (2020) (:func:`synthguard.dp.conversion.epsilon_to_rho`), then
  ρᵢ = ρ · wᵢ / Σw, so the whole release is (ε, δ)-DP.

Inside a table the share is split equally between its count and each of its sums.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from synthguard.dp.conversion import epsilon_to_rho
from synthguard.errors import ParameterError

__all__ = ["Allocation", "allocate", "family_of"]

_PURE = ("laplace", "discrete_laplace")
_ZCDP = ("gaussian", "discrete_gaussian")


def family_of(mechanism: str) -> str:
    """``"pure"`` (Laplace noise, ε-DP) or ``"zcdp"`` (Gaussian noise, ρ-zCDP)."""
    if mechanism in _PURE:
        return "pure"
    if mechanism in _ZCDP:
        return "zcdp"
    raise ParameterError(
        "parameter 'mechanism': expected 'discrete_laplace' (pure DP) or 'discrete_gaussian' "
        "(zCDP, needs delta)")


@dataclass(frozen=True)
class Allocation:
    """Each part's share of the budget. ``rows``: (part, share, epsilon, rho)."""

    family: str
    epsilon: float
    delta: float
    rho: float
    rows: tuple[tuple[str, float, float, float], ...]

    def of(self, part: str) -> tuple[float, float]:
        """(ε, ρ) of one part (ε is 0 for zCDP parts, ρ 0 for pure ones)."""
        for name, _, eps, rho in self.rows:
            if name == part:
                return eps, rho
        raise KeyError(part)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.rows), columns=["part", "share", "epsilon", "rho"])


def _weights(parts: Sequence[str], weights: Any) -> list[float]:
    if weights is None or (isinstance(weights, str) and weights == "equal"):
        return [1.0] * len(parts)
    if isinstance(weights, Mapping):
        unknown = [k for k in weights if k not in parts]
        if unknown:
            raise ParameterError(
                f"parameter 'allocation': names no table {', '.join(map(str, unknown))}; "
                f"the tables are {', '.join(parts)}")
        w = [float(weights.get(p, 1.0)) for p in parts]
    elif isinstance(weights, str):
        raise ParameterError("parameter 'allocation': expected 'equal', a list of weights or a "
                             "mapping table -> weight")
    else:
        w = [float(v) for v in weights]
        if len(w) != len(parts):
            raise ParameterError(
                "parameter 'allocation': expected one weight per table")
    if not all(math.isfinite(v) and v > 0 for v in w):
        raise ParameterError("parameter 'allocation': weights must be finite numbers > 0")
    return w


def allocate(tables: Sequence[str], stats: Mapping[str, Sequence[str]], *, epsilon: float,
             delta: float, mechanism: str, weights: Any = None) -> Allocation:
    """Split (ε, δ) over ``tables`` by ``weights``, then equally over each table's ``stats``
    (e.g. ``{"state_x_sex": ["count", "sum:income"]}``). Part names are ``"table/stat"``."""
    epsilon = float(epsilon)
    if not math.isfinite(epsilon) or epsilon <= 0:
        raise ParameterError("parameter 'epsilon': expected a finite budget > 0")
    family = family_of(mechanism)
    delta = float(delta)
    if family == "zcdp":
        if not 0 < delta < 1:
            raise ParameterError(
                f"parameter 'delta': mechanism '{mechanism}' needs 0 < delta < 1 (e.g. 1e-10)")
        rho = epsilon_to_rho(epsilon, delta)
    else:
        if delta != 0:
            raise ParameterError(
                f"parameter 'delta': mechanism '{mechanism}' is pure DP; pass delta=0")
        rho = 0.0
    w = _weights(list(tables), weights)
    total = math.fsum(w)
    rows = []
    for t, wt in zip(tables, w):
        s = list(stats.get(t, ["count"]))
        for st in s:
            share = wt / total / len(s)
            rows.append((f"{t}/{st}", share, epsilon * share if family == "pure" else 0.0,
                         rho * share if family == "zcdp" else 0.0))
    return Allocation(family, epsilon, delta, rho, tuple(rows))
