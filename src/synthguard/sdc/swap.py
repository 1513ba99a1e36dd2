"""Data swapping: exchange values between pairs of records.

* **Random swapping** (Dalenius & Reiss 1982; course book ch. 1, "Swapping"): a share
  ``rate`` of the records is drawn, within strata (``strata=``, "sample units with similar
  characteristics"), paired at random, and the paired records exchange the values of all
  the listed ``columns`` jointly. Marginal distributions of the swapped columns are kept
  exactly, within each stratum; their relationships with the other variables are not.
  Mitra & Reiter (2006) found that swapping 5% of two identifying variables invalidated
  regression inference in the Survey of Youth in Custody (course book ch. 1).
* **Rank swapping** (Moore 1996; sdcMicro's ``rankSwap``): each numeric column is swapped
  on its own; a value is exchanged with a partner whose rank differs by at most
  ``max_rank_distance`` percent of the number of records (in its stratum). Moore's
  sequential scan pairs each unswapped rank with a random later unswapped rank within the
  window; here the sorted values are cut into consecutive blocks of
  :math:`\\lfloor p n / 100 \\rfloor + 1` ranks and records are paired at random inside a
  block, which keeps the same rank-distance guarantee and is fully vectorised.

Records are exchanged in pairs, so ``rate`` × n swapped records means
:math:`2\\,\\mathrm{round}(\\text{rate}\\cdot n / 2)` records (``n_pairs`` pairs), allocated to
strata in proportion to their sizes (largest remainder). Cost: one sort, O(n log n).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._random import RandomState, resolve_seed
from synthguard.data._backend import dask_backend, is_dask_collection
from synthguard.errors import ParameterError
from synthguard.sdc._common import (
    check_columns,
    check_frame,
    check_probability,
    float_values,
    largest_remainder,
    numeric_columns,
    rank_within,
    ranks_in_sorted,
    sort_by_group,
    strata_ids,
    value_changed,
)
from synthguard.sdc.result import ProtectedData

__all__ = ["swap"]


@dask_backend
@renamed(within="strata")
def swap(
    data: pd.DataFrame,
    columns: Sequence[str] | str,
    rate: float | None = None,
    strata: Sequence[str] | str | None = None,
    method: Literal["random", "rank"] = "random",
    max_rank_distance: float | None = None,
    *,
    random_state: RandomState = None,
) -> ProtectedData:
    """Swap the values of ``columns`` between pairs of records.

    Parameters
    ----------
    data : confidential DataFrame (not mutated), pandas or Dask. On Dask ``strata`` is
        required: one shuffle puts each stratum in one partition and this function swaps each
        stratum with its own generator (:mod:`synthguard.sdc._strata`), equal in distribution
        to the pandas release and the same for the same seed whatever the partitioning;
        ``data`` and ``changes`` are Dask frames (rows grouped by stratum, index kept) and
        ``params`` holds the inputs only.
    columns : the variables to swap. ``method="random"`` swaps them jointly (a record's
        whole vector of these values moves to its partner); ``method="rank"`` swaps each
        numeric column on its own.
    rate : share of records that take part, in (0, 1]. Required for random swapping;
        rank swapping defaults to 1 (every record that can be paired).
    strata : stratum column(s); partners are always in the same stratum.
    method : ``"random"`` or ``"rank"``.
    max_rank_distance : for rank swapping, the largest rank difference between partners,
        in percent of the number of records in the stratum (Moore's :math:`p`), in (0, 100].
    random_state : seed or Generator.

    Returns
    -------
    ProtectedData
        ``changes`` marks cells whose value actually changed (partners with equal values
        change nothing); ``params`` holds ``n_swapped`` (records that took part),
        ``n_pairs`` and, for random swapping, ``pairs_by_stratum``.

    Raises
    ------
    ParameterError
        Unknown columns, a rate outside (0, 1], a missing or out-of-range
        ``max_rank_distance``, non-numeric columns for rank swapping, an unknown method.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"region": list("abcdefghij"), "age": range(10)})
    >>> out = swap(df, ["region", "age"], rate=0.4, random_state=1)
    >>> out.params["n_swapped"]
    4
    """
    if method not in ("random", "rank"):
        raise ParameterError("parameter 'method': expected 'random' or 'rank'")
    if is_dask_collection(data):  # the pandas step per stratum, each with its own seed
        from synthguard.sdc._on_dask.steps import swapped

        kwargs = {"columns": columns, "rate": rate, "method": method,
                  "max_rank_distance": max_rank_distance}
        return swapped(swap, data, strata, kwargs, random_state)
    data = check_frame(data)
    cols = check_columns(data, columns, "columns", as_levels=method == "random")
    groups = strata_ids(data, strata)
    rng, seed = resolve_seed(random_state)
    if method == "random":
        if rate is None:
            raise ParameterError("parameter 'rate': random swapping needs a rate in (0, 1]")
        r = check_probability(rate, "rate", low_open=True)
        return _random_swap(data, cols, r, groups, strata, rng, seed)
    if max_rank_distance is None:
        raise ParameterError(
            "parameter 'max_rank_distance': rank swapping needs a distance in percent of ranks"
        )
    if (
        isinstance(max_rank_distance, bool)
        or not isinstance(max_rank_distance, numbers.Real)
        or not 0 < float(max_rank_distance) <= 100
    ):
        raise ParameterError("parameter 'max_rank_distance': expected a percentage in (0, 100]")
    r = 1.0 if rate is None else check_probability(rate, "rate", low_open=True)
    numeric_columns(data, cols, "columns")
    return _rank_swap(data, cols, r, float(max_rank_distance), groups, strata, rng, seed)


def _round_half_up(x: float) -> int:
    return int(np.floor(x + 0.5))


def _partner_in_sorted(order: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Partner of every record when consecutive ranks (0-1, 2-3, ...) in a group pair up."""
    pos = np.empty(order.size, dtype=np.int64)
    pos[order] = np.arange(order.size)
    partner_pos = pos - rank + (rank ^ 1)
    partner_pos = np.clip(partner_pos, 0, max(order.size - 1, 0))
    return order[partner_pos]


def _random_swap(
    data: pd.DataFrame,
    cols: list[str],
    rate: float,
    groups: np.ndarray,
    strata: Any,
    rng: np.random.Generator,
    seed: int | None,
) -> ProtectedData:
    n = data.shape[0]
    sizes = np.bincount(groups)
    n_pairs = _round_half_up(rate * n / 2)
    caps = sizes // 2
    pairs = largest_remainder(n_pairs * sizes / n, n_pairs, caps)
    order, rank = rank_within(groups, rng.random(n))
    selected = rank < 2 * pairs[groups]
    partner = _partner_in_sorted(order, rank)
    perm = np.arange(n)
    perm[selected] = partner[selected]
    out = data.copy()
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    for c in cols:
        changes[c] = value_changed(data[c], perm)
        values = data[c].take(perm)
        values.index = out.index
        out[c] = values
    params: dict[str, Any] = {
        "columns": cols,
        "method": "random",
        "rate": rate,
        "strata": strata,
        "n_pairs": int(pairs.sum()),
        "n_swapped": int(selected.sum()),
        "pairs_by_stratum": pairs.tolist(),
    }
    return ProtectedData(data=out, changes=changes, method="swap", params=params, seed=seed)


def _rank_swap(
    data: pd.DataFrame,
    cols: list[str],
    rate: float,
    distance: float,
    groups: np.ndarray,
    strata: Any,
    rng: np.random.Generator,
    seed: int | None,
) -> ProtectedData:
    out = data.copy()
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    n_swapped: dict[str, int] = {}
    max_gap: dict[str, int] = {}
    for c in cols:
        x = float_values(data[c])
        obs = np.flatnonzero(~np.isnan(x))
        g = groups[obs]
        m = obs.size
        sizes = np.bincount(g, minlength=int(groups.max()) + 1 if groups.size else 1)
        # block size per stratum: floor(p * n_s / 100) + 1 consecutive ranks
        block = np.floor(distance * sizes / 100.0 + 1e-9).astype(np.int64) + 1
        # order by stratum, then value; tied values in a seed-dependent order (a random
        # start permutation, then a quicksort of the values)
        xo = x[obs]
        order = rng.permutation(m)
        order = sort_by_group(order[np.argsort(xo[order])], g)
        rank = ranks_in_sorted(order, g)
        blk = rank // block[g]
        # pair at random inside (stratum, block): one float sort of cell + U(0, 1)
        cell = g * (int(rank.max()) + 1 if m else 1) + blk
        order2 = np.argsort(cell.astype(np.float64) + rng.random(m))
        rank2 = ranks_in_sorted(order2, cell)
        partner = _partner_in_sorted(order2, rank2)
        cell_sizes = np.bincount(cell)
        paired = (rank2 ^ 1) < cell_sizes[cell]
        # choose round(rate * m / 2) of the formed pairs at random
        lead = paired & (rank2 % 2 == 0)
        lead_idx = np.flatnonzero(lead)
        want = min(_round_half_up(rate * m / 2), lead_idx.size)
        chosen_leads = lead_idx[rng.permutation(lead_idx.size)[:want]]
        take = np.zeros(m, dtype=bool)
        take[chosen_leads] = True
        take[partner[chosen_leads]] = True
        perm_local = np.arange(m)
        perm_local[take] = partner[take]
        perm = np.arange(data.shape[0])
        perm[obs] = obs[perm_local]
        changes[c] = value_changed(data[c], perm)
        values = data[c].take(perm)
        values.index = out.index
        out[c] = values
        n_swapped[c] = int(take.sum())
        max_gap[c] = int(np.abs(rank[perm_local] - rank).max()) if m else 0
    params: dict[str, Any] = {
        "columns": cols,
        "method": "rank",
        "rate": rate,
        "strata": strata,
        "max_rank_distance": distance,
        "n_swapped": n_swapped,
        "n_pairs": {c: v // 2 for c, v in n_swapped.items()},
        "max_rank_gap": max_gap,
    }
    return ProtectedData(data=out, changes=changes, method="swap", params=params, seed=seed)
