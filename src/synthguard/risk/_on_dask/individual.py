"""sdcMicro's individual re-identification risk on Dask: the map and combine steps of
:func:`synthguard.risk.individual_risk`, which checks the arguments and assembles the result
for both backends.

The individual risk of a record depends on the data only through the frequencies of its key
combination. Every partition lists its distinct key values
(:func:`~synthguard.risk.blocks.frequencies.key_uniques`), the client numbers them globally
in first-appearance order, as :func:`~synthguard.risk.blocks.frequencies.key_codes` numbers
a whole column; every partition counts its combinations with their weight sums
(:func:`~synthguard.risk.blocks.frequencies.combination_table`) and the tables are merged in
a tree. :func:`synthguard.risk.individual_risk.combination_risk` gives each combination's
fk, Fk and risk; with ``gather=True`` every partition looks up its records' combinations.
"""

from __future__ import annotations

from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard.errors import ParameterError
from synthguard.risk.blocks.frequencies import (
    combination_table,
    key_uniques,
    local_codes,
    local_to_global,
    merge_tables,
)
from synthguard.risk.individual_risk import combination_risk

__all__ = ["MAX_COMBINATIONS", "combinations", "individual_parts"]

#: Most distinct key combinations brought to the client.
MAX_COMBINATIONS = 5_000_000


def _rows(table: pd.DataFrame) -> int:
    return len(table)


def _lookup(part: pd.DataFrame, keys: list[str], l2g: list[np.ndarray],
            combos: pd.DataFrame) -> pd.DataFrame:
    """fk, Fk and risk of every record of a partition: its combination's row of ``combos``."""
    local, _ = local_codes(part, keys)
    codes = np.empty_like(local)
    for j in range(len(keys)):
        codes[:, j] = np.append(l2g[j], -1)[local[:, j]]
    left = pd.DataFrame(codes, columns=keys)
    out = left.merge(combos[[*keys, "fk", "Fk", "risk"]], on=keys, how="left", sort=False)
    return out[["fk", "Fk", "risk"]].set_axis(part.index)


def combinations(frame: Any, keys: list[str], weights: str | None
                 ) -> tuple[pd.DataFrame, list[Any], list[list[np.ndarray]]]:
    """The merged table of key combinations (codes ``0..len(keys)-1``, ``count``, ``w``) of a
    Dask frame, its partitions and, per partition, the local-to-global code maps."""
    parts = frame.to_delayed()  # whole partitions: projecting categorized Parquet fails
    uniq = dask.compute(*[dask.delayed(key_uniques)(p, keys) for p in parts])
    maps = [local_to_global([u[j] for u in uniq]) for j in range(len(keys))]
    l2g = [[m[k] for m in maps] for k in range(len(parts))]
    tables = [dask.delayed(combination_table)(p, keys, l2g[k], weights)
              for k, p in enumerate(parts)]
    while len(tables) > 1:
        tables = [dask.delayed(merge_tables)(*tables[i:i + 8]) for i in range(0, len(tables), 8)]
    (merged,) = dask.persist(tables[0])
    if dask.compute(dask.delayed(_rows)(merged))[0] > MAX_COMBINATIONS:
        raise ParameterError(
            "individual risk: the keys have too many distinct combinations for one machine's "
            "table; group a continuous key first or evaluate a sample without --dask")
    return dask.compute(merged)[0], parts, l2g


def individual_parts(frame: Any, keys: list[str], weights: str | None, *, gather: bool
                     ) -> dict[str, Any]:
    """``combinations`` (fk, Fk and risk per key combination), and with ``gather`` every
    record's ``fk``, ``Fk``, ``risk`` and ``index`` in row order."""
    table, parts, l2g = combinations(frame, keys, weights)
    combos = combination_risk(table, keys, weights is not None)
    if not gather:
        return {"combinations": combos}
    blocks = dask.compute(*[dask.delayed(_lookup)(p, keys, l2g[k], combos)
                            for k, p in enumerate(parts)])
    rec = pd.concat(blocks) if len(blocks) > 1 else blocks[0]
    return {"combinations": combos, "fk": rec["fk"].to_numpy(dtype=np.int64),
            "Fk": rec["Fk"].to_numpy(dtype=np.float64),
            "risk": rec["risk"].to_numpy(dtype=np.float64), "index": rec.index}
