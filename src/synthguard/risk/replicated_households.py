"""Replicated households: released households whose members' records, as a multiset, are
those of a household that is unique in the confidential data -- the household analogue of
synthpop's replicated uniques (Raab, Nowok & Dibben 2025, ``rm.replicated.uniques``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._params import column_list
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import DataError, ParameterError
from synthguard.risk.household_risk import household_ids

__all__ = ["ReplicatedHouseholds", "household_signatures", "replicated_households"]


@dataclass(frozen=True, eq=False)
class ReplicatedHouseholds(Summarized):
    """Released households that replicate a household unique in the data.

    Attributes
    ----------
    count : released households equal (as a multiset of member records on ``columns``) to a
        household that occurs once in the confidential data.
    share : ``count`` / number of released households (0 when the release has none).
    n_households : households in the release.
    n_unique_in_data : households of the data that no other household of the data equals.
    replicated : per released household (in order of first appearance), whether it is a
        replica.
    columns : the compared columns (the household id is never one).
    """

    count: int
    share: float
    n_households: int
    n_unique_in_data: int
    replicated: np.ndarray
    columns: tuple[str, ...]
    household: str

    goal = "minimize"

    def to_frame(self) -> pd.DataFrame:
        """One row per released household (in order of first appearance): ``replicated``."""
        return pd.DataFrame({"replicated": self.replicated},
                            index=pd.RangeIndex(self.n_households, name="household"))

    def summary(self) -> str:
        return (f"Replicated households ({', '.join(self.columns)}): {self.count} of "
                f"{self.n_households} released households ({100 * self.share:.2f}%) equal a "
                f"household unique in the data")

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def household_signatures(
    frames: Sequence[pd.DataFrame], household: str, columns: Sequence[str]
) -> list[np.ndarray]:
    """For each frame, one integer per household (in order of first appearance) such that
    two households -- of the same or of different frames -- get the same integer exactly when
    their members' records on ``columns`` are equal as multisets.

    Values are coded jointly over all frames (a missing value equals a missing value); each
    record gets the code of its row of values; a household is the sorted tuple of its
    members' row codes.
    """
    n = [len(f) for f in frames]
    stacked = pd.concat([f[list(columns)].reset_index(drop=True) for f in frames],
                        ignore_index=True)
    rows = np.zeros(len(stacked), dtype=np.int64)
    for c in columns:  # row code: equal rows, equal code (re-factorized to stay small)
        codes, uniq = pd.factorize(stacked[c], use_na_sentinel=False)
        rows = pd.factorize(rows * (len(uniq) + 1) + codes)[0].astype(np.int64)
    out: list[np.ndarray] = []
    table: dict[tuple[int, ...], int] = {}
    start = 0
    for f, size in zip(frames, n, strict=True):
        hh = household_ids(f, household, name="release" if out else "data")
        r = rows[start:start + size]
        start += size
        order = np.lexsort((r, hh))
        bounds = np.flatnonzero(np.diff(hh[order])) + 1
        groups = np.split(r[order], bounds) if size else []
        ids = np.asarray([table.setdefault(tuple(g.tolist()), len(table)) for g in groups],
                         dtype=np.int64)
        out.append(ids)  # households sorted by code = order of first appearance
    return out


@dask_backend
def replicated_households(
    conf: Any,
    release: Any,
    household: str,
    columns: str | Sequence[str] | None = None,
) -> ReplicatedHouseholds:
    """Count released households that replicate a household unique in the data.

    A household of the data is *unique* when no other household of the data has the same
    multiset of member records on ``columns``; a released household *replicates* it when its
    own multiset of member records is that one. Such a household is in the release exactly as
    it is in the data -- its size, every member's every released value -- and is the only one
    like it, so a release must have none (the household form of synthpop's replicated
    uniques, Raab, Nowok & Dibben; issue 33). Households are compared whole, so a household
    of two persons never matches a household of three.

    Parameters
    ----------
    conf : the confidential data, one row per person.
    release : one released file (an implicate), one row per person.
    household : the household-id column, in both (ids need not agree between them).
    columns : the compared columns; default every column of the data the release has,
        except the household id.

    Returns
    -------
    ReplicatedHouseholds

    Notes
    -----
    ``conf`` and ``release`` may be Dask DataFrames: each is shuffled on the household id so
    every household lies whole in one partition, where its signature (its size and two sums of
    64-bit mixes of its members' row hashes; two different member multisets share one with
    probability about 2^-128) is made; the client counts the data's signatures and looks the
    release's up (:mod:`synthguard.risk._on_dask.household`). The same counts as pandas.

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"h": [1, 1, 2, 3, 3], "age": [40, 9, 70, 40, 9]})
    >>> rel = pd.DataFrame({"h": [7, 8, 8], "age": [70, 9, 40]})
    >>> r = replicated_households(conf, rel, "h")
    >>> r.count, r.n_unique_in_data  # {40, 9} occurs twice in the data; {70} is unique
    (1, 1)
    """
    if not isinstance(household, str):
        raise ParameterError("parameter 'household': expected the name of the household-id column")
    dask_path = any_dask(conf, release)
    if dask_path:
        conf_m, rel_m = meta_of(conf), meta_of(release)
    else:
        conf_m, rel_m = conf, release
    if not isinstance(conf_m, pd.DataFrame) or not isinstance(rel_m, pd.DataFrame):
        raise DataError("replicated_households: expected pandas DataFrames of the data and "
                        "the release")
    for frame, name in ((conf_m, "data"), (rel_m, "release")):
        if household not in frame.columns:
            raise DataError(f"{name}: household-id column '{household}' not found; name the "
                            f"column that identifies each record's household")
    if columns is None:
        cols = [c for c in conf_m.columns if c in rel_m.columns and c != household]
    else:
        cols = column_list(columns, "columns")
        missing = [c for c in cols if c not in conf_m.columns or c not in rel_m.columns]
        if missing:
            raise DataError(f"columns {', '.join(missing)} are not in both the data and the "
                            f"release; compare columns both have")
        if household in cols:
            raise ParameterError(f"parameter 'columns': '{household}' is the household id; "
                                 f"ids are not compared")
    if not cols:
        raise DataError("the release shares no column with the data besides the household id")
    if dask_path:
        from synthguard.risk._on_dask.household import replicated_flags

        replicated, n_unique = replicated_flags(conf, release, household, cols)
    else:
        sig_conf, sig_rel = household_signatures([conf, release], household, cols)
        counts = np.bincount(sig_conf, minlength=int(max(sig_conf.max(initial=-1),
                                                         sig_rel.max(initial=-1))) + 1)
        unique = counts == 1
        replicated = unique[sig_rel] if sig_rel.size else np.zeros(0, dtype=bool)
        n_unique = int(unique.sum())
    n_rel = int(replicated.size)
    count = int(replicated.sum())
    return ReplicatedHouseholds(
        count=count, share=count / n_rel if n_rel else 0.0, n_households=n_rel,
        n_unique_in_data=n_unique, replicated=replicated, columns=tuple(cols),
        household=household,
    )
