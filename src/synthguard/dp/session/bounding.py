"""Contribution bounding: the session, never the user, cuts each unit down to its bounds.

Seeded random truncation (Wilson et al. 2020, §3 "bounding user contribution"): the rows are
put in a random order drawn from ``random_state``, then for each unit

1. its groups of the query are ranked at random and only the first ``G = max_groups`` kept;
2. in each kept group only the first ``Rg = max_rows_per_group`` rows are kept;
3. of what is left only the first ``R = max_rows`` rows are kept.

Each unit's kept rows depend only on its own rows and the random order, so the bounding is
stable: adding or removing one unit changes the bounded data by that unit's kept rows alone,
at most R rows in at most G groups with at most Rg in one (see
:mod:`synthguard.dp.session.unit`). Random rather than first-rows truncation keeps the
kept rows a random sample of the unit's, so bounded statistics are not biased towards
whatever order the file has.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from synthguard.dp.session.unit import PrivacyUnit

__all__ = ["bound"]

_ID = "__synthguard_unit__"


def bound(data: pd.DataFrame, unit: PrivacyUnit, keys: Sequence[str],
          rng: np.random.Generator) -> pd.DataFrame:
    """The rows of ``data`` kept after bounding ``unit`` over the groups given by ``keys``.

    Returns a frame with the columns of ``data`` plus the unit's id in column
    ``__synthguard_unit__`` (row number for the row unit), in random order.
    """
    order = rng.permutation(len(data))
    frame = data.iloc[order].reset_index(drop=True)
    if unit.is_row:
        return frame.assign(**{_ID: np.arange(len(frame))})
    frame[_ID] = frame[unit.column].to_numpy()
    keys = list(keys)
    if keys and unit.max_groups is not None:
        pairs = frame[[_ID, *keys]].drop_duplicates()
        pairs = pairs.assign(_p=rng.random(len(pairs)))
        pairs["_rank"] = pairs.groupby(_ID, sort=False)["_p"].rank(method="first")
        kept = pairs[pairs["_rank"] <= unit.max_groups].drop(columns=["_p", "_rank"])
        frame = frame.merge(kept, on=[_ID, *keys], how="inner", sort=False)
    if keys and unit.max_rows_per_group is not None:
        frame = frame[frame.groupby([_ID, *keys], sort=False, dropna=False).cumcount()
                      < unit.max_rows_per_group]
    frame = frame[frame.groupby(_ID, sort=False).cumcount() < unit.max_rows]
    return frame.reset_index(drop=True)
