"""Key-frequency kernels: counts of key combinations of a block, with sdcMicro's rule for
missing values (a missing key value agrees with any value; ``freqCalc`` with alpha = 1,
Templ, Kowarik & Meindl 2015).

:func:`wildcard_frequencies` gives every row's fk (and weighted Fk) from integer key codes;
:func:`synthguard.risk.k_anonymity` and :func:`synthguard.risk.individual_risk` are it on
the whole data. On Dask the same function runs on the table of distinct key combinations
that :func:`combination_table` makes per partition and :func:`merge_tables` merges in a
tree (counts weighted by the combinations' record counts: the same integers), or on a
partition of complete records after a hash shuffle on the keys plus the records with a
missing key (:func:`kanon_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from synthguard.errors import DataError

__all__ = [
    "combination_table",
    "group_rows",
    "kanon_counts",
    "key_codes",
    "key_uniques",
    "local_codes",
    "local_to_global",
    "merge_tables",
    "wildcard_frequencies",
]


def group_rows(codes: np.ndarray) -> np.ndarray:
    """Group id of every row of an integer matrix (equal rows, equal ids)."""
    if codes.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    combined = codes[:, 0].copy()
    for j in range(1, codes.shape[1]):
        card = int(codes[:, j].max()) + 1
        if (int(combined.max()) + 1) * card >= 2**62:
            combined = pd.factorize(combined)[0].astype(np.int64)
        combined = combined * card + codes[:, j]
    return np.asarray(pd.factorize(combined)[0], dtype=np.int64)


def key_codes(data: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Integer codes (n x len(keys)) of the key variables; a missing value is coded -1."""
    codes = np.empty((len(data), len(keys)), dtype=np.int64)
    for j, c in enumerate(keys):
        codes[:, j] = pd.factorize(data[c].reset_index(drop=True))[0]
    return codes


def wildcard_frequencies(
    codes: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Sample frequency fk and weighted frequency Fk of every row of ``codes`` (-1 = missing).

    Rows i and j agree when, for every key, their codes are equal or one of them is missing
    (sdcMicro's freqCalc with alpha = 1; the rule of :func:`k_anonymity`). fk_i counts the
    rows agreeing with i (including i), Fk_i sums their weights.

    Rows are grouped by missingness pattern; for each pair (A, B) of patterns the keys missing
    in neither are grouped and counted with ``np.bincount``: O(M^2 n) for M patterns.
    """
    n, p = codes.shape
    w = np.ones(n) if weights is None else weights
    miss = codes < 0
    if not miss.any():  # one pattern: a single grouping
        grp = group_rows(codes)
        return np.bincount(grp)[grp], np.bincount(grp, weights=w)[grp]
    mpat = (miss * (1 << np.arange(p, dtype=np.int64))).sum(axis=1)
    patterns = np.unique(mpat)
    fk = np.zeros(n, dtype=np.int64)
    Fk = np.zeros(n, dtype=np.float64)
    members = {a: np.flatnonzero(mpat == a) for a in patterns} if len(patterns) > 1 else None
    for a in patterns:
        rows_a = np.arange(n) if members is None else members[a]
        for b in patterns:
            rows_b = rows_a if members is None or a == b else members[b]
            shared = [j for j in range(p) if not ((a | b) >> j) & 1]
            if not shared:
                fk[rows_a] += rows_b.size
                Fk[rows_a] += w[rows_b].sum()
                continue
            if a == b:
                grp = group_rows(codes[rows_a][:, shared])
                ga, gb = grp, grp
            else:
                grp = group_rows(
                    np.concatenate([codes[rows_a][:, shared], codes[rows_b][:, shared]])
                )
                ga, gb = grp[: rows_a.size], grp[rows_a.size :]
            m = int(grp.max()) + 1
            fk[rows_a] += np.bincount(gb, minlength=m)[ga]
            Fk[rows_a] += np.bincount(gb, weights=w[rows_b], minlength=m)[ga]
    return fk, Fk


def kanon_counts(data: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """fk of every row (:func:`wildcard_frequencies` of the key codes), the key codes and the
    number of distinct combinations of the complete rows (the equivalence classes)."""
    codes = key_codes(data, keys)
    fk = wildcard_frequencies(codes)[0].astype(np.int64)
    complete = ~(codes < 0).any(axis=1)
    n_classes = len(np.unique(group_rows(codes[complete]))) if complete.any() else 0
    return fk, codes, n_classes


def local_codes(part: pd.DataFrame, keys: list[str]) -> tuple[np.ndarray, list[pd.Series]]:
    codes = np.empty((len(part), len(keys)), dtype=np.int64)
    uniques = []
    for j, c in enumerate(keys):
        k, u = pd.factorize(part[c])  # missing: -1, as key_codes
        codes[:, j] = k
        uniques.append(pd.Series(u))
    return codes, uniques


def key_uniques(part: pd.DataFrame, keys: list[str]) -> list[pd.Series]:
    return local_codes(part, keys)[1]


def local_to_global(parts: list[pd.Series]) -> list[np.ndarray]:
    """Per part, the global code of each local code (pd.factorize of the concatenation: the
    equality of ``key_codes`` on the whole column)."""
    kept = [p for p in parts if len(p)]
    if not kept:
        return [np.zeros(0, dtype=np.int64) for _ in parts]
    ser = pd.concat(kept, ignore_index=True)
    codes = np.asarray(pd.factorize(ser)[0], dtype=np.int64)
    out, start = [], 0
    for p in parts:
        out.append(codes[start:start + len(p)])
        start += len(p)
    return out


def combination_table(part: pd.DataFrame, keys: list[str], l2g: list[np.ndarray],
           weights: str | None) -> pd.DataFrame:
    local, _ = local_codes(part, keys)
    codes = np.empty_like(local)
    for j in range(len(keys)):
        m = np.append(l2g[j], -1)  # local -1 (missing) indexes the appended -1
        codes[:, j] = m[local[:, j]]
    frame = pd.DataFrame(codes, columns=range(len(keys)))
    frame["count"] = 1
    frame["w"] = _column_weights(part, weights) if weights else 1.0
    return _sum_table(frame, len(keys))


def _column_weights(part: pd.DataFrame, weights: str) -> np.ndarray:
    try:
        w = part[weights].to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise DataError(f"weight column '{weights}': expected numbers; convert the weights to "
                        f"numeric") from None
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise DataError(f"weight column '{weights}': expected finite positive weights without "
                        f"missing values; impute or drop the records without a weight")
    return w


def _sum_table(frame: pd.DataFrame, nk: int) -> pd.DataFrame:
    return frame.groupby(list(range(nk)), sort=True)[["count", "w"]].sum().reset_index()


def merge_tables(*tables: pd.DataFrame) -> pd.DataFrame:
    if len(tables) == 1:
        return tables[0]
    nk = tables[0].shape[1] - 2
    return _sum_table(pd.concat(tables, ignore_index=True), nk)
