"""DPSyntheticData: the release a DP synthesizer returns."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError

__all__ = ["DPSyntheticData"]


@dataclass(frozen=True)
class DPSyntheticData(Summarized):
    """Differentially private synthetic data (fully synthetic: every value is drawn).

    Accepted by :func:`synthguard.data.as_implicates` (it has ``implicates``), so the utility
    and risk modules evaluate it like any other release. Sampling more implicates from a fitted
    DP synthesizer is post-processing: it costs no further privacy.

    Attributes
    ----------
    implicates : the synthetic data sets.
    method : 'stratified', 'fieldgroups' or 'mst'.
    epsilon, delta : the privacy-loss budget the fit spent.
    noise : 'opendp' or the seeded numpy simulation label (not for release).
    seed : the sampling seed when one was given.
    provenance : parameters of the fit (columns, levels sizes, charges).
    dp : False when the domain was read from the data (``domain_from_data="not-dp"``): the
        release is then NOT differentially private.
    ledger : the ledger the fit charged (an in-memory one unless ``ledger=`` was given).
    """

    implicates: list[pd.DataFrame]
    method: str
    epsilon: float
    delta: float
    noise: str
    seed: int | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    kind: str = "full"
    dp: bool = True
    ledger: Any = field(default=None, repr=False, compare=False)

    def save_ledger(self, path: str | os.PathLike[str]) -> Any:
        """Write the fit's charges to a ledger file (created, or appended to under its lock).

        An existing file keeps its own budget; each charge is checked against it and refused
        (PrivacyBudgetError) when it would overspend. Returns the file's ledger.
        """
        from synthguard.dp.accountant import PrivacyLedger

        if self.ledger is None or not hasattr(self.ledger, "charges"):
            raise ParameterError("DPSyntheticData.save_ledger: this release carries no ledger")
        return PrivacyLedger.merge_into(path, self.ledger)

    @property
    def m(self) -> int:
        return len(self.implicates)

    def to_frame(self) -> pd.DataFrame:
        """All implicates stacked, with an ``implicate`` column."""
        return pd.concat(
            [df.assign(implicate=i) for i, df in enumerate(self.implicates)], ignore_index=True
        )

    def summary(self) -> str:
        n = len(self.implicates[0])
        head = "DP synthetic data" if self.dp else "NOT DP synthetic data (domain read from data)"
        return (f"{self.method} {head}: m={self.m}, n={n}, epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}, noise={self.noise}")
