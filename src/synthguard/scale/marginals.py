"""The marginal measures under their ``synthguard.scale`` names: the k-way marginal score is
:func:`synthguard.utility.kway_marginal_score` itself (pandas or Dask); the workload error
on Dask and both from one pass are the utility room's Dask module's."""

from __future__ import annotations

from synthguard.utility._on_dask.marginals import marginal_scores, workload_error
from synthguard.utility.marginals import kway_marginal_score

__all__ = ["kway_marginal_score", "marginal_scores", "workload_error"]
