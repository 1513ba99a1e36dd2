"""The identification risk of data too big to gather: summaries only, per-record risk left on
the workers or written by them to Parquet (``identification_risk(..., gather=False)``), and
the summary lines both results print."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from synthguard._display import Summarized

__all__ = ["IdentificationRiskSummary", "summary_lines", "summary_of"]


def summary_lines(r: Any, n_above_half: int) -> list[str]:
    """The lines of an identification-risk summary, for the pandas result and the Dask
    summary (:class:`IdentificationRiskSummary`) alike."""
    src = f"release of {r.n_implicates} implicate(s)" if r.n_implicates else "confidential data"
    kind = "relative" if r.relative else "absolute"
    qs = ", ".join(f"q{round(q * 100)} {v:.4f}" for q, v in r.quantiles.items())
    return [
        f"Identification risk of the {src} (Hu, Savitsky & Williams)",
        f"  keys: {', '.join(r.keys) or '(none)'}; targets: {', '.join(r.targets)}; "
        f"{kind} radius {', '.join(f'{x:g}' for x in r.radius)}"
        f"{' (boundary inside)' if r.inclusive else ''}",
        f"  records: {r.n}; mean {r.mean:.4f}; max {r.max:.4f}",
        f"  {qs}",
        f"  above 0.5: {n_above_half}",
        f"  singleton patterns: {r.n_singletons} records ({r.singleton_share:.1%}), "
        f"scored '{r.singletons}'",
    ]


@dataclass(frozen=True, eq=False)
class IdentificationRiskSummary(Summarized):
    """What :func:`synthguard.risk.identification_risk` returns with ``gather=False``: the
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


def summary_of(res: Any, records: str | os.PathLike[str] | None) -> IdentificationRiskSummary:
    """The summary of a gathered :class:`~synthguard.risk.identification.IdentificationRisk`."""
    return IdentificationRiskSummary(
        mean=res.mean,
        max=res.max,
        quantiles=res.quantiles,
        n=res.n,
        n_singletons=res.n_singletons,
        singleton_share=res.singleton_share,
        n_above_half=res.count_above(0.5),
        keys=res.keys,
        targets=res.targets,
        radius=res.radius,
        relative=res.relative,
        inclusive=res.inclusive,
        singletons=res.singletons,
        n_implicates=res.n_implicates,
        records=None if records is None else os.fspath(records),
    )
