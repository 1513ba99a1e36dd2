"""The DP mechanisms, one registry: each declared once with how to call it on a count.

A :class:`Mechanism` holds the public function (:func:`~synthguard.dp.mechanisms.laplace`,
...) and ``apply``, the one calling convention every mechanism shares so that a common test
(and a plug-in's user) can run any of them the same way::

    apply(values, *, epsilon, delta, random_state) -> numpy array

``values`` are integer answers of a query of sensitivity 1 (or, for a local mechanism, each
respondent's category code 0 or 1); each element is released independently. Neighbouring
inputs are two values differing by one, so for every set S of outputs a mechanism with the
declared ``epsilon`` and ``delta`` satisfies P(M(1) ∈ S) ≤ e^ε P(M(0) ∈ S) + δ and the same
with 0 and 1 exchanged (Dwork & Roth 2014, Def. 2.4; for local mechanisms, ε-LDP: Kasiviswanathan
et al. 2011). ``guarantee`` says which kind holds: ``"pure"`` (δ = 0), ``"approximate"``
((ε, δ)-DP; the discrete Gaussian's ρ-zCDP is converted to it) or ``"local"`` (ε-LDP).

Other packages add a mechanism with :func:`register_dp_mechanism` from a module named under
the entry-point group ``synthguard.dp_mechanisms``; the common tests then check its empirical
privacy loss with no other edit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from synthguard._random import RandomState
from synthguard._registry import Registry
from synthguard.dp.mechanisms import discrete_gaussian, discrete_laplace, gaussian, laplace
from synthguard.dp.randomized_response import randomized_response
from synthguard.errors import ParameterError

__all__ = ["DP_MECHANISMS", "GUARANTEES", "Mechanism", "get_dp_mechanism", "register_dp_mechanism"]

#: the kinds of guarantee a mechanism declares
GUARANTEES = ("pure", "approximate", "local")


@dataclass(frozen=True)
class Mechanism:
    """One DP mechanism: its public ``function``, the shared ``apply`` convention (see the
    module), its ``guarantee`` (one of :data:`GUARANTEES`) and its ``output`` kind
    (``"real"``, ``"integer"`` or ``"category"``)."""

    function: Callable[..., Any]
    apply: Callable[..., np.ndarray]
    guarantee: str
    output: str


def _check_mechanism(name: str, obj: Any) -> None:
    if not isinstance(obj, Mechanism) or not callable(obj.apply):
        raise ParameterError(f"DP mechanism '{name}': register a Mechanism with a callable "
                             "'apply(values, *, epsilon, delta, random_state)'")
    if obj.guarantee not in GUARANTEES:
        raise ParameterError(f"DP mechanism '{name}': 'guarantee' must be one of "
                             f"{', '.join(GUARANTEES)}")


#: name -> :class:`Mechanism`.
DP_MECHANISMS: Registry[Mechanism] = Registry(
    "DP mechanism", entry_point_group="synthguard.dp_mechanisms", check=_check_mechanism,
)


def register_dp_mechanism(name: str, mechanism: Mechanism, *, overwrite: bool = False) -> None:
    """Add a DP mechanism under ``name`` (it is then in :data:`DP_MECHANISMS` and the common
    tests)."""
    DP_MECHANISMS.register(name, mechanism, overwrite=overwrite)


def get_dp_mechanism(name: str) -> Mechanism:
    """The mechanism registered as ``name``; a ParameterError listing the choices otherwise."""
    return DP_MECHANISMS.get(name)


def _as_array(value: Any) -> np.ndarray:
    return np.asarray(value).reshape(-1)


# -- the built-ins: each apply releases every element of ``values`` with sensitivity 1 --------
def _laplace(values: Any, *, epsilon: float, delta: float = 0.0,
             random_state: RandomState = None) -> np.ndarray:
    return _as_array(laplace(np.asarray(values, dtype=float), 1.0, epsilon, random_state))


def _discrete_laplace(values: Any, *, epsilon: float, delta: float = 0.0,
                      random_state: RandomState = None) -> np.ndarray:
    return _as_array(discrete_laplace(np.asarray(values), 1.0, epsilon, random_state))


def _gaussian(values: Any, *, epsilon: float, delta: float,
              random_state: RandomState = None) -> np.ndarray:
    return _as_array(gaussian(np.asarray(values, dtype=float), 1.0, epsilon, delta, random_state))


def _classic_gaussian(values: Any, *, epsilon: float, delta: float,
                      random_state: RandomState = None) -> np.ndarray:
    return _as_array(gaussian(np.asarray(values, dtype=float), 1.0, epsilon, delta, random_state,
                              analytic=False))


def _discrete_gaussian(values: Any, *, epsilon: float, delta: float,
                       random_state: RandomState = None) -> np.ndarray:
    return _as_array(discrete_gaussian(np.asarray(values), 1.0, epsilon=epsilon, delta=delta,
                                       random_state=random_state))


def _randomized_response(values: Any, *, epsilon: float, delta: float = 0.0,
                         random_state: RandomState = None) -> np.ndarray:
    return _as_array(randomized_response(np.asarray(values), epsilon=epsilon, categories=[0, 1],
                                         random_state=random_state)).astype(np.int64)


for _name, _mechanism in (
    ("laplace", Mechanism(laplace, _laplace, "pure", "real")),
    ("discrete_laplace", Mechanism(discrete_laplace, _discrete_laplace, "pure", "integer")),
    ("gaussian", Mechanism(gaussian, _gaussian, "approximate", "real")),
    ("classic_gaussian", Mechanism(gaussian, _classic_gaussian, "approximate", "real")),
    ("discrete_gaussian", Mechanism(discrete_gaussian, _discrete_gaussian, "approximate",
                                    "integer")),
    ("randomized_response", Mechanism(randomized_response, _randomized_response, "local",
                                      "category")),
):
    DP_MECHANISMS.register(_name, _mechanism)
