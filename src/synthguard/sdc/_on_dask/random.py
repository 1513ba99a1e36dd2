"""Random SDC steps on Dask: the pandas step's kernel mapped over partitions or strata.

* :func:`per_partition`: steps whose records are independent given statistics of the whole
  data (noise, PRAM): partition ``j`` runs the kernel with the generator
  ``SeedSequence(seed, spawn_key=(j,))``, in the input's row order. The release is equal in
  distribution to the pandas release; the same seed and partitioning give the same release.
* :func:`shuffled_within_strata`: steps whose records depend on the other records of their
  stratum (swap partners, per-stratum noise): one hash shuffle puts every stratum whole in one
  partition, the rows of a stratum are put back in the input's order (global row numbers,
  one cheap pass), and the pandas step runs on every stratum with the stratum's own generator
  (:mod:`synthguard.sdc._strata`). The release depends on the seed and the data only: it
  equals the pandas ``strata=`` path. Its rows come back grouped by stratum, with the input's
  index kept (``compute().sort_index()`` restores the input order when the index is unique).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.dataframe as dd
import pandas as pd

from synthguard._dask import HASH, ROW
from synthguard._dask.partitions import shuffle_by_keys, with_row_numbers
from synthguard.sdc._strata import split_changes, stratum_generator, with_changes, within_strata

__all__ = ["meta_of_kernel", "per_partition", "shuffled_within_strata"]

Kernel = Callable[[pd.DataFrame, Any], tuple[pd.DataFrame, pd.DataFrame]]


def meta_of_kernel(data: dd.DataFrame, run: Callable[[pd.DataFrame], pd.DataFrame]) -> Any:
    """The output's empty frame: ``run`` on Dask's fake non-empty partition, or on the first
    rows when the fake values do not suit the step (levels a matrix does not list)."""
    try:
        out = run(data._meta_nonempty)
    except Exception:  # the fake values are not valid input for the step
        out = run(data.head(50, npartitions=-1))
    return out.iloc[:0]


def _partition(part: pd.DataFrame, kernel: Kernel, seed: int, partition_info: Any = None
               ) -> pd.DataFrame:
    number = partition_info["number"] if partition_info else 0
    out, changes = kernel(part, stratum_generator(seed, number))
    return with_changes(out, changes)


def per_partition(data: dd.DataFrame, kernel: Kernel, seed: int) -> tuple[Any, Any]:
    """The protected Dask frame and its change flags: ``kernel(partition, generator)`` (the
    protected partition and its flags) on every partition, with the partition's generator."""
    meta = meta_of_kernel(data, lambda p: with_changes(*kernel(p, stratum_generator(0, 0))))
    frame = data.map_partitions(_partition, kernel, seed, meta=meta)
    return split_changes(frame, list(data.columns))


def _stratum_rows(part: pd.DataFrame, strata: list[str], method: Callable[..., Any], seed: int,
                  kwargs: dict[str, Any]) -> pd.DataFrame:
    part = part.sort_values(ROW, kind="stable").drop(columns=[ROW, HASH])
    return within_strata(part, strata, method, seed, kwargs)


def shuffled_within_strata(data: dd.DataFrame, strata: list[str], method: Callable[..., Any],
                           seed: int, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """The protected Dask frame and its change flags: ``method`` (the pandas step, without
    strata) on every stratum, with the stratum's generator."""
    numbered, _ = with_row_numbers(data)
    shuffled = shuffle_by_keys(numbered, strata, data.npartitions)
    meta = meta_of_kernel(data, lambda p: within_strata(p, strata, method, seed, kwargs))
    frame = shuffled.map_partitions(_stratum_rows, strata, method, seed, kwargs, meta=meta)
    return split_changes(frame, list(data.columns))
