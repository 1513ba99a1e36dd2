"""The SDC steps plans and the command line can apply: one registry, read by a plan's
``method: sdc`` / ``steps:``, ``synthguard protect --step`` and Python alike.

A step is a function ``(data, ..., random_state=None) -> ProtectedData`` that never mutates
``data``. A step of another package is added with :func:`register_sdc_step`; it then
validates and runs in plans and on the command line with no other edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synthguard._registry import Registry
from synthguard.errors import ParameterError
from synthguard.sdc.generalize import generalize
from synthguard.sdc.noise import add_noise
from synthguard.sdc.pram import pram
from synthguard.sdc.sample import subsample
from synthguard.sdc.suppress import suppress
from synthguard.sdc.swap import swap
from synthguard.sdc.topcode import bottomcode, topcode

__all__ = ["SDC_STEPS", "get_sdc_step", "register_sdc_step"]


def _check_step(name: str, fn: Any) -> None:
    if not callable(fn):
        raise ParameterError(f"register_sdc_step('{name}'): 'fn' must be callable")


#: name -> step function: the functions of :mod:`synthguard.sdc` that protect records (not
#: ``suppress_cells``, which protects a frequency table, nor the helpers
#: ``invariant_transition_matrix`` and ``pram_frequencies``). Other packages add theirs with
#: :func:`register_sdc_step` from a module named under the entry-point group
#: ``synthguard.sdc_steps``. A :class:`~synthguard._registry.Registry`: ``SDC_STEPS.get(name)``
#: raises a ParameterError listing the steps (``SDC_STEPS.get(name, None)``: None).
SDC_STEPS: Registry[Callable[..., Any]] = Registry(
    "SDC step", entry_point_group="synthguard.sdc_steps", check=_check_step,
)
for _name, _fn in (
    ("add_noise", add_noise),
    ("bottomcode", bottomcode),
    ("generalize", generalize),
    ("pram", pram),
    ("subsample", subsample),
    ("suppress", suppress),
    ("swap", swap),
    ("topcode", topcode),
):
    SDC_STEPS.register(_name, _fn)


def register_sdc_step(name: str, fn: Callable[..., Any], *, overwrite: bool = False) -> None:
    """Add an SDC step under ``name`` for plans and ``synthguard protect --step``."""
    SDC_STEPS.register(name, fn, overwrite=overwrite)


def get_sdc_step(name: str) -> Callable[..., Any]:
    """The step registered as ``name``; a ParameterError listing the steps otherwise."""
    return SDC_STEPS.get(name)
