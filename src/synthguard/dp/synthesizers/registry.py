"""The DP synthesizers plans and the command line can name: one registry, read by
``synthguard dp synthesize --method``, a plan's ``method: dp`` / ``synthesizer:`` and
Python alike.

A synthesizer of another package is added with :func:`register_dp_synthesizer`; it then
appears in the CLI's ``--method`` choices and in plans with no other edit. The command line
passes it the options its ``__init__`` declares (``delta``, ``workload``, ``groups``, ...).
"""

from __future__ import annotations

from typing import Any

from synthguard._registry import Registry
from synthguard.dp.synthesizers.aim import AIMSynthesizer
from synthguard.dp.synthesizers.dpsgd import DPSGDSynthesizer
from synthguard.dp.synthesizers.fieldgroups import FieldGroupsSynthesizer
from synthguard.dp.synthesizers.mst import MSTSynthesizer
from synthguard.dp.synthesizers.stratified import StratifiedSynthesizer
from synthguard.errors import ParameterError

__all__ = ["DP_SYNTHESIZERS", "get_dp_synthesizer", "register_dp_synthesizer"]


def _check_class(name: str, cls: Any) -> None:
    if not isinstance(cls, type):
        raise ParameterError(f"register_dp_synthesizer('{name}'): 'cls' must be a class")


#: name -> DP synthesizer class (keyword-only ``epsilon``, ``fit(data)``, ``sample(n, m,
#: random_state)``), in the order the command line lists them. Other packages add theirs with
#: :func:`register_dp_synthesizer` from a module named under the entry-point group
#: ``synthguard.dp_synthesizers``.
DP_SYNTHESIZERS: Registry[type[Any]] = Registry(
    "DP synthesizer", entry_point_group="synthguard.dp_synthesizers", check=_check_class,
)
for _name, _cls in (
    ("mst", MSTSynthesizer),
    ("aim", AIMSynthesizer),
    ("stratified", StratifiedSynthesizer),
    ("fieldgroups", FieldGroupsSynthesizer),
    # Opacus and PyTorch are imported inside its fit (optional extra synthguard[dpsgd])
    ("dpsgd", DPSGDSynthesizer),
):
    DP_SYNTHESIZERS.register(_name, _cls)


def register_dp_synthesizer(name: str, cls: type[Any], *, overwrite: bool = False) -> None:
    """Add a DP synthesizer under ``name`` for plans and ``synthguard dp synthesize``."""
    DP_SYNTHESIZERS.register(name, cls, overwrite=overwrite)


def get_dp_synthesizer(name: str) -> type[Any]:
    """The class registered as ``name``; a ParameterError listing the choices otherwise."""
    return DP_SYNTHESIZERS.get(name)
