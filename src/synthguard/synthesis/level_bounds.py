"""Bounded work on any column: categorical columns with more levels than a model can take.

A model's cost grows with the levels of a categorical column: a classification tree keeps a
class distribution per node and its draw a probability per class and record (``n x k``
floats), a regression a coefficient per level, and a tree's within-leaf adjustment and every
``"dummies"`` design one indicator column per level (``n x k``). A 100,000-level text column
of a 170 MB file made ``synthesize`` grow to 9.2 GB without a word; a 20,000-row file with a
15,000-level column reached 8.6 GB in two minutes. So, before anything is fitted
(:func:`synthguard.synthesis.params.resolve_plan`, which every route to a
:class:`~synthguard.synthesis.Synthesizer` goes through: ``synthesize``, ``run`` and plans,
sweeps, the Dask backend), a categorical column with more than :data:`MAX_MODEL_LEVELS`
distinct values in the data (the bound ``evaluate``'s pMSE and record distances use,
:data:`synthguard.risk._encoding.MAX_LEVELS`) is

* **as a target** of a method that models its levels (every method but ``sample``, which draws
  the column's marginal, and the methods that look values up, ``passive`` and ``nested``):
  refused with a :class:`~synthguard.errors.MethodError` naming the column, its number of
  levels and the method, and saying what to do (``sample``, group the levels, drop it);
* **as a predictor** in the default predictor matrix: left out of the other columns'
  predictors, with an :class:`~synthguard.errors.InputWarning` naming it (the documented
  fallback: the other columns are synthesized without their relation to it). Named in a
  ``predictor_matrix`` you gave: refused, naming the target and the predictor.

Counting the levels is one ``nunique`` per categorical column: O(n), before any model.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd

from synthguard.data.schema import Schema
from synthguard.errors import InputWarning, MethodError
from synthguard.synthesis.engine import ColumnSpec
from synthguard.synthesis.methods.columns import reads_columns

__all__ = ["LEVEL_FREE_METHODS", "MAX_MODEL_LEVELS", "bound_predictors", "check_wide_targets",
           "warn_left_out", "wide_columns"]

#: Most distinct values of a categorical column a model takes as target or predictor.
MAX_MODEL_LEVELS = 1000
#: Methods whose cost does not grow with the target's levels (they model none).
LEVEL_FREE_METHODS = frozenset({"sample"})


def wide_columns(data: pd.DataFrame, schema: Schema, columns: list[str],
                 limit: int = MAX_MODEL_LEVELS) -> dict[str, int]:
    """Categorical ``columns`` with more than ``limit`` distinct values in ``data``, with
    their number of values (missing values not counted)."""
    out: dict[str, int] = {}
    for c in dict.fromkeys(columns):
        if schema[c].is_categorical:
            k = int(data[c].nunique(dropna=True))
            if k > limit:
                out[c] = k
    return out


def _given_targets(pm: Any) -> set[str]:
    if isinstance(pm, pd.DataFrame):
        return {str(t) for t in pm.index}
    if isinstance(pm, Mapping):
        return {str(t) for t in pm}
    return set()


def bound_predictors(predictors: dict[str, list[str]], wide: Mapping[str, int],
                     predictor_matrix: Any) -> tuple[dict[str, list[str]], list[str]]:
    """The predictor matrix without the ``wide`` columns, and the columns left out: left out
    where the default put them (:func:`warn_left_out` says so), refused where
    ``predictor_matrix`` names them."""
    if not wide:
        return predictors, []
    given = _given_targets(predictor_matrix)
    refused = [f"predictor '{p}' of '{t}' has {wide[p]:,} levels, more than the "
               f"{MAX_MODEL_LEVELS:,} a model takes; leave it out of predictor_matrix['{t}'] "
               f"or group its levels"
               for t, preds in predictors.items() if t in given for p in preds if p in wide]
    if refused:
        raise MethodError(_listed("columns with too many levels for a model", refused))
    out = {t: [p for p in preds if p not in wide] if t not in given else preds
           for t, preds in predictors.items()}
    left = sorted({p for t, preds in predictors.items() if t not in given
                   for p in preds if p in wide})
    return out, left


def warn_left_out(left: list[str], wide: Mapping[str, int]) -> None:
    """One :class:`~synthguard.errors.InputWarning` naming the columns left out of the
    default predictors (after the targets were checked: a refused fit warns of nothing)."""
    if left:
        what = ", ".join(f"'{c}' ({wide[c]:,} levels)" for c in left)
        warnings.warn(
            f"column(s) {what}: more than {MAX_MODEL_LEVELS:,} levels, too many for a model: "
            f"left out of the other columns' predictors, so their relation to it is not "
            f"synthesized; group the levels to keep it (see synthguard.synthesis.level_bounds)",
            InputWarning, stacklevel=5,
        )


def check_wide_targets(specs: list[ColumnSpec], wide: Mapping[str, int]) -> None:
    """Refuse, in one :class:`~synthguard.errors.MethodError`, every ``wide`` column that a
    method modelling its levels would synthesize."""
    problems = []
    for sp in specs:
        if sp.target not in wide or reads_columns(sp.method):
            continue
        name = getattr(sp.method, "name", None) or type(sp.method).__name__
        if name in LEVEL_FREE_METHODS:
            continue
        problems.append(
            f"column '{sp.target}' has {wide[sp.target]:,} levels, more than the "
            f"{MAX_MODEL_LEVELS:,} method '{name}' can model (its fit grows with the levels); "
            f"synthesize it with 'sample' (methods={{'{sp.target}': 'sample'}}; command line: "
            f"--method {sp.target}=sample), group its levels, or drop it (--drop "
            f"{sp.target})"
        )
    if problems:
        raise MethodError(_listed("columns with too many levels for their method", problems))


def _listed(head: str, problems: list[str]) -> str:
    return head + ":\n" + "\n".join(f"  - {p}" for p in problems)
