"""Transforms of a numeric column for its model: applied before fit, inverted after draw.

``Synthesizer(transforms={"income": "log"})`` fits the column's model on the transformed
confidential values and turns every draw back, so ``norm`` (a Normal linear model) on a
right-skewed, positive income gives a positive, right-skewed income (tidysynthesis'
``recipes`` steps; Box & Cox 1964; Yeo & Johnson 2000). The transform is fitted once on
the confidential column (its present values) and applies to the column's own model only:
later columns are fit and drawn with the column on its original scale.

=============  ===============================  =====================  ==================
name           forward ``y = f(x)``              needs                  implemented by
=============  ===============================  =====================  ==================
``log``        ``log(x)``                        ``x > 0``              numpy
``log1p``      ``log(1 + x)``                    ``x > -1``             numpy
``sqrt``       ``sqrt(x)``                       ``x >= 0``             numpy
``boxcox``     ``(x^λ - 1)/λ`` (``log x`` at 0)  ``x > 0``              scikit-learn's
                                                                        ``PowerTransformer``
``yeojohnson`` Yeo–Johnson with ``λ``            any ``x``              scikit-learn's
                                                                        ``PowerTransformer``
=============  ===============================  =====================  ==================

``λ`` is the maximum likelihood estimate (scikit-learn, ``standardize=False``). A model may
draw values outside the transform's image (a Normal draw below ``-1/λ`` for Box–Cox with
``λ > 0``, a negative one for ``sqrt``); they are clipped to the image's closure before
inverting, so every draw maps back into the transform's domain (``sqrt``: ``>= 0``; ``log``:
``> 0``; Box-Cox: ``>= 0``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synthguard.errors import ParameterError

__all__ = ["TRANSFORMS", "ColumnTransform", "fit_transform", "resolve_transforms"]

#: Transform names and what their input must be.
TRANSFORMS: dict[str, str] = {
    "log": "positive",
    "log1p": "greater than -1",
    "sqrt": "non-negative",
    "boxcox": "positive",
    "yeojohnson": "any",
}


@dataclass(frozen=True)
class ColumnTransform:
    """A transform fitted on one confidential column.

    Attributes
    ----------
    column, name : the column and the transform's name (:data:`TRANSFORMS`).
    lambda_ : Box–Cox / Yeo–Johnson parameter (None for the others).
    """

    column: str
    name: str
    lambda_: float | None = None
    _power: Any = field(default=None, repr=False, compare=False)

    def transform(self, x: np.ndarray) -> np.ndarray:
        """``f(x)``; missing values stay missing."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.name == "log":
                return np.log(x)
            if self.name == "log1p":
                return np.log1p(x)
            if self.name == "sqrt":
                return np.sqrt(x)
        return self._apply(x, inverse=False)

    def inverse(self, y: np.ndarray) -> np.ndarray:
        """``f^{-1}(y)`` after clipping ``y`` to the closure of the transform's image."""
        y = np.asarray(y, dtype=float).copy()
        lo, hi = self.image()
        np.clip(y, lo, hi, out=y)
        if self.name == "log":
            return np.exp(y)
        if self.name == "log1p":
            return np.expm1(y)
        if self.name == "sqrt":
            return np.square(y)
        out = self._apply(y, inverse=True)
        return out

    def image(self) -> tuple[float, float]:
        """Bounds of ``f``'s image, just inside an open bound (draws are clipped into them
        before inverting, so the inverse is finite and in the domain)."""
        lam = self.lambda_
        lo, hi = -np.inf, np.inf
        if self.name == "sqrt":
            return 0.0, np.inf
        if self.name == "boxcox" and lam is not None and lam != 0:
            lo, hi = (-1.0 / lam, np.inf) if lam > 0 else (-np.inf, -1.0 / lam)
        elif self.name == "yeojohnson" and lam is not None:
            lo = -1.0 / (lam - 2.0) if lam > 2 else -np.inf
            hi = -1.0 / lam if lam < 0 else np.inf
        if np.isfinite(lo):
            lo = float(np.nextafter(lo, np.inf))
        if np.isfinite(hi):
            hi = float(np.nextafter(hi, -np.inf))
        return lo, hi

    def _apply(self, v: np.ndarray, *, inverse: bool) -> np.ndarray:
        out = np.full(v.shape, np.nan)
        ok = ~np.isnan(v)
        if ok.any():
            col = v[ok].reshape(-1, 1)
            res = self._power.inverse_transform(col) if inverse else self._power.transform(col)
            out[ok] = np.asarray(res, dtype=float).ravel()
        return out

    def to_dict(self) -> dict[str, Any]:
        """For the provenance: the transform and its parameter."""
        return {"transform": self.name, "lambda": self.lambda_}


def fit_transform(column: str, name: str, values: np.ndarray) -> ColumnTransform:
    """Fit transform ``name`` on the confidential ``values`` of ``column`` (NaN ignored).

    Raises
    ------
    ParameterError
        An unknown transform, or values outside its domain (``log`` of zeros or negatives),
        named by column and transform, never by value.
    """
    if name not in TRANSFORMS:
        raise ParameterError(
            f"parameter 'transforms' for column '{column}': unknown transform; use one of "
            f"{', '.join(TRANSFORMS)}"
        )
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    bad = {
        "log": x <= 0, "boxcox": x <= 0, "log1p": x <= -1, "sqrt": x < 0,
    }.get(name)
    if bad is not None and bad.any():
        advice = "use 'yeojohnson', which takes any value" if name != "log" else (
            "use 'log1p' for zeros or 'yeojohnson' for any value")
        raise ParameterError(
            f"parameter 'transforms': column '{column}' holds values outside the domain of "
            f"'{name}' (it needs {TRANSFORMS[name]} values); {advice}"
        )
    if name in ("log", "log1p", "sqrt"):
        return ColumnTransform(column, name)
    if len(x) < 2 or np.ptp(x) == 0:
        raise ParameterError(
            f"parameter 'transforms': column '{column}' takes one value, so '{name}' has "
            f"nothing to fit; drop the transform"
        )
    from sklearn.preprocessing import PowerTransformer

    method = "box-cox" if name == "boxcox" else "yeo-johnson"
    power = PowerTransformer(method=method, standardize=False).fit(x.reshape(-1, 1))
    return ColumnTransform(column, name, float(power.lambdas_[0]), power)


def resolve_transforms(
    spec: Mapping[str, str] | None, numeric: Mapping[str, bool], visit: list[str]
) -> dict[str, str]:
    """Check ``transforms=``: column -> name, numeric synthesized columns only."""
    if spec is None:
        return {}
    if not isinstance(spec, Mapping):
        raise ParameterError(
            "parameter 'transforms': expected a mapping column -> transform, e.g. "
            "{'income': 'log'}"
        )
    out: dict[str, str] = {}
    for column, name in spec.items():
        if column not in visit:
            raise ParameterError(
                f"parameter 'transforms' names column '{column}', which is not synthesized; "
                f"transforms apply to visited numeric columns"
            )
        if not numeric.get(column, False):
            raise ParameterError(
                f"parameter 'transforms': column '{column}' is not numeric; transforms apply "
                f"to numeric columns"
            )
        if not isinstance(name, str) or name not in TRANSFORMS:
            raise ParameterError(
                f"parameter 'transforms' for column '{column}': unknown transform; use one "
                f"of {', '.join(TRANSFORMS)}"
            )
        out[str(column)] = name
    return out
