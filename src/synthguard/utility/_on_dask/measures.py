"""Utility of a release held in Dask: univariate statistics, ECDF distances, correlation fit
and pMSE, by the pandas functions of :mod:`synthguard.utility`.

* :func:`univariate`, :func:`ecdf_utility` and :func:`exact_schema` depend on each column
  only through the multiset of its values. Dask computes every column's value counts (an
  exact aggregation, missing values included); the client holds them as one entry per
  distinct value (:class:`~synthguard.data.counts.ValueCounts`, one column at a time), never
  one per record, and runs the pandas module's counts entry on them
  (:func:`~synthguard.utility.univariate.rows_of_counts`,
  :func:`~synthguard.utility.ecdf.ecdf_utility_of_counts`,
  :func:`~synthguard.data.schema.infer_schema_from_counts`, the code
  :func:`~synthguard.data.infer_schema` itself runs). Counts, shares, percentiles, U_m and
  U_a are exactly the pandas figures (quantiles from cumulative counts; U_a summed as numpy's
  pairwise sum adds the pooled terms); means and higher moments are count-weighted sums and
  agree to floating-point rounding (relative error about 1e-15).
* :func:`correlation_fit` takes the Pearson matrices computed by Dask (pairwise-complete
  sums in partition order: equal to pandas to rounding) and hands them to the pandas
  function's matrix form, one implicate at a time. Numeric columns only.
* :func:`pmse` fits the propensity model on a documented reproducible sample: each data set
  is sampled with ``DataFrame.sample(frac=min(1, sample_size / n), random_state=seed)``
  (Bernoulli per partition, per-partition seeds drawn from ``seed``: the same seed and the
  same partitioning give the same sample). The pandas :func:`synthguard.utility.pmse` then
  runs on the two samples, so its null expectation, ratio and standardized pMSE (Snoke et
  al. 2018) are those of the sample sizes actually used: the null is the sample's own.
"""

from __future__ import annotations

from typing import Any

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from synthguard import utility as _utility
from synthguard._dask.counts import column_counts, series_counts
from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard._params import require_columns
from synthguard._random import resolve_seed
from synthguard.data._backend import is_dask_collection
from synthguard.data.schema import Schema
from synthguard.errors import DataError, ParameterError
from synthguard.utility.blocks import Coding
from synthguard.utility.correlation import cramers_v_of_table
from synthguard.utility.discriminant import PMSEResult
from synthguard.utility.ecdf import ECDFUtility, ecdf_utility_of_counts
from synthguard.utility.univariate import rows_of_counts

__all__ = [
    "columns_of",
    "correlation_matrices",
    "ecdf_utility_dask",
    "pmse_dask",
    "univariate_rows",
]


def columns_of(conf: dd.DataFrame, imps: list[dd.DataFrame], columns: Any) -> list[str]:
    if columns is None:
        return [c for c in conf.columns if all(c in f.columns for f in imps)]
    cols = list(columns)
    require_columns(conf._meta, cols, role="compared", where="conf", error=DataError)
    for i, f in enumerate(imps):
        require_columns(f._meta, cols, role="compared", where=f"synthetic implicate {i}",
                        error=DataError)
    return cols


def univariate_rows(
    conf: Any,
    synthetic: Any,
    *,
    schema: Any = None,
    columns: list[str] | None = None,
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows of :func:`synthguard.utility.univariate` of Dask data, from each column's
    exact value counts (:func:`synthguard.utility.univariate.rows_of_counts`; see the module
    notes), one column's counts at a time on the client."""
    from synthguard.utility._on_dask.marginals import inputs, pooled_first_levels

    frames, schema, cols = inputs(conf, synthetic, schema, columns)
    free = [c for c in cols if schema[c].is_categorical and schema[c].levels is None]
    # the pandas function's levels: first appearance, data then implicates
    levels = pooled_first_levels(frames, free) if free else {}
    num: list[tuple[Any, ...]] = []
    cat: list[tuple[Any, ...]] = []
    for c in cols:
        conf_c, *syn_c = column_counts(frames, c)
        n_rows, c_rows = rows_of_counts({c: conf_c}, [{c: s} for s in syn_c], schema=schema,
                                        columns=[c], levels=levels)
        num += n_rows
        cat += c_rows
    return num, cat


def _as_series(values: Any) -> dd.Series:
    """A Dask Series as it is (its counts shared with ``conf[column]``'s), pandas values as one
    partition."""
    if is_dask_collection(values):
        return values
    return dd.from_pandas(pd.Series(np.asarray(values)), npartitions=1)


def ecdf_utility_dask(conf_values: Any, synthetic_values: Any) -> ECDFUtility:
    """:func:`synthguard.utility.ecdf_utility` of Dask Series, exactly: U_m and U_a (Woo et
    al. 2009) from each series' exact value counts
    (:func:`synthguard.utility.ecdf.ecdf_utility_of_counts`), one entry per distinct value
    on the client."""
    syn = list(synthetic_values) if isinstance(synthetic_values, list | tuple) else [
        synthetic_values]
    conf_c, *syn_c = series_counts([_as_series(v) for v in (conf_values, *syn)])
    return ecdf_utility_of_counts(conf_c, syn_c)


def correlation_matrices(
    conf: Any, synthetic: Any, *, schema: Schema | None = None, columns: list[str] | None = None
) -> tuple[np.ndarray | None, list[np.ndarray], list[str], np.ndarray | None, list[np.ndarray],
           list[str]]:
    """The correlation matrices of Dask data that :func:`synthguard.utility.correlation_fit`
    compares (:func:`synthguard.utility.correlation.fit_of`'s arguments): Pearson correlations of the
    numeric and count columns (matrices by Dask, pairwise-complete: equal to pandas to
    rounding) and Cramér's V ``sqrt(χ²/(n (min(r, c) - 1)))`` of the categorical, ordinal and
    binary ones (Cramér 1946), each pair's two-way table counted exactly per partition, the
    levels coded as the pandas function codes each data set (the schema's, else the values
    in order of first appearance; missing a level of its own): V equals the pandas figure bit
    for bit. Averaged over implicates as the pandas function does.

    ``schema``: column kinds (default: inferred from the whole data, exactly).
    """
    from synthguard.utility._on_dask import marginals as _marginals

    frames, schema, cols = _marginals.inputs(conf, synthetic, schema, columns)
    num = [c for c in cols if schema[c].is_numeric]
    cat = [c for c in cols if schema[c].is_categorical]
    if len(num) < 2 and len(cat) < 2:
        raise DataError("correlation_fit: needs at least two numeric or two categorical columns")
    pearson: list[np.ndarray] = []
    if len(num) >= 2:
        mats = dask.compute(*[f[num].astype("float64").corr() for f in frames])
        pearson = [m.to_numpy() for m in mats]
    cramers: list[np.ndarray] = []
    if len(cat) >= 2:
        free = [c for c in cat if schema[c].levels is None]
        seen = _marginals.first_levels(frames, free)
        plans = [Coding(tuple(cat), levels={
            c: list(seen[i][free.index(c)]) if c in free else list(schema[c].levels or ())
            for c in cat}) for i in range(len(frames))]
        pairs = [(cat[a], cat[b]) for a in range(len(cat)) for b in range(a)]
        counted = _marginals.count_cells(frames, plans, pairs)
        for plan, (_, tables) in zip(plans, counted, strict=True):
            out = np.eye(len(cat))
            for (ca, cb), (cells, counts) in zip(pairs, tables, strict=True):
                na, nb = plan.size(ca), plan.size(cb)
                tab = np.zeros(na * nb, dtype=np.int64)
                tab[cells] = counts
                a, b = cat.index(ca), cat.index(cb)
                out[a, b] = out[b, a] = cramers_v_of_table(tab.reshape(na, nb))
            cramers.append(out)
    return (pearson[0] if pearson else None, pearson[1:], num,
            cramers[0] if cramers else None, cramers[1:], cat)


def _sample(frame: dd.DataFrame, size: int, seed: int) -> pd.DataFrame:
    n = int(frame.shape[0].compute())
    if n == 0:
        raise DataError("pmse: a data set has no rows")
    frac = min(1.0, size / n)
    if frac >= 1.0:
        return frame.compute()
    return frame.sample(frac=frac, random_state=seed).compute()


def pmse_dask(
    conf: Any,
    synthetic: Any,
    model: Any = "logistic",
    *,
    sample_size: int = 100_000,
    random_state: Any = 0,
    **kwargs: Any,
) -> PMSEResult:
    """pMSE (Woo et al. 2009; Snoke et al. 2018) of Dask data on a reproducible sample of
    about ``sample_size`` rows of each data set (see the module notes); keyword arguments go
    to :func:`synthguard.utility.pmse` (which receives ``random_state`` too)."""
    if random_state is None:  # a fresh seed, as the pandas function draws fresh randomness
        random_state = resolve_seed(None)[1] or 0
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise ParameterError("parameter 'random_state': an integer seed (the sample's)")
    if int(sample_size) < 2:
        raise ParameterError("parameter 'sample_size': expected an integer >= 2")
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    seq = np.random.SeedSequence(int(random_state))
    seeds = [int(s.generate_state(1)[0]) for s in seq.spawn(1 + len(imps))]
    conf_s = _sample(conf, int(sample_size), seeds[0])
    syn_s = [_sample(f, int(sample_size), s) for f, s in zip(imps, seeds[1:], strict=True)]
    return _utility.pmse(
        conf_s,
        syn_s if len(syn_s) > 1 else syn_s[0],
        model,
        random_state=int(random_state),
        **kwargs,
    )
