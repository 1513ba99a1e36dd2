"""A DP synthesizer fitted per privacy unit: each unit bounded to ``max_rows`` rows, every
charge the unit-level cost.

Group privacy (a unit of at most R rows is a group of R rows under the row-level relation):

* an ε-DP mechanism is Rε-DP for the unit (Dwork & Roth 2014, Theorem 2.2);
* a ρ-zCDP mechanism is R²ρ-zCDP for the unit (Bun & Steinke 2016, Proposition 1.9).

So the synthesizer runs its row-level algorithm at ε/R (pure DP: stratified, field groups) or
at the ε whose ρ is ρ_unit/R² (zCDP: MST, AIM), and :class:`UnitCharger` records each of its
charges multiplied back (R·ε, R²·ρ) with the unit named on the ledger line. Equivalently, every
sensitivity of the algorithm is scaled by R (a unit changes any marginal count by at most R).
"""

from __future__ import annotations

from typing import Any

from synthguard.dp.conversion import rho_to_epsilon
from synthguard.errors import ParameterError

__all__ = ["UnitCharger", "row_budget"]


class UnitCharger:
    """Forwards the row-level charges of an algorithm as unit-level charges."""

    def __init__(self, ledger: Any, unit: str, max_rows: int) -> None:
        self._ledger = ledger
        self._unit = unit
        self._r = int(max_rows)

    def _label(self, label: str) -> str:
        return f"{label} [unit {self._unit}, max_rows={self._r}]"

    def charge(self, label: str, epsilon: float, delta: float = 0.0) -> Any:
        if delta:
            raise ParameterError("privacy_unit: an (epsilon, delta) charge with delta > 0 has "
                                 "no simple group-privacy bound; this synthesizer cannot take "
                                 "a privacy unit")
        return self._ledger.charge(self._label(label), self._r * float(epsilon), 0.0,
                                   privacy_unit=self._unit)

    def charge_rho(self, label: str, rho: float) -> Any:
        return self._ledger.charge_rho(self._label(label), self._r ** 2 * float(rho),
                                       privacy_unit=self._unit)


def row_budget(epsilon: float, delta: float, max_rows: int, *, zcdp: bool,
               conversion: str = "tight") -> float:
    """The row-level ε to run the algorithm at so that its unit-level cost is (ε, δ)."""
    from synthguard.dp.conversion import epsilon_to_rho

    if not zcdp:
        return float(epsilon) / max_rows
    rho_row = epsilon_to_rho(epsilon, delta, conversion=conversion) / max_rows**2
    return rho_to_epsilon(rho_row, delta, conversion=conversion)
