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

Sampling follows the article's two uses of strata (post-processing, no privacy cost):
``sample(balance=[...])`` gives every combination of the named columns the same number of rows
("all classes and strata are represented equally", against class imbalance in the collected
data), and ``sample(only={column: levels})`` draws records of the chosen groups only ("data
about the voting intentions of only senior citizens").
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, cast

import numpy as np

from synthguard._compat import reordered
from synthguard._params import Interval, Options
from synthguard._random import RandomState
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

    #: what a worker needs to draw records after a Dask fit: the normalised noisy table and
    #: the domain
    _draw_fields: ClassVar[tuple[str, ...]] = (
        "probabilities_", "sizes_", "order_", "target", "strata_sizes_", "domain_")

    def _fit_dask(self, data: Any) -> DPSynthesizer:
        from synthguard.dp.synthesizers._on_dask.stratified import fit_stratified

        return cast(DPSynthesizer, fit_stratified(self, data))

    def _draws_on_workers(self) -> bool:
        # chosen groups and balanced strata draw on the client: the noisy table is there
        return super()._draws_on_workers() and getattr(self, "_selection", None) is None

    def _dask_drawer(self) -> Any:
        from synthguard.dp.synthesizers._on_dask.stratified import StrataDrawer

        return StrataDrawer.of(self)

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
        the fit reads the data (a fit on Dask counts them on the workers first:
        :mod:`synthguard.dp.synthesizers._on_dask.stratified`)."""
        counted = getattr(self, "_dask_cells", None)
        if counted is not None:
            return cast(np.ndarray, counted)
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

    @reordered(("self", "n", "m", "random_state"))
    def sample(self, *, m: int = 1, n: int | None = None, random_state: RandomState = None,
               only: Mapping[str, Sequence[Any]] | None = None,
               balance: Sequence[str] | None = None,
               partition_rows: int | None = None) -> Any:
        """Draw ``m`` synthetic data sets of ``n`` rows, optionally of chosen groups, balanced.

        Parameters
        ----------
        m, n, random_state : as :meth:`DPSynthesizer.sample`.
        only : ``{column: levels}``: draw records of these levels only (the article's
            "only concerning specific groups"). The cell distribution is restricted to the
            chosen cells and renormalised; the default ``n`` is then the noisy count of the
            chosen cells (the true stratum sizes with ``target=``).
        balance : columns whose every combination (among those with noisy mass) gets the same
            number of rows, ``n // K`` and one more for ``n mod K`` of them drawn at random
            (the article's "all classes and strata represented equally"); within a
            combination records follow the noisy table.

        Notes
        -----
        Both are post-processing of the noisy counts and spend nothing. After a fit on Dask
        the implicates are lazy Dask frames drawn on the workers (see ``partition_rows`` of
        the base class's ``sample``); ``only`` and ``balance`` then draw on the client, where
        the noisy table is.
        """
        if only is None and not balance:
            return super().sample(m=m, n=n, random_state=random_state,
                                  partition_rows=partition_rows)
        if not hasattr(self, "domain_"):
            return super().sample(m=m, n=n, random_state=random_state)  # names the error
        self._selection = self._selection_for(only, list(balance or []))
        try:
            return super().sample(m=m, n=n, random_state=random_state)
        finally:
            del self._selection

    def _cell_distribution(self) -> np.ndarray:
        """The distribution over every cell of the table (shape ``sizes_``) that sampling
        follows: the normalised noisy table, or with ``target=`` the true stratum shares times
        the noisy within-stratum shares."""
        if self.target is None:
            return np.asarray(self.probabilities_, dtype=np.float64).reshape(self.sizes_)
        w = self.strata_sizes_ / max(float(self.strata_sizes_.sum()), 1.0)
        return (w[:, None] * self.probabilities_).reshape(self.sizes_)

    def _selection_for(self, only: Mapping[str, Sequence[Any]] | None, balance: list[str]
                       ) -> tuple[np.ndarray, list[int], int]:
        """(restricted distribution, axes to balance, default n) for ``sample``."""
        p = self._cell_distribution()
        mask = np.ones(self.sizes_, dtype=bool)
        for col, wanted in (only or {}).items():
            if col not in self.order_:
                raise ParameterError(f"parameter 'only': column '{col}' is not synthesized; "
                                     "name synthesized categorical columns")
            levels = self.domain_.levels[col]
            wanted_l = [wanted] if isinstance(wanted, str) else list(wanted)
            keep = np.array([any(lv == w or str(lv) == str(w) for w in wanted_l)
                             for lv in levels])
            unmatched = sum(not any(lv == w or str(lv) == str(w) for lv in levels)
                            for w in wanted_l)
            if unmatched or not keep.any():
                raise ParameterError(
                    f"parameter 'only': column '{col}' names {unmatched or len(wanted_l)} "
                    "level(s) not among its public levels; use the levels of the domain")
            shape = [1] * len(self.sizes_)
            shape[self.order_.index(col)] = len(levels)
            mask &= keep.reshape(shape)
        unknown = [c for c in balance if c not in self.order_]
        if unknown:
            raise ParameterError(f"parameter 'balance': column(s) {unknown} are not "
                                 "synthesized; name synthesized categorical columns")
        p = np.where(mask, p, 0.0)
        if not p.sum() > 0:
            raise ParameterError("parameter 'only': the chosen groups have no noisy mass to "
                                 "draw from; choose more levels")
        if self.target is None:
            clipped = np.maximum(self.noisy_counts_, 0.0)
            n_default = max(1, round(float(clipped[mask].sum())))
        else:
            strata_mask = mask.reshape(-1, self.sizes_[-1]).any(axis=1)
            n_default = max(1, int(self.strata_sizes_[strata_mask].sum()))
        axes = [self.order_.index(c) for c in dict.fromkeys(balance)]
        return p / p.sum(), axes, n_default

    def _sample_selected(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        p, axes, _ = self._selection
        if not axes:
            cells = rng.choice(p.size, size=n, p=p.ravel())
        else:
            # move the balanced axes first: rows = their combinations, columns = the rest
            rest = [a for a in range(p.ndim) if a not in axes]
            q = np.transpose(p, axes + rest).reshape(int(np.prod([p.shape[a] for a in axes])), -1)
            mass = q.sum(axis=1)
            groups = np.flatnonzero(mass > 0)
            per = np.full(groups.size, n // groups.size, dtype=np.int64)
            per[rng.choice(groups.size, size=n % groups.size, replace=False)] += 1
            cond = q[groups] / mass[groups, None]
            within = np.concatenate([rng.choice(q.shape[1], size=k, p=c)
                                     for k, c in zip(per, cond)])
            group = np.repeat(groups, per)
            flat = group * q.shape[1] + within
            moved = np.unravel_index(flat, [p.shape[a] for a in axes + rest])
            parts_by_axis = dict(zip(axes + rest, moved))
            cells = np.ravel_multi_index(tuple(parts_by_axis[a] for a in range(p.ndim)),
                                         p.shape)
            cells = cells[rng.permutation(cells.size)]
        parts = np.unravel_index(cells, self.sizes_)
        return dict(zip(self.order_, parts))

    def _default_n(self) -> int:
        if getattr(self, "_selection", None) is not None:
            return int(self._selection[2])
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
        if getattr(self, "_selection", None) is not None:
            return self._sample_selected(n, rng)
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
