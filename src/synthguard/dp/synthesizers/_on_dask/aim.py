"""AIM on Dask: every marginal AIM may read counted in one pass, the selection loop on the client.

:class:`synthguard.dp.AIMSynthesizer` (McKenna, Mullins, Sheldon & Miklau 2022) reads the data
only through exact marginal counts (its ``_marginal`` hook): the 1-way marginal of every
column, then, round by round, those of its candidates (the downward closure of the workload),
to score them and to measure the one selected. Which candidates it scores depends on the
noisy model, but they are always among the closure and never larger than ``max_model_size``
(a junction tree holding one is at least its size), so here every 1-way marginal and every
such candidate is counted by Dask in one pass before the loop: each partition codes its records on
the declared public domain and counts every table, and the tables are summed in integers in a
tree of merges on the workers (equal to the pandas counts whatever the partitioning). The
pandas AIM then runs unchanged on the client: the ledger charged once (one zCDP line), every
Gaussian measurement and Gumbel selection drawn there (OpenDP's samplers for a release; the
seeded numpy path for simulation only, as on pandas), Private-PGM fitted there. The privacy
guarantee is the pandas one: counting more marginals than AIM measures releases nothing (only
the noisy answers and the noisy selections leave the fit).

``max_seconds`` bounds the selection loop as on pandas; the counting pass comes before it and
is not counted. The records are drawn per partition on the workers from the fitted junction
tree's calibrated clique marginals (:func:`.common.sample_on_workers`).
"""

from __future__ import annotations

from typing import Any

import dask
import numpy as np
import pandas as pd

from synthguard.dp.synthesizers._junction import JunctionTree
from synthguard.dp.synthesizers._on_dask.common import (
    _Drawer,
    all_integers,
    binned_integers,
    declared_domain,
    settle_dtypes,
    tree_sum,
)

__all__ = ["TreeDrawer", "fit_aim"]

Clique = tuple[str, ...]
_Tables = dict[Clique, np.ndarray]


def _clique_tables(part: pd.DataFrame, build: Any, cliques: list[Clique],
                   sizes: dict[str, int]) -> tuple[_Tables, dict[str, bool]]:
    """Exact counts of one partition over every clique (flattened, C order, integers), and
    whether each binned column holds integers there (how the release decodes it)."""
    if len(part) == 0:
        return {}, {}
    domain, codes = build(part)
    out: _Tables = {}
    for cl in cliques:
        shape = tuple(sizes[c] for c in cl)
        idx = np.ravel_multi_index(tuple(codes[c] for c in cl), shape)
        out[cl] = np.bincount(idx, minlength=int(np.prod(shape)))
    return out, binned_integers(domain)


def _add(*blocks: tuple[_Tables, dict[str, bool]]) -> tuple[_Tables, dict[str, bool]]:
    """Sum tables clique by clique (integers: exact)."""
    out: _Tables = {}
    for tables, _ in blocks:
        for cl, counts in tables.items():
            out[cl] = out[cl] + counts if cl in out else counts
    return out, all_integers(*(flags for _, flags in blocks))


class _SamplingTree:
    """What sampling reads of a fitted :class:`JunctionTree`: the calibrated clique marginals
    and the tree order (no mbi module, no JAX model: they do not travel to the workers)."""

    _FIELDS = ("sizes", "nodes", "adj", "parent", "order", "cliques", "total", "marginals")

    @classmethod
    def of(cls, tree: JunctionTree) -> JunctionTree:
        light = object.__new__(JunctionTree)
        for name in cls._FIELDS:
            setattr(light, name, getattr(tree, name))
        return light


class TreeDrawer(_Drawer):
    """A drawer whose model carries the junction tree's sampling fields only."""

    @classmethod
    def of(cls, fitted: Any) -> _Drawer:
        drawer = super().of(fitted)
        drawer._model._jtree = _SamplingTree.of(fitted._jtree)  # type: ignore[attr-defined]
        return drawer


def fit_aim(model: Any, data: Any) -> Any:
    """Fit ``model`` (an AIMSynthesizer) on the Dask frame ``data``."""
    from synthguard.dp.synthesizers.aim import aim_candidates

    build, domain, head = declared_domain(model, data, missing=model.missing)
    cols = list(domain.columns)
    workload = model._workload(cols)  # a bad workload is refused before the pass
    sizes = dict(zip(cols, domain.sizes))
    # a candidate whose own table exceeds max_model_size is never scored: the junction
    # tree holding it would be larger (mbi's hypothetical_model_size, 8 bytes a cell)
    limit = float(model.max_model_size) * 2**20 / 8
    cliques = sorted({*((c,) for c in cols),
                      *(r for r in aim_candidates(workload)
                        if np.prod([sizes[c] for c in r], dtype=np.float64) <= limit)})
    model._dask_tables, integer = tree_sum(
        [dask.delayed(_clique_tables)(p, build, cliques, sizes)
         for p in data[cols].to_delayed()], _add)
    try:
        model.fit(head)
    finally:
        model._dask_tables = None
    # a binned column decodes to integers only when every partition holds integers
    model.domain_ = settle_dtypes(model.domain_, integer)
    model.fitted_on_dask_ = True
    return model
