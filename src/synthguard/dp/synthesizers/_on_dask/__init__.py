"""The DP synthesizers fitted on a Dask DataFrame (private): per-partition counts summed
exactly on the workers, then the pandas fit on the client (noise drawn once, the ledger
charged once), and records drawn partition by partition on the workers."""
