"""The contract every per-variable synthesis method keeps.

A method models one target column given its predictors. The sequential
synthesizer (``synthguard.synthesis.sequential``) fits it on the confidential
data and then draws synthetic values from the already synthesized predictors
(course exercise 3: fit on confidential, predict from synthetic).

Contract
--------
* ``__init__`` takes keyword-only hyper-parameters and stores them unchanged.
* ``fit(X, y, weights=None, *, rng=None)`` -> ``self``.

  - ``X``: 2-D array of the method's ``design_dtype`` (float64 unless the method declares
    otherwise, see below), ``n x p`` (``p`` may be 0), already encoded by the synthesizer:
    numeric predictors as they are, categorical predictors as 0/1 dummies (first level dropped),
    no intercept column (methods that need one add it).
  - ``y``: 1-D array. Numeric and count targets: float64. Categorical, ordinal and binary
    targets: int64 codes ``0..K-1`` (the synthesizer maps codes back to levels).
  - ``weights``: optional non-negative float64 array of length ``n``: likelihood weights
    (risk weights alpha_i of Hu, Savitsky & Williams, survey weights, or their product).
    A method whose ``supports_weights`` is False raises :class:`~synthguard.errors.MethodError`
    when given weights that are not all equal to one, rather than ignoring them.
  - ``rng``: a ``numpy.random.Generator`` for every random step of the fit (an MCMC chain,
    a random split, a bootstrap). The synthesizer passes each (stratum, column) model its
    own child of the fit generator (``Synthesizer(random_state=...)``), so a fit and hence
    a release depend only on the recorded seeds, never on what was fitted or sampled
    before. A method whose fit is not random ignores it; a method with its own
    ``random_state`` parameter uses that when it is set. ``rng=None`` (a direct caller)
    means fresh randomness. Methods written before ``rng`` existed, whose ``fit`` takes no
    such argument, still work: :func:`fit_method` passes ``rng`` only to a ``fit`` that
    accepts it (a keyword ``rng`` or ``**kwargs``); such a method must then not draw
    random numbers in ``fit``, or its releases do not reproduce.

* ``draw(X, rng)`` -> 1-D array of ``len(X)`` synthetic values (float64 for numeric targets,
  int64 codes for categorical ones). ``rng`` is a ``numpy.random.Generator``. A *proper*
  method draws its parameters from their posterior at every call, so each implicate comes
  from its own posterior draw.

Class attributes: ``name`` (registry name), ``target_kinds`` (``{"numeric", "categorical"}``
or a subset: what the method can synthesize), ``supports_weights``, and ``design_dtype``
(default ``numpy.float64``): the floating type in which the synthesizer builds ``X`` for
this method. A method whose learner works in single precision anyway (``cart``: scikit-learn
trees split on float32 values) declares ``numpy.float32`` and so gets its design at half the
memory and without a float64 copy; the values are the float64 design's rounded to float32,
exactly what such a learner would compute from a float64 ``X``. A method given ``X`` of
another type by a direct caller converts it to its ``design_dtype``.

A method whose class sets ``design_layout = "codes"`` (``cart``) gets instead one column per
categorical predictor holding its codes (``0..L-1``, a missing value coded ``L``) and is fitted
with the keyword ``kinds`` (``"numeric"``, ``"ordinal"`` or ``"nominal"`` per column); after
fitting it records the layout it got in ``layout_``, which the synthesizer uses to build its
designs when drawing.

The synthesizer, not the method, rounds count targets, clips to schema bounds, and handles
missing values, so every method gets complete data.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from synthguard._params import ParamsRepr
from synthguard.errors import MethodError, NotFittedError

__all__ = ["SynthesisMethod", "check_weights", "fit_method"]


def check_weights(method: str, weights: np.ndarray | None, n: int, supports: bool) -> np.ndarray | None:
    """Validate likelihood weights for a method; return them as float64 or None.

    Raises :class:`MethodError` when the method cannot use weights and they are not all one,
    and when they have the wrong length, are negative or not finite.
    """
    if weights is None:
        return None
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,):
        raise MethodError(
            f"method '{method}': weights must have one entry per record ({n}), got shape {w.shape}"
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise MethodError(f"method '{method}': weights must be finite and non-negative")
    if not supports:
        if np.allclose(w, 1.0):
            return None
        raise MethodError(
            f"method '{method}' cannot use likelihood weights; choose a weighted method "
            f"such as 'bayes_norm', 'bayes_mixture' or 'bayes_negbin', or drop the weights"
        )
    return w


class SynthesisMethod(ParamsRepr, ABC):
    """Base class of per-variable synthesis methods (see the module docstring)."""

    name: ClassVar[str] = ""
    target_kinds: ClassVar[frozenset[str]] = frozenset({"numeric", "categorical"})
    supports_weights: ClassVar[bool] = False
    design_dtype: ClassVar[type[np.floating[Any]]] = np.float64
    design_layout: ClassVar[str] = "dummies"

    def get_params(self) -> dict[str, Any]:
        """The constructor parameters (for provenance and saving)."""
        return {k: v for k, v in vars(self).items() if not k.endswith("_") and not k.startswith("_")}

    @abstractmethod
    def fit(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        rng: np.random.Generator | None = None,
    ) -> SynthesisMethod:
        """Fit on confidential predictors ``X`` and target ``y`` with the generator ``rng``
        (None: fresh randomness); return ``self``."""

    @abstractmethod
    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw one synthetic value per row of ``X``."""

    def _check_fitted(self, attr: str) -> None:
        if not hasattr(self, attr):
            raise NotFittedError(
                f"method '{self.name}' is not fitted; call fit(X, y) before draw(X, rng)"
            )


@functools.lru_cache(maxsize=256)
def _fit_takes_rng(fit: Any) -> bool:
    """Whether the function ``fit`` accepts a keyword ``rng`` (by name or ``**kwargs``)."""
    try:
        params = inspect.signature(fit).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - a fit without a signature
        return False
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        or (p.name == "rng" and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        for p in params
    )


def fit_method(
    method: SynthesisMethod,
    X: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray | None = None,
    *,
    rng: np.random.Generator | None = None,
    **options: Any,
) -> SynthesisMethod:
    """``method.fit(X, y, weights=weights, rng=rng)``; without ``rng`` for a method whose
    ``fit`` predates it (see the module docstring). Returns what ``fit`` returns.
    ``options`` (e.g. ``kinds`` for a ``design_layout = "codes"`` method) are passed on."""
    if _fit_takes_rng(getattr(type(method), "fit", None)):
        return method.fit(X, y, weights=weights, rng=rng, **options)
    return method.fit(X, y, weights=weights, **options)
