"""The NIST challenge's classification score as a measure the evaluation computes.

:func:`synthguard.utility.nist_classification_score` (course §8.5.4): 300 random conjunctions
of conditions on 3 columns, drawn from the data, asked of data and release;
``1 − mean |p − p'|``, higher is better, 1 for a release whose every conjunction holds for the
same share of records as in the data. The queries are drawn with the evaluation's seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard.evaluation.metrics import Metric, computed_by_evaluate, register_metric
from synthguard.utility.nist_scores import nist_classification_score

__all__ = ["nist_classification"]


def nist_classification(conf: pd.DataFrame, implicates: list[pd.DataFrame],
                        rng: np.random.Generator) -> Any:
    """The score over the release's implicates (their mean), on the shared columns."""
    k = min(3, conf.shape[1])
    seed = int(rng.integers(0, 2**31 - 1))
    return nist_classification_score(conf, implicates, n_queries=300, k=k,
                                     random_state=seed).score


register_metric(Metric(
    "nist_classification", "NIST classification", "utility", "max", 0.0, 1.0,
    computed_by_evaluate,
    "the NIST challenge's classification score: 1 − mean |p − p'| over 300 random "
    "conjunctions of conditions on 3 columns, p and p' the shares of data and release "
    "records meeting them (course §8.5.4; Bowen & Snoke 2021)",
    compute=nist_classification,
    summary=False,  # the summary tables are sized to a printed page
))
