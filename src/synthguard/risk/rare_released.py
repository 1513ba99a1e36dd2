"""Rare values and tail values a release hands back: what ``rare_values`` and ``extremes`` change.

A value held by fewer than ``k`` confidential records (a one-record level, an income held by one
person) isolates them: a one-column query ``x == v`` written from the release matches fewer than
``k`` confidential records. So does a value beyond the data's ``k``-record tails: ``x >= v``
matches at most ``k`` records when ``v`` is above the ``(k+1)``-th largest value (anonymeter's
univariate singling-out queries, Giomi et al. 2023). The synthesizer's safeguards keep both out
of a release (:mod:`synthguard.synthesis.rare_values`, ``rare_values=5``; the tail coding of
:func:`synthguard.synthesis.safeguards.tail_thresholds`, ``extremes=5``); this measures, without
the synthesizer, how much of a release still holds them:

* ``rare_values``: the share of released cells (over every implicate and shared column) whose
  value is held by at least 1 and fewer than ``k`` confidential records (exact equality;
  missing values are not values);
* ``extremes``: the share of released numeric cells beyond the data's ``k``-record tails: above
  ``u = x_(n-k)`` (the ``(k+1)``-th largest confidential value) when the largest value exceeds
  it, or below ``l = x_(k+1)`` (the ``(k+1)``-th smallest) when the smallest is below it; the
  same ``u`` and ``l`` as :func:`~synthguard.synthesis.safeguards.tail_thresholds`, which codes
  at round numbers inside them.

Shares only: no value, no count, is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["RareReleased", "rare_released"]


@dataclass(frozen=True)
class RareReleased:
    """Shares of released cells holding a rare value, and of numeric cells past a tail."""

    rare_values: float
    extremes: float
    k: int


def _is_numeric(s: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(s)) and not pd.api.types.is_bool_dtype(s)


def rare_released(conf: pd.DataFrame, implicates: Sequence[pd.DataFrame], *,
                  k: int = 5) -> RareReleased:
    """The shares of the module docstring, over the columns every implicate shares with
    ``conf``, for values held by fewer than ``k`` records (``k >= 2``)."""
    cols = [c for c in conf.columns if all(c in df.columns for df in implicates)]
    n_cells = n_rare = n_num = n_tail = 0
    for c in cols:
        x = conf[c].dropna()
        counts = x.value_counts()
        rare = counts.index[(counts >= 1) & (counts < k)]
        numeric = _is_numeric(conf[c])
        lo = hi = None
        if numeric and len(x) > k:
            v = np.sort(x.to_numpy(dtype=float))
            u, low = float(v[len(v) - k - 1]), float(v[k])
            hi = u if v[-1] > u else None
            lo = low if v[0] < low else None
        for df in implicates:
            r = df[c]
            n_cells += len(r)
            if len(rare):
                if numeric:
                    vals = pd.to_numeric(r, errors="coerce").to_numpy(dtype=float)
                    n_rare += int(np.isin(vals, np.asarray(rare, dtype=float)).sum())
                else:
                    n_rare += int(r.astype(object).isin(set(rare)).sum())
            if numeric:
                vals = pd.to_numeric(r, errors="coerce").to_numpy(dtype=float)
                n_num += len(vals)
                with np.errstate(invalid="ignore"):
                    if hi is not None:
                        n_tail += int(np.sum(vals > hi))
                    if lo is not None:
                        n_tail += int(np.sum(vals < lo))
    return RareReleased(rare_values=n_rare / n_cells if n_cells else 0.0,
                        extremes=n_tail / n_num if n_num else 0.0, k=int(k))
