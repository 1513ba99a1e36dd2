"""The utility measures under their ``synthguard.scale`` names: the rooms' functions
themselves, which take a pandas or a Dask DataFrame (kept so that code importing them from
here keeps working)."""

from __future__ import annotations

from synthguard.utility.correlation import correlation_fit
from synthguard.utility.discriminant import pmse
from synthguard.utility.ecdf import ecdf_utility
from synthguard.utility.univariate import univariate

__all__ = ["correlation_fit", "ecdf_utility", "pmse", "univariate"]
