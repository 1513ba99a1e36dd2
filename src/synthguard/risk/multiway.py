"""Three- and four-way (any k-way) identification risk: the generalisation of the pairwise risk
that Hu, Savitsky & Williams examined in section 3.2 ("three-way and four-way identification
risk probabilities ... little improvement at the price of a less scalable computation").

Computed exactly without enumerating tuples, so it is as scalable as the pairwise risk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.errors import ParameterError
from synthguard.risk._balls import Balls, make_balls
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    ball_arguments,
    ball_settings,
    risk_summary,
    target_matrix,
)
from synthguard.risk._patterns import PatternEncoder
from synthguard.risk.pairwise import PairwiseIdentificationRisk

__all__ = ["MultiwayIdentificationRisk", "multiway_identification_risk"]


@dataclass(frozen=True, eq=False)
class MultiwayIdentificationRisk(PairwiseIdentificationRisk, Summarized):
    """Normalised k-way risk of every confidential record (``order`` = k).

    The fields are those of :class:`~synthguard.risk.PairwiseIdentificationRisk`, with
    ``per_record`` the mean k-way risk of record i over the k-tuples of its pattern that hold
    it, and ``weights`` = 1 - ``per_record``. Records whose pattern holds fewer than k records
    are the "singletons" here (no k-tuple holds them)."""

    order: int = 3

    def summary(self) -> str:
        lines = super().summary().splitlines()
        lines[0] = (
            f"{self.order}-way identification risk of the confidential data "
            "(Hu, Savitsky & Williams, eqs. 6-9 over k-tuples, section 3.2)"
        )
        lines[-1] = lines[-1].replace(
            "singleton patterns", f"patterns of fewer than {self.order} records"
        )
        return "\n".join(lines)


def _outside_weight(m: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``C(m - 1 - c, k - 1)``: the (k - 1)-subsets of the other records of the pattern whose
    balls all miss a record h that lies in ``c`` balls (float64, exact below 2**53)."""
    from scipy.special import comb

    return comb(np.maximum(m - 1 - c, 0), k - 1, exact=False)


def _ball_sums_of_outside(
    balls: Balls, y: np.ndarray, m: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every record i: ``|B_i|``, ``sum_{h in B_i} w_h`` and ``w_i`` itself (the caller sums
    w over each pattern), with ``w_h = C(m - 1 - c_h, k - 1)`` and ``c_h`` the number of balls of
    h's pattern holding y_h."""
    n = balls.n
    if balls.d == 1:
        order, start, stop = balls.runs(balls.pattern, y, 0)
        inside = stop - start
        diff = np.bincount(start, minlength=n + 1) - np.bincount(stop, minlength=n + 1)
        cover = np.cumsum(diff[:n])  # c at each sorted position
        w_sorted = _outside_weight(m[order], cover, k)
        prefix = np.concatenate([[0.0], np.cumsum(w_sorted)])
        w = np.empty(n)
        w[order] = w_sorted
        return inside, prefix[stop] - prefix[start], w
    if balls.d == 2:
        inside = balls.box_sums(balls.pattern, y)
        order, cover_sorted = balls.box_cover(balls.pattern, y)
        c = np.empty(n, dtype=np.int64)
        c[order] = cover_sorted
        w = _outside_weight(m, c, k)
        return inside, balls.box_sums(balls.pattern, y, weights=w), w
    inside = np.zeros(n, dtype=np.int64)
    cover_pos = np.zeros(n, dtype=np.int64)
    for rec, pos, _ in balls._pairs(balls.pattern, y):
        inside += np.bincount(rec, minlength=n)
        cover_pos += np.bincount(pos, minlength=n)
    sums = np.zeros(n)
    w = np.zeros(n)
    for rec, pos, order in balls._pairs(balls.pattern, y):
        w_pos = _outside_weight(m[order[pos]], cover_pos[pos], k)
        sums += np.bincount(rec, weights=w_pos, minlength=n)
        w[order[pos]] = w_pos
    return inside, sums, w


def multiway_identification_risk(
    conf: pd.DataFrame,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    order: int = 3,
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
) -> MultiwayIdentificationRisk:
    """Normalised k-way identification risk and weights on the confidential data.

    The pairwise risk of Hu, Savitsky & Williams (eq. 6) for a k-tuple T of records of one
    pattern p (m = |M_p| records), with B_t = B(y_t, r) the ball of :func:`identification_risk`::

        IR_T^c    = #{h in M_p : y_h not in B_t for every t in T} / m
        per_i     = mean of IR_T^c over the C(m - 1, k - 1) tuples T of M_p holding i
        alpha~_i  = 1 - per_i                                    (eqs. 8-9 over k-tuples)

    Section 3.2 of the paper reports three- and four-way risks giving little gain over the
    pairwise weights; ``order=2`` equals :func:`pairwise_identification_risk`.

    Exact computation without tuples. A record h outside B_i is outside all of T = {i} ∪ S
    exactly when S avoids the ``c_h`` records whose balls hold it; there are ``m - c_h`` records
    whose balls miss h (i among them), so ``C(m - c_h - 1, k - 1)`` such S. Hence::

        m * C(m - 1, k - 1) * per_i = sum_{h in M_p, h not in B_i} C(m - 1 - c_h, k - 1)
                                    = W_p - sum_{h in B_i} w_h,   w_h = C(m - 1 - c_h, k - 1)

    with W_p the sum of w over the pattern. The ball sums are prefix sums over each pattern's
    sorted values with one target (O(n log n)), range sums on a merge-sort tree with two, and an
    enumeration of the (i, h) pairs along the most selective target with more, exactly as the
    pairwise risk's ``S_i``.

    Parameters
    ----------
    conf : confidential data.
    order : k, the size of the tuples (2, 3, 4, ...).
    keys, targets, radius, relative, inclusive, singletons, quantiles
        As in :func:`identification_risk`; "singletons" are the records whose pattern holds
        fewer than ``order`` records.

    Returns
    -------
    MultiwayIdentificationRisk

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"k": [1, 1, 1, 1], "y": [10.0, 11.0, 30.0, 60.0]})
    >>> res = multiway_identification_risk(conf, keys=["k"], targets="y", order=3,
    ...                                    singletons="zero")
    >>> res.per_record.round(4)
    array([0.1667, 0.1667, 0.0833, 0.0833])
    """
    from scipy.special import comb

    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 2:
        raise ParameterError("parameter 'order': expected an integer of at least 2 (2 is pairwise)")
    k = int(order)
    keys_l, targets, r, policy, warn = ball_arguments(conf, keys, targets, radius, singletons)
    y = target_matrix(conf, targets, name="conf", allow_missing=False)
    enc = PatternEncoder.fit(conf, keys_l)
    m = enc.sizes()[enc.codes].astype(np.int64)
    balls = make_balls(
        enc.codes, y, r, relative=relative, inclusive=inclusive, n_patterns=enc.n_patterns
    )
    inside, in_ball, w = _ball_sums_of_outside(balls, y, m, k)
    pattern_total = np.bincount(enc.codes, weights=w, minlength=enc.n_patterns)[enc.codes]
    short = m < k
    tuples = comb(np.maximum(m - 1, 0), k - 1, exact=False)
    denom = np.where(short, 1.0, m * tuples)
    risk = (pattern_total - in_ball) / denom
    fill = {"zero": 0.0, "one": 1.0, "exclude": np.nan}[policy]
    risk = np.where(short, fill, np.clip(risk, 0.0, 1.0))
    n = len(conf)
    return MultiwayIdentificationRisk(
        **risk_summary(risk, short, n, warn, quantiles, f"{k}-way identification risk"),
        weights=1.0 - risk,
        pattern=enc.codes,
        pattern_size=m,
        n_inside=inside,
        **ball_settings(keys_l, targets, r, relative, inclusive, policy),
        index=conf.index,
        order=k,
    )
