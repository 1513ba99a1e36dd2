"""Dask backend: the same releases and measures on data bigger than one process.

``synthguard.scale`` mirrors the pandas names (``synthguard.scale.synthesize`` for
:func:`synthguard.synthesis.synthesize`, ``synthguard.scale.identification_risk`` for
:func:`synthguard.risk.identification_risk`, ...) and maps the existing block algorithms
(the synthesis block engine, risk per pattern, DP counts, SDC per partition) over the
partitions of a ``dask.dataframe.DataFrame``; it adds a backend, it does not fork the
algorithms. The risk and utility measures here are the rooms' own functions, which take
pandas or Dask frames; a function without a Dask path refuses a Dask collection.

Dask is an optional extra::

    pip install 'synthguard[dask]'

>>> import synthguard.scale as scale  # doctest: +SKIP
"""

from __future__ import annotations

try:
    import dask
    import dask.dataframe  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "synthguard.scale needs Dask: install it with pip install 'synthguard[dask]' "
        "(dask[dataframe] and distributed)"
    ) from exc

# synthesis, reading, writing and clients (daska); risk, utility, DP and SDC (daskb)
from synthguard._dask.client import DaskTarget, dask_session, parse_dask
from synthguard._dask.io import read_dataset, write_implicates
from synthguard.dp.synthesizers.aim import AIMSynthesizer
from synthguard.dp.synthesizers.mst import MSTSynthesizer
from synthguard.dp.synthesizers.stratified import StratifiedSynthesizer
from synthguard.evaluation import evaluate  # the one front door: it takes Dask frames
from synthguard.risk.attribute import attribute_disclosure
from synthguard.risk.identification_summary import IdentificationRiskSummary
from synthguard.risk.release_disclosure import release_disclosure
from synthguard.scale.dp import (
    dp_count,
    dp_histogram,
    dp_marginal,
    dp_sum,
    marginal_counts,
)
from synthguard.scale.marginals import kway_marginal_score, workload_error
from synthguard.scale.means import compare_means
from synthguard.scale.risk import (
    distance_to_closest_record,
    identification_risk,
    k_anonymity,
    match_rates,
    pairwise_identification_risk,
)
from synthguard.scale.utility import correlation_fit, ecdf_utility, pmse, univariate
from synthguard.sdc import add_noise, bottomcode, pram, swap, topcode
from synthguard.synthesis._on_dask.synthesis import DaskSynthesis, stratum_seeds
from synthguard.synthesis.synthesizer import synthesize

__all__ = [
    "AIMSynthesizer",
    "DaskSynthesis",
    "DaskTarget",
    "IdentificationRiskSummary",
    "MSTSynthesizer",
    "StratifiedSynthesizer",
    "add_noise",
    "attribute_disclosure",
    "bottomcode",
    "compare_means",
    "correlation_fit",
    "dask_session",
    "distance_to_closest_record",
    "dp_count",
    "dp_histogram",
    "dp_marginal",
    "dp_sum",
    "ecdf_utility",
    "evaluate",
    "identification_risk",
    "k_anonymity",
    "kway_marginal_score",
    "marginal_counts",
    "match_rates",
    "pairwise_identification_risk",
    "parse_dask",
    "pmse",
    "pram",
    "read_dataset",
    "release_disclosure",
    "stratum_seeds",
    "swap",
    "synthesize",
    "topcode",
    "univariate",
    "workload_error",
    "write_implicates",
]
