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

A DP release is measured on its own public domain instead (``bins=``, the edges its
provenance records: :func:`release_bins`): the columns it binned at the bins it used (left-closed
[e_k, e_{k+1}), values outside the edges in the first or last bin, as the synthesizer coded
them), every other column at its values. That is the domain its noisy marginals and the bound on
their error (:mod:`synthguard.dp.synthesizers.error`) are stated on: at the confidential
quantiles a release drawn uniformly inside wide public bins is far off (the spread within a
bin is not what it measured), which is a fact about its utility, not about its bound.

This reads the confidential data: it is an evaluation, not a DP release.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.utility._inputs import category_codes, numeric_values, resolve
from synthguard.utility.marginals import _bin_codes

__all__ = ["ORDERS", "edge_codes", "release_bins", "workload_error", "workload_metrics"]

ORDERS = (1, 2, 3)


def release_bins(provenance: Any) -> dict[str, list[float]] | None:
    """The public bin edges a DP release recorded in its provenance (``provenance["bins"]``,
    column → edges; ``{}`` when it binned no column), or None when it recorded none (a release
    of an older synthguard, or not a DP synthesizer's)."""
    bins = provenance.get("bins") if isinstance(provenance, Mapping) else None
    if not isinstance(bins, Mapping):
        return None
    try:
        return {str(c): [float(x) for x in e] for c, e in bins.items()}
    except (TypeError, ValueError):
        return None


def edge_codes(series: Sequence[pd.Series], edges: Sequence[float], name: str
               ) -> tuple[list[np.ndarray], int]:
    """Codes of a numeric column on public bin ``edges`` e_0 < … < e_K, as a DP synthesizer
    codes it (:func:`synthguard.dp.synthesizers._domain.build_domain`): bin k holds
    [e_k, e_{k+1}), values below e_0 fall in the first bin and values from e_K up in the last;
    a missing value is a cell of its own (code K). Returns the codes and K + 1."""
    e = np.unique(np.asarray(edges, dtype=np.float64))
    k = max(int(e.size) - 1, 1)
    out = []
    for s in series:
        v = numeric_values(s, name)
        code = np.clip(np.searchsorted(e, v, side="right") - 1, 0, k - 1).astype(np.int64)
        code[np.isnan(v)] = k
        out.append(code)
    return out, k + 1


def workload_error(conf: pd.DataFrame, synthetic: Any, *, orders: Sequence[int] = ORDERS,
                   schema: Schema | None = None, n_bins: int = 10, max_marginals: int = 500,
                   bins: Mapping[str, Sequence[float]] | None = None,
                   random_state: RandomState = None) -> dict[int, float]:
    """Mean total-variation distance of all k-way marginals, for each k in ``orders``.

    ``bins`` (a DP release's public domain, :func:`release_bins`): the named numeric columns
    are coded on those edges (:func:`edge_codes`) and every other column by its values, not
    at the confidential quantiles. Returns ``{k: mean TV}`` for the orders not above the
    number of shared columns.
    """
    conf, imps, schema, cols = resolve(conf, synthetic, schema, None)
    rng, _ = resolve_seed(random_state)
    codes: dict[str, list[np.ndarray]] = {}
    sizes: dict[str, int] = {}
    for c in cols:
        if bins is not None and c in bins:
            codes[c], sizes[c] = edge_codes([conf[c], *[df[c] for df in imps]], bins[c], c)
        elif bins is not None:  # a column of the release's declared levels: its values
            codes[c], sizes[c], _ = category_codes([conf[c], *[df[c] for df in imps]], None)
        elif schema[c].is_numeric:
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
