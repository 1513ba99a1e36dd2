"""How a utility number is read: its direction and range (SDMetrics' ``goal``, ``min_value``,
``max_value``), so the report and the CLI never have to guess whether higher is better."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = ["MetricInfo"]

Goal = Literal["minimize", "maximize", "target"]


@dataclass(frozen=True)
class MetricInfo:
    """Direction and range of one metric.

    Attributes
    ----------
    name : attribute name on the result object.
    goal : ``"minimize"`` (lower is better), ``"maximize"`` (higher is better) or ``"target"``
        (closest to ``target`` is best, e.g. AUC 0.5, pMSE ratio 1).
    min_value, max_value : the range (``math.inf`` when unbounded).
    target : the best value when ``goal == "target"``.
    description : one line for tables and reports.
    """

    name: str
    goal: Goal
    min_value: float
    max_value: float
    target: float | None = None
    description: str = ""

    @property
    def best(self) -> float:
        """The best attainable value."""
        if self.goal == "target":
            return float(self.target if self.target is not None else math.nan)
        return self.min_value if self.goal == "minimize" else self.max_value


class ResultDisplay:
    """Mixin: notebooks show a result's summary and its ``to_frame()`` table."""

    def _repr_html_(self) -> str:
        import html

        summary = getattr(self, "summary", None)
        head = f"<p>{html.escape(summary())}</p>" if callable(summary) else ""
        frame = self.to_frame()  # type: ignore[attr-defined]
        return head + frame.to_html(max_rows=60)
