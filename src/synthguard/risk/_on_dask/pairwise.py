"""Pairwise identification risk on Dask (:func:`synthguard.risk.pairwise_identification_risk`).

The measure pairs records of the same pattern only, so after a hash shuffle on the keys the
pandas function runs unchanged on every partition (:func:`synthguard.risk.blocks.pairwise_block`);
summaries are computed once on the client over the records in their original order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from synthguard._dask.partitions import (
    collect_rows,
)
from synthguard.risk import blocks
from synthguard.risk._common import (
    DEFAULT_QUANTILES,
    ball_arguments,
    ball_settings,
    risk_summary,
    target_matrix,
)
from synthguard.risk._on_dask.common import pattern_codes, prepare
from synthguard.risk.pairwise import PairwiseIdentificationRisk

__all__ = ["pairwise_identification_risk_dask"]


def _check_ball_arguments(conf: Any, keys: Any, targets: Any, radius: Any, singletons: Any
                          ) -> Any:
    out = ball_arguments(conf._meta, keys, targets, radius, singletons)
    target_matrix(conf._meta, out[1], name="conf", allow_missing=True)
    return out


def pairwise_identification_risk_dask(
    conf: Any,
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
    """Normalised pairwise identification risk (Hu, Savitsky & Williams, eqs. (6)-(9)) of a
    Dask DataFrame, equal to :func:`synthguard.risk.pairwise_identification_risk`.

    The measure pairs records of the same pattern only, so after a hash shuffle on ``keys``
    the pandas function runs unchanged on every partition; summaries are computed once on the
    client. Parameters and result as the pandas function; ``npartitions`` as in
    :func:`identification_risk`.
    """
    keys_l, targets, r, policy, warn = _check_ball_arguments(conf, keys, targets, radius,
                                                             singletons)
    shuffled, n, _ = prepare(conf, keys_l + targets, keys_l, npartitions)
    out = shuffled.map_partitions(
        blocks.pairwise_block,
        keys=keys_l,
        targets=targets,
        radius=radius,
        relative=relative,
        inclusive=inclusive,
        singletons=policy,
        meta=blocks.ident_conf_meta(conf._meta.index),
    )
    res, _ = collect_rows(out.compute(), n)
    risk = res["risk"].to_numpy(dtype=np.float64)
    m = res["size"].to_numpy(dtype=np.int64)
    single = m == 1
    return PairwiseIdentificationRisk(
        **risk_summary(risk, single, n, warn, quantiles, "pairwise_identification_risk"),
        weights=1.0 - risk,
        pattern=pattern_codes(res[blocks.FIRST].to_numpy(dtype=np.int64)),
        pattern_size=m,
        n_inside=res["inside"].to_numpy(dtype=np.int64),
        **ball_settings(keys_l, targets, r, relative, inclusive, policy),
        index=res.index,
    )
