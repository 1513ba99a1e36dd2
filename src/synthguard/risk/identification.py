"""Record-level identification risk IR_i within known patterns (Hu, Savitsky & Williams).

An intruder knows record i's pattern (its key-variable values), its true target value y_i and
its identity, and looks in the release for the records of that pattern whose target lies close
to y_i, i.e. inside the ball B(y_i, r). The fewer records cover y_i, the likelier a random pick
among them is record i. See :func:`identification_risk`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import ParameterError
from synthguard.risk._balls import make_balls
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    as_list,
    check_rows,
    check_singletons,
    combine_implicates,
    implicate_risk,
    radius_vector,
    risk_summary,
    target_matrix,
)
from synthguard.risk._patterns import PatternEncoder, check_columns

__all__ = ["IdentificationRisk", "identification_risk"]


@dataclass(frozen=True, eq=False)
class IdentificationRisk(Summarized):
    """Record-level identification risk of the confidential data or of a release.

    Attributes
    ----------
    per_record : IR_i for every confidential row, in ``conf``'s row order (NaN for singletons
        when ``singletons='exclude'``). Range [0, 1]; higher is riskier.
    mean, max : mean and maximum of ``per_record`` (ignoring NaN).
    quantiles : {q: quantile of per_record}.
    n_singletons, singleton_share : records alone in their confidential pattern.
    pattern : pattern code of every record; ``pattern_size`` its |M_{p,i}| in the confidential
        data.
    n_inside : records of the pattern inside the ball (confidential: count; release: mean over
        implicates).
    match_share : for a release, the share of implicates with T_i^(l) = 1 (record i's own
        synthetic value inside its ball); None for the confidential data.
    per_implicate : IR_i^(l), shape (n, L), for a release; None for the confidential data.
    """

    per_record: np.ndarray
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
    n_implicates: int
    match_share: np.ndarray | None = None
    per_implicate: np.ndarray | None = None
    index: pd.Index = field(default_factory=lambda: pd.RangeIndex(0))

    goal = "minimize"
    min_value = 0.0
    max_value = 1.0

    @property
    def n(self) -> int:
        return int(self.per_record.shape[0])

    def share_above(self, threshold: float) -> float:
        """Share of records whose risk exceeds ``threshold`` (e.g. the paper's 0.5)."""
        v = self.per_record[~np.isnan(self.per_record)]
        return float(np.mean(v > threshold)) if v.size else float("nan")

    def count_above(self, threshold: float) -> int:
        """Number of records whose risk exceeds ``threshold``."""
        return int(np.sum(self.per_record > threshold))

    def to_frame(self) -> pd.DataFrame:
        """One row per confidential record (indexed like ``conf``)."""
        out = pd.DataFrame(
            {
                "risk": self.per_record,
                "pattern": self.pattern,
                "pattern_size": self.pattern_size,
                "n_inside": self.n_inside,
                "singleton": self.pattern_size == 1,
            },
            index=self.index,
        )
        if self.match_share is not None:
            out["match_share"] = self.match_share
        return out

    def summary(self) -> str:
        return "\n".join(summary_lines(self, self.count_above(0.5)))

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def summary_lines(r: Any, n_above_half: int) -> list[str]:
    """The lines of an identification-risk summary, for the pandas result and the Dask
    summary (:class:`synthguard.scale.risk_summary.IdentificationRiskSummary`) alike."""
    src = f"release of {r.n_implicates} implicate(s)" if r.n_implicates else "confidential data"
    kind = "relative" if r.relative else "absolute"
    qs = ", ".join(f"q{round(q * 100)} {v:.4f}" for q, v in r.quantiles.items())
    return [
        f"Identification risk of the {src} (Hu, Savitsky & Williams)",
        f"  keys: {', '.join(r.keys) or '(none)'}; targets: {', '.join(r.targets)}; "
        f"{kind} radius {', '.join(f'{x:g}' for x in r.radius)}"
        f"{' (boundary inside)' if r.inclusive else ''}",
        f"  records: {r.n}; mean {r.mean:.4f}; max {r.max:.4f}",
        f"  {qs}",
        f"  above 0.5: {n_above_half}",
        f"  singleton patterns: {r.n_singletons} records ({r.singleton_share:.1%}), "
        f"scored '{r.singletons}'",
    ]


@renamed(target="targets")
def identification_risk(
    conf: pd.DataFrame,
    synthetic: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
) -> IdentificationRisk:
    """Record-level identification risk IR_i, exactly, in O(n log n) per data set.

    Confidential data (``synthetic=None``), Hu, Savitsky & Williams, eq. (2)::

        IR_i^c = #{h in M_{p,i} : y_h not in B(y_i, r)} / |M_{p,i}|

    where M_{p,i} are the confidential records sharing record i's pattern p (its key values).

    Partially synthetic release of L implicates ``Z^(l)`` whose rows are aligned with ``conf``,
    Hu, Savitsky & Williams, eq. (1), averaged over implicates::

        IR_i^(l) = #{h in M_{p,i}^(l) : y*_h^(l) not in B(y_i, r)} / |M_{p,i}^(l)| * T_i^(l)
        IR_i     = (1/L) sum_l IR_i^(l)

    with M_{p,i}^(l) the rows of implicate l whose key values equal record i's and
    T_i^(l) = 1 when record i's own row belongs to them with its synthetic value inside
    B(y_i, r) (the intruder's close set contains the record sought), else 0. If no row of the
    implicate has the pattern, IR_i^(l) = 0.

    The ball: ``y_i ± r·|y_i|`` (``relative=True``, the paper's practice; |y_i| keeps negative
    values' balls the right way round; for y_i = 0 the ball is the single point 0) or
    ``y_i ± r`` (``relative=False``). A value on the boundary is outside by default (strict
    inequality, as the R package IdentificationRiskCalculation, Hornby & Hu 2021) and inside
    with ``inclusive=True``. The centre always belongs to its ball. With several targets the ball
    is the product of the per-target intervals (``radius`` may then map target -> radius).

    Singleton patterns: a record alone in its pattern scores 0 by eq. (2) although its key
    values alone single it out. ``singletons`` chooses the score: ``'zero'`` (the formula),
    ``'one'`` (identified: 1 on the confidential data, and the share of implicates with
    T_i^(l) = 1 on a release), ``'exclude'`` (NaN, left out of mean, max and quantiles).
    The default (None) is ``'zero'`` with a :class:`~synthguard.errors.DisclosureWarning` when
    singletons exist; the result reports their count and share either way.

    Algorithm: patterns are factorized (a missing key value is a value of its own); within each
    pattern the values are sorted and each ball's count is two ``np.searchsorted`` calls (per
    pattern, or on integer keys ``pattern * K + order-preserving code`` when patterns are many;
    see ``synthguard.risk._balls``), so no pair of records is ever compared: O(n log n) time and
    O(n) memory per data set. Two targets: a merge-sort tree counts the boxes exactly in
    O(n log^2 n). Three or more: candidates along the most selective target are checked on the
    others, O(n log n + C), C the number of candidates (at most sum_p |M_p|^2).

    Parameters
    ----------
    conf : confidential data, one row per record.
    synthetic : None for the confidential risk, or a partially synthetic release (anything
        :func:`synthguard.data.as_implicates` accepts) whose implicates have ``conf``'s rows in
        the same order.
    keys : key variables forming the patterns (matched exactly). Empty: one pattern.
    targets : the numeric target column (a name) or columns (a list) whose true values the
        intruder knows.
    radius : r, >= 0; a number or a mapping target -> r.
    relative : relative (``r·|y_i|``) or absolute (``r``) radius.
    inclusive : whether the boundary of the ball is inside.
    singletons : ``'zero'``, ``'one'``, ``'exclude'`` or None (see above).
    quantiles : quantile levels reported in ``quantiles``.

    Returns
    -------
    IdentificationRisk

    Raises
    ------
    DataError
        A key or target column is absent, or implicates do not have ``conf``'s rows.
    SchemaError
        A target is not numeric or the confidential target has missing values.
    ParameterError
        A negative or non-finite radius, an unknown singleton policy.

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"sex": ["f"] * 4, "income": [10.0, 11.0, 30.0, 60.0]})
    >>> identification_risk(conf, keys=["sex"], targets="income", radius=0.2).per_record
    array([0.5 , 0.5 , 0.75, 0.75])
    """
    keys_l = as_list(keys, name="keys")
    targets = as_list(targets, name="targets")
    if not targets:
        raise ParameterError("parameter 'targets': name at least one numeric target column")
    overlap = set(keys_l) & set(targets)
    if overlap:
        raise ParameterError("parameters 'keys' and 'targets': a column cannot be both; drop it from one")
    check_columns(conf, keys_l, name="conf", role="key")
    r = radius_vector(radius, targets)
    policy, warn = check_singletons(singletons)
    y = target_matrix(conf, targets, name="conf", allow_missing=False)
    enc = PatternEncoder.fit(conf, keys_l)
    sizes = enc.sizes()[enc.codes]
    balls = make_balls(
        enc.codes, y, r, relative=relative, inclusive=inclusive, n_patterns=enc.n_patterns
    )
    single = sizes == 1
    n = len(conf)

    if synthetic is None:
        inside = balls.count_inside(enc.codes, y)
        risk = (sizes - inside) / np.maximum(sizes, 1)
        if policy == "one":
            risk = np.where(single, 1.0, risk)
        n_inside: np.ndarray = inside.astype(np.float64)
        match_share = None
        per_impl = None
        n_impl = 0
    else:
        frames = as_implicates(synthetic)
        check_rows(conf, frames, "synthetic")
        n_impl = len(frames)
        per_impl = np.empty((n, n_impl))
        tmat = np.empty((n, n_impl), dtype=bool)
        n_inside = np.zeros(n)
        for li, frame in enumerate(frames):
            check_columns(frame, keys_l, name=f"synthetic implicate {li}", role="key")
            ys = target_matrix(frame, targets, name=f"synthetic implicate {li}", allow_missing=True)
            pat = enc.transform(frame)
            members = np.bincount(pat[pat >= 0], minlength=enc.n_patterns)[enc.codes]
            inside = balls.count_inside(pat, ys)
            t_own = (pat == enc.codes) & balls.contains(ys)
            per_impl[:, li] = implicate_risk(t_own, members, inside)
            tmat[:, li] = t_own
            n_inside += inside
        n_inside /= n_impl
        risk, match_share = combine_implicates(per_impl, tmat, single, policy)
    if policy == "exclude":
        risk = np.where(single, np.nan, risk)
    return IdentificationRisk(
        **risk_summary(risk, single, n, warn, quantiles, "identification_risk"),
        pattern=enc.codes,
        pattern_size=sizes,
        n_inside=n_inside,
        keys=tuple(keys_l),
        targets=tuple(targets),
        radius=tuple(float(x) for x in r),
        relative=relative,
        inclusive=inclusive,
        singletons=policy,
        n_implicates=n_impl,
        match_share=match_share,
        per_implicate=per_impl,
        index=conf.index,
    )
