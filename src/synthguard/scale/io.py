"""Reading Parquet/CSV folders and writing implicates on Dask: moved to
:mod:`synthguard._dask.io` (plumbing); these names stay for existing imports."""

from synthguard._dask.io import pending_writes, read_dataset, write_implicates

__all__ = ["pending_writes", "read_dataset", "write_implicates"]
