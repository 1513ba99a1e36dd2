"""The DP synthesizers plans and the command line can name: one registry, read by
``synthguard dp synthesize --method``, a plan's ``method: dp`` / ``synthesizer:`` and
Python alike.

A synthesizer of another package is added with :func:`register_dp_synthesizer`; it then
appears in the CLI's ``--method`` choices and in plans with no other edit. The command line
passes it the options its ``__init__`` declares (``delta``, ``workload``, ``groups``, ...).
"""

from __future__ import annotations

from typing import Any

from synthguard.dp.synthesizers.aim import AIMSynthesizer
from synthguard.dp.synthesizers.fieldgroups import FieldGroupsSynthesizer
from synthguard.dp.synthesizers.mst import MSTSynthesizer
from synthguard.dp.synthesizers.stratified import StratifiedSynthesizer
from synthguard.errors import ParameterError

__all__ = ["DP_SYNTHESIZERS", "get_dp_synthesizer", "register_dp_synthesizer"]

#: name -> DP synthesizer class (keyword-only ``epsilon``, ``fit(data)``, ``sample(n, m,
#: random_state)``), in the order the command line lists them.
DP_SYNTHESIZERS: dict[str, type[Any]] = {
    "mst": MSTSynthesizer,
    "aim": AIMSynthesizer,
    "stratified": StratifiedSynthesizer,
    "fieldgroups": FieldGroupsSynthesizer,
}


def register_dp_synthesizer(name: str, cls: type[Any], *, overwrite: bool = False) -> None:
    """Add a DP synthesizer under ``name`` for plans and ``synthguard dp synthesize``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ParameterError("register_dp_synthesizer: 'name' must be a simple name, e.g. 'mst'")
    if not isinstance(cls, type):
        raise ParameterError(f"register_dp_synthesizer('{name}'): 'cls' must be a class")
    if name in DP_SYNTHESIZERS and not overwrite:
        raise ParameterError(
            f"DP synthesizer '{name}' is already registered; pass overwrite=True to replace it"
        )
    DP_SYNTHESIZERS[name] = cls


def get_dp_synthesizer(name: str) -> type[Any]:
    """The class registered as ``name``."""
    try:
        return DP_SYNTHESIZERS[name]
    except KeyError:
        raise ParameterError(
            f"unknown DP synthesizer '{name}'; expected one of {', '.join(DP_SYNTHESIZERS)}"
        ) from None
