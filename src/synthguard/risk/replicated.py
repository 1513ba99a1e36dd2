"""synthpop's ``replicated.uniques``: records unique in the data and reproduced, once, by the
release, on every released column (or all but some)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import DataError
from synthguard.risk._disclosure_tables import code_column, combine_codes

__all__ = ["ReplicatedUniques", "replicated_uniques"]


@dataclass(frozen=True, eq=False)
class ReplicatedUniques(Summarized):
    """Replicated uniques per implicate, in synthpop's terms.

    Attributes
    ----------
    no_uniques : records unique in the data on the compared columns.
    no_replications : per implicate, released records unique in the release whose values are
        those of a record unique in the data.
    per_replications : per implicate, ``100 · no_replications / n_data`` (synthpop's
        percentage; the project's repU on every column, as a percentage).
    replications : per implicate, a boolean per released record: a replicated unique.
    columns : the compared columns.
    """

    no_uniques: int
    no_replications: tuple[int, ...]
    per_replications: tuple[float, ...]
    replications: tuple[np.ndarray, ...]
    columns: tuple[str, ...]

    goal = "minimize"
    min_value = 0.0
    max_value = 100.0

    def to_frame(self) -> pd.DataFrame:
        """One row per implicate."""
        return pd.DataFrame({"no_replications": self.no_replications,
                             "per_replications": self.per_replications},
                            index=pd.RangeIndex(len(self.no_replications), name="implicate"))

    def summary(self) -> str:
        per = ", ".join(f"{p:.2f}%" for p in self.per_replications)
        return (f"Replicated uniques on {len(self.columns)} columns: "
                f"{self.no_uniques} unique records in the data; replicated per implicate: "
                f"{', '.join(map(str, self.no_replications))} ({per} of the data)")


def replicated_uniques(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    exclude: Sequence[str] | None = None,
) -> ReplicatedUniques:
    """Records unique in the data that a release reproduces exactly (synthpop's
    ``replicated.uniques(object, data, exclude)``).

    On the columns common to data and release (less ``exclude``), a released record is a
    *replicated unique* when it is unique in its implicate and equal to a record unique in the
    data (missing equals missing). synthpop's ``sdc(..., rm.replicated.uniques = TRUE)``
    removes them; synthguard's synthesizer redraws them by default.

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"a": [1, 1, 2, 3], "b": ["x", "x", "y", "z"]})
    >>> rel = pd.DataFrame({"a": [2, 3, 3, 1], "b": ["y", "z", "z", "x"]})
    >>> r = replicated_uniques(conf, rel)
    >>> r.no_uniques, r.no_replications, r.replications[0].tolist()
    (2, (1,), [True, False, False, False])
    """
    imps = as_implicates(synthetic)
    drop = set(exclude or [])
    unknown = [c for c in drop if c not in conf.columns]
    if unknown:
        raise DataError(f"replicated_uniques: column(s) {unknown} in 'exclude' are not in the "
                        "data; name columns of the data")
    cols = [c for c in conf.columns if c not in drop and all(c in f.columns for f in imps)]
    if not cols:
        raise DataError("replicated_uniques: the data and the release share no column to "
                        "compare; check 'exclude'")
    coded = [code_column([conf[c]] + [f[c] for f in imps], ngroups=0, cont_na=(), name=c)
             for c in cols]
    q = combine_codes([c.codes for c in coded])
    n = len(conf)
    u, cnt = np.unique(q[:n], return_counts=True)
    uniq = u[cnt == 1]
    reps, counts, pers = [], [], []
    start = n
    for f in imps:
        sq = q[start:start + len(f)]
        start += len(f)
        _, inv, scnt = np.unique(sq, return_inverse=True, return_counts=True)
        rep = (scnt[inv] == 1) & np.isin(sq, uniq)
        reps.append(rep)
        counts.append(int(rep.sum()))
        pers.append(100.0 * int(rep.sum()) / n)
    return ReplicatedUniques(
        no_uniques=int(uniq.size),
        no_replications=tuple(counts),
        per_replications=tuple(pers),
        replications=tuple(reps),
        columns=tuple(cols),
    )
