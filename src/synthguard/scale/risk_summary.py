"""The identification risk of data too big to gather: summaries only, per-record risk left on
the workers or written by them to Parquet."""

from __future__ import annotations

from dataclasses import dataclass

from synthguard._display import Summarized

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
        src = (
            f"release of {self.n_implicates} implicate(s)"
            if self.n_implicates
            else "confidential data"
        )
        kind = "relative" if self.relative else "absolute"
        qs = ", ".join(f"q{round(q * 100)} {v:.4f}" for q, v in self.quantiles.items())
        lines = [
            f"Identification risk of the {src} (Hu, Savitsky & Williams)",
            f"  keys: {', '.join(self.keys) or '(none)'}; targets: {', '.join(self.targets)}; "
            f"{kind} radius {', '.join(f'{r:g}' for r in self.radius)}"
            f"{' (boundary inside)' if self.inclusive else ''}",
            f"  records: {self.n}; mean {self.mean:.4f}; max {self.max:.4f}",
            f"  {qs}",
            f"  above 0.5: {self.n_above_half}",
            f"  singleton patterns: {self.n_singletons} records ({self.singleton_share:.1%}), "
            f"scored '{self.singletons}'",
        ]
        if self.records:
            lines.append(f"  per-record risk: {self.records}")
        return "\n".join(lines)
