"""t-closeness: the earth mover's distance between the sensitive variable's distribution in each
equivalence class of the keys and in the whole data (Li, Li & Venkatasubramanian 2007)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.individual_risk import key_codes
from synthguard.risk.ldiversity import key_classes

__all__ = ["TCloseness", "t_closeness"]


@dataclass(frozen=True, eq=False)
class TCloseness(Summarized):
    """Earth mover's distance of every record's class to the whole data.

    Attributes
    ----------
    emd : the distance of the record's class (NaN when the class has no non-missing sensitive
        value).
    t : the largest distance over records: the data are t-close for every t >= this value.
    ordered : whether the ordered distance was used (else the equal distance).
    """

    emd: np.ndarray
    t: float
    ordered: bool
    sensitive: str
    keys: tuple[str, ...]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    goal = "minimize"

    def violations(self, t: float) -> int:
        """Number of records whose class is farther than ``t`` from the whole data."""
        return int(np.sum(self.emd > t))

    def to_frame(self) -> pd.DataFrame:
        """One row per record in the data's order: ``emd``."""
        return pd.DataFrame({"emd": self.emd}, index=self.index)

    def summary(self) -> str:
        kind = "ordered distance" if self.ordered else "equal distance"
        return "\n".join(
            [
                f"t-closeness of '{self.sensitive}' within keys {', '.join(self.keys)} "
                f"({self.emd.shape[0]} records, {kind})",
                f"  t (largest class distance): {self.t:.4f}",
                f"  records in classes farther than 0.2: {self.violations(0.2)}",
            ]
        )


def t_closeness(
    data: pd.DataFrame,
    keys: Sequence[str],
    sensitive: str,
    ordered: bool | None = None,
    missing: Any = None,
) -> TCloseness:
    """Earth mover's distance (EMD) between the distribution P of ``sensitive`` in each record's
    equivalence class and its distribution Q in the whole data (Li, Li & Venkatasubramanian
    2007, t-closeness).

    * ordered distance (numeric or ordered categorical values v_1 < ... < v_m; the distance
      between v_i and v_j is |i - j| / (m - 1)):
      EMD = 1/(m - 1) * sum_{i=1}^{m} |sum_{j<=i} (p_j - q_j)|;
    * equal distance (nominal values, every pair at distance 1): EMD = 1/2 sum_i |p_i - q_i|.

    Classes are those of :func:`l_diversity` (records equal on the keys a record has). Missing
    sensitive values are left out of both distributions.

    Algorithm: the ordered EMD of a class is summed over the stretches between the values it
    holds, on which its cumulative share is constant, with prefix sums of Q's cumulative shares
    and a binary search for where Q crosses it: O(n log m) in all, never a classes x values
    matrix.

    Parameters
    ----------
    data : the data.
    keys : key variables (quasi-identifiers).
    sensitive : the sensitive variable (not a key).
    ordered : True for the ordered distance, False for the equal distance; None: ordered for
        numeric and ordered categorical columns, equal otherwise.
    missing : a value of ``sensitive`` that stands for missing in addition to NA.

    Returns
    -------
    TCloseness

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"zip": [1, 1, 2, 2], "salary": [3, 4, 5, 6]})
    >>> t_closeness(df, ["zip"], "salary").emd.tolist()  # (1/4 + 1/2 + 1/4) / 3
    [0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333]
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
    check_columns(data, [*keys_l, sensitive], name="data", role="key or sensitive")
    col = data[sensitive].reset_index(drop=True)
    if missing is not None:
        col = col.mask(col == missing)
    if ordered is None:
        ordered = bool(
            (pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col))
            or (isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.ordered)
        )
    # codes in the order of the values (sorted, or the categories' order)
    s = pd.factorize(col, sort=True)[0].astype(np.int64)
    if isinstance(col.dtype, pd.CategoricalDtype):
        s = col.cat.codes.to_numpy().astype(np.int64)
        s = np.where(s >= 0, pd.factorize(np.where(s >= 0, s, -1), sort=True)[0], -1)
    n = len(data)
    emd = np.full(n, np.nan)
    ok = s >= 0
    if ok.any():
        m = int(s[ok].max()) + 1
        q = np.bincount(s[ok], minlength=m) / ok.sum()
        codes = key_codes(data, keys_l)
        for rows, gid in key_classes(codes):
            d = _ordered_emd(gid, s, q) if ordered else _equal_emd(gid, s, q)
            emd[rows] = d[gid[rows]]
    finite = emd[np.isfinite(emd)]
    return TCloseness(
        emd=emd,
        t=float(finite.max()) if finite.size else 0.0,
        ordered=bool(ordered),
        sensitive=sensitive,
        keys=tuple(keys_l),
        index=data.index,
    )


def _class_shares(gid: np.ndarray, s: np.ndarray, m: int):
    """(group, value, share) of the non-missing sensitive values of every group, sorted."""
    ok = s >= 0
    n_groups = int(gid.max()) + 1
    pair, cnt = np.unique(gid[ok] * m + s[ok], return_counts=True)
    pg, pv = pair // m, pair % m
    size = np.bincount(pg, weights=cnt, minlength=n_groups)
    return n_groups, pg, pv, cnt / size[pg], size


def _equal_emd(gid: np.ndarray, s: np.ndarray, q: np.ndarray) -> np.ndarray:
    n_groups, pg, pv, p, size = _class_shares(gid, s, q.size)
    present = np.bincount(pg, weights=np.abs(p - q[pv]) - q[pv], minlength=n_groups)
    out = 0.5 * (present + 1.0)
    out[size == 0] = np.nan
    return out


def _ordered_emd(gid: np.ndarray, s: np.ndarray, q: np.ndarray) -> np.ndarray:
    m = q.size
    n_groups, pg, pv, p, size = _class_shares(gid, s, m)
    out = np.full(n_groups, np.nan)
    if m == 1:
        out[size > 0] = 0.0
        return out
    cq = np.cumsum(q)  # Q's cumulative share at each value
    pref = np.concatenate([[0.0], np.cumsum(cq)])  # pref[i] = sum of cq[:i]
    cp = np.cumsum(p)
    start = np.searchsorted(pg, np.arange(n_groups))
    cp = cp - np.concatenate([[0.0], cp])[start[pg]]  # cumulative share within the group
    first = np.r_[True, pg[1:] != pg[:-1]]
    last = np.r_[pg[1:] != pg[:-1], True]
    # stretch [pv, next value) at constant share cp; before the first value the share is 0
    hi = np.where(last, m, np.r_[pv[1:], m])
    lo = pv
    split = np.clip(np.searchsorted(cq, cp, side="right"), lo, hi)
    below = cp * (split - lo) - (pref[split] - pref[lo])
    above = (pref[hi] - pref[split]) - cp * (hi - split)
    total = np.bincount(pg, weights=below + above, minlength=n_groups)
    head = pref[pv[first]]  # sum of cq over [0, first value): |0 - cq| = cq
    total[pg[first]] += head
    out[size > 0] = total[size > 0] / (m - 1)
    return out
