"""Record-level identification risk IR_i within known patterns (Hu, Savitsky & Williams).

An intruder knows record i's pattern (its key-variable values), its true target value y_i and
its identity, and looks in the release for the records of that pattern whose target lies close
to y_i, i.e. inside the ball B(y_i, r). The fewer records cover y_i, the likelier a random pick
among them is record i. See :func:`identification_risk`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.data._backend import any_dask, dask_backend, meta_of
from synthguard.risk import blocks
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    SingletonPolicy,
    ball_arguments,
    ball_settings,
    check_rows,
    combine_implicates,
    implicate_risk,
    risk_summary,
    target_matrix,
    warn_singletons,
)
from synthguard.risk._patterns import check_columns
from synthguard.risk.identification_summary import (
    IdentificationRiskSummary,
    summary_lines,
    summary_of,
)

__all__ = [
    "IdentificationRisk",
    "IdentificationRiskSummary",
    "identification_risk",
    "summary_lines",
]


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


@overload
def identification_risk(
    conf: Any,
    synthetic: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
    gather: Literal[True] = True,
    records: str | os.PathLike[str] | None = None,
) -> IdentificationRisk: ...


@overload
def identification_risk(
    conf: Any,
    synthetic: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
    gather: bool,
    records: str | os.PathLike[str] | None = None,
) -> IdentificationRisk | IdentificationRiskSummary: ...


@dask_backend
@renamed(target="targets")
def identification_risk(
    conf: Any,
    synthetic: Any = None,
    *,
    keys: Sequence[str],
    targets: str | Sequence[str],
    radius: float | Mapping[str, float] = 0.2,
    relative: bool = True,
    inclusive: bool = False,
    singletons: str | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    npartitions: int | None = None,
    gather: bool = True,
    records: str | os.PathLike[str] | None = None,
) -> IdentificationRisk | IdentificationRiskSummary:
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
    npartitions : Dask only: the number of partitions of the hash shuffle on ``keys``
        (default: ``conf``'s).
    gather : True returns the per-record :class:`IdentificationRisk`; False only its
        summaries (:class:`IdentificationRiskSummary`), computed on the workers when
        ``conf`` is a Dask frame, so nothing per record reaches the client.
    records : a folder the per-record risk is written to as Parquet (the columns of
        ``IdentificationRisk.to_frame()``), by the workers on Dask.

    Notes
    -----
    Backends: ``conf`` and ``synthetic`` may be pandas or Dask DataFrames (implicates of a
    Dask release keep ``conf``'s total row order across partitions). On Dask, with one target,
    no record moves: a pass over the confidential data builds the dictionary of patterns, a
    pass over every implicate its table of (pattern, target value, count), and each
    confidential partition counts its balls in those tables. With several targets, or when
    the patterns or value tables are too many for one worker, every data set is
    hash-shuffled on ``keys`` so that each partition holds whole patterns and the kernels of
    :mod:`synthguard.risk.blocks` run on it. Integer counts are the same whatever the
    partitioning and the per-record formula is the same expression: the result equals the
    pandas result bit for bit.

    Returns
    -------
    IdentificationRisk, or IdentificationRiskSummary with ``gather=False``

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
    keys_l, targets_l, r, policy, warn = ball_arguments(
        meta_of(conf), keys, targets, radius, singletons
    )
    settings = ball_settings(keys_l, targets_l, r, relative, inclusive, policy)
    if any_dask(conf, synthetic):
        from synthguard.risk._on_dask.identification import identification_parts

        target_matrix(meta_of(conf), targets_l, name="conf", allow_missing=True)  # numeric
        parts = identification_parts(
            conf, synthetic, keys=keys_l, targets=targets_l, r=r,
            relative=relative, inclusive=inclusive, policy=policy, quantiles=quantiles,
            npartitions=npartitions, gather=gather, records=records,
        )
    else:
        parts = _pandas_parts(conf, synthetic, keys_l, targets_l, r, relative, inclusive, policy)
    if "summary" in parts:  # Dask, gather=False: summaries computed on the workers
        stats, n = parts["summary"], parts["n"]
        if warn:
            warn_singletons(stats["n_single"], n, "identification_risk")
        return IdentificationRiskSummary(
            mean=stats["mean"], max=stats["max"], quantiles=stats["quantiles"], n=n,
            n_singletons=stats["n_single"],
            singleton_share=stats["n_single"] / n if n else 0.0,
            n_above_half=stats["above"], **settings, n_implicates=parts["n_implicates"],
            records=None if records is None else os.fspath(records),
        )
    full = IdentificationRisk(
        **risk_summary(parts["risk"], parts["size"] == 1, len(parts["risk"]), warn, quantiles,
                       "identification_risk"),
        pattern=parts["pattern"],
        pattern_size=parts["size"],
        n_inside=parts["n_inside"],
        **settings,
        n_implicates=parts["n_implicates"],
        match_share=parts["match_share"],
        per_implicate=parts["per_implicate"],
        index=parts["index"],
    )
    if records is not None and not parts.get("written"):
        full.to_frame().to_parquet(os.fspath(records))
    return full if gather else summary_of(full, records)


def _pandas_parts(
    conf: pd.DataFrame,
    synthetic: Any,
    keys_l: list[str],
    targets: list[str],
    r: np.ndarray,
    relative: bool,
    inclusive: bool,
    policy: SingletonPolicy,
) -> dict[str, Any]:
    """The per-record arrays of :func:`identification_risk` on pandas data: the confidential
    risk is the kernel :func:`synthguard.risk.blocks.ident_conf_counts` on the whole data."""
    if synthetic is None:
        res = blocks.ident_conf_counts(conf, keys=keys_l, targets=targets, r=r,
                                       relative=relative, inclusive=inclusive, policy=policy)
        return {"risk": res["risk"], "size": res["size"], "pattern": res["pattern"],
                "n_inside": res["inside"], "n_implicates": 0, "match_share": None,
                "per_implicate": None, "index": conf.index}
    frames = as_implicates(synthetic)
    check_rows(conf, frames, "synthetic")
    for li, frame in enumerate(frames):
        check_columns(frame, keys_l, name=f"synthetic implicate {li}", role="key")
    codes, _, counts = blocks.release_counts(
        conf, frames, exact=keys_l, near=targets, r=r, relative=relative, inclusive=inclusive,
        allow_missing=False,
    )
    sizes = np.bincount(codes)[codes] if codes.size else np.zeros(0, dtype=np.int64)
    per_impl = np.column_stack([implicate_risk(own, members, inside)
                                for members, inside, own in counts])
    tmat = np.column_stack([own for _, _, own in counts])
    inside = np.column_stack([inside for _, inside, _ in counts])
    return {**release_risk(per_impl, tmat, inside, sizes, policy), "size": sizes,
            "pattern": codes, "index": conf.index}


def release_risk(per_impl: np.ndarray, tmat: np.ndarray, inside: np.ndarray,
                 sizes: np.ndarray, policy: SingletonPolicy) -> dict[str, Any]:
    """IR_i = (1/L) sum_l IR_i^(l) of a release from the per-implicate risks, own-match
    indicators T_i^(l) and ball counts (records x implicates), either backend: ``risk``,
    ``n_inside`` (mean ball count), ``match_share``, ``per_implicate``, ``n_implicates``."""
    single = sizes == 1
    risk, match_share = combine_implicates(per_impl, tmat, single, policy)
    if policy == "exclude":
        risk = np.where(single, np.nan, risk)
    return {"risk": risk, "n_inside": inside.sum(axis=1) / inside.shape[1],
            "match_share": match_share, "per_implicate": per_impl,
            "n_implicates": per_impl.shape[1]}
