"""k-anonymity and sample uniques: the traditional identity-risk view of key variables
(Samarati & Sweeney 1998; sdcMicro's frequency counts fk, Templ, Kowarik & Meindl 2015)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.blocks.frequencies import kanon_counts

__all__ = ["KAnonymity", "KAnonymitySummary", "k_anonymity"]


@dataclass(frozen=True, eq=False)
class KAnonymity(Summarized):
    """Equivalence-class sizes of the key variables.

    Attributes
    ----------
    fk : sample frequency of every record's key combination (its equivalence-class size,
        sdcMicro's fk), in the data's row order.
    k : the k asked for.
    n_below_k : records with fk < k (sdcMicro's "observations violating k-anonymity").
    share_below_k : n_below_k / n.
    n_sample_uniques : records with fk = 1.
    min_class_size : the data are k-anonymous for every k <= this value.
    n_classes : number of distinct complete key combinations.
    """

    fk: np.ndarray
    k: int
    n_below_k: int
    share_below_k: float
    n_sample_uniques: int
    min_class_size: int
    n_classes: int
    keys: tuple[str, ...]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    goal = "minimize"

    @property
    def is_k_anonymous(self) -> bool:
        return self.n_below_k == 0

    def violations(self, k: int) -> int:
        """Number of records with fk < k, for another k."""
        return int(np.sum(self.fk < k))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {"fk": self.fk, "below_k": self.fk < self.k, "sample_unique": self.fk == 1},
            index=self.index,
        )

    def summary(self) -> str:
        return _summary(self, int(self.fk.shape[0]))

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


@dataclass(frozen=True, eq=False)
class KAnonymitySummary(Summarized):
    """:class:`KAnonymity` without the per-record fk: what data too big to gather give
    (:func:`k_anonymity` with ``gather=False``). fk depends on a record only
    through its key combination, so every figure follows from the table of class sizes.

    Attributes
    ----------
    class_sizes : records per value of fk (index ``fk``, ascending; values: records).
    k, n_below_k, share_below_k, n_sample_uniques, min_class_size, n_classes, keys
        As in :class:`KAnonymity`.
    n : number of records.
    """

    class_sizes: pd.Series
    k: int
    n_below_k: int
    share_below_k: float
    n_sample_uniques: int
    min_class_size: int
    n_classes: int
    keys: tuple[str, ...]
    n: int

    goal = "minimize"

    @classmethod
    def from_combinations(cls, fk: np.ndarray, count: np.ndarray, complete: np.ndarray, k: int,
                          keys: Sequence[str]) -> KAnonymitySummary:
        """From every distinct key combination's fk (its records' fk), its record count and
        whether it has every key."""
        fk = np.asarray(fk, dtype=np.int64)
        count = np.asarray(count, dtype=np.int64)
        sizes = pd.Series(count).groupby(fk).sum().sort_index()
        sizes.index.name = "fk"
        n = int(count.sum())
        below = int(count[fk < k].sum())
        return cls(
            class_sizes=sizes.rename("records"),
            k=int(k),
            n_below_k=below,
            share_below_k=below / n if n else 0.0,
            n_sample_uniques=int(count[fk == 1].sum()),
            min_class_size=int(fk[count > 0].min()) if n else 0,
            n_classes=int(np.sum(np.asarray(complete, dtype=bool) & (count > 0))),
            keys=tuple(keys),
            n=n,
        )

    @property
    def is_k_anonymous(self) -> bool:
        return self.n_below_k == 0

    def violations(self, k: int) -> int:
        """Number of records with fk < k, for another k."""
        s = self.class_sizes
        return int(s[s.index < k].sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per value of fk: records, below_k, sample_unique."""
        s = self.class_sizes
        return pd.DataFrame({"records": s.to_numpy(), "below_k": s.index < self.k,
                             "sample_unique": s.index == 1}, index=s.index)

    def summary(self) -> str:
        return _summary(self, self.n)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def _summary(res: KAnonymity | KAnonymitySummary, n: int) -> str:
    lines = [
        f"k-anonymity of keys {', '.join(res.keys)} ({n} records, {res.n_classes} classes)",
        f"  sample uniques: {res.n_sample_uniques}",
    ]
    for k in sorted({2, 3, 5, res.k}):
        v = res.violations(k)
        lines.append(f"  violating {k}-anonymity: {v} ({v / n if n else 0:.3%})")
    return "\n".join(lines)


@overload
def k_anonymity(data: Any, keys: Sequence[str], k: int = 3, *, npartitions: int | None = None,
                gather: Literal[True] = True) -> KAnonymity: ...


@overload
def k_anonymity(data: Any, keys: Sequence[str], k: int = 3, *, npartitions: int | None = None,
                gather: bool) -> KAnonymity | KAnonymitySummary: ...


@dask_backend
def k_anonymity(data: Any, keys: Sequence[str], k: int = 3, *, npartitions: int | None = None,
                gather: bool = True) -> KAnonymity | KAnonymitySummary:
    """Equivalence-class size fk of every record, sample uniques and records below k.

    fk_i is the number of records j (including i) whose key values agree with record i's.
    The data are k-anonymous when every fk_i >= k (Samarati & Sweeney 1998).

    Missing key values follow sdcMicro's frequency calculation (freqCalc, Templ, Kowarik &
    Meindl 2015): a missing value stands for any category, so records i and j agree when, for
    every key, their values are equal or at least one of them is missing. This is symmetric
    (a complete record is also counted in the class of a compatible record with missing values)
    and not transitive, so fk is a count of compatible records rather than a partition size. A
    record with every key missing matches all records.

    Algorithm: records are grouped by their missingness pattern (which keys are missing). For
    each pair (A, B) of missingness patterns, records of A and of B agree exactly when their
    values agree on the keys missing in neither; those are counted by factorizing the shared
    keys and a ``bincount``: O(M^2 n) for M missingness patterns (M = 1 without missing values,
    then a single O(n) hash grouping). No pair of records is compared.

    Parameters
    ----------
    data : the data (confidential or released), a pandas or a Dask DataFrame.
    keys : key variables (quasi-identifiers), matched exactly.
    k : the anonymity threshold (>= 1).
    npartitions : Dask only: partitions of the shuffle on the keys (default: ``data``'s).
    gather : True returns the per-record :class:`KAnonymity`; False its summaries
        (:class:`KAnonymitySummary`) from the distinct key combinations, so that on Dask no
        record moves and nothing per record reaches the client.

    On Dask the complete records are hash-shuffled on the keys and the few with a missing key
    are sent to every partition (see :func:`synthguard.risk.blocks.kanon_block`); all counts
    are integers, so fk equals the pandas fk exactly.

    Returns
    -------
    KAnonymity, or KAnonymitySummary with ``gather=False``

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "f", "m", None], "region": [1, 1, 2, 2]})
    >>> k_anonymity(df, ["sex", "region"], k=2).fk
    array([2, 2, 2, 2])
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ParameterError("parameter 'k': expected an integer >= 1")
    check_columns(meta_of(data), keys_l, name="data", role="key")
    if any_dask(data):
        from synthguard.risk._on_dask.uniqueness import k_anonymity_parts

        parts = k_anonymity_parts(data, keys_l, npartitions=npartitions, gather=gather)
    elif gather:
        fk, _, n_classes = kanon_counts(data, keys_l)
        parts = {"fk": fk, "n_classes": n_classes, "index": data.index}
    else:  # the summaries, from the distinct key combinations as on Dask
        fk, codes, _ = kanon_counts(data, keys_l)
        _, first, group = np.unique(codes, axis=0, return_index=True, return_inverse=True)
        parts = {"combinations": (fk[first], np.bincount(group.ravel()),
                                  ~(codes[first] < 0).any(axis=1))}
    if "combinations" in parts:
        fk_c, count_c, complete_c = parts["combinations"]
        return KAnonymitySummary.from_combinations(fk_c, count_c, complete_c, int(k), keys_l)
    fk = parts["fk"]
    n = len(fk)
    below = int(np.sum(fk < k))
    return KAnonymity(
        fk=fk,
        k=int(k),
        n_below_k=below,
        share_below_k=below / n if n else 0.0,
        n_sample_uniques=int(np.sum(fk == 1)),
        min_class_size=int(fk.min()) if n else 0,
        n_classes=parts["n_classes"],
        keys=tuple(keys_l),
        index=parts["index"],
    )
