"""Methods that read their predictors by name (``passive``, ``nested``).

Most methods see their predictors as a design matrix (dummies, no names). A column defined by
a formula of others, or nested within another, needs the predictors *by name and value*: such
a method subclasses :class:`ColumnsMethod` and gets, in ``fit`` and ``draw``, a
:class:`pandas.DataFrame` of its predictors instead of a design matrix:

* categorical, ordinal and binary predictors as a pandas ``Categorical`` of the schema's
  levels (missing as a missing value);
* numeric and count predictors as float64 (missing as NaN).

The target ``y`` is as in every method's contract (float64 values, int64 codes ``0..K-1``),
except that a numeric target may hold NaN (missing values): a ``ColumnsMethod`` reproduces
missing values itself, so the synthesizer models no missingness indicator for it.

The sequential synthesizer recognises these methods by ``reads_columns = True`` and builds
the frame with :func:`predictor_frame` from its working arrays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import SynthesisMethod

__all__ = ["ColumnsMethod", "GroupKeys", "predictor_frame", "reads_columns", "split_names"]


def reads_columns(method: Any) -> bool:
    """Whether ``method`` takes its predictors as a named frame (a :class:`ColumnsMethod`)."""
    return bool(getattr(type(method), "reads_columns", False))


def predictor_frame(
    arrays: Mapping[str, np.ndarray],
    columns: Sequence[str],
    schema: Mapping[str, Any],
    n: int,
    rows: np.ndarray | None = None,
) -> pd.DataFrame:
    """The predictors ``columns`` of the working ``arrays`` as a frame of ``n`` rows (the
    rows ``rows``; None: all): categorical columns as ``Categorical`` of the schema's levels,
    numbers as float64."""
    out: dict[str, Any] = {}
    for c in columns:
        a = arrays[c] if rows is None else arrays[c][rows]
        col = schema[c]
        if col.is_categorical:
            out[c] = pd.Categorical.from_codes(
                np.asarray(a, dtype=np.int64), categories=pd.Index(list(col.levels or ()))
            )
        else:
            out[c] = np.asarray(a, dtype=np.float64)
    return pd.DataFrame(out, index=pd.RangeIndex(n))


class ColumnsMethod(SynthesisMethod):
    """Base class of methods that read their predictors by name (see the module docstring)."""

    reads_columns: ClassVar[bool] = True

    def _check_frame(self, X: Any, needed: Sequence[str], target: str | None = None) -> pd.DataFrame:
        if not isinstance(X, pd.DataFrame):
            raise MethodError(
                f"method '{self.name}' reads its predictors by name: pass a pandas DataFrame "
                f"of the predictor columns (the Synthesizer does so)"
            )
        missing = [c for c in needed if c not in X.columns]
        if missing:
            where = f"column '{target}': " if target else ""
            raise MethodError(
                f"{where}method '{self.name}' reads {', '.join(repr(c) for c in missing)}, "
                f"which must be kept or synthesized before it (check 'visit_sequence' and "
                f"'predictor_matrix')"
            )
        return X


def split_names(value: Any, option: str, method: str) -> list[str]:
    """Column names given as a list or as text joined by ``+`` or ``,`` (``"a+b"``)."""
    if value is None:
        return []
    if isinstance(value, str | int | float):
        names = [p.strip() for p in str(value).replace(",", "+").split("+")]
    else:
        try:
            names = [str(p) for p in value]
        except TypeError:
            names = []
    if not names or not all(names):
        raise MethodError(
            f"method '{method}': option '{option}' expects column names, e.g. '{option}=a' or "
            f"'{option}=a+b'"
        )
    return names


class GroupKeys:
    """Integer keys of the value combinations of some columns, stable between fit and draw.

    Built on the fitting frame: a categorical column contributes its code (schema levels, so
    the same in every frame), a numeric column the position of its value among the values
    seen in fit (NaN one value). A combination containing a value never seen in fit gets key
    -1. Keys combine the columns by a mixed radix.
    """

    def __init__(self, X: pd.DataFrame, names: Sequence[str]) -> None:
        self.names = list(names)
        self.vocab: dict[str, np.ndarray | None] = {}
        self.radix: dict[str, int] = {}
        for c in self.names:
            s = X[c]
            if isinstance(s.dtype, pd.CategoricalDtype):
                self.vocab[c] = None
                self.radix[c] = len(s.cat.categories) + 1
            else:
                v = s.to_numpy(dtype=np.float64)
                u = np.unique(v[~np.isnan(v)])
                self.vocab[c] = u
                self.radix[c] = len(u) + 1
        if float(np.prod([float(r) for r in self.radix.values()])) >= 2.0**62:
            raise MethodError(
                f"columns {', '.join(self.names)} take too many value combinations to be used "
                f"as a lookup key; use fewer columns"
            )

    def __call__(self, X: pd.DataFrame) -> np.ndarray:
        key = np.zeros(len(X), dtype=np.int64)
        unseen = np.zeros(len(X), dtype=bool)
        for c in self.names:
            s = X[c]
            vocab = self.vocab[c]
            if vocab is None:
                codes = np.asarray(s.cat.codes, dtype=np.int64) + 1
            else:
                v = s.to_numpy(dtype=np.float64)
                pos = np.searchsorted(vocab, v)
                pos = np.minimum(pos, max(len(vocab) - 1, 0))
                nan = np.isnan(v)
                hit = (vocab[pos] == v) if len(vocab) else np.zeros(len(v), dtype=bool)
                unseen |= ~hit & ~nan
                codes = np.where(nan, 0, pos + 1)
            key = key * self.radix[c] + codes
        key[unseen] = -1
        return key
