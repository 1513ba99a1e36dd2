"""Which noisy cells a reader can trust, and which are withheld: a rule decided on noise only.

Google's COVID-19 Community Mobility Reports (Aktay et al. 2020, "Google COVID-19 Community
Mobility Reports: Anonymization Process Description") add Laplace noise to each count and then
withhold a region's figure when its *noisy* count is below a threshold, so the threshold costs
no extra budget. This module applies the same kind of rule:

* **reliable** — the cell's interval (confidence ``confidence``, from the known noise law, see
  :class:`~synthguard.dp.tables.noise.NoiseModel`) has a half-width at most
  ``max_relative_margin`` × the noisy value (and the noisy value is > 0). The half-width is
  public (it depends on ε and the mechanism only), so the flag is a function of the noisy value.
* **suppressed** — the noisy count is below ``suppress_below``: its value, interval and the
  cell's sums are withheld (NaN) and the reason is given.

Privacy accounting: both decisions read the noisy counts and public parameters only, never
the confidential table, so they are post-processing (Dwork & Roth 2014, Proposition 2.1) and
spend no budget; the ledger's charges for the tables cover them. (A rule on the *true* count,
as in k-anonymity-style suppression, would leak through which cells are missing; a noisy
count below the threshold is the DP way of applying "true count below a threshold".)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["ReliabilityRule"]


@dataclass(frozen=True)
class ReliabilityRule:
    """Interval level, the margin that makes a cell unreliable, the suppression threshold."""

    confidence: float = 0.95
    max_relative_margin: float = 0.5
    suppress_below: float | None = None

    def __post_init__(self) -> None:
        if not 0 < float(self.confidence) < 1:
            raise ParameterError(
                "parameter 'confidence': expected a probability in (0, 1), e.g. 0.95")
        m = float(self.max_relative_margin)
        if not math.isfinite(m) or m <= 0:
            raise ParameterError("parameter 'max_relative_margin': expected a number > 0")
        if self.suppress_below is not None and not math.isfinite(float(self.suppress_below)):
            raise ParameterError("parameter 'suppress_below': expected a finite number or None")

    def reliable(self, noisy: np.ndarray, halfwidth: float) -> np.ndarray:
        """halfwidth ≤ max_relative_margin · noisy and noisy > 0, per cell."""
        v = np.asarray(noisy, dtype=np.float64)
        return (v > 0) & (halfwidth <= self.max_relative_margin * v)

    def suppressed(self, noisy: np.ndarray) -> np.ndarray:
        """Noisy count < suppress_below, per cell (never, without a threshold)."""
        v = np.asarray(noisy, dtype=np.float64)
        if self.suppress_below is None:
            return np.zeros(v.shape, dtype=bool)
        return v < float(self.suppress_below)

    def describe(self) -> str:
        """The rule in one paragraph, with its privacy accounting."""
        text = (f"{100 * self.confidence:g}% intervals from the known noise distribution; a "
                f"cell is flagged unreliable when the interval's half-width exceeds "
                f"{100 * self.max_relative_margin:g}% of its noisy count")
        if self.suppress_below is not None:
            text += (f"; cells whose noisy count is below {self.suppress_below:g} are "
                     "suppressed (value, interval and sums withheld)")
        return text + (". Both decisions use the noisy counts and public parameters only: "
                       "post-processing, no privacy budget is spent on them.")
