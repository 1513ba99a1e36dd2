"""The comparison of means on Dask (:func:`synthguard.utility.compare_statistics` of the
statistic ``"mean"``), kept under its ``synthguard.scale`` name."""

from __future__ import annotations

from synthguard.utility._on_dask.means import compare_means

__all__ = ["compare_means"]
