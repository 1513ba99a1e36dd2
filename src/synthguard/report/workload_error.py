"""True workload error of a release by marginal order: mean TV of all 1-, 2- and 3-way marginals.

The error a DP synthesizer is built to minimise (McKenna et al. 2022, AIM's workload error;
the NIST 2018 challenge's k-way score) measured against the confidential data: for every set
of k columns, TV = ½ Σ_cells |p_conf − p_syn| of the two k-way tables of relative frequencies,
averaged over all such sets (and the implicates). Unlike ``kway_tv`` (100 random 3-way draws)
every marginal of each order is used, up to ``max_marginals`` per order (then a seeded random
subset), so a release's 1-, 2- and 3-way figures can be set beside the expected error its
synthesizer stated before spending (:mod:`synthguard.dp.synthesizers.error`).

Numeric columns are binned as ``kway_tv`` bins them (equal-frequency bins at the confidential
data's quantiles); categorical columns use their levels; a missing value is a cell of its own.
This reads the confidential data: it is an evaluation, not a DP release.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.utility._inputs import category_codes, resolve
from synthguard.utility.marginals import _bin_codes

__all__ = ["ORDERS", "workload_error", "workload_metrics"]

ORDERS = (1, 2, 3)


def workload_error(conf: pd.DataFrame, synthetic: Any, *, orders: Sequence[int] = ORDERS,
                   schema: Schema | None = None, n_bins: int = 10, max_marginals: int = 500,
                   random_state: RandomState = None) -> dict[int, float]:
    """Mean total-variation distance of all k-way marginals, for each k in ``orders``.

    Returns ``{k: mean TV}`` for the orders not above the number of shared columns.
    """
    conf, imps, schema, cols = resolve(conf, synthetic, schema, None)
    rng, _ = resolve_seed(random_state)
    codes: dict[str, list[np.ndarray]] = {}
    sizes: dict[str, int] = {}
    for c in cols:
        if schema[c].is_numeric:
            codes[c], sizes[c] = _bin_codes(conf[c], [df[c] for df in imps], c, n_bins)
        else:
            codes[c], sizes[c], _ = category_codes([conf[c], *[df[c] for df in imps]],
                                                   schema[c].levels)
    out: dict[int, float] = {}
    for k in orders:
        if k > len(cols):
            continue
        sets = list(itertools.combinations(cols, k))
        if len(sets) > max_marginals:
            pick = np.sort(rng.choice(len(sets), size=max_marginals, replace=False))
            sets = [sets[i] for i in pick]
        tvs = []
        for chosen in sets:
            flat = []
            for j in range(len(imps) + 1):
                idx = np.zeros(codes[chosen[0]][j].size, dtype=np.int64)
                for c in chosen:
                    idx = idx * sizes[c] + codes[c][j]
                flat.append(idx)
            # number the cells that occur anywhere (a product of large domains may not fit)
            _, inv = np.unique(np.concatenate(flat), return_inverse=True)
            bounds = np.cumsum([0, *[f.size for f in flat]])
            ncell = int(inv.max()) + 1 if inv.size else 1
            p = np.bincount(inv[: bounds[1]], minlength=ncell) / max(bounds[1], 1)
            tvs.append(np.mean([
                0.5 * np.abs(p - np.bincount(inv[bounds[j]: bounds[j + 1]], minlength=ncell)
                             / max(bounds[j + 1] - bounds[j], 1)).sum()
                for j in range(1, len(flat))]))
        out[int(k)] = float(np.mean(tvs))
    return out


def workload_metrics(conf: pd.DataFrame, synthetic: Any, schema: Schema | None = None,
                     random_state: RandomState = None) -> dict[str, float]:
    """:func:`workload_error` as the comparison table's metrics ``tv_1way`` … ``tv_3way``."""
    return {f"tv_{k}way": v for k, v in workload_error(
        conf, synthetic, schema=schema, random_state=random_state).items()}
