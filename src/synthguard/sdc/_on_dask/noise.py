"""Noise infusion on Dask (:func:`synthguard.sdc.add_noise`).

Without strata the noise of a column depends on the column's mean, standard deviation and
mean square over *all* records: they are gathered in one pass (per partition the count, mean
and sum of squared deviations, merged by Chan, Golub & LeVeque's 1979 pairwise update), then
every partition perturbs its records with the pandas kernel
(:func:`synthguard.sdc.noise.noise_kernel`) and its own generator. With strata the pandas step
runs on every stratum after one shuffle (:func:`~synthguard.sdc._on_dask.random.shuffled_within_strata`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard._dask.partitions import as_dask
from synthguard._random import RandomState
from synthguard.errors import DataError
from synthguard.sdc import noise as _noise
from synthguard.sdc._common import check_columns, float_values
from synthguard.sdc._on_dask.random import per_partition, shuffled_within_strata
from synthguard.sdc._strata import release_seed
from synthguard.sdc.result import ProtectedData

__all__ = ["noisy"]

_Moments = tuple[int, float, float, float]  # count, mean, sum of squared deviations, sum x^2


def _moments(part: pd.DataFrame, cols: list[str]) -> dict[str, _Moments]:
    out = {}
    for c in cols:
        x = float_values(part[c])
        xo = x[~np.isnan(x)]
        n = int(xo.size)
        mean = float(xo.mean()) if n else 0.0
        out[c] = (n, mean, float(((xo - mean) ** 2).sum()), float((xo**2).sum()))
    return out


def _merge(a: _Moments, b: _Moments) -> _Moments:
    """Chan, Golub & LeVeque (1979): the moments of two blocks together."""
    na, ma, qa, sa = a
    nb, mb, qb, sb = b
    n = na + nb
    if n == 0:
        return a
    delta = mb - ma
    return n, ma + delta * nb / n, qa + qb + delta**2 * na * nb / n, sa + sb


def column_moments(data: dd.DataFrame, cols: list[str]) -> dict[str, _noise.ColumnMoments]:
    """Mean, standard deviation (ddof 1) and mean square of every column over all partitions,
    in one pass; a column with fewer than two observed values is refused as on pandas."""
    blocks = dask.compute(*[dask.delayed(_moments)(p, cols) for p in data[cols].to_delayed()])
    out = {}
    for c in cols:
        total: _Moments = (0, 0.0, 0.0, 0.0)
        for block in blocks:
            total = _merge(total, block[c])
        n, mean, q, s = total
        if n < 2:
            raise DataError(f"column '{c}': needs at least two observed values to add noise")
        out[c] = _noise.ColumnMoments(mean, float(np.sqrt(q / (n - 1))), s / n)
    return out


def noisy(
    data: Any,
    columns: Sequence[str] | str,
    kind: str,
    scale: float,
    keep_variance: bool,
    strata: Sequence[str] | str | None,
    random_state: RandomState,
) -> ProtectedData:
    """:func:`synthguard.sdc.add_noise` of a Dask frame (``data`` and ``changes`` lazy)."""
    data = as_dask(data, name="data")
    cols, sigma = _noise.check_noise(data._meta_nonempty, columns, kind, scale)
    seed = release_seed(random_state)
    params = _noise.noise_params(cols, kind, sigma, keep_variance)
    if strata is not None:
        strata_l = check_columns(data._meta_nonempty, strata, "strata")
        kwargs = dict(columns=cols, kind=kind, scale=sigma, keep_variance=keep_variance)
        out, changes = shuffled_within_strata(data, strata_l, _noise.add_noise, seed, kwargs)
        params["strata"] = strata_l
    else:
        stats = column_moments(data, cols)

        def kernel(part: pd.DataFrame, rng: np.random.Generator
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
            out = part.copy()
            changes = pd.DataFrame(False, index=out.index, columns=out.columns)
            for c in cols:
                x = float_values(part[c])
                obs = ~np.isnan(x)
                new = x.copy()
                new[obs], _ = _noise.noise_kernel(x[obs], stats[c], kind, sigma,
                                                           keep_variance, rng)
                out[c] = pd.Series(new, index=out.index, name=c)
                changes[c] = obs & (new != x)
            return out, changes

        out, changes = per_partition(data, kernel, seed)
        params["factor"] = {  # the factor depends on the statistics only, not on the draws
            c: _noise.noise_kernel(np.zeros(0), stats[c], kind, sigma, keep_variance,
                                   np.random.default_rng(0))[1] for c in cols}
    return ProtectedData(data=cast(pd.DataFrame, out), changes=cast(pd.DataFrame, changes),
                         method="add_noise", params=params, seed=seed)
