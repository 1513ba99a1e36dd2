"""PRAM, swapping and generalisation on Dask (:func:`synthguard.sdc.pram`,
:func:`~synthguard.sdc.swap`, :func:`~synthguard.sdc.generalize`): the pandas step on every
partition or stratum.

* PRAM moves each record independently given the public matrix: partition ``j`` runs the
  pandas step with ``SeedSequence(seed, spawn_key=(j,))`` (equal in distribution to pandas).
* Swap partners must share a stratum: the data are shuffled so each stratum lies in one
  partition and the pandas step runs per stratum with the stratum's generator. Without
  ``strata`` partners could be any two records of the file, which no partition holds: refused.
* Generalisation recodes record by record: every partition is recoded by the pandas step, so
  the release equals the pandas release row for row; the numbers of levels before and after
  are exact distinct counts over all partitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import dask
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask
from synthguard._random import RandomState
from synthguard.errors import ParameterError
from synthguard.sdc._common import check_columns
from synthguard.sdc._on_dask.random import meta_of_kernel, per_partition, shuffled_within_strata
from synthguard.sdc._strata import release_seed, split_changes, with_changes
from synthguard.sdc.result import ProtectedData

__all__ = ["generalized", "prammed", "swapped"]


def _kept(part: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return part, pd.DataFrame(False, index=part.index, columns=part.columns)


def prammed(pandas_fn: Callable[..., Any], data: Any, column: str, kwargs: dict[str, Any],
            params: dict[str, Any], random_state: RandomState) -> ProtectedData:
    """PRAM of a Dask frame, partition by partition (``params``: the checked matrix)."""
    data = as_dask(data, name="data")
    check_columns(data._meta_nonempty, [column], "column")
    seed = release_seed(random_state)

    def kernel(part: pd.DataFrame, rng: np.random.Generator
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
        if len(part) == 0:
            return _kept(part)
        res = pandas_fn(part, column, random_state=rng, **kwargs)
        return res.data, res.changes

    out, changes = per_partition(data, kernel, seed)
    return ProtectedData(data=cast(pd.DataFrame, out), changes=cast(pd.DataFrame, changes),
                         method="pram", params=params, seed=seed)


def swapped(pandas_fn: Callable[..., Any], data: Any, strata: Sequence[str] | str | None,
            kwargs: dict[str, Any], random_state: RandomState) -> ProtectedData:
    """Swapping within the strata of a Dask frame (``kwargs``: the pandas step's options)."""
    data = as_dask(data, name="data")
    if strata is None:
        raise ParameterError(
            "parameter 'strata': swapping a Dask frame needs strata (partners are drawn within "
            "a stratum, which one shuffle puts in one partition); give strata= or call "
            ".compute() if the data fit in memory"
        )
    strata_l = check_columns(data._meta_nonempty, strata, "strata")
    check_columns(data._meta_nonempty, kwargs["columns"], "columns",
                  as_levels=kwargs["method"] == "random")
    seed = release_seed(random_state)
    out, changes = shuffled_within_strata(data, strata_l, pandas_fn, seed, kwargs)
    params = {**kwargs, "strata": strata_l}
    return ProtectedData(data=cast(pd.DataFrame, out), changes=cast(pd.DataFrame, changes),
                         method="swap", params=params, seed=seed)


def generalized(pandas_fn: Callable[..., Any], data: Any, column: str, kwargs: dict[str, Any]
                ) -> ProtectedData:
    """The pandas generalisation on every partition; the level counts over all partitions."""
    data = as_dask(data, name="data")

    def run(part: pd.DataFrame) -> pd.DataFrame:
        if len(part) == 0:
            return with_changes(*_kept(part))
        res = pandas_fn(part, column, **kwargs)
        return with_changes(res.data, res.changes)

    probe = pandas_fn(data.head(50, npartitions=-1), column, **kwargs)  # checks the options
    frame = data.map_partitions(run, meta=meta_of_kernel(data, run))
    out, changes = split_changes(frame, list(data.columns))
    before, after = dask.compute(data[column].nunique(dropna=True),
                                 out[column].nunique(dropna=True))
    params = {**probe.params, "n_levels_before": int(before), "n_levels_after": int(after)}
    return ProtectedData(data=cast(pd.DataFrame, out), changes=cast(pd.DataFrame, changes),
                         method="generalize", params=params)
