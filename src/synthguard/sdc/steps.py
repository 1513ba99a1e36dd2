"""The SDC steps plans and the command line can apply: one registry, read by a plan's
``method: sdc`` / ``steps:``, ``synthguard protect --step`` and Python alike.

A step is a function ``(data, ..., random_state=None) -> ProtectedData`` that never mutates
``data``. A step of another package is added with :func:`register_sdc_step`; it then
validates and runs in plans and on the command line with no other edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synthguard.errors import ParameterError
from synthguard.sdc.generalize import generalize
from synthguard.sdc.noise import add_noise
from synthguard.sdc.pram import pram
from synthguard.sdc.sample import subsample
from synthguard.sdc.suppress import suppress
from synthguard.sdc.swap import swap
from synthguard.sdc.topcode import bottomcode, topcode

__all__ = ["SDC_STEPS", "register_sdc_step"]

#: name -> step function: the functions of :mod:`synthguard.sdc` that protect records (not
#: ``suppress_cells``, which protects a frequency table, nor the helpers
#: ``invariant_transition_matrix`` and ``pram_frequencies``).
SDC_STEPS: dict[str, Callable[..., Any]] = {
    "add_noise": add_noise,
    "bottomcode": bottomcode,
    "generalize": generalize,
    "pram": pram,
    "subsample": subsample,
    "suppress": suppress,
    "swap": swap,
    "topcode": topcode,
}


def register_sdc_step(name: str, fn: Callable[..., Any], *, overwrite: bool = False) -> None:
    """Add an SDC step under ``name`` for plans and ``synthguard protect --step``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ParameterError("register_sdc_step: 'name' must be a simple name, e.g. 'topcode'")
    if not callable(fn):
        raise ParameterError(f"register_sdc_step('{name}'): 'fn' must be callable")
    if name in SDC_STEPS and not overwrite:
        raise ParameterError(
            f"SDC step '{name}' is already registered; pass overwrite=True to replace it"
        )
    SDC_STEPS[name] = fn
