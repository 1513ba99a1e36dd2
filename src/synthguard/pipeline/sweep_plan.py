"""A plan's ``sweep:``: its validation, and ``synthguard run``'s refusal of a swept release.

A ``synthesis`` release may declare ``sweep:``, a mapping of :class:`~synthguard.Synthesizer`
parameter to the list of values to try (``synthguard sweep``; :mod:`synthguard.pipeline.
sweep_run`). The plan's validation calls :func:`check_sweep`; :func:`refuse_sweeps` stops
``synthguard run`` before anything is made.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from synthguard.errors import PlanError

__all__ = ["check_sweep", "refuse_sweeps"]

#: Synthesizer parameters a plan's sweep may not set (the pipeline does).
_RESERVED = ("random_state", "schema")


def check_sweep(params: Mapping[str, Any], accepted: set[str],
                add: Callable[[tuple[Any, ...], str], None]) -> None:
    """Validate a synthesis release's ``sweep:`` (called by the plan's validation; ``add(path,
    message)`` records a problem at ``path`` below the release)."""
    grid = params.get("sweep")
    if not isinstance(grid, Mapping) or not grid:
        add(("sweep",), "expected a mapping of synthesizer parameter to the list of values to "
                        "try, e.g. {rare_values: [0, 5], extremes: [0, 5]}")
        return
    for k, v in grid.items():
        if k in _RESERVED:
            add(("sweep", k), "set by the pipeline; remove it from the sweep")
        elif k == "start" or k not in accepted:
            add(("sweep", k), f"unknown parameter of Synthesizer; accepted: "
                              f"{', '.join(sorted(accepted - set(_RESERVED)))}")
        elif k in params:
            add(("sweep", k), "also given as the release's own parameter; give it in one place")
        elif isinstance(v, list) and not v:
            add(("sweep", k), "expected at least one value to try")


def refuse_sweeps(plan: Any) -> None:
    """``synthguard run`` makes each release once: a swept release needs ``synthguard sweep``."""
    swept = [s for s in plan.releases if "sweep" in s.params]
    if swept:
        raise PlanError(f"{plan.where('releases.' + swept[0].name + '.sweep')}: release "
                        f"'{swept[0].name}' declares a sweep; run the plan with `synthguard "
                        f"sweep PLAN` (it tries every setting and releases the one the gate "
                        f"picks), or remove 'sweep'")
