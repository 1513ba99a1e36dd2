"""The per-block kernels of the risk measures: plain functions of pandas frames (no Dask)
that both backends call. The pandas path of a measure is its kernel on the whole data; the
Dask path (:mod:`synthguard.risk._on_dask`) maps the same kernel over partitions that hold
whole patterns or aligned rows and combines the blocks' integer counts with the helpers of
:mod:`synthguard._dask`.

* :mod:`~synthguard.risk.blocks.records`: per-record counts within patterns (identification,
  pairwise, k-anonymity, match rates) of a block holding whole patterns.
* :mod:`~synthguard.risk.blocks.value_tables`: pattern dictionaries and (pattern, value,
  count) tables, for the shuffle-free identification risk of one target.
"""

from synthguard.risk.blocks.records import *  # noqa: F403 (the pattern kernels, re-exported)

# the kernels are imported by name from their modules by the rooms' measures and Dask paths;
# they are no user-facing API, so the package exports nothing of its own
__all__: list[str] = []
