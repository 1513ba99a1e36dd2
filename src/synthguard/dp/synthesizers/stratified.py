"""StratifiedSynthesizer: noisy counts of the full contingency table, then sampling.

The method of the stratified-DP voting article (seed 003): cross all categorical columns into
strata, add Laplace noise to the count of **every** cell of the full contingency table — empty
cells included, since skipping them would reveal which combinations occur — clip negatives,
normalise, and sample synthetic records from the resulting distribution.

Privacy: a record falls in exactly one cell, so the table is a histogram with l1 sensitivity 1
under add/remove neighbours; the whole table costs ε once (parallel composition over cells;
Dwork et al. 2006). Everything after the noise is post-processing.

``target=`` gives the article's variant: only the target's counts within each stratum are
treated as sensitive; the synthetic data keep each stratum's **true** size and draw the target
from the noisy within-stratum shares. The stratum sizes are then released without noise, so ε
protects only the target and only if the strata variables are public; a PrivacyWarning says so.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar, Literal

import numpy as np

from synthguard._params import Interval, Options
from synthguard.dp import _noise
from synthguard.dp.mechanisms import laplace_scale
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers._domain import Domain
from synthguard.errors import ParameterError, PrivacyWarning

__all__ = ["StratifiedSynthesizer", "cell_index"]


def cell_index(codes: dict[str, np.ndarray], cols: list[str], sizes: tuple[int, ...]
               ) -> np.ndarray:
    """Each record's cell of the full table over ``cols`` (C order: the last column varies
    fastest)."""
    return np.ravel_multi_index([codes[c] for c in cols], sizes)


class StratifiedSynthesizer(DPSynthesizer):
    """Laplace-noised full contingency table → clip → normalise → sample (seed 003).

    Parameters
    ----------
    epsilon : privacy-loss budget of the table (the only measurement).
    target : optional target column for the article's variant (see the module docstring).
    mechanism : 'laplace' (default) or 'discrete_laplace' (integer noisy counts); both ε-DP
        with scale 1/ε.
    max_cells : refuse tables larger than this (the noise is drawn for every cell).
    Other parameters: see :class:`~synthguard.dp.synthesizers._base.DPSynthesizer`.

    Attributes (after fit)
    ----------------------
    noisy_counts_ : ndarray of noisy counts, shape = product of the level counts.
    n_noised_cells_ : number of cells that received noise (= product of level counts).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["f", "m"] * 50, "vote": ["D", "R", "R", "D"] * 25})
    >>> syn = StratifiedSynthesizer(epsilon=1.0, categories={"sex": ["f", "m"],
    ...                             "vote": ["D", "R"]})
    >>> release = syn.fit(df).sample(n=100)  # doctest: +SKIP
    """

    method = "stratified"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "target": [None, str],
        "mechanism": [Options(("laplace", "discrete_laplace"))],
        "max_cells": [Interval(int, 1, None)],
    }

    def __init__(self, *, epsilon: float, target: str | None = None,
                 mechanism: Literal["laplace", "discrete_laplace"] = "laplace",
                 max_cells: int = 50_000_000, **kwargs: Any) -> None:
        super().__init__(epsilon=epsilon, **kwargs)
        self.target = target
        self.mechanism = mechanism
        self.max_cells = max_cells

    def _validate_params(self) -> None:
        if self.target is not None and self.columns is not None and self.target not in self.columns:
            raise ParameterError("parameter 'target': must be one of 'columns'")

    def _layout(self, domain: Domain) -> tuple[list[str], tuple[int, ...]]:
        """The table's axes (the target last) and their sizes, refused above ``max_cells``:
        public (the declared domain), so known before the data are read."""
        cols = list(domain.columns)
        if self.target is not None:
            if self.target not in cols:
                raise ParameterError("parameter 'target': not among the synthesized columns")
            cols = [c for c in cols if c != self.target] + [self.target]
        sizes = tuple(len(domain.levels[c]) for c in cols)
        n_cells = int(np.prod(sizes, dtype=np.float64))
        if n_cells > self.max_cells:
            raise ParameterError(
                f"StratifiedSynthesizer: the full table has {n_cells} cells (> max_cells="
                f"{self.max_cells}); coarsen levels, drop columns or use MSTSynthesizer"
            )
        return cols, sizes

    def _table_counts(self, codes: dict[str, np.ndarray], cols: list[str],
                      sizes: tuple[int, ...]) -> np.ndarray:
        """Exact count of every cell of the full table (C order over ``cols``): the only way
        the fit reads the data (``synthguard.scale.StratifiedSynthesizer`` counts them on Dask)."""
        return np.bincount(cell_index(codes, cols, sizes), minlength=int(np.prod(sizes)))

    def _fit(self, codes: dict[str, np.ndarray], domain: Domain, epsilon: float, delta: float,
             ledger: Any, rng: np.random.Generator | None) -> None:
        cols, sizes = self._layout(domain)
        counts = self._table_counts(codes, cols, sizes)
        scale = laplace_scale(1.0, epsilon)
        label = "stratified: full contingency table" if self.target is None else (
            f"stratified: '{self.target}' counts within strata")
        ledger.charge(label, epsilon, 0.0)  # before any noise is drawn
        if self.mechanism == "laplace":
            noisy = _noise.add_laplace(counts.astype(np.float64), scale, rng)
        else:
            noisy = _noise.add_discrete_laplace(counts, scale, rng).astype(np.float64)
        self.order_ = cols
        self.sizes_ = sizes
        self.scale_ = scale
        self.noisy_counts_ = noisy.reshape(sizes)
        self.n_noised_cells_ = int(noisy.size)
        self.noisy_total_ = float(noisy.sum())
        if self.target is not None:
            warnings.warn(
                "StratifiedSynthesizer(target=...): the stratum sizes are kept exactly as in the "
                "confidential data; epsilon protects only the target variable, and only if the "
                "strata variables are public",
                PrivacyWarning,
                stacklevel=4,
            )
            strata = counts.reshape(-1, sizes[-1]).sum(axis=1)
            self.strata_sizes_ = strata  # released as is in this variant
        clipped = np.maximum(noisy, 0.0)
        if self.target is None:
            total = clipped.sum()
            self.probabilities_ = (clipped / total if total > 0
                                   else np.full(clipped.size, 1.0 / clipped.size))
        else:
            table = clipped.reshape(-1, sizes[-1])
            row = table.sum(axis=1, keepdims=True)
            uniform = np.full_like(table, 1.0 / sizes[-1])
            self.probabilities_ = np.where(row > 0, table / np.where(row > 0, row, 1.0), uniform)

    def _noise_plan(self, sizes: dict[str, int], epsilon: float, delta: float
                    ) -> list[tuple[int, float, float]]:
        """One marginal, the full table: every cell gets Laplace (or discrete Laplace) noise of
        scale b = 1/ε, mean |noise| b (discrete: 2q/(1 − q²), q = e^(−1/b))."""
        b = laplace_scale(1.0, epsilon)
        q = math.exp(-1.0 / b)
        mean_abs = b if self.mechanism == "laplace" else 2.0 * q / (1.0 - q * q)
        return [(len(sizes), mean_abs, float(np.prod(list(sizes.values()), dtype=np.float64)))]

    def _noisy_marginals(self) -> tuple[Any, list[Any]] | None:
        if self.target is not None:  # the strata sizes are exact: not a noisy full table
            return None
        plan = self._noise_plan(dict(zip(self.order_, self.sizes_)), float(self.epsilon), 0.0)
        total = max(float(self._default_n()), 1.0)
        fitted = self.probabilities_ * total
        return ((lambda clique: fitted),
                [(tuple(self.order_), self.noisy_counts_.ravel(),
                  np.full(self.noisy_counts_.size, plan[0][1]))])

    def _default_n(self) -> int:
        if self.target is not None:
            return int(self.strata_sizes_.sum())
        return max(1, round(self.noisy_total_))

    def noisy_table(self) -> Any:
        """The noisy counts as a long DataFrame with one row per cell (levels + noisy count)."""
        import pandas as pd

        idx = pd.MultiIndex.from_product([self.domain_.levels[c] for c in self.order_],
                                         names=self.order_)
        return pd.DataFrame({"noisy_count": self.noisy_counts_.ravel()}, index=idx).reset_index()

    def _sample_codes(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        if self.target is None:
            cells = rng.choice(self.probabilities_.size, size=n, p=self.probabilities_)
            parts = np.unravel_index(cells, self.sizes_)
            return dict(zip(self.order_, parts))
        # the article's variant: true stratum sizes (scaled to n), noisy target shares
        stratum = np.repeat(np.arange(self.strata_sizes_.size), self._allocation(n))
        return self._codes_in_strata(stratum, rng)

    def _allocation(self, n: int) -> np.ndarray:
        """Rows per stratum in a sample of ``n`` (``target=``): the true stratum sizes when
        ``n`` is their total, else scaled to ``n`` by largest remainders (deterministic)."""
        strata = self.strata_sizes_
        if n == strata.sum():
            return np.asarray(strata, dtype=np.int64)
        per = np.floor(strata * n / strata.sum()).astype(np.int64)
        short = n - per.sum()
        per[np.argsort(-(strata * n / strata.sum() - per), kind="stable")[:short]] += 1
        return per

    def _codes_in_strata(self, stratum: np.ndarray, rng: np.random.Generator
                         ) -> dict[str, np.ndarray]:
        """Records of the given strata (``target=``): each draws the target from its stratum's
        noisy shares; the records are then shuffled."""
        cum = np.cumsum(self.probabilities_, axis=1)
        y = (rng.random(stratum.size)[:, None] > cum[stratum]).sum(axis=1)
        y = np.minimum(y, self.sizes_[-1] - 1)
        parts = np.unravel_index(stratum, self.sizes_[:-1])
        out = dict(zip(self.order_[:-1], parts))
        out[self.order_[-1]] = y
        perm = rng.permutation(stratum.size)
        return {k: np.asarray(v)[perm] for k, v in out.items()}
