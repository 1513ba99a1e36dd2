"""Dask clients (``--dask`` targets): moved to :mod:`synthguard._dask.client` (plumbing); these
names stay for existing imports."""

from synthguard._dask.client import DaskTarget, dask_session, parse_dask

__all__ = ["DaskTarget", "dask_session", "parse_dask"]
