"""The risk measures' Dask paths (private): imported by a measure of :mod:`synthguard.risk`
only when it is given a Dask frame. They map the kernels of :mod:`synthguard.risk.blocks` over
partitions with :mod:`synthguard._dask` and return the arrays the measure assembles."""
