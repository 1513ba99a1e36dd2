"""The household structure of a person file, shared by the household-level utility measures:
each person's household, each household's size, design weight and head.

Rule for the **head** (documented in ``docs/households.md`` and every measure that uses it):

* with a relationship column (``relationship=``, e.g. sdcMicro testdata's ``relat``, code 1 =
  head), the first member whose relationship is ``head_code``;
* a household without such a member, or a file without a relationship column (simPop's
  ``eusilcS``), takes its oldest member (``age=``), the first listed among equals;
* without an age column either, the first listed member.

Household weights: the weight column's value at the household's first listed member (a
household weight is constant within the household; sdcMicro's testdata ``household_weights``,
EU-SILC's ``DB090``). Person weights: the column's value on each row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.errors import DataError
from synthguard.utility._inputs import numeric_values

__all__: list[str] = []


@dataclass(frozen=True)
class Households:
    """Household structure of one file (n persons, H households)."""

    codes: np.ndarray  # (n,) household of each person, 0..H-1 in order of first appearance
    size: np.ndarray  # (H,) members
    weight: np.ndarray  # (H,) household design weight (ones without weights)
    person_weight: np.ndarray  # (n,) person design weight (ones without weights)
    head: np.ndarray  # (H,) row of the head
    first: np.ndarray  # (H,) row of the first listed member

    @property
    def n_households(self) -> int:
        return int(self.size.shape[0])


def weight_values(frame: pd.DataFrame, weights: str | None, name: str) -> np.ndarray | None:
    """The weight column as floats (None without one); positive and finite, else DataError."""
    if weights is None or weights not in frame.columns:
        return None
    w = numeric_values(frame[weights], weights)
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise DataError(f"{name}: weight column '{weights}' needs finite positive weights "
                        f"without missing values; impute or drop the records without one")
    return w


def households(
    frame: pd.DataFrame,
    household: str,
    *,
    name: str = "data",
    weights: str | None = None,
    relationship: str | None = None,
    head_code: object = 1,
    age: str | None = None,
) -> Households:
    """The household structure of ``frame`` (see the module docstring for the head rule).

    ``weights`` absent from ``frame`` (a release without the design weights) gives unit
    weights."""
    if household not in frame.columns:
        raise DataError(f"{name}: household-id column '{household}' not found; name the column "
                        f"that identifies each record's household")
    col = frame[household].reset_index(drop=True)
    if col.isna().any():
        raise DataError(f"{name}: household-id column '{household}' has missing values; give "
                        f"every record a household id")
    codes = np.asarray(pd.factorize(col)[0], dtype=np.int64)
    n = codes.shape[0]
    n_h = int(codes.max()) + 1 if n else 0
    size = np.bincount(codes, minlength=n_h)
    first = np.full(n_h, n, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(n, dtype=np.int64))
    pw = weight_values(frame, weights, name)
    person_weight = np.ones(n) if pw is None else pw
    weight = person_weight[first] if n else np.zeros(0)
    head = _heads(frame, codes, n_h, first, relationship, head_code, age, name)
    return Households(codes=codes, size=size, weight=weight, person_weight=person_weight,
                      head=head, first=first)


def first_where(mask: np.ndarray, codes: np.ndarray, n_h: int) -> np.ndarray:
    """Per household the first row where ``mask`` holds (n when none)."""
    n = codes.shape[0]
    out = np.full(n_h, n, dtype=np.int64)
    rows = np.flatnonzero(mask)
    np.minimum.at(out, codes[rows], rows)
    return out


def _heads(
    frame: pd.DataFrame, codes: np.ndarray, n_h: int, first: np.ndarray,
    relationship: str | None, head_code: object, age: str | None, name: str,
) -> np.ndarray:
    n = codes.shape[0]
    head = np.full(n_h, n, dtype=np.int64)
    if relationship is not None:
        require(frame, [relationship], name)
        is_head = (frame[relationship].reset_index(drop=True) == head_code).to_numpy(
            dtype=bool, na_value=False)
        head = first_where(is_head, codes, n_h)
    missing = head == n
    if missing.any() and age is not None and age in frame.columns:
        a = numeric_values(frame[age], age)
        a = np.where(np.isnan(a), -np.inf, a)
        oldest = np.full(n_h, -np.inf)
        np.maximum.at(oldest, codes, a)
        head_age = first_where(a == oldest[codes], codes, n_h)
        head = np.where(missing, head_age, head)
    return np.where(head == n, first, head)


def require(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    """DataError naming the columns ``frame`` lacks."""
    lacking = [c for c in columns if c not in frame.columns]
    if lacking:
        raise DataError(f"{name}: column(s) {', '.join(lacking)} not found; name columns the "
                        f"file has")


def weighted_shares(keys: np.ndarray, weight: np.ndarray) -> pd.Series:
    """Weighted share of each value of ``keys`` (an object or integer array)."""
    s = pd.Series(weight, dtype=float).groupby(pd.Series(keys)).sum()
    total = float(s.sum())
    return s / total if total > 0 else s


def total_variation(p: pd.Series, q: pd.Series) -> tuple[float, pd.DataFrame]:
    """TV = 1/2 sum |p - q| over the union of the cells, and the aligned table."""
    table = pd.DataFrame({"data": p, "release": q}).fillna(0.0)
    return 0.5 * float(np.abs(table["data"] - table["release"]).sum()), table


def weighted_corr(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Weighted Pearson correlation sum w (x - xbar)(y - ybar) / sqrt(...) (NaN when a
    variance is 0 or fewer than two pairs)."""
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y, w = x[ok], y[ok], w[ok]
    if x.size < 2:
        return float("nan")
    xb = np.average(x, weights=w)
    yb = np.average(y, weights=w)
    sxy = np.sum(w * (x - xb) * (y - yb))
    sxx = np.sum(w * (x - xb) ** 2)
    syy = np.sum(w * (y - yb) ** 2)
    if sxx <= 0 or syy <= 0:
        return float("nan")
    return float(sxy / np.sqrt(sxx * syy))


def weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """Weighted median as laeken's ``weightedMedian`` (laeken 0.5.2's ``weightedQuantile``;
    Alfons & Templ 2013), the estimator of Eurostat's EU-SILC indicators: sort x, cumulative
    weight shares c_k = sum_{j<=k} w_(j) / sum w; the median is x_(k) for the first k with
    c_k > 1/2."""
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    cw = np.cumsum(ws) / np.sum(ws)
    return float(xs[int(np.flatnonzero(cw > 0.5)[0])])
