"""Replicated households: a synthetic household whose members' records (every released column
but the id, as a multiset) equal those of a household unique in the data.

A household's signature is the multiset of its members' row hashes, summarised by the
household size and two sums of 64-bit mixes of the row hashes (order-free, so the members'
order does not matter); two households with different member multisets share a signature
with probability about 2^-128. A household is **unique** in the data when no other data
household has its signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HouseholdSignatures", "PersonUniques", "household_signatures"]

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (Steele, Lea & Flood 2014), wrapping in uint64."""
    with np.errstate(over="ignore"):
        z = (h ^ (h >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    """One uint64 per row over the columns' values; numbers compared as float64, the rest as
    text, so a release's dtypes need not match the data's."""
    norm: dict[str, Any] = {}
    for c in frame.columns:
        s = frame[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            norm[c] = s.astype("float64")
        else:
            norm[c] = s.astype("string")
    return pd.util.hash_pandas_object(pd.DataFrame(norm), index=False).to_numpy(np.uint64)


def household_signatures(
    frame: pd.DataFrame, household: str, columns: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, signatures)``: each household of ``frame`` (in order of first appearance) and
    its signature as a structured array of (size, sum of mixes, sum of second mixes)."""
    codes, ids = pd.factorize(frame[household], sort=False)
    h = _row_hashes(frame[list(columns)])
    a, b = _mix(h), _mix(h ^ np.uint64(0x9E3779B97F4A7C15))
    k = len(ids)
    s1, s2 = np.zeros(k, np.uint64), np.zeros(k, np.uint64)
    with np.errstate(over="ignore"):
        np.add.at(s1, codes, a)
        np.add.at(s2, codes, b)
    size = np.bincount(codes, minlength=k).astype(np.uint64)
    sig = np.empty(k, dtype=[("n", np.uint64), ("a", np.uint64), ("b", np.uint64)])
    sig["n"], sig["a"], sig["b"] = size, s1, s2
    return np.asarray(ids), sig


class HouseholdSignatures:
    """Signatures of the households unique in the confidential data, to test a release's
    households against (:meth:`replicated`)."""

    def __init__(self, data: pd.DataFrame, household: str, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        _, sig = household_signatures(data, household, self.columns)
        values, counts = np.unique(sig, return_counts=True)
        self._unique = values[counts == 1]

    @property
    def n_unique(self) -> int:
        """Households unique in the data."""
        return int(self._unique.size)

    def replicated(self, release: pd.DataFrame, household: str) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, mask)``: the release's households and which replicate a unique data
        household."""
        ids, sig = household_signatures(release, household, self.columns)
        return ids, np.isin(sig, self._unique)


class PersonUniques:
    """Row hashes of the confidential records unique on ``columns`` (every released column
    but the id): a released member equal to one is a real person released, whatever
    household it is drawn in (synthpop's replicated uniques, Raab et al. 2017)."""

    def __init__(self, data: pd.DataFrame, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        values, counts = np.unique(_row_hashes(data[self.columns]), return_counts=True)
        self._unique = values[counts == 1]

    def replicated(self, release: pd.DataFrame) -> np.ndarray:
        """Per released record: whether it equals a record unique in the data."""
        return np.isin(_row_hashes(release[self.columns]), self._unique)
