"""What :func:`~synthguard.dp.tables.dp_tables` returns: the noisy tables and how they were made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from synthguard.dp.tables.allocation import Allocation
from synthguard.dp.tables.noise import NoiseModel
from synthguard.dp.tables.reliability import ReliabilityRule

__all__ = ["DPTable", "DPTables"]


@dataclass(frozen=True)
class DPTable:
    """One noisy table.

    ``frame`` has one row per cell (every combination of public levels): the table's columns,
    ``count`` (noisy; a non-negative integer unless ``raw_noisy=True``),
    ``count_lower``/``count_upper`` (interval), ``reliable``,
    ``suppressed``, ``structural_zero``, and for each sum column ``sum_<col>`` with its
    interval. ``noise`` maps each statistic (``"count"``, ``"sum:<col>"``) to its
    :class:`NoiseModel`.
    """

    name: str
    columns: tuple[str, ...]
    frame: pd.DataFrame
    noise: dict[str, NoiseModel]

    @property
    def n_cells(self) -> int:
        return len(self.frame)


@dataclass(frozen=True)
class DPTables:
    """Several noisy tables from one budget split, with the allocation, rule and ledger."""

    tables: dict[str, DPTable]
    allocation: Allocation
    rule: ReliabilityRule
    ledger: Any
    noise_source: str
    dp: bool
    sums: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    domain: Any = None
    raw_noisy: bool = False

    def published(self) -> str:
        """What the ``count`` column holds, in one sentence (for release.json and reports)."""
        if self.raw_noisy:
            return ("Counts are the raw noisy values (raw_noisy=True): unbiased, but some may "
                    "be negative or fractional.")
        return ("Counts are non-negative integers: each noisy count rounded and clamped at 0, "
                "max(0, round(noisy)), with its interval clamped at 0 (post-processing of the "
                "noisy values only, no privacy cost; near 0 the published count is biased "
                "upwards; pass raw_noisy=True or --raw-noisy for the raw noisy values).")

    def __getitem__(self, name: str) -> DPTable:
        return self.tables[name]

    def allocation_frame(self) -> pd.DataFrame:
        """Allocation with each part's mechanism, scale, sd and interval half-width."""
        rows = []
        for part, share, eps, rho in self.allocation.rows:
            table, stat = part.split("/", 1)
            nm = self.tables[table].noise[stat]
            rows.append({"table": table, "statistic": stat, "share": share, "epsilon": eps,
                         "rho": rho, "mechanism": nm.mechanism, "scale": nm.scale,
                         "sd": nm.sd,
                         "halfwidth": nm.halfwidth(self.rule.confidence)})
        return pd.DataFrame(rows)

    def summary(self) -> str:
        a = self.allocation
        head = (f"DP tables: {len(self.tables)} table(s), budget epsilon={a.epsilon:g}"
                + (f", delta={a.delta:g} (rho={a.rho:.4g}, zCDP)" if a.family == "zcdp" else "")
                + f"; noise: {self.noise_source}" + ("" if self.dp else "; NOT DP"))
        lines = [head, self.allocation_frame().to_string(index=False), self.rule.describe(),
                 self.published()]
        for t in self.tables.values():
            f = t.frame
            lines.append(f"{t.name}: {len(f)} cells, {int((~f['reliable']).sum())} unreliable, "
                         f"{int(f['suppressed'].sum())} suppressed")
        lines.extend(self.notes)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()
