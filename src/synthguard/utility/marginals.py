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
    if any_dask(conf, synthetic):  # from exact cell counts, the same draws
        from synthguard.utility._on_dask.marginals import kway_marginal_score_dask

        return kway_marginal_score_dask(
            conf, synthetic, k, n_draws, n_bins=n_bins, schema=schema, columns=columns,
            random_state=random_state,
        )
    if k < 1:
        raise ParameterError("parameter 'k': expected at least 1 variable per marginal")
    if n_draws < 1:
        raise ParameterError("parameter 'n_draws': expected at least 1 draw")
    if n_bins < 2:
        raise ParameterError("parameter 'n_bins': expected at least 2 bins")
    conf, imps, schema, cols = resolve(conf, synthetic, schema, columns)
    if k > len(cols):
        raise ParameterError(
            f"parameter 'k': {k} exceeds the {len(cols)} columns available; lower k"
        )
    rng, seed = resolve_seed(random_state)
    codes: dict[str, list[np.ndarray]] = {}
    sizes: dict[str, int] = {}
    for c in cols:
        if schema[c].is_numeric:
            codes[c], sizes[c] = _bin_codes(conf[c], [df[c] for df in imps], c, n_bins)
        else:
            codes[c], sizes[c], _ = category_codes(
                [conf[c], *[df[c] for df in imps]], schema[c].levels
            )
    rows = []
    for _ in range(n_draws):
        chosen = [cols[i] for i in np.sort(rng.choice(len(cols), size=k, replace=False))]
        tvs = []
        flat = []
        for j in range(len(imps) + 1):
            idx = np.zeros(len(codes[chosen[0]][j]), dtype=np.int64)
            for c in chosen:
                idx = idx * sizes[c] + codes[c][j]
            flat.append(idx)
        # compress the joint cell index to the cells that occur anywhere
        allcells, inv = np.unique(np.concatenate(flat), return_inverse=True)
        bounds = np.cumsum([0, *[len(f) for f in flat]])
        p = np.bincount(inv[: bounds[1]], minlength=allcells.size) / bounds[1]
        for j in range(1, len(flat)):
            seg = inv[bounds[j] : bounds[j + 1]]
            q = np.bincount(seg, minlength=allcells.size) / seg.size
            tvs.append(0.5 * float(np.abs(p - q).sum()))
        rows.append({"variables": ", ".join(chosen), "tv": float(np.mean(tvs))})
    draws = pd.DataFrame(rows).rename_axis("draw")
    tv = float(draws["tv"].mean())
    return KWayMarginalScore(tv, 1.0 - tv, k, n_draws, n_bins, draws, seed)
