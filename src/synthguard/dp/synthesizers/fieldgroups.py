"""FieldGroupsSynthesizer: DPFieldGroups (NIST PSCR Differential Privacy Synthetic Data Challenge 2018).

The nonparametric method described in the course's NIST-challenge case study (Bowen & Snoke
2021): (1) from *public* knowledge, cluster correlated columns into groups; (2) release a
Laplace-noised histogram of each group's full marginal table; (3) set to zero the noisy counts
below a threshold that grows with the noise scale and the log₁₀ number of cells of the
marginal; (4) draw each group's columns from its table, independently across groups.

Privacy: each record appears once in every group's table (l1 sensitivity 1 per table,
add/remove), so the g tables compose sequentially; ε is split across groups (equally by
default, or by ``weights``). Thresholding and sampling are post-processing.

The threshold used here is τ = b · log₁₀(cells) · ``threshold_factor`` with b = 1/ε_g the
Laplace scale of the group: the course states only that the threshold is "calculated from ε and
the log₁₀ number of bins", so the constant is a parameter (default 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from synthguard._params import Interval
from synthguard.dp import _noise
from synthguard.dp.mechanisms import laplace_scale
from synthguard.dp.synthesizers._base import DPSynthesizer
from synthguard.dp.synthesizers._domain import Domain
from synthguard.errors import ParameterError

__all__ = ["FieldGroupsSynthesizer"]


class FieldGroupsSynthesizer(DPSynthesizer):
    """DPFieldGroups: noisy, thresholded marginals over public groups of columns.

    Parameters
    ----------
    epsilon : total budget, split across the groups.
    groups : list of column lists from public knowledge; columns not listed form singleton
        groups. Groups must be disjoint.
    weights : optional share of ε per group (normalised to sum to 1).
    threshold_factor : multiplies the threshold b·log₁₀(cells); 0 disables thresholding.
    Other parameters: see :class:`~synthguard.dp.synthesizers._base.DPSynthesizer`.
    """

    method = "fieldgroups"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "threshold_factor": [Interval(float, 0.0, None)],
        "max_cells": [Interval(int, 1, None)],
    }

    def __init__(self, *, epsilon: float, groups: Sequence[Sequence[str]] = (),
                 weights: Sequence[float] | None = None, threshold_factor: float = 1.0,
                 max_cells: int = 20_000_000, **kwargs: Any) -> None:
        super().__init__(epsilon=epsilon, **kwargs)
        self.groups = groups
        self.weights = weights
        self.threshold_factor = threshold_factor
        self.max_cells = max_cells

    def _fit(self, codes: dict[str, np.ndarray], domain: Domain, epsilon: float, delta: float,
             ledger: Any, rng: np.random.Generator | None) -> None:
        groups = [list(g) for g in self.groups]
        listed = [c for g in groups for c in g]
        if len(set(listed)) != len(listed) or any(not g for g in groups):
            raise ParameterError("parameter 'groups': expected disjoint, non-empty column groups")
        unknown = [c for c in listed if c not in domain.columns]
        if unknown:
            raise ParameterError(
                f"parameter 'groups': columns not synthesized: {', '.join(unknown)}"
            )
        groups += [[c] for c in domain.columns if c not in listed]
        if self.weights is None:
            w = np.full(len(groups), 1.0 / len(groups))
        else:
            w = np.asarray(self.weights, dtype=np.float64)
            if w.size != len(groups) or np.any(w <= 0):
                raise ParameterError(
                    "parameter 'weights': expected one positive weight per group (including "
                    "the singleton groups of unlisted columns, which come last)"
                )
            w = w / w.sum()
        sizes = [tuple(len(domain.levels[c]) for c in g) for g in groups]
        cells = [int(np.prod(s, dtype=np.float64)) for s in sizes]
        if max(cells) > self.max_cells:
            raise ParameterError(
                f"FieldGroupsSynthesizer: a group's table has {max(cells)} cells (> max_cells); "
                "split the group"
            )
        eps_g = [epsilon * wi for wi in w]
        # charge everything before any noise: one line per group (sequential composition)
        for g, e in zip(groups, eps_g):
            ledger.charge(f"fieldgroups: marginal {'×'.join(g)}", e, 0.0)
        tables, thresholds, totals, raw = [], [], [], []
        for g, s, e, k in zip(groups, sizes, eps_g, cells):
            counts = np.bincount(np.ravel_multi_index([codes[c] for c in g], s), minlength=k)
            b = laplace_scale(1.0, e)
            noisy = _noise.add_laplace(counts.astype(np.float64), b, rng)
            totals.append(float(noisy.sum()))  # unbiased noisy record count
            raw.append(noisy)
            tau = self.threshold_factor * b * math.log10(max(k, 1)) if k > 1 else 0.0
            noisy = np.where(noisy < tau, 0.0, noisy)
            tables.append(noisy)
            thresholds.append(tau)
        self.groups_ = groups
        self.group_sizes_ = sizes
        self.group_epsilons_ = eps_g
        self.thresholds_ = thresholds
        self.noisy_tables_ = tables
        self._raw = raw
        # the record count: the average over groups of the (unbiased) noisy table sums
        self.noisy_total_ = float(np.mean(totals))

    def _noise_plan(self, sizes: dict[str, int], epsilon: float, delta: float
                    ) -> list[tuple[int, float, float]]:
        """One marginal per group (unlisted columns alone), Laplace noise of scale 1/ε_g."""
        groups = [list(g) for g in self.groups if all(c in sizes for c in g)]
        listed = {c for g in groups for c in g}
        groups += [[c] for c in sizes if c not in listed]
        if self.weights is not None and len(self.weights) == len(groups):
            w = np.asarray(self.weights, dtype=np.float64)
            w = w / w.sum()
        else:
            w = np.full(len(groups), 1.0 / len(groups))
        return [(len(g), laplace_scale(1.0, epsilon * wi),
                 float(np.prod([sizes[c] for c in g], dtype=np.float64)))
                for g, wi in zip(groups, w)]

    def _noisy_marginals(self) -> tuple[Any, list[Any]] | None:
        total = max(float(self._default_n()), 1.0)
        fitted = {}
        noisy = []
        for g, t, y, e in zip(self.groups_, self.noisy_tables_, self._raw, self.group_epsilons_):
            p = np.maximum(t, 0.0)
            fitted[tuple(g)] = (p / p.sum() if p.sum() > 0 else np.full(p.size, 1 / p.size)
                                ) * total
            noisy.append((tuple(g), y, np.full(y.size, laplace_scale(1.0, e))))
        return (lambda clique: fitted[tuple(clique)]), noisy

    def _default_n(self) -> int:
        return max(1, round(self.noisy_total_))

    def _sample_codes(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for g, s, t in zip(self.groups_, self.group_sizes_, self.noisy_tables_):
            total = t.sum()
            p = t / total if total > 0 else np.full(t.size, 1.0 / t.size)
            cells = rng.choice(t.size, size=n, p=p)
            for c, part in zip(g, np.unravel_index(cells, s)):
                out[c] = np.asarray(part)
        return out
