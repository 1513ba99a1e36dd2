"""The report's table of the constraints an evaluation checked
(:func:`synthguard.evaluation.constraints.evaluate_constraints`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synthguard.evaluation.constraints import ConstraintEvaluation

__all__ = ["constraint_table"]


def constraint_table(
    result: ConstraintEvaluation | None,
    count: Callable[[int], str],
    label: Callable[[str], str],
) -> dict[str, Any] | None:
    """The report's table: per constraint, the data's records it applies to and breaks
    (``count``: the report's rule for counts of confidential records) and each release's
    violations in its worst implicate. ``label`` redacts rare levels named in a rule."""
    if result is None:
        return None
    names = list(result.releases)
    rows = []
    for text in result.constraints:
        applies = int(result.data["applies_to"].to_dict()[text])
        breaks = int(result.data["violations"].to_dict()[text])
        cells = [count(applies), count(breaks)]
        for n in names:
            t = result.releases[n]
            worst = int(t.loc[text].to_numpy().max()) if text in t.index else None
            cells.append("–" if worst is None else f"{worst:,}")
        rows.append({"constraint": label(text), "cells": cells})
    return {"header": ["data: applies to", "data: breaks", *names], "rows": rows}
