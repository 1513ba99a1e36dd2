"""The utility measures' Dask paths (private): imported by a measure of
:mod:`synthguard.utility` only when it is given a Dask frame. They count exact value counts
and cells on the workers with :mod:`synthguard._dask` and hand them to the same counts entry
points the pandas functions use (``univariate_of_counts``, ``ecdf_utility_of_counts``, ...)."""
