"""l-diversity of a sensitive variable within the key variables' equivalence classes: distinct,
entropy and recursive (c, l)-diversity (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam
2007), as sdcMicro's ``ldiversity`` computes them (Templ, Kowarik & Meindl 2015)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.blocks.frequencies import group_rows as _group_rows
from synthguard.risk.individual_risk import key_codes

__all__ = ["LDiversity", "l_diversity"]


@dataclass(frozen=True, eq=False)
class LDiversity(Summarized):
    """l-diversity of ``sensitive`` in every record's equivalence class.

    Attributes
    ----------
    distinct : number of distinct sensitive values in the class (sdcMicro's
        ``<var>_Distinct_Ldiversity``).
    entropy : exp(entropy) of the class's sensitive values (``Entropy_Ldiversity``).
    recursive : the largest l for which the class is recursive (c, l)-diverse
        (``Recursive_Ldiversity``).
    c : the recursivity constant.
    """

    distinct: np.ndarray
    entropy: np.ndarray
    recursive: np.ndarray
    c: float
    sensitive: str
    keys: tuple[str, ...]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    goal = "maximize"

    @property
    def l(self) -> int:  # noqa: E743 - the standard name of the measure
        """The data are distinct l-diverse for every l up to this value."""
        return int(self.distinct.min()) if self.distinct.size else 0

    def violations(self, l: int) -> int:  # noqa: E741
        """Number of records whose class has fewer than ``l`` distinct sensitive values."""
        return int(np.sum(self.distinct < l))

    def to_frame(self) -> pd.DataFrame:
        """One row per record in the data's order: ``distinct``, ``entropy``, ``recursive``."""
        return pd.DataFrame(
            {"distinct": self.distinct, "entropy": self.entropy, "recursive": self.recursive},
            index=self.index,
        )

    def summary_table(self) -> pd.DataFrame:
        """Min, quartiles, mean and max of each measure over records (sdcMicro's print)."""
        f = self.to_frame()
        q = f.quantile([0.0, 0.25, 0.5, 0.75, 1.0])
        out = pd.DataFrame(
            [q.loc[0.0], q.loc[0.25], q.loc[0.5], f.mean(), q.loc[0.75], q.loc[1.0]],
            index=["min", "1st quartile", "median", "mean", "3rd quartile", "max"],
        )
        return out

    def summary(self) -> str:
        n = self.distinct.shape[0]
        return "\n".join(
            [
                f"l-diversity of '{self.sensitive}' within keys {', '.join(self.keys)} "
                f"({n} records)",
                f"  distinct l (minimum over records): {self.l}",
                f"  records in classes with fewer than 2 distinct values: {self.violations(2)}",
                f"  lowest entropy l: {float(self.entropy.min()) if n else 0.0:.3f}",
                f"  lowest recursive ({self.c:g}, l): {int(self.recursive.min()) if n else 0}",
            ]
        )


def key_classes(codes: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Equivalence classes of the key codes (-1 = missing), one missingness pattern at a time.

    Yields (rows, gid): ``rows`` are the records of one missingness pattern; ``gid`` groups all
    records on the keys that pattern does not miss (a missing value elsewhere is a value of its
    own). The class of a record r in ``rows`` is {i : gid[i] == gid[r]}: the records equal to r on
    every key r has (sdcMicro's measure_risk C++ code; a complete record's class holds the
    records with the same complete key).
    """
    n, p = codes.shape
    miss = codes < 0
    mpat = (miss * (1 << np.arange(p, dtype=np.int64))).sum(axis=1)
    patterns = np.unique(mpat)
    for a in patterns:
        rows = np.arange(n) if len(patterns) == 1 else np.flatnonzero(mpat == a)
        shared = [j for j in range(p) if not (int(a) >> j) & 1]
        gid = _group_rows(codes[:, shared]) if shared else np.zeros(n, dtype=np.int64)
        yield rows, gid


def sensitive_codes(data: pd.DataFrame, sensitive: str, missing: Any = None) -> np.ndarray:
    """Integer codes of the sensitive variable; missing (NA or ``missing``) is -1."""
    col = data[sensitive].reset_index(drop=True)
    if missing is not None:
        col = col.mask(col == missing)
    return pd.factorize(col)[0].astype(np.int64)


def l_diversity(
    data: pd.DataFrame,
    keys: Sequence[str],
    sensitive: str,
    c: float = 2.0,
    missing: Any = None,
) -> LDiversity:
    """Distinct, entropy and recursive (c, l)-diversity of ``sensitive`` in each record's
    equivalence class of the key variables, as sdcMicro's ``ldiversity`` (default
    ``l_recurs_c = 2``).

    For a class with n records of which r_1 >= r_2 >= ... >= r_m share each of the m distinct
    sensitive values (and n_0 are missing):

    * distinct = m, plus 1 when some values are missing and m > 0;
    * entropy = exp(-sum_i (r_i/n) log(r_i/n)), the sum including the missing share when m > 0
      (Machanavajjhala et al. 2007, entropy l-diversity as an effective number of values);
    * recursive = the largest l <= m with r_1 < c (r_l + r_{l+1} + ... + r_m), or 1 (recursive
      (c, l)-diversity; missing values are not a category here). 0 when m = 0.

    Classes: records with the same values of the keys. A record with missing keys belongs to the
    class of all records equal to it on the keys it has (sdcMicro's C++ code; its ``ldiversity``
    writes those rows' values to a wrong row, and leaves 0 for records whose keys are all
    missing, whose class here is the whole data).

    Parameters
    ----------
    data : the data.
    keys : key variables (quasi-identifiers).
    sensitive : the sensitive variable (not a key).
    c : recursivity constant (> 0).
    missing : a value of ``sensitive`` that stands for missing in addition to NA.

    Returns
    -------
    LDiversity

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": [1, 1, 1, 1, 2], "disease": ["a", "a", "b", "c", "a"]})
    >>> res = l_diversity(df, ["zip"], "disease")
    >>> res.distinct.tolist(), res.recursive.tolist()  # zip 1: 2 < 2 (1 + 1), not 2 < 2 * 1
    ([3, 3, 3, 3, 1], [2, 2, 2, 2, 1])
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if not isinstance(sensitive, str):
        raise ParameterError("parameter 'sensitive': expected one column name")
    if sensitive in keys_l:
        raise ParameterError(
            f"parameter 'sensitive': '{sensitive}' is also a key variable; drop it from the keys"
        )
    if isinstance(c, bool) or not isinstance(c, int | float | np.number) or not c > 0:
        raise ParameterError("parameter 'c': expected a positive recursivity constant")
    check_columns(data, [*keys_l, sensitive], name="data", role="key or sensitive")
    n = len(data)
    codes = key_codes(data, keys_l)
    s = sensitive_codes(data, sensitive, missing)
    distinct = np.zeros(n, dtype=np.int64)
    entropy = np.ones(n)
    recursive = np.zeros(n, dtype=np.int64)
    for rows, gid in key_classes(codes):
        d, e, r = _class_measures(gid, s, float(c))
        g = gid[rows]
        distinct[rows], entropy[rows], recursive[rows] = d[g], e[g], r[g]
    return LDiversity(
        distinct=distinct,
        entropy=entropy,
        recursive=recursive,
        c=float(c),
        sensitive=sensitive,
        keys=tuple(keys_l),
        index=data.index,
    )


def _class_measures(
    gid: np.ndarray, s: np.ndarray, c: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct, entropy and recursive l-diversity of every group of ``gid``."""
    n_groups = int(gid.max()) + 1 if gid.size else 0
    size = np.bincount(gid, minlength=n_groups).astype(np.float64)
    ok = s >= 0
    n_values = int(s.max()) + 1 if ok.any() else 1
    pair, cnt = np.unique(gid[ok] * n_values + s[ok], return_counts=True)
    pg = pair // n_values
    m = np.bincount(pg, minlength=n_groups)
    n_miss = np.bincount(gid[~ok], minlength=n_groups)
    with_miss = (n_miss > 0) & (m > 0)
    distinct = m + with_miss
    share = cnt / size[pg]
    plogp = np.bincount(pg, weights=share * np.log(share), minlength=n_groups).astype(float)
    ms = np.where(with_miss, n_miss / size, 1.0)
    plogp += np.where(with_miss, ms * np.log(ms), 0.0)
    entropy = np.exp(-plogp)
    # recursive: counts sorted descending within each group
    order = np.lexsort((-cnt, pg))
    pg_o, cnt_o = pg[order], cnt[order].astype(np.float64)
    start = np.searchsorted(pg_o, np.arange(n_groups))
    rank = np.arange(pg_o.size) - start[pg_o]
    cum = np.cumsum(cnt_o)
    before = cum - cnt_o - np.concatenate([[0.0], cum])[start[pg_o]]
    total = np.bincount(pg_o, weights=cnt_o, minlength=n_groups).astype(float)
    top = np.zeros(n_groups)
    top[pg_o[rank == 0]] = cnt_o[rank == 0]
    tail_ok = (rank >= 1) & (c * (total[pg_o] - before) > top[pg_o])
    recursive = np.where(
        m > 0, 1 + np.bincount(pg_o, weights=tail_ok, minlength=n_groups).astype(np.int64), 0
    )
    return distinct, entropy, recursive
