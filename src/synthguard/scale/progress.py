"""Progress of a Dask computation: moved to :mod:`synthguard._dask.progress` (plumbing); these
names stay for existing imports."""

from synthguard._dask.progress import Progress, compute

__all__ = ["Progress", "compute"]
