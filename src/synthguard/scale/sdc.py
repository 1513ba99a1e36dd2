"""Traditional SDC methods on Dask: the functions of :mod:`synthguard.sdc`, run per stratum.

* :func:`topcode` / :func:`bottomcode` with a public threshold (``at=``) act record by record:
  each partition is censored by :func:`synthguard.sdc.topcode` itself, and the result equals
  the pandas result exactly, in the same row order. With ``percentile=`` the threshold is
  first computed exactly on the workers (numpy's percentile of all non-missing values).
* :func:`add_noise`, :func:`pram` and :func:`swap` are random and, for noise and swapping,
  depend on the other records of their group (the column's standard deviation, swap
  partners). They run *within strata*: the data are hash-shuffled on the ``strata`` columns so
  that every stratum lies whole in one partition, and the pandas function runs once per
  stratum. Every stratum draws from its own generator,
  ``numpy.random.SeedSequence(random_state, spawn_key=(h,))`` with ``h`` the 64-bit hash of the
  stratum's values (``synthguard._dask.partitions.pattern_hash``), so the release depends on
  the seed and the data only, not on the partitioning or the number of workers: it equals the
  pandas path (:func:`synthguard.scale.sdc.add_noise` etc. on a pandas frame, which loops over
  the strata the same way). Without ``strata`` each input partition is one stratum, seeded by
  ``spawn_key=(partition number,)``; the release then depends on the partitioning (noise is
  scaled by each partition's standard deviation, swap partners stay in their partition).

Within a stratum the records keep the input's order (global row numbers, one cheap pass to
learn partition lengths), so draws meet the same records as on pandas. Shuffled outputs come
back grouped by stratum, with the input's index kept, so ``result.compute().sort_index()``
restores the input order when the index is unique. Statistics the pandas functions
report in ``ProtectedData.params`` are not gathered: the functions return the protected Dask
DataFrame.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard import sdc as _sdc
from synthguard._dask.partitions import (
    HASH,
    ROW,
    as_dask,
    is_dask,
    pattern_hash,
    shuffle_by_keys,
    with_row_numbers,
)
from synthguard.errors import ParameterError
from synthguard.risk._common import as_list
from synthguard.risk._patterns import PatternEncoder, check_columns
from synthguard.sdc._on_dask.censor import censored_frame

__all__ = ["add_noise", "bottomcode", "pram", "swap", "topcode"]


def _seed(random_state: Any) -> int:
    """One integer seed for the whole release (a Generator gives one draw)."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise ParameterError("parameter 'random_state': expected a non-negative integer")
        return int(random_state)
    raise ParameterError(
        "parameter 'random_state': expected None, a non-negative integer or a numpy Generator"
    )


def stratum_generator(seed: int, key: int) -> np.random.Generator:
    """The generator of one stratum (``key``: its hash) or partition (``key``: its number)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(key),)))


def _per_stratum(
    part: pd.DataFrame,
    strata: list[str],
    method: Callable[..., Any],
    seed: int,
    kwargs: dict[str, Any],
    partition_info: Any = None,
) -> pd.DataFrame:
    """Apply ``method`` (a synthguard.sdc function) to every stratum of ``part``, each with its
    own generator, and return the protected rows in ``part``'s row order."""
    if ROW in part.columns:  # shuffled: back to the input's order within the partition
        part = part.sort_values(ROW, kind="stable").drop(columns=[ROW, HASH])
    if len(part) == 0:
        return part
    if not strata:
        number = partition_info["number"] if partition_info else 0
        return method(part, random_state=stratum_generator(seed, number), **kwargs).data
    h = pattern_hash(part, strata)
    groups = PatternEncoder.fit(part, strata).codes
    pieces = []
    positions = []
    for g in range(int(groups.max()) + 1):
        rows = np.flatnonzero(groups == g)
        sub = part.iloc[rows]
        res = method(sub, random_state=stratum_generator(seed, int(h[rows[0]])), **kwargs)
        pieces.append(res.data)
        positions.append(rows)
    out = pd.concat(pieces)
    order = np.empty(len(part), dtype=np.int64)
    order[np.concatenate(positions)] = np.arange(len(part))
    return out.iloc[order]


def _run(
    data: Any,
    method: Callable[..., Any],
    strata: str | Sequence[str] | None,
    random_state: Any,
    kwargs: dict[str, Any],
    npartitions: int | None,
) -> Any:
    strata_l = as_list(strata, name="strata")
    seed = _seed(random_state)
    if not is_dask(data):
        if not isinstance(data, pd.DataFrame):
            data = as_dask(data, name="data")  # raises the DataError naming the type
        check_columns(data, strata_l, name="data", role="stratum")
        if not strata_l:
            return method(data, random_state=stratum_generator(seed, 0), **kwargs).data
        return _per_stratum(data, strata_l, method, seed, kwargs)
    check_columns(data._meta, strata_l, name="data", role="stratum")
    frame = data
    if strata_l:
        numbered, _ = with_row_numbers(data)
        frame = shuffle_by_keys(numbered, strata_l, npartitions or data.npartitions)
    meta = _meta(data, method, kwargs)
    return frame.map_partitions(_per_stratum, strata_l, method, seed, kwargs, meta=meta)


def _meta(data: dd.DataFrame, method: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Output dtypes: the method run on Dask's fake non-empty partition, or on the first rows
    when the fake values do not suit it."""
    try:
        sample = data._meta_nonempty
        out = method(sample, random_state=np.random.default_rng(0), **kwargs).data
    except Exception:
        sample = data.head(50, npartitions=-1)
        out = method(sample, random_state=np.random.default_rng(0), **kwargs).data
    return out.iloc[:0]


def _censor(
    method: Callable[..., Any],
    data: Any,
    column: str,
    at: float | None,
    percentile: float | None,
    replacement: str,
) -> Any:
    if replacement != "threshold":
        raise ParameterError(
            "parameter 'replacement': only 'threshold' is available on Dask (the mean of the "
            "censored values is a statistic of all partitions)"
        )
    if not is_dask(data):
        return method(data, column, at=at, percentile=percentile).data
    return censored_frame(method, data, column, at, percentile, replacement)[0]


def topcode(
    data: Any,
    column: str,
    at: float | None = None,
    percentile: float | None = None,
    *,
    replacement: str = "threshold",
) -> Any:
    """Top-code ``column`` at the public threshold ``at`` (values above become ``at``), or at
    the ``percentile``-th percentile of its non-missing values, by
    :func:`synthguard.sdc.topcode` on every partition: equal to the pandas result, row for
    row, in the input's order. The percentile is computed exactly on the workers (sorted
    values per partition, order statistics by bisection, numpy's interpolation), so it equals
    the pandas threshold. Returns a Dask DataFrame (a pandas one for pandas input)."""
    return _censor(_sdc.topcode, data, column, at, percentile, replacement)


def bottomcode(
    data: Any,
    column: str,
    at: float | None = None,
    percentile: float | None = None,
    *,
    replacement: str = "threshold",
) -> Any:
    """Bottom-code ``column`` at the public threshold ``at`` or at a percentile; see
    :func:`topcode`."""
    return _censor(_sdc.bottomcode, data, column, at, percentile, replacement)


def add_noise(
    data: Any,
    columns: Sequence[str] | str,
    kind: str = "additive",
    scale: float = 0.1,
    keep_variance: bool = False,
    *,
    strata: str | Sequence[str] | None = None,
    random_state: Any = None,
    npartitions: int | None = None,
) -> Any:
    """Additive or multiplicative noise (:func:`synthguard.sdc.add_noise`) within each
    stratum: the noise of stratum s has standard deviation ``scale`` times the stratum's
    standard deviation of the column (Brand 2002's correlated-noise practice, per group)."""
    kwargs = dict(columns=columns, kind=kind, scale=scale, keep_variance=keep_variance)
    return _run(data, _sdc.add_noise, strata, random_state, kwargs, npartitions)


def pram(
    data: Any,
    column: str,
    transition_matrix: pd.DataFrame | np.ndarray,
    *,
    levels: Sequence[Any] | None = None,
    strata: str | Sequence[str] | None = None,
    random_state: Any = None,
    npartitions: int | None = None,
) -> Any:
    """Post-randomisation (:func:`synthguard.sdc.pram`, Gouweleeuw et al. 1998) with one
    transition matrix for every stratum. Each record moves independently given the matrix, so
    strata only fix which generator draws each record's move."""
    kwargs = dict(column=column, transition_matrix=transition_matrix, levels=levels)
    return _run(data, _sdc.pram, strata, random_state, kwargs, npartitions)


def swap(
    data: Any,
    columns: Sequence[str] | str,
    rate: float | None = None,
    method: str = "random",
    max_rank_distance: float | None = None,
    *,
    strata: str | Sequence[str] | None = None,
    random_state: Any = None,
    npartitions: int | None = None,
) -> Any:
    """Data swapping (:func:`synthguard.sdc.swap`, random or rank swapping, Dalenius & Reiss
    1982; Moore 1996) within strata: partners are always in the same stratum."""
    kwargs = dict(columns=columns, rate=rate, method=method, max_rank_distance=max_rank_distance)
    return _run(data, _sdc.swap, strata, random_state, kwargs, npartitions)
