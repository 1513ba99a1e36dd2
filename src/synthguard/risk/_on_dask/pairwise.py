"""Pairwise identification risk on Dask: the per-record arrays of
:func:`synthguard.risk.pairwise_identification_risk`, which checks the arguments and
assembles the result for both backends.

The measure pairs records of the same pattern only, so after a hash shuffle on the keys the
kernel of the pandas path (:func:`synthguard.risk.blocks.pairwise_counts`) runs unchanged on
every partition; the records are put back in their original order by their row numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthguard._dask.partitions import collect_rows
from synthguard.risk import blocks
from synthguard.risk._on_dask.common import pattern_codes, prepare

__all__ = ["pairwise_parts"]


def pairwise_parts(conf: Any, *, keys: list[str], targets: list[str],
                   npartitions: int | None, **kw: Any) -> dict[str, Any]:
    """``risk``, ``size``, ``inside``, ``pattern`` and ``index`` of every record of a Dask
    frame, in its row order (``kw``: the kernel's ``r``, ``relative``, ``inclusive``,
    ``policy``)."""
    shuffled, n, _ = prepare(conf, keys + targets, keys, npartitions)
    out = shuffled.map_partitions(
        blocks.pairwise_block, keys=keys, targets=targets,
        meta=blocks.ident_conf_meta(conf._meta.index), **kw,
    )
    res, _ = collect_rows(out.compute(), n)
    return {"risk": res["risk"].to_numpy(dtype=np.float64),
            "size": res["size"].to_numpy(dtype=np.int64),
            "inside": res["inside"].to_numpy(dtype=np.int64),
            "pattern": pattern_codes(res[blocks.FIRST].to_numpy(dtype=np.int64)),
            "index": res.index}
