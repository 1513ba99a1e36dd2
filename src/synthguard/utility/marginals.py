"""k-way marginal score of the NIST PSCR 2018 Differential Privacy Synthetic Data Challenge:
the total-variation distance between confidential and synthetic k-way marginals, averaged over
randomly drawn sets of k variables (Urban Institute course, NIST challenge case study)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._compat import renamed
from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.data._backend import any_dask, dask_backend
from synthguard.errors import ParameterError
from synthguard.utility._inputs import category_codes, numeric_values, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay
from synthguard.utility.blocks import Cells, Coding, aligned, partition_cells

__all__ = ["KWayMarginalScore", "kway_marginal_score"]


@dataclass(frozen=True)
class KWayMarginalScore(ResultDisplay, Summarized):
    """Average total-variation distance of random k-way marginals.

    Attributes
    ----------
    tv : mean over draws (and implicates) of ``TV = ½ Σ_cells |p_conf - p_syn|``, in [0, 1];
        0 means identical marginals (lower is better).
    score : ``1 - tv`` in [0, 1] (higher is better).
    k, n_draws, n_bins : settings.
    draws : one row per draw: the variables and its TV (averaged over implicates).
    seed : the seed used.
    """

    tv: float
    score: float
    k: int
    n_draws: int
    n_bins: int
    draws: pd.DataFrame
    seed: int | None = None

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "tv": MetricInfo("tv", "minimize", 0.0, 1.0, description="mean TV of k-way marginals"),
        "score": MetricInfo("score", "maximize", 0.0, 1.0, description="1 - mean TV"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.draws.copy()

    def summary(self) -> str:
        return (
            f"{self.k}-way marginals over {self.n_draws} draws: mean total variation distance "
            f"{self.tv:.4g} (0 = identical), score 1 - TV = {self.score:.4g}"
        )


def _bin_codes(
    conf: pd.Series, others: list[pd.Series], name: str, n_bins: int
) -> tuple[list[np.ndarray], int]:
    """Codes of a numeric column binned at the confidential data's quantiles (``n_bins``
    equal-frequency bins; ties merge bins), missing values in a bin of their own."""
    cv = numeric_values(conf, name)
    finite = cv[~np.isnan(cv)]
    if finite.size == 0:
        edges = np.array([])
    else:
        edges = np.unique(np.quantile(finite, np.linspace(0, 1, n_bins + 1)[1:-1]))
    nb = edges.size + 2  # bins plus missing
    out = []
    for s in [conf, *others]:
        v = numeric_values(s, name)
        code = np.searchsorted(edges, v, side="right").astype(np.int64)
        code[np.isnan(v)] = nb - 1
        out.append(code)
    return out, nb


@dask_backend
@renamed(synth="synthetic")
def kway_marginal_score(
    conf: Any,
    synthetic: Any,
    k: int = 3,
    n_draws: int = 100,
    *,
    n_bins: int = 10,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    random_state: RandomState = None,
) -> KWayMarginalScore:
    """NIST 2018 challenge k-way marginal score.

    For each of ``n_draws`` draws, ``k`` distinct variables are picked at random; the
    confidential and synthetic k-way tables of relative frequencies ``p`` and ``q`` give
    ``TV = ½ Σ_cells |p - q|``; the result is the average TV (and ``1 - TV``) over draws and
    implicates. NIST scored the sum of absolute differences (``2 TV``) averaged over 100 draws
    of 3 variables; we report TV so that the range is [0, 1].

    Numeric and count columns are binned into ``n_bins`` equal-frequency bins with edges at
    the confidential data's quantiles (tied quantiles merge bins); missing values are a cell of
    their own; categorical columns use their levels.

    Parameters
    ----------
    conf, synthetic : confidential DataFrame and the release.
    k : variables per marginal (at most the number of columns).
    n_draws : number of random marginals.
    n_bins : bins for numeric columns.
    schema, columns : column kinds and the variables to use.
    random_state : seed or Generator for the draws.

    Returns
    -------
    KWayMarginalScore
    """
    check_kway(k, n_draws, n_bins)
    on_dask = any_dask(conf, synthetic)
    if on_dask:  # from exact cell counts made on the workers
        from synthguard.utility._on_dask.marginals import inputs, tables

        frames, schema, cols = inputs(conf, synthetic, schema, columns)
    else:
        frames, schema, cols = _resolved(conf, synthetic, schema, columns)
    if k > len(cols):
        raise ParameterError(
            f"parameter 'k': {k} exceeds the {len(cols)} columns available; lower k"
        )
    rng, seed = resolve_seed(random_state)
    draws = kway_draws(cols, k, n_draws, rng)
    make = tables if on_dask else _pandas_tables
    return kway_result(draws, make(frames, schema, cols, n_bins, draws), k, n_draws, n_bins,
                       seed)


def _resolved(conf: Any, synthetic: Any, schema: Schema | None, columns: list[str] | None
              ) -> tuple[list[Any], Schema, list[str]]:
    conf, imps, schema, cols = resolve(conf, synthetic, schema, columns)
    return [conf, *imps], schema, cols


def check_kway(k: int, n_draws: int, n_bins: int) -> None:
    """The checks of :func:`kway_marginal_score`'s numbers, for either backend."""
    if k < 1:
        raise ParameterError("parameter 'k': expected at least 1 variable per marginal")
    if n_draws < 1:
        raise ParameterError("parameter 'n_draws': expected at least 1 draw")
    if n_bins < 2:
        raise ParameterError("parameter 'n_bins': expected at least 2 bins")


def kway_draws(cols: list[str], k: int, n_draws: int,
               rng: np.random.Generator) -> list[tuple[str, ...]]:
    """``n_draws`` sets of ``k`` distinct columns (in the columns' order), one
    ``rng.choice`` each."""
    return [tuple(cols[i] for i in np.sort(rng.choice(len(cols), size=k, replace=False)))
            for _ in range(n_draws)]


def kway_result(draws: list[tuple[str, ...]], tables: dict[tuple[str, ...], list[Cells]],
                k: int, n_draws: int, n_bins: int, seed: int | None) -> KWayMarginalScore:
    """The score from every drawn set's cell counts in the data and each implicate (either
    backend): ``TV = ½ Σ_cells |p - q|`` on the cells that occur in any data set, averaged
    over implicates, then over draws."""
    rows = []
    for chosen in draws:
        full = aligned(tables[chosen])
        p = full[0] / int(full[0].sum())
        tvs = [0.5 * float(np.abs(p - q / int(q.sum())).sum()) for q in full[1:]]
        rows.append({"variables": ", ".join(chosen), "tv": float(np.mean(tvs))})
    frame = pd.DataFrame(rows).rename_axis("draw")
    tv = float(frame["tv"].mean())
    return KWayMarginalScore(tv, 1.0 - tv, k, n_draws, n_bins, frame, seed)


def _pandas_tables(frames: list[Any], schema: Schema, cols: list[str], n_bins: int,
                   sets: list[tuple[str, ...]]) -> dict[tuple[str, ...], list[Cells]]:
    """The cell counts of every set in every data set: the kernel
    :func:`synthguard.utility.blocks.partition_cells` on each whole frame, coded by bins at
    the confidential data's quantiles and the levels of all data sets."""
    distinct = list(dict.fromkeys(sets))
    used = [c for c in cols if any(c in s for s in distinct)]
    conf = frames[0]
    edges, levels = {}, {}
    for c in used:
        if schema[c].is_numeric:
            cv = numeric_values(conf[c], c)
            finite = cv[~np.isnan(cv)]
            probs = np.linspace(0, 1, n_bins + 1)[1:-1]
            edges[c] = np.unique(np.quantile(finite, probs)) if finite.size else np.array([])
        else:
            levels[c] = category_codes([f[c] for f in frames], schema[c].levels)[2]
    plan = Coding(tuple(used), edges, levels)
    counted = [partition_cells(f, plan, distinct) for f in frames]
    return {s: [c[1][i] for c in counted] for i, s in enumerate(distinct)}
