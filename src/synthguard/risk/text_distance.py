"""Edit distance between text values, and how closely a release reproduces the data's texts.

The course (section 3.16.2) sets the "close enough" threshold of a disclosure attack by "a
custom distance metric, like edit distance between text variables". Free text (names,
addresses, occupations written out, comments) is where a release can copy a respondent almost
verbatim: an exact-match check misses "Jon Smith" for "John Smith".

The Levenshtein distance (Levenshtein 1966) is the least number of single-character
insertions, deletions and substitutions that turn one string into the other, by the
Wagner & Fischer (1974) recurrence over prefixes::

    D[i, 0] = i,  D[0, j] = j,
    D[i, j] = min(D[i-1, j] + 1, D[i, j-1] + 1, D[i-1, j-1] + 1(a_i != b_j))

computed for every pair of distinct values at once, over numpy arrays of the pairs. Strings
of up to 64 characters use the bit-parallel form of the recurrence (Myers 1999, as adapted to
the edit distance by Hyyrö 2001): the column of D for one character of b is held as two
64-bit words of vertical +1/-1 steps and updated in a handful of word operations, so the
cost is O(L_b) array operations over the U_a × U_b pairs; longer strings use the recurrence
cell by cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError

__all__ = ["TextCloseness", "edit_distance", "text_closeness"]

_PAIR_CHUNK = 2_000_000  # pairs x (longest b + 1) cells per block of the recurrence


def _codes(values: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Strings as a padded (n, L) array of code points (-1 past the end) and their lengths."""
    lens = np.fromiter((len(s) for s in values), dtype=np.int64, count=len(values))
    width = int(lens.max()) if lens.size else 0
    out = np.full((len(values), max(width, 1)), -1, dtype=np.int64)
    for i, s in enumerate(values):
        if s:
            out[i, : len(s)] = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    return out, lens


def _block(a: np.ndarray, la: np.ndarray, b: np.ndarray, lb: np.ndarray) -> np.ndarray:
    """Levenshtein distances of every a against every b (Wagner-Fischer over all pairs)."""
    na, nb = a.shape[0], b.shape[0]
    wb = int(lb.max()) if lb.size else 0
    row = np.broadcast_to(np.arange(wb + 1, dtype=np.int32), (na, nb, wb + 1)).copy()
    out = np.empty((na, nb), dtype=np.int32)
    done0 = la == 0
    out[done0] = lb[None, :].astype(np.int32)
    for i in range(1, int(la.max(initial=0)) + 1):
        new = np.empty_like(row)
        new[:, :, 0] = i
        ai = a[:, i - 1][:, None]
        for j in range(1, wb + 1):
            sub = row[:, :, j - 1] + (ai != b[None, :, j - 1])
            new[:, :, j] = np.minimum(np.minimum(row[:, :, j] + 1, new[:, :, j - 1] + 1), sub)
        row = new
        ends = la == i
        if ends.any():
            out[ends] = np.take_along_axis(row[ends], np.broadcast_to(
                lb[None, :, None], (int(ends.sum()), nb, 1)).astype(np.intp), axis=2)[:, :, 0]
    return out


def _bitparallel(a: np.ndarray, la: np.ndarray, b: np.ndarray, lb: np.ndarray,
                 n_codes: int) -> np.ndarray:
    """Hyyrö's (2001) bit-vector edit distance of every a (at most 64 characters, codes
    0..n_codes-1, -1 padding) against every b, vectorised over the pairs."""
    na = a.shape[0]
    one = np.uint64(1)
    peq = np.zeros((na, n_codes + 1), dtype=np.uint64)  # the last column: padding, no match
    rows, pos = np.nonzero(a >= 0)
    np.bitwise_or.at(peq, (rows, a[rows, pos]), np.left_shift(one, pos.astype(np.uint64)))
    width = la.astype(np.uint64)
    pv = np.where(la > 0, np.left_shift(one, width - one) * 2 - one, 0).astype(np.uint64)
    pv = np.broadcast_to(pv[:, None], (na, b.shape[0])).copy()
    mv = np.zeros_like(pv)
    score = np.broadcast_to(la[:, None], pv.shape).astype(np.int64)
    top = np.where(la > 0, np.left_shift(one, np.maximum(width, one) - one), 0).astype(
        np.uint64)[:, None]
    bcodes = np.where(b >= 0, b, n_codes)
    for j in range(b.shape[1]):
        active = (j < lb)[None, :]
        eq = peq[:, bcodes[:, j]]
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | ~(xh | pv)
        mh = pv & xh
        score += np.where(active, (ph & top) != 0, False).astype(np.int64)
        score -= np.where(active, (mh & top) != 0, False).astype(np.int64)
        ph = (ph << one) | one
        mh = mh << one
        pv = np.where(active, mh | ~(xv | ph), pv)
        mv = np.where(active, ph & xv, mv)
    # an empty a: the distance is b's length (the loop above never moved its score)
    return np.where(la[:, None] == 0, lb[None, :], score).astype(np.int32)


def edit_distance(a: Sequence[str], b: Sequence[str]) -> np.ndarray:
    """Levenshtein distance of every string of ``a`` to every string of ``b``.

    Returns an int array of shape ``(len(a), len(b))`` (module docstring for the recurrence).

    Examples
    --------
    >>> edit_distance(["John Smith", "kitten"], ["Jon Smith", "sitting", ""]).tolist()
    [[1, 9, 10], [9, 3, 6]]
    """
    a = [str(s) for s in a]
    b = [str(s) for s in b]
    if not a or not b:
        return np.zeros((len(a), len(b)), dtype=np.int32)
    ca, la = _codes(a)
    cb, lb = _codes(b)
    # dense character codes shared by both sides (the bit-parallel form indexes by them)
    chars, dense = np.unique(np.concatenate([ca[ca >= 0], cb[cb >= 0]]), return_inverse=True)
    da, db = np.full_like(ca, -1), np.full_like(cb, -1)
    da[ca >= 0] = dense[: int((ca >= 0).sum())]
    db[cb >= 0] = dense[int((ca >= 0).sum()):]
    out = np.empty((len(a), len(b)), dtype=np.int32)
    short = np.flatnonzero(la <= 64)
    per_a = max(1, _PAIR_CHUNK // max(1, len(b) * 8))
    for s in range(0, short.size, per_a):
        rows = short[s:s + per_a]
        out[rows] = _bitparallel(da[rows], la[rows], db, lb, chars.size)
    long_rows = np.flatnonzero(la > 64)
    per_a = max(1, _PAIR_CHUNK // max(1, len(b) * (int(lb.max()) + 1)))
    for s in range(0, long_rows.size, per_a):
        rows = long_rows[s:s + per_a]
        out[rows] = _block(ca[rows], la[rows], cb, lb)
    return out


@dataclass(frozen=True, eq=False)
class TextCloseness(Summarized):
    """How closely released texts reproduce the data's, per text column.

    Attributes
    ----------
    table : one row per column and threshold t: the share of confidential records whose text
        has a released text within edit distance t (t = 0: copied exactly), and the same share
        for the holdout records when a holdout was given (what any release of the population
        would reproduce; a release is closer to its data than to fresh data when the first
        share is larger).
    max_share : the largest confidential share over columns and the thresholds above 0
        (range [0, 1], lower is safer).
    distances : per column, every confidential record's distance to its closest released text.
    """

    table: pd.DataFrame
    max_share: float
    distances: dict[str, np.ndarray]
    thresholds: tuple[int, ...]

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        lines = ["Text closeness (Levenshtein edit distance to the closest released text)"]
        for _, r in self.table.iterrows():
            hold = ("" if pd.isna(r["holdout_share"])
                    else f"; holdout {r['holdout_share']:.1%}")
            lines.append(f"  {r['column']}: within {int(r['threshold'])} edit(s) "
                         f"{r['share']:.1%}{hold}")
        return "\n".join(lines)


def _closest(values: pd.Series, released: np.ndarray) -> np.ndarray:
    """Each value's edit distance to its closest released text (computed on distinct values)."""
    uniq, inverse = np.unique(values.astype(str).to_numpy(), return_inverse=True)
    d = edit_distance(list(uniq), list(released)).min(axis=1)
    return d[inverse]


def text_closeness(
    conf: pd.DataFrame,
    synthetic: Any,
    *,
    columns: str | Sequence[str],
    thresholds: Sequence[int] = (0, 1, 2),
    holdout: pd.DataFrame | None = None,
) -> TextCloseness:
    """Share of the data's texts that the release reproduces within an edit distance.

    For each text column and threshold t: the share of confidential records (missing texts
    left out) with a released text (any implicate) at Levenshtein distance ≤ t. With a
    ``holdout`` (records of the same population not used for the release) the same share is
    computed for them, the baseline of the course's membership reasoning: a share well above
    the holdout's means the release copies its own respondents' texts.

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"name": ["John Smith", "Ann Lee", "Bo Chan"]})
    >>> rel = pd.DataFrame({"name": ["Jon Smith", "Ann Lee", "Zed Park"]})
    >>> text_closeness(conf, rel, columns="name").table["share"].round(3).tolist()
    [0.333, 0.667, 0.667]
    """
    cols = [columns] if isinstance(columns, str) else list(columns)
    if not cols:
        raise ParameterError("parameter 'columns': name at least one text column")
    ts = tuple(int(t) for t in thresholds)
    if not ts or any(t < 0 for t in ts):
        raise ParameterError("parameter 'thresholds': expected edit distances >= 0")
    imps = as_implicates(synthetic)
    frames = [("conf", conf)] + [(f"synthetic implicate {i}", f) for i, f in enumerate(imps)]
    if holdout is not None:
        frames.append(("holdout", holdout))
    missing = [f"'{c}' is not in {name}" for c in cols for name, f in frames if c not in f.columns]
    if missing:
        raise DataError("text_closeness: column " + "; ".join(missing)
                        + "; name text columns present in the data and the release")
    rows, dists = [], {}
    for c in cols:
        released = np.unique(np.concatenate(
            [f[c].dropna().astype(str).to_numpy() for f in imps]))
        conf_vals = conf[c].dropna()
        if conf_vals.empty or released.size == 0:
            raise DataError(f"text_closeness: column '{c}' has no text in the data or the "
                            "release; drop it from 'columns'")
        d = _closest(conf_vals, released)
        dists[c] = d
        dh = None
        if holdout is not None and holdout[c].notna().any():
            dh = _closest(holdout[c].dropna(), released)
        for t in ts:
            rows.append({"column": c, "threshold": t, "share": float(np.mean(d <= t)),
                         "holdout_share": float(np.mean(dh <= t)) if dh is not None
                         else float("nan")})
    table = pd.DataFrame(rows)
    above = table[table["threshold"] > 0]
    return TextCloseness(
        table=table,
        max_share=float(above["share"].max()) if len(above) else float(table["share"].max()),
        distances=dists,
        thresholds=ts,
    )
