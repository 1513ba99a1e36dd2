"""The utility measures under their ``synthguard.scale`` names: the rooms' functions
themselves, which take a pandas or a Dask DataFrame (kept so that code importing them from
here keeps working). :func:`ecdf_utility` keeps this module's form ``(conf, synthetic,
column)`` and hands the column's values to :func:`synthguard.utility.ecdf_utility`."""

from __future__ import annotations

from typing import Any

from synthguard._dask.partitions import as_dask, as_dask_implicates
from synthguard.utility import ecdf as _ecdf
from synthguard.utility._on_dask.measures import columns_of
from synthguard.utility.correlation import correlation_fit
from synthguard.utility.discriminant import pmse
from synthguard.utility.ecdf import ECDFUtility
from synthguard.utility.univariate import univariate

__all__ = ["correlation_fit", "ecdf_utility", "pmse", "univariate"]


def ecdf_utility(conf: Any, synthetic: Any, column: str) -> ECDFUtility:
    """:func:`synthguard.utility.ecdf_utility` of ``column`` of the data and of every
    implicate (Dask or pandas frames): U_m and U_a (Woo et al. 2009), exactly."""
    conf = as_dask(conf, name="conf")
    imps = as_dask_implicates(synthetic)
    columns_of(conf, imps, [column])
    return _ecdf.ecdf_utility(conf[column], [f[column] for f in imps])
