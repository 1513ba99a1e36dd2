"""k-anonymity on Dask (:func:`synthguard.risk.k_anonymity`): per record after a shuffle on
the keys, or its summaries from the key combinations' table without moving a record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from synthguard._dask.partitions import (
    ROW,
    shuffle_by_keys,
    with_row_numbers,
)
from synthguard.errors import DataError
from synthguard.risk import blocks
from synthguard.risk._on_dask.individual import combinations
from synthguard.risk.blocks.frequencies import kanon_counts, wildcard_frequencies

__all__ = ["k_anonymity_parts"]


def k_anonymity_parts(
    data: Any, keys: Sequence[str], *, npartitions: int | None, gather: bool
) -> dict[str, Any]:
    """Equivalence-class sizes fk (sdcMicro's rule for missing keys) of a Dask DataFrame for
    :func:`synthguard.risk.k_anonymity`: ``fk``, ``n_classes`` and ``index`` in row order, or
    with ``gather=False`` ``combinations`` (fk, count and completeness per combination).

    With ``gather=False`` no record moves and nothing per record reaches the client: fk
    depends on a record only through its key combination, so the workers count the distinct
    key combinations (missing values included) in one pass and merge the tables in a tree
    (:func:`synthguard.risk._on_dask.individual.combinations`), and the client computes
    every combination's fk from that table with sdcMicro's rule
    (:func:`synthguard.risk.blocks.frequencies.wildcard_frequencies`, weighted by the
    combinations' counts), from which the front door makes the summaries. Memory on the client: the distinct key combinations.

    With ``gather=True`` (the default) the per-record fk comes back in row order. A record
    with a missing key value is compatible with records of any value on that key
    (Templ, Kowarik & Meindl 2015), so it cannot be placed by a hash of its keys. The records
    with every key present are hash-shuffled on the keys; the (usually few) records with a
    missing key are gathered and sent to every partition. On each partition the kernel
    :func:`~synthguard.risk.blocks.frequencies.kanon_counts` counts, for the partition's complete records, their whole class (all complete
    records equal to them are in this partition) plus the compatible incomplete records, and,
    for every incomplete record, the compatible complete records of the partition. An
    incomplete record's fk is the sum of the latter over partitions plus its fk among the
    incomplete records. All integer counts: exact. Cost grows with the number of incomplete
    records times the number of partitions; they must fit in one worker's memory.
    """
    keys_l = list(keys)  # checked by synthguard.risk.k_anonymity
    if not gather:
        table = combinations(data, keys_l, None)[0]
        codes = table[list(range(len(keys_l)))].to_numpy(dtype=np.int64)
        count = table["count"].to_numpy(dtype=np.int64)
        fk = np.rint(wildcard_frequencies(codes, count.astype(np.float64))[1])
        return {"combinations": (fk.astype(np.int64), count, ~(codes < 0).any(axis=1))}
    framed, n = with_row_numbers(data[keys_l])
    miss = framed[keys_l].isna().any(axis=1)
    incomplete = framed[miss].compute()
    complete = framed[~miss]
    parts = npartitions or data.npartitions
    shuffled = shuffle_by_keys(complete, keys_l, parts)
    if len(incomplete):
        fk_own = kanon_counts(incomplete, keys_l)[0]
    else:
        fk_own = np.zeros(0, dtype=np.int64)
    out = shuffled.map_partitions(
        blocks.kanon_block, incomplete, fk_own, keys=keys_l, meta=blocks.kanon_meta(data._meta.index)
    ).compute()
    n_classes = int(out["classes"].sum())
    inc = out["incomplete"].to_numpy() == 1
    fk = np.zeros(n, dtype=np.int64)
    comp_rows = out[ROW].to_numpy()[~inc]
    fk[comp_rows] = out["fk"].to_numpy()[~inc]
    inc_rows = incomplete[ROW].to_numpy(dtype=np.int64)
    fk[inc_rows] = fk_own
    np.add.at(fk, out[ROW].to_numpy()[inc], out["fk"].to_numpy()[inc])
    if comp_rows.shape[0] + inc_rows.shape[0] != n:
        raise DataError(
            "the partitioned computation lost or duplicated rows; the input changed while it "
            "was read (re-run it on data that does not change)"
        )
    all_rows = np.concatenate([comp_rows, inc_rows])
    order = np.empty(n, dtype=np.int64)
    order[all_rows] = np.arange(n, dtype=np.int64)
    index = out.index[~inc].append(incomplete.index)[order]
    return {"fk": fk, "n_classes": n_classes, "index": index}
