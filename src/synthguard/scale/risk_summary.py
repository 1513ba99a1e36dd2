"""The identification risk of data too big to gather: summaries only, per-record risk left on
the workers or written by them to Parquet."""

from __future__ import annotations

from dataclasses import dataclass

from synthguard._display import Summarized
from synthguard.risk.identification import summary_lines

__all__ = ["IdentificationRiskSummary"]


@dataclass(frozen=True, eq=False)
class IdentificationRiskSummary(Summarized):
    """What :func:`synthguard.scale.identification_risk` returns with ``gather=False``: the
    summaries of :class:`~synthguard.risk.identification.IdentificationRisk`, computed on the
    workers, without the per-record arrays.

    Attributes
    ----------
    mean : the correctly rounded mean of the per-record risk over the records not excluded
        (the exact sum rounded once; ``numpy.mean`` of the gathered values agrees to within
        a few units in the last place).
    max : the maximum.
    quantiles : {q: quantile}, equal to ``numpy.quantile`` of the gathered values.
    n, n_singletons, singleton_share : records, records alone in their pattern, their share.
    n_above_half : records whose risk exceeds 0.5 (Hu, Savitsky & Williams' threshold).
    records : the Parquet folder the workers wrote the per-record risk to (one row per
        confidential record, the columns of ``IdentificationRisk.to_frame()``), or None.
    """

    mean: float
    max: float
    quantiles: dict[float, float]
    n: int
    n_singletons: int
    singleton_share: float
    n_above_half: int
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: tuple[float, ...]
    relative: bool
    inclusive: bool
    singletons: str
    n_implicates: int
    records: str | None = None

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    def summary(self) -> str:
        lines = summary_lines(self, self.n_above_half)
        if self.records:
            lines.append(f"  per-record risk: {self.records}")
        return "\n".join(lines)
