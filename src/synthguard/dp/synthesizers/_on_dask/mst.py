"""MST (:class:`synthguard.dp.MSTSynthesizer`) fitted on a Dask DataFrame.

Every 1- and 2-way marginal MST can read is counted by Dask in one pass (per partition,
summed in integers on the client), then the pandas fit measures, selects and estimates on
the client from those counts (``MSTSynthesizer._counts`` reads them): the noise is drawn once
there and the ledger charged once, so with the same seed the release equals the pandas one.
"""

from __future__ import annotations

import itertools
from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard.dp.synthesizers._on_dask.common import domain_builder, refuse_data_levels

__all__ = ["fit_mst", "pair_tables"]


def pair_tables(
    part: pd.DataFrame, build: Any, cols: list[str], sizes: dict[str, int]
) -> dict[tuple[str, ...], np.ndarray]:
    """Exact 1-way and 2-way counts of one partition, coded by the public domain."""
    if len(part) == 0:
        return {}
    _, codes = build(part)
    out: dict[tuple[str, ...], np.ndarray] = {}
    for c in cols:
        out[(c,)] = np.bincount(codes[c], minlength=sizes[c])
    for a, b in itertools.combinations(cols, 2):
        flat = codes[a].astype(np.int64) * sizes[b] + codes[b]
        out[(a, b)] = np.bincount(flat, minlength=sizes[a] * sizes[b])
    return out


def fit_mst(model: Any, data: Any) -> Any:
    """Fit ``model`` (an MSTSynthesizer) on the Dask frame ``data``."""
    refuse_data_levels(model)
    build = domain_builder(model)
    head = data.head(100, npartitions=-1)
    domain, _ = build(head)
    cols = list(domain.columns)
    sizes = dict(zip(cols, domain.sizes))
    parts = data[cols].to_delayed()
    blocks = dask.compute(*[dask.delayed(pair_tables)(p, build, cols, sizes) for p in parts])
    tables: dict[tuple[str, ...], np.ndarray] = {}
    for block in blocks:
        for key, counts in block.items():
            tables[key] = tables[key] + counts if key in tables else counts
    model._dask_tables = tables
    try:
        model.fit(head)
    finally:
        model._dask_tables = None
    model.fitted_on_dask_ = True
    return model
