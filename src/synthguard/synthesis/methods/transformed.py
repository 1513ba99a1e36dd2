"""``lognorm``, ``sqrtnorm``, ``cubertnorm``: ``norm`` on a transformed scale.

A right-skewed positive variable (income, an amount) is closer to Normal after a log, square
or cube root. These methods fit :class:`~synthguard.synthesis.methods.norm.NormMethod` to
``g(y)``, draw on that scale and transform back with ``g^{-1}``, then round to the number of
decimal places the confidential values have (synthpop's ``syn.lognorm``, ``syn.sqrtnorm``,
``syn.cubertnorm``; Nowok, Raab & Dibben 2016).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar

import numpy as np

from synthguard.errors import MethodError
from synthguard.synthesis.methods.norm import MAX_DECIMALS, NormMethod, decimal_places
from synthguard.synthesis.methods.sample import _check_fit_data
from synthguard.synthesis.registry import register_method

__all__ = [
    "MAX_DECIMALS",
    "CubeRootNormMethod",
    "LogNormMethod",
    "SqrtNormMethod",
    "decimal_places",
]

class _TransformedNorm(NormMethod):
    """``norm`` on ``g(y)``; subclasses give ``g`` and its inverse."""

    transform_name: ClassVar[str] = ""

    @abstractmethod
    def _forward(self, y: np.ndarray) -> np.ndarray:
        """The transform g applied to the observed values before ``norm``."""

    @abstractmethod
    def _inverse(self, z: np.ndarray) -> np.ndarray:
        """g⁻¹, applied to the drawn values."""

    def fit(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> _TransformedNorm:
        """Fit ``norm`` to the transformed target."""
        X, y, _ = _check_fit_data(self, X, y)
        self._prepare(y)
        super().fit(X, self._forward(y), weights, rng=rng)
        self.decimals_ = decimal_places(y)
        return self

    def _prepare(self, y: np.ndarray) -> None:
        """Learn what the transform needs from ``y`` (an offset), checking its domain."""

    def draw(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draw on the transformed scale, transform back, round to the data's decimals."""
        out = self._inverse(self.draw_unrounded(X, rng))
        if self.decimals_ is not None:
            out = np.round(out, self.decimals_)
        return out


@register_method("lognorm")
class LogNormMethod(_TransformedNorm):
    """``norm`` on ``log(y + c)``: synthetic ``exp(z) - c``, never below 0.

    ``c = 0`` when every value is positive; with zeros, ``c`` is half the smallest positive
    value (synthpop's rule), and draws below 0 after back-transformation are set to 0.
    Negative values are refused: use ``cubertnorm`` or ``normrank``.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import LogNormMethod
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 1))
    >>> y = np.round(np.exp(1.0 + 0.5 * x[:, 0] + 0.2 * rng.normal(size=300)), 2)
    >>> m = LogNormMethod().fit(x, y)
    >>> round(float(m.coef_[1]), 1), bool((m.draw(x, rng) > 0).all())
    (0.5, True)
    """

    def _prepare(self, y: np.ndarray) -> None:
        if np.any(y < 0):
            raise MethodError(
                f"method '{self.name}': the log transform needs non-negative values; the "
                f"column has negative ones, use 'cubertnorm' or 'normrank'"
            )
        positive = y[y > 0]
        if len(positive) == 0:
            raise MethodError(f"method '{self.name}': the column has no positive values")
        self.offset_ = 0.0 if len(positive) == len(y) else 0.5 * float(positive.min())

    def _forward(self, y: np.ndarray) -> np.ndarray:
        return np.log(y + self.offset_)

    def _inverse(self, z: np.ndarray) -> np.ndarray:
        return np.maximum(np.exp(z) - self.offset_, 0.0)


@register_method("sqrtnorm")
class SqrtNormMethod(_TransformedNorm):
    """``norm`` on ``sqrt(y)``: synthetic ``z^2`` (as synthpop, a negative draw ``z`` squares
    to a positive value). Negative values are refused.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import SqrtNormMethod
    >>> x = np.arange(40.0).reshape(-1, 1)
    >>> y = (1.0 + 0.1 * x[:, 0] + np.tile([-0.05, 0.05], 20)) ** 2
    >>> m = SqrtNormMethod().fit(x, y)
    >>> round(float(m.coef_[1]), 3)
    0.1
    """

    def _prepare(self, y: np.ndarray) -> None:
        if np.any(y < 0):
            raise MethodError(
                f"method '{self.name}': the square root needs non-negative values; the column "
                f"has negative ones, use 'cubertnorm' or 'normrank'"
            )

    def _forward(self, y: np.ndarray) -> np.ndarray:
        return np.sqrt(y)

    def _inverse(self, z: np.ndarray) -> np.ndarray:
        return z**2


@register_method("cubertnorm")
class CubeRootNormMethod(_TransformedNorm):
    """``norm`` on the signed cube root ``sign(y) |y|^(1/3)``: synthetic ``z^3``. Any sign.

    Examples
    --------
    >>> import numpy as np
    >>> from synthguard.synthesis.methods import CubeRootNormMethod
    >>> x = np.arange(40.0).reshape(-1, 1)
    >>> y = (-2.0 + 0.1 * x[:, 0] + np.tile([-0.05, 0.05], 20)) ** 3
    >>> round(float(CubeRootNormMethod().fit(x, y).coef_[1]), 3)
    0.1
    """

    def _forward(self, y: np.ndarray) -> np.ndarray:
        return np.cbrt(y)

    def _inverse(self, z: np.ndarray) -> np.ndarray:
        return z**3
