"""Contribution bounding: the session, never the user, cuts each unit down to its bounds.

Seeded random truncation (Wilson et al. 2020, §3 "bounding user contribution"): two salts are
drawn from ``random_state``; every row gets a random priority, a hash of its global row number
and the first salt (SplitMix64, Steele, Lea & Flood 2014), and every (unit, group) pair one of
its values and the second salt; then for each unit

1. its groups of the query are ranked by priority and only the first ``G = max_groups`` kept;
2. in each kept group only the ``Rg = max_rows_per_group`` rows of highest priority are kept;
3. of what is left only the ``R = max_rows`` rows of highest priority are kept.

Each unit's kept rows depend only on its own rows and the salts, so the bounding is stable:
adding or removing one unit changes the bounded data by that unit's kept rows alone, at most R
rows in at most G groups with at most Rg in one (see :mod:`synthguard.dp.session.unit`). Random
rather than first-rows truncation keeps the kept rows a random sample of the unit's, so bounded
statistics are not biased towards whatever order the file has. Because a priority is a function
of the row number and the salt, a Dask frame shuffled on the unit id is bounded partition by
partition to exactly the rows the pandas path keeps (:mod:`synthguard.dp.session.dask`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from synthguard.dp.session.unit import PrivacyUnit

__all__ = ["bound", "salts"]

_ID = "__synthguard_unit__"


def salts(rng: np.random.Generator) -> tuple[int, int]:
    """The two salts of one bounding pass, drawn from the session's random state."""
    a, b = rng.integers(0, 2**63 - 1, size=2)
    return int(a), int(b)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a uint64 hash whose bits look uniform (Steele et al. 2014)."""
    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _text_hash(frame: pd.DataFrame, cols: Sequence[str]) -> np.ndarray:
    """A uint64 hash of the values of ``cols`` read as text (the same on any backend's dtype)."""
    h = np.zeros(len(frame), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for c in cols:
            v = np.asarray(frame[c].astype(str), dtype=object)
            h = h * np.uint64(0x100000001B3) + pd.util.hash_array(v)
    return h


def bound(data: pd.DataFrame, unit: PrivacyUnit, keys: Sequence[str],
          rng: np.random.Generator | tuple[int, int],
          rows: np.ndarray | None = None) -> pd.DataFrame:
    """The rows of ``data`` kept after bounding ``unit`` over the groups given by ``keys``.

    ``rng``: the session's generator (two salts are drawn from it) or the salts themselves;
    ``rows``: each row's global row number (default its position). Returns a frame with the
    columns of ``data`` plus the unit's id in column ``__synthguard_unit__`` (the row number for
    the row unit), in priority order.
    """
    salt_rows, salt_pairs = salts(rng) if isinstance(rng, np.random.Generator) else rng
    rows = np.arange(len(data), dtype=np.int64) if rows is None else np.asarray(rows)
    with np.errstate(over="ignore"):
        prio = _splitmix(rows.astype(np.uint64) ^ np.uint64(salt_rows))
    order = np.argsort(prio, kind="stable")
    if unit.is_row:
        return data.iloc[order].reset_index(drop=True).assign(**{_ID: rows[order]})
    keys = list(keys)
    if not keys or (unit.max_groups is None and unit.max_rows_per_group is None):
        # R alone: each unit's first R rows in priority order, found with arrays only
        ids = np.asarray(data[unit.column].to_numpy())[order]
        codes = pd.factorize(ids)[0]
        by_unit = np.argsort(codes, kind="stable")  # priority order kept within a unit
        sorted_codes = codes[by_unit]
        starts = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
        rank = np.arange(len(codes)) - np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
        keep = np.zeros(len(codes), dtype=bool)
        keep[by_unit[rank < unit.max_rows]] = True
        frame = data.iloc[order[keep]].reset_index(drop=True)
        frame[_ID] = ids[keep]
        return frame
    frame = data.iloc[order].reset_index(drop=True)
    frame[_ID] = frame[unit.column].to_numpy()
    if keys and unit.max_groups is not None:
        pairs = frame[[_ID, *keys]].drop_duplicates()
        with np.errstate(over="ignore"):
            p = _splitmix(_text_hash(pairs, [_ID, *keys]) ^ np.uint64(salt_pairs))
        pairs = pairs.assign(_p=p)
        pairs["_rank"] = pairs.groupby(_ID, sort=False)["_p"].rank(method="first")
        kept = pairs[pairs["_rank"] <= unit.max_groups].drop(columns=["_p", "_rank"])
        frame = frame.merge(kept, on=[_ID, *keys], how="inner", sort=False)
    if keys and unit.max_rows_per_group is not None:
        frame = frame[frame.groupby([_ID, *keys], sort=False, dropna=False).cumcount()
                      < unit.max_rows_per_group]
    frame = frame[frame.groupby(_ID, sort=False).cumcount() < unit.max_rows]
    return frame.reset_index(drop=True)
