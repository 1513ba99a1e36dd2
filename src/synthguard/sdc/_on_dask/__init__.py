"""The SDC steps' Dask paths (private): imported by a step of :mod:`synthguard.sdc` only when
it is given a Dask frame."""
