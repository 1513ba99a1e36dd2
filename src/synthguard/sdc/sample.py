"""Sampling: release only a random sample of the records.

Course book ch. 1, "Sampling: only releasing a sample of individual records". A record
in a released sample may or may not be the intruder's target, which lowers the chance
that a unique match in the release is a true match (Skinner & Elliot 2002).

:func:`subsample` draws a simple random sample without replacement, stratified with
``strata=``: stratum :math:`h` of size :math:`N_h` gives :math:`n_h =
\\mathrm{round}(f N_h)` records (half up), at least ``min_per_stratum``. The design weight
of a released record is :math:`N_h / n_h`. One sort: O(n log n).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._random import RandomState, resolve_seed
from synthguard.errors import ParameterError
from synthguard.sdc._common import check_frame, check_probability, rank_within, strata_ids
from synthguard.sdc.result import ProtectedData

__all__ = ["subsample"]


@renamed(within="strata")
def subsample(
    data: pd.DataFrame,
    fraction: float,
    strata: Sequence[str] | str | None = None,
    *,
    min_per_stratum: int = 0,
    weight_column: str | None = None,
    random_state: RandomState = None,
) -> ProtectedData:
    """Release a (stratified) simple random sample of the records.

    Parameters
    ----------
    data : confidential DataFrame (not mutated).
    fraction : sampling fraction :math:`f` in (0, 1].
    strata : stratum column(s); each stratum is sampled at the same fraction.
    min_per_stratum : smallest sample size of a stratum (capped at its size).
    weight_column : if given, a column of design weights :math:`N_h/n_h` is added.
    random_state : seed or Generator.

    Returns
    -------
    ProtectedData
        ``data``: the sampled records in their original order, with their index;
        ``removed``: index of records not released; ``params``: ``n_sampled`` and
        ``sampled_by_stratum``.

    Raises
    ------
    ParameterError
        A fraction outside (0, 1], a negative ``min_per_stratum``, a weight column that
        already exists.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f"] * 6 + ["m"] * 4, "x": range(10)})
    >>> out = subsample(df, 0.5, strata="sex", random_state=1)
    >>> out.data["sex"].value_counts().sort_index().tolist()
    [3, 2]
    """
    data = check_frame(data)
    f = check_probability(fraction, "fraction", low_open=True)
    if (
        isinstance(min_per_stratum, bool)
        or not isinstance(min_per_stratum, numbers.Integral)
        or min_per_stratum < 0
    ):
        raise ParameterError("parameter 'min_per_stratum': expected an integer >= 0")
    if weight_column is not None and weight_column in data.columns:
        raise ParameterError(
            f"parameter 'weight_column': column '{weight_column}' already exists; pick a new name"
        )
    groups = strata_ids(data, strata)
    rng, seed = resolve_seed(random_state)
    n = data.shape[0]
    sizes = np.bincount(groups)
    take = np.floor(f * sizes + 0.5).astype(np.int64)
    take = np.minimum(np.maximum(take, int(min_per_stratum)), sizes)
    _, rank = rank_within(groups, rng.random(n))
    keep = rank < take[groups]
    out = data.loc[keep].copy()
    if weight_column is not None:
        w = sizes / np.maximum(take, 1)
        out[weight_column] = w[groups[keep]]
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    params: dict[str, Any] = {
        "fraction": f,
        "strata": strata,
        "min_per_stratum": int(min_per_stratum),
        "n_sampled": int(keep.sum()),
        "sampled_by_stratum": take.tolist(),
    }
    return ProtectedData(
        data=out,
        changes=changes,
        method="subsample",
        params=params,
        seed=seed,
        removed=data.index[~keep],
    )
