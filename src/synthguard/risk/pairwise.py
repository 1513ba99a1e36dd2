"""Pairwise identification risk and the normalised pairwise weights (Hu, Savitsky & Williams,
section 3, eqs. (6)-(9)), computed exactly with prefix sums instead of looping over pairs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.risk import blocks
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    ball_arguments,
    ball_settings,
    risk_summary,
    target_matrix,
)

__all__ = ["PairwiseIdentificationRisk", "pairwise_identification_risk"]


@dataclass(frozen=True, eq=False)
class PairwiseIdentificationRisk(Summarized):
    """Normalised pairwise risk of every confidential record.

    Attributes
    ----------
    per_record : mean pairwise risk of record i, ``sum_{j != i} IR_ij^c / (|M_{p,i}| - 1)``,
        in ``conf``'s row order (range [0, 1], higher is riskier).
    weights : the normalised weights alpha~_i = 1 - per_record (eq. 9), the pairwise
        risk weights alpha_i^pw of the pseudo posterior (range [0, 1]).
    mean, max, quantiles : of ``per_record`` (ignoring NaN).
    n_singletons, singleton_share : records alone in their pattern, for which eq. (8) is 0/0.
    pattern, pattern_size, n_inside : pattern code, |M_{p,i}| and |B_i| (records of the pattern
        inside record i's ball) of every record.
    """

    per_record: np.ndarray
    weights: np.ndarray
    mean: float
    max: float
    quantiles: dict[float, float]
    n_singletons: int
    singleton_share: float
    pattern: np.ndarray
    pattern_size: np.ndarray
    n_inside: np.ndarray
    keys: tuple[str, ...]
    targets: tuple[str, ...]
    radius: tuple[float, ...]
    relative: bool
    inclusive: bool
    singletons: str
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    @property
    def n(self) -> int:
        return int(self.per_record.shape[0])

    def to_frame(self) -> pd.DataFrame:
        """One row per confidential record (indexed like ``conf``)."""
        return pd.DataFrame(
            {
                "pairwise_risk": self.per_record,
                "weight": self.weights,
                "pattern": self.pattern,
                "pattern_size": self.pattern_size,
                "n_inside": self.n_inside,
                "singleton": self.pattern_size == 1,
            },
            index=self.index,
        )

    def summary(self) -> str:
        kind = "relative" if self.relative else "absolute"
        qs = ", ".join(f"q{round(q * 100)} {v:.4f}" for q, v in self.quantiles.items())
        return "\n".join(
            [
                "Pairwise identification risk of the confidential data "
                "(Hu, Savitsky & Williams, eqs. 6-9)",
                f"  keys: {', '.join(self.keys) or '(none)'}; targets: "
                f"{', '.join(self.targets)}; {kind} radius "
                f"{', '.join(f'{r:g}' for r in self.radius)}",
                f"  records: {self.n}; mean pairwise risk {self.mean:.4f}; max {self.max:.4f}",
                f"  {qs}",
                f"  singleton patterns: {self.n_singletons} records "
                f"({self.singleton_share:.1%}), scored '{self.singletons}'",
            ]
        )

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


@dask_backend
@renamed(target="targets")
def pairwise_identification_risk(
    conf: pd.DataFrame,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
) -> PairwiseIdentificationRisk:
    """Normalised pairwise identification risk and weights on the confidential data.

    Hu, Savitsky & Williams, eqs. (6)-(9): for records i, j of the same pattern p (m = |M_p|
    records)::

        IR_ij^c   = #{h in M_p : y_h not in B_i and y_h not in B_j} / m          (6)
        alpha_ij  = 1 - IR_ij^c                                                  (7)
        alpha~_i  = sum_{j != i} alpha_ij / (m - 1)                               (8)
                  = 1 - sum_{j != i} IR_ij^c / (m - 1)                            (9)

    with B_i = B(y_i, r) the ball of :func:`identification_risk` (same radius, boundary and
    zero-value rules). ``per_record`` is ``1 - alpha~_i`` and ``weights`` is alpha~_i.

    Exact computation without pairs. By inclusion-exclusion the records outside both balls
    number ``m - |B_i| - |B_j| + |B_i ∩ B_j|``. Summing over j != i, with ``T_p = sum_j |B_j|``
    and ``|B_i ∩ B_i| = |B_i|``::

        m * sum_{j != i} IR_ij^c = (m - 1)(m - |B_i|) - (T_p - |B_i|) + (S_i - |B_i|)
                                 = (m - 1)(m - |B_i|) - T_p + S_i

    where ``S_i = sum_j |B_i ∩ B_j| = sum_j sum_h 1(h in B_i) 1(h in B_j)
    = sum_{h in B_i} c_h`` and ``c_h = #{j in M_p : y_h in B_j}`` is the number of balls that
    contain y_h. With the values of each pattern sorted, every ball B_j is a contiguous run
    [start_j, stop_j) of sorted positions (two ``searchsorted`` calls); c at every position is a
    cumulative sum of the difference array (+1 at start_j, -1 at stop_j), and S_i is a
    difference of prefix sums of c over i's run. All integer arithmetic until one final
    division: O(n log n) time, O(n) memory. With two targets |B_i|, c_h (a stabbing count, as
    four signed dominance counts of the boxes' corners) and S_i are weighted 2-d range sums on a
    merge-sort tree: O(n log^2 n). With more targets the pairs (i, h) with h in B_i are
    enumerated along the most selective target (O(n log n + C), C their number).

    Singletons: for a record alone in its pattern eq. (8) is 0/0. ``singletons='zero'`` (the
    default; risk 0, weight 1, which equals its marginal weight 1 - IR_i^c = 1),
    ``'one'`` (risk 1, weight 0) or ``'exclude'`` (NaN). With None the default applies and a
    :class:`~synthguard.errors.DisclosureWarning` reports how many records are singletons.

    Parameters
    ----------
    conf : confidential data.
    keys, targets, radius, relative, inclusive, singletons, quantiles
        As in :func:`identification_risk`.

    Returns
    -------
    PairwiseIdentificationRisk

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"k": [1, 1, 1], "y": [10.0, 11.0, 30.0]})
    >>> res = pairwise_identification_risk(conf, keys=["k"], targets="y", radius=0.2)
    >>> res.weights.round(4)
    array([0.8333, 0.8333, 1.    ])
    """
    keys_l, targets_l, r, policy, warn = ball_arguments(
        meta_of(conf), keys, targets, radius, singletons
    )
    kw: dict[str, Any] = dict(keys=keys_l, targets=targets_l, r=r, relative=relative,
                              inclusive=inclusive, policy=policy)
    if any_dask(conf):  # the measure pairs records of one pattern: shuffled on the keys
        from synthguard.risk._on_dask.pairwise import pairwise_parts

        target_matrix(meta_of(conf), targets_l, name="conf", allow_missing=True)  # numeric
        parts = pairwise_parts(conf, npartitions=npartitions, **kw)
    else:
        parts = {**blocks.pairwise_counts(conf, **kw), "index": conf.index}
    risk = parts["risk"]
    return PairwiseIdentificationRisk(
        **risk_summary(risk, parts["size"] == 1, len(risk), warn, quantiles,
                       "pairwise_identification_risk"),
        weights=1.0 - risk,
        pattern=parts["pattern"],
        pattern_size=parts["size"],
        n_inside=parts["inside"],
        **ball_settings(keys_l, targets_l, r, relative, inclusive, policy),
        index=parts["index"],
    )
