"""The release makers a plan's ``method:`` can name: one registry of small declarations.

A :class:`ReleaseMaker` says, for one release method, how the release is made (``make``),
which class or function the plan's parameters are checked against (``calls``) and which
parameters the pipeline sets itself (``reserved``). Plan validation reads ``calls`` and
``reserved``; :func:`synthguard.pipeline.makers.make_release` calls ``make``. The built-ins
(``synthesis``, ``risk_weighted``, ``sdc``, ``dp``, ``dp_tables``) are declared in
:mod:`synthguard.pipeline.makers`, imported on first use; other packages add theirs with
:func:`synthguard.pipeline.register_maker` from a module named under the entry-point group
``synthguard.makers``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from synthguard._registry import Registry
from synthguard.errors import PlanError

__all__ = ["MAKERS", "ReleaseMaker"]


@dataclass(frozen=True)
class ReleaseMaker:
    """One release method of plans.

    ``make(spec, data, schema, plan, rng, ledger)`` returns the release; ``calls`` is the
    class or function whose signature the plan's parameters are checked against (None: found
    from the parameters, as ``dp`` finds its synthesizer); ``reserved`` the parameters the
    pipeline sets itself (a plan may not).
    """

    make: Callable[..., Any]
    calls: Any = None
    reserved: tuple[str, ...] = ()


def _check_maker(name: str, obj: Any) -> None:
    if not isinstance(obj, ReleaseMaker) or not callable(obj.make):
        raise PlanError(f"release method '{name}': register a ReleaseMaker with a callable "
                        "'make' (synthguard.pipeline.register_maker does)")


#: method -> :class:`ReleaseMaker`, in the order plans' messages list them.
MAKERS: Registry[ReleaseMaker] = Registry(
    "release method",
    entry_point_group="synthguard.makers",
    builtins=("synthguard.pipeline.makers",),
    check=_check_maker,
    error=PlanError,
)
