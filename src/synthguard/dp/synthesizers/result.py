"""DPSyntheticData: the release a DP synthesizer returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["DPSyntheticData"]


@dataclass(frozen=True)
class DPSyntheticData:
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
    """

    implicates: list[pd.DataFrame]
    method: str
    epsilon: float
    delta: float
    noise: str
    seed: int | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    kind: str = "full"

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
        return (f"{self.method} DP synthetic data: m={self.m}, n={n}, epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}, noise={self.noise}")
