"""Distance to closest record (DCR), nearest-neighbour distance ratio and the holdout baseline
(copy-protection metrics of the course, section 3.16; Mendelevitch & Lesh 2021)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema, as_implicates
from synthguard.data._backend import any_dask, dask_backend
from synthguard.errors import DisclosureWarning, ParameterError
from synthguard.risk._encoding import check_metric, encode_frames
from synthguard.risk._neighbours import nearest

__all__ = ["DistanceToClosestRecord", "distance_to_closest_record"]

_EXACT = 1e-12


@dataclass(frozen=True, eq=False)
class DistanceToClosestRecord(Summarized):
    """Distances from released records to the confidential (training) records.

    Attributes
    ----------
    dcr : distance of every released record (implicates stacked) to its closest confidential
        record. Lower means closer to a real record.
    nndr : nearest-neighbour distance ratio d1 / d2 (closest over second-closest confidential
        record; 1 when both are 0). Near 0: the record sits on one confidential record.
    implicate : implicate number of every released record.
    exact_copy_share : share of released records identical to a confidential record (DCR = 0;
        under ``cosine``, where DCR = 0 only means the same direction, records equal on every
        compared column).
    median_dcr, mean_dcr : of ``dcr``.
    holdout_dcr : distance of every holdout record to its closest confidential record: what
        fresh data from the population looks like (None without holdout).
    dcr_to_holdout : distance of every released record to its closest holdout record.
    share_closer_to_conf : share of released records strictly closer to the confidential data
        than to the holdout (ties count one half). About ``n_conf / (n_conf + n_holdout)``
        when the release is no closer to the training records than fresh data would be.
    baseline_share : that reference share, ``n_conf / (n_conf + n_holdout)``.
    metric : the distance used.
    """

    dcr: np.ndarray
    nndr: np.ndarray
    implicate: np.ndarray
    exact_copy_share: float
    median_dcr: float
    mean_dcr: float
    metric: str
    columns: tuple[str, ...]
    holdout_dcr: np.ndarray | None = None
    dcr_to_holdout: np.ndarray | None = None
    share_closer_to_conf: float | None = None
    baseline_share: float | None = None
    holdout_exact_copy_share: float | None = None
    copy_mask: np.ndarray | None = None  # cosine: the exact copies, which DCR = 0 does not mark

    def to_frame(self) -> pd.DataFrame:
        """One row per released record: implicate, dcr, nndr, exact copy, distance to holdout."""
        out = pd.DataFrame(
            {
                "implicate": self.implicate,
                "dcr": self.dcr,
                "nndr": self.nndr,
                "exact_copy": self.dcr <= _EXACT if self.copy_mask is None else self.copy_mask,
            }
        )
        if self.dcr_to_holdout is not None:
            out["dcr_holdout"] = self.dcr_to_holdout
        return out

    def summary(self) -> str:
        lines = [
            f"Distance to closest record ({self.metric}, {len(self.columns)} columns, "
            f"{self.dcr.size} released records)",
            f"  exact copies: {self.exact_copy_share:.3%}; median DCR {self.median_dcr:.4g}; "
            f"median NNDR {float(np.median(self.nndr)) if self.nndr.size else float('nan'):.4g}",
        ]
        if self.holdout_dcr is not None:
            lines.append(
                f"  holdout: median DCR {float(np.median(self.holdout_dcr)):.4g}, exact copies "
                f"{self.holdout_exact_copy_share:.3%}; released records closer to the "
                f"confidential data than to the holdout: {self.share_closer_to_conf:.3%} "
                f"(no-memorization baseline {self.baseline_share:.3%})"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return "<pre>" + self.summary() + "</pre>"


def _equal_rows(enc: Any, ref: int, queries: list[int]) -> np.ndarray:
    """Whether each row of the ``queries`` data sets (stacked) equals a row of ``ref`` on every
    encoded column (row hashes of the encodings, looked up among the reference's)."""
    def hashes(i: int) -> np.ndarray:
        frame = pd.DataFrame(np.hstack([enc.num[i], enc.cat[i].astype(np.float64)]))
        return pd.util.hash_pandas_object(frame, index=False).to_numpy()

    q = np.concatenate([hashes(i) for i in queries])
    return np.isin(q, hashes(ref))


@dask_backend
def distance_to_closest_record(
    conf: pd.DataFrame,
    synthetic: Any,
    holdout: pd.DataFrame | None = None,
    *,
    metric: str = "gower",
    columns: Sequence[str] | None = None,
    schema: Schema | Mapping[str, Any] | None = None,
    warn_copies: bool = True,
) -> DistanceToClosestRecord:
    """Distance to closest record of every released record, the nearest-neighbour distance
    ratio, the share of exact copies, and the holdout comparison.

    DCR_s = min_r d(s, r) over confidential records r (the course, section 3.16.3);
    NNDR_s = d(s, r_(1)) / d(s, r_(2)). With a holdout (records of the same population not used
    for synthesis) the same distances are computed for the holdout (the baseline the course
    recommends, section 3.16.4) and each released record is compared with its closest holdout
    record: if the synthesizer memorized its training data, released records are closer to the
    confidential records more often than the size ratio ``n_conf / (n_conf + n_holdout)``.

    Distances (see ``synthguard.risk._encoding``): ``gower`` (range-normalised L1 on numeric
    columns plus mismatch on categoricals, divided by the number of columns; exact, computed
    as Manhattan distance on a scaled one-hot encoding), ``euclidean`` (standardized numerics,
    one-hot categoricals), ``hamming`` (share of differing columns) or ``cosine`` (1 − cos of
    the euclidean encoding: records compared by direction, not size). Scales come from
    ``conf``. Column kinds come from :func:`synthguard.data.infer_schema` (``schema`` overrides).

    Nearest neighbours are exact, from scikit-learn KD-trees (ball trees for hamming) built per
    pattern of the low-cardinality categorical columns and searched in increasing number of
    mismatches with a lower-bound stop (``synthguard.risk._neighbours``): never an n x m
    distance matrix.

    Parameters
    ----------
    conf : confidential (training) data.
    synthetic : the release (any shape :func:`synthguard.data.as_implicates` accepts);
        implicates are stacked.
    holdout : optional records of the same population that were not used for the release.
    metric : ``'gower'``, ``'euclidean'``, ``'hamming'`` or ``'cosine'``.
    columns : columns to compare (default: all columns common to the data sets).
    schema : Schema or kind overrides.
    warn_copies : emit a :class:`~synthguard.errors.DisclosureWarning` when released records
        are exact copies of confidential records.

    Returns
    -------
    DistanceToClosestRecord
    """
    check_metric(metric)
    if any_dask(conf, synthetic, holdout):  # exact search over every pair of partitions
        if holdout is not None:
            raise ParameterError(
                "parameter 'holdout': the holdout comparison runs on pandas data; on Dask "
                "leave it out (or pass pandas frames)"
            )
        if metric not in ("gower", "hamming"):
            raise ParameterError(
                f"parameter 'metric': on Dask use 'gower' or 'hamming' (exact scales); "
                f"'{metric}' (a standardization of the whole data) is available on pandas data"
            )
        from synthguard.risk._on_dask.distance import nearest_two

        d, impl, dask_cols = nearest_two(conf, synthetic, metric=metric, columns=columns,
                                         schema=schema)
        cols = tuple(dask_cols)
        d1 = d[:, 0]
        d2 = np.where(np.isinf(d[:, 1]), d1, d[:, 1])  # one confidential record: d2 = d1
        copies = d1 <= _EXACT
    else:
        frames = as_implicates(synthetic)
        others = [*frames] + ([holdout] if holdout is not None else [])
        enc = encode_frames([conf, *others], metric=metric, columns=columns, schema=schema)
        cols = enc.columns
        syn_ids = list(range(1, len(frames) + 1))
        impl = np.concatenate([np.full(len(f), i) for i, f in enumerate(frames)])
        d = nearest(enc, 0, syn_ids, k=2)
        d1 = d[:, 0]
        d2 = d[:, 1] if d.shape[1] > 1 else d[:, 0]
        copies = _equal_rows(enc, 0, syn_ids) if metric == "cosine" else d1 <= _EXACT
    with np.errstate(invalid="ignore", divide="ignore"):
        nndr = np.where(d2 > 0, d1 / np.where(d2 > 0, d2, 1.0), 1.0)
    exact = float(np.mean(copies)) if d1.size else 0.0
    if warn_copies and exact > 0:
        warnings.warn(
            f"distance_to_closest_record: {exact:.2%} of released records are exact copies of "
            f"confidential records on the compared columns",
            DisclosureWarning,
            stacklevel=2,
        )
    kw: dict[str, Any] = {}
    if holdout is not None:
        h = len(frames) + 1
        h_dcr = nearest(enc, 0, [h], k=1)[:, 0]
        s_hold = nearest(enc, h, syn_ids, k=1)[:, 0]
        closer = np.mean(d1 < s_hold) + 0.5 * np.mean(d1 == s_hold)
        kw = dict(
            holdout_dcr=h_dcr,
            dcr_to_holdout=s_hold,
            share_closer_to_conf=float(closer),
            baseline_share=len(conf) / (len(conf) + len(holdout)),
            holdout_exact_copy_share=float(np.mean(
                _equal_rows(enc, 0, [h]) if metric == "cosine" else h_dcr <= _EXACT))
            if h_dcr.size else 0.0,
        )
    return DistanceToClosestRecord(
        dcr=d1,
        nndr=nndr,
        implicate=impl,
        exact_copy_share=exact,
        median_dcr=float(np.median(d1)) if d1.size else float("nan"),
        mean_dcr=float(np.mean(d1)) if d1.size else float("nan"),
        metric=metric,
        columns=tuple(cols),
        copy_mask=copies if metric == "cosine" else None,
        **kw,
    )
