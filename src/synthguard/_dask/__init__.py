"""The Dask backend's plumbing, shared by every room: partitions, row numbers, hash shuffles
on keys, exact tree sums and quantiles, exact value counts.

The rooms (:mod:`synthguard.risk`, :mod:`synthguard.utility`, ...) hold their measures and
their per-block kernels; when a measure is given a Dask DataFrame it imports its Dask module,
which maps the room's kernels over the partitions with the helpers here and combines them.
This package sits just above :mod:`synthguard.data` in the layers and imports nothing of Dask
itself: its modules (``partitions``, ``summary``, ``counts``) import Dask, and they are
imported only when a Dask frame is given, so a pandas user never imports Dask.
"""

#: the column of global row numbers (0..n-1 in partition order) a block carries
ROW = "_synthguard_row"
#: the column of pattern hashes a shuffle on keys partitions by
HASH = "_synthguard_hash"
