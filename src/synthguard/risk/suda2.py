"""SUDA2 special-uniques scores from minimal sample uniques, as sdcMicro's ``suda2`` defines
them (Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008; Templ, Kowarik & Meindl 2015)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import check_columns
from synthguard.risk.blocks.frequencies import group_rows as _group_rows
from synthguard.risk.individual_risk import key_codes

__all__ = ["Suda2", "suda2"]

MAX_KEYS = 20


@dataclass(frozen=True, eq=False)
class Suda2(Summarized):
    """SUDA2 scores of every record.

    Attributes
    ----------
    suda_score : SUDA score of every record (sdcMicro's ``score``): 0 for records without a
        minimal sample unique.
    dis_score : DIS-SUDA score, the score calibrated to a probability that a unique match is
        correct (sdcMicro's ``disScore``).
    n_msu : number of minimal sample uniques of every record.
    record_contributions : per record and key variable, the share of the record's score from
        MSUs containing that variable (sdcMicro's ``contributionPercent``; fractions, 0 where
        the score is 0).
    contributions : contribution of each key variable to the total score, in percent
        (sdcMicro's ``attribute_contributions``); sums to more than 100 when MSUs have several
        variables.
    dis_fraction : the sampling fraction used for the DIS score.
    level_contributions : per key variable and value (columns ``variable``, ``value``,
        ``contribution``), the value's share in percent of the variable's contribution
        (sdcMicro's ``attribute_level_contributions``). It holds the data's key values: treat
        it as confidential.
    """

    suda_score: np.ndarray
    dis_score: np.ndarray
    n_msu: np.ndarray
    record_contributions: pd.DataFrame
    contributions: pd.Series
    dis_fraction: float
    keys: tuple[str, ...]
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))
    level_contributions: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["variable", "value", "contribution"]),
        repr=False,
    )

    goal = "minimize"

    @property
    def n_with_msu(self) -> int:
        """Number of records with at least one minimal sample unique (special uniques)."""
        return int(np.sum(self.suda_score > 0))

    def dis_table(self) -> pd.Series:
        """Number of records by DIS-SUDA score interval, as sdcMicro's ``print.suda2``."""
        labels = ["== 0", "(0.0, 0.1]", "(0.1, 0.2]", "(0.2, 0.3]", "(0.3, 0.4]"]
        labels += ["(0.4, 0.5]", "(0.5, 0.6]", "(0.6, 0.7]", "> 0.7"]
        edges = [-1.0, *(np.arange(8) / 10 + np.finfo(float).eps), np.inf]
        cut = pd.cut(self.dis_score, bins=edges, labels=labels)
        return pd.Series(cut).value_counts(sort=False).rename("records")

    def to_frame(self) -> pd.DataFrame:
        """One row per record in the data's order: ``suda_score``, ``dis_score``."""
        return pd.DataFrame(
            {"suda_score": self.suda_score, "dis_score": self.dis_score}, index=self.index
        )

    def summary(self) -> str:
        n = self.suda_score.shape[0]
        top = ", ".join(
            f"{k} {v:.1f}%" for k, v in self.contributions.sort_values(ascending=False).items()
        )
        return "\n".join(
            [
                f"SUDA2 of keys {', '.join(self.keys)} ({n} records)",
                f"  records with a minimal sample unique: {self.n_with_msu}",
                f"  highest DIS-SUDA score: {float(self.dis_score.max()) if n else 0.0:.4f}",
                f"  contributions: {top}",
            ]
        )

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def msu_weights(n_keys: int) -> np.ndarray:
    """Score of one MSU of size k = 1..M: (M - k)! with M = max(n_keys, 3) (Elliot, Manning &
    Ford 2002, the product of (M - i) for i = k .. M-1; sdcMicro pads fewer than three keys with
    constant columns, so M is at least 3)."""
    m = max(n_keys, 3)
    return np.array([float(math.factorial(m - k)) for k in range(1, n_keys + 1)])


def suda2(
    data: pd.DataFrame,
    keys: Sequence[str],
    missing: Any = None,
    dis_fraction: float = 0.01,
) -> Suda2:
    """SUDA and DIS-SUDA scores of every record and the contribution of each key variable, as
    sdcMicro's ``suda2`` (``original_scores = TRUE``, its default since 5.0.2) computes them.

    A *minimal sample unique* (MSU) of record r is a set S of key variables on which r's values
    occur once in the data while no proper subset of S is unique for r (Elliot, Manning & Ford
    2002). With M key variables (at least 3, see :func:`msu_weights`) an MSU of size k scores
    (M - k)!, and a record's SUDA score is the sum over its MSUs: small MSUs weigh most.

    DIS-SUDA (Elliot, Manning, Mayes, Gurd & Bane; sdcMicro's C++ code) calibrates the scores
    to the probability that a unique match is correct. With U records unique on all keys, P
    records whose key combination occurs exactly twice, sampling fraction f and
    Dis = U f / (U f + P (1 - f)), Q = 1 + (8 - M) / 20 and A = sum of s^-Q over records with
    score s > 0, a record with score s > 0 gets 1 / (1 + (U / Dis - U) / (s^Q A)), and 0
    otherwise. (U / Dis - U equals P (1 - f) / f, computed here in that exact form; sdcMicro
    computes it in single precision.)

    Contributions: a record's MSU scores are split over the variables in each MSU; variable j
    contributes 100 * (sum over records and their MSUs containing j of the MSU score) /
    (sum of all SUDA scores) percent.

    Missing values follow sdcMicro: a missing value never belongs to an MSU, and it matches no
    value (records missing on a key do not share that key's value with anyone).

    Algorithm: only records unique on the full key combination can have an MSU. Key subsets
    are visited by increasing size; each is grouped (integer codes, ``np.bincount``) and a
    candidate record is an MSU of S when it is unique on S and on none of S's subsets one
    variable smaller (uniqueness is inherited by supersets, so that covers every proper
    subset). O(2^M n) time; at most 20 keys.

    Parameters
    ----------
    data : the data (confidential or released).
    keys : key variables (quasi-identifiers).
    missing : a value that stands for missing in addition to NA (sdcMicro codes missing as
        -999); None for NA only.
    dis_fraction : sampling fraction for the DIS score, in (0, 1) (sdcMicro's DisFraction).

    Returns
    -------
    Suda2

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})
    >>> res = suda2(df, ["a", "b", "c"])
    >>> res.suda_score
    array([2., 4., 2.])
    >>> res.contributions.round(1).tolist()
    [50.0, 37.5, 37.5]
    """
    keys_l = as_list(keys, name="keys")
    if not keys_l:
        raise ParameterError("parameter 'keys': name at least one key variable")
    if len(keys_l) > MAX_KEYS:
        raise ParameterError(
            f"parameter 'keys': SUDA2 visits every subset of the keys; use at most {MAX_KEYS}"
        )
    if (
        isinstance(dis_fraction, bool)
        or not isinstance(dis_fraction, int | float | np.floating)
        or not 0 < float(dis_fraction) < 1
    ):
        raise ParameterError("parameter 'dis_fraction': expected a sampling fraction in (0, 1)")
    check_columns(data, keys_l, name="data", role="key")
    frame = data[keys_l]
    if missing is not None:
        frame = frame.mask(frame == missing)
    n, m = len(frame), len(keys_l)
    codes = key_codes(frame, keys_l)
    miss = codes < 0
    # missing is its own code (it matches only other missing values, never part of an MSU)
    for j in range(m):
        codes[miss[:, j], j] = int(codes[:, j].max()) + 1
    weights = msu_weights(m)

    score = np.zeros(n)
    n_msu = np.zeros(n, dtype=np.int64)
    raw = np.zeros((n, m))
    full = _group_rows(codes) if n else np.zeros(0, dtype=np.int64)
    full_counts = np.bincount(full) if n else np.zeros(0, dtype=np.int64)
    cand = np.flatnonzero(full_counts[full] == 1) if n else np.zeros(0, dtype=np.int64)
    if cand.size:
        miss_c = miss[cand]
        cards = codes.max(axis=0).astype(np.int64) + 1
        # group ids of the previous level's subsets, extended by one column per subset
        prev_gid: dict[tuple[int, ...], tuple[np.ndarray, int]] = {(): (np.zeros(n, np.int64), 1)}
        prev: dict[tuple[int, ...], np.ndarray] = {}
        for k in range(1, m + 1):
            level: dict[tuple[int, ...], np.ndarray] = {}
            level_gid: dict[tuple[int, ...], tuple[np.ndarray, int]] = {}
            for subset in combinations(range(m), k):
                cols = list(subset)
                base, bound = prev_gid[subset[:-1]]
                last = subset[-1]
                grp = base * cards[last] + codes[:, last]
                bound *= int(cards[last])
                if bound > 4 * n:
                    grp = pd.factorize(grp)[0].astype(np.int64)
                    bound = int(grp.max()) + 1
                if k < m and subset[-1] < m - 1:
                    level_gid[subset] = (grp, bound)
                unique = np.bincount(grp, minlength=bound)[grp[cand]] == 1
                unique &= ~miss_c[:, cols].any(axis=1)
                level[subset] = unique
                msu = unique.copy()
                if k > 1:
                    for drop in range(k):
                        msu &= ~prev[subset[:drop] + subset[drop + 1 :]]
                if msu.any():
                    rows = cand[msu]
                    score[rows] += weights[k - 1]
                    n_msu[rows] += 1
                    raw[np.ix_(rows, cols)] += weights[k - 1]
            prev, prev_gid = level, level_gid

    total = float(score.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        record_share = np.where(score[:, None] > 0, raw / score[:, None], 0.0)
    contributions = pd.Series(
        100.0 * raw.sum(axis=0) / total if total > 0 else np.zeros(m),
        index=pd.Index(keys_l, name="variable"),
        name="contribution",
    )
    dis = _dis_scores(score, full_counts, m, float(dis_fraction))
    levels = []
    for j, key in enumerate(keys_l):
        col = frame[key].reset_index(drop=True)
        tot = raw[:, j].sum()
        by = pd.Series(raw[:, j]).groupby(col, dropna=True, sort=True).sum()
        share = 100.0 * by / tot if tot > 0 else by * np.nan
        levels.append(
            pd.DataFrame(
                {"variable": key, "value": by.index.to_list(), "contribution": share.to_numpy()}
            )
        )
    return Suda2(
        suda_score=score,
        dis_score=dis,
        n_msu=n_msu,
        record_contributions=pd.DataFrame(record_share, columns=keys_l, index=data.index),
        contributions=contributions,
        dis_fraction=float(dis_fraction),
        keys=tuple(keys_l),
        index=data.index,
        level_contributions=pd.concat(levels, ignore_index=True),
    )


def _dis_scores(score: np.ndarray, full_counts: np.ndarray, n_keys: int, f: float) -> np.ndarray:
    """sdcMicro's DIS-SUDA score (see :func:`suda2`)."""
    dis = np.zeros_like(score)
    pos = score > 0
    if not pos.any():
        return dis
    pairs = 2.0 * float(np.sum(full_counts == 2))
    q = 1.0 + (8.0 - max(n_keys, 3)) / 20.0
    adj = float(np.sum(score[pos] ** -q))
    dis[pos] = 1.0 / (1.0 + pairs * (1.0 - f) / f / (score[pos] ** q * adj))
    return dis
