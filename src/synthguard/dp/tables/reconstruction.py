"""Database reconstruction from released tables: the empirical check behind DP for the Census.

Dinur & Nissim (2003) showed that answering too many statistics too accurately lets an attacker
rebuild the records; the US Census Bureau ran this attack on its own 2010 tables and rebuilt
the block, sex, age, race and ethnicity of 46 % of the population exactly (Abowd 2018; Abowd et
al. 2022, "The 2020 Census Disclosure Avoidance System TopDown Algorithm"), the reason it moved
to differential privacy. Here the attack is run on a :func:`~synthguard.dp.tables.dp_tables`
release, block by block (``block``: a geography column every table holds):

1. Reconstruct: the non-negative integer table x over every combination of the tables'
   columns whose marginals are closest in L1 to the released counts,
   ``min Σ |A x − b|  s.t. x ∈ ℤ₊`` (an integer programme, scipy's ``milp``; a suppressed cell
   is no constraint). x is a list of records.
2. Score: the share of confidential records matched by a reconstructed one,
   ``Σ_cells min(x_true, x_rec) / n`` — run on the noisy tables (what the release allows), on
   the exact tables (what the same tables without noise would allow) and, as the baseline, on
   a random guess (records drawn independently from each block's exact one-way margins).

The gap between ``exact`` and ``noisy`` is what the noise protects; ``noisy`` near ``baseline``
means the tables reveal little more than the margins. For the data steward (it reads the
confidential data; not covered by the ledger).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import conf_first
from synthguard._random import RandomState, check_random_state
from synthguard.dp.tables.accuracy import _codes
from synthguard.errors import ParameterError

__all__ = ["ReconstructionResult", "reconstruct_table", "reconstruction_attack"]

MAX_CELLS = 20_000  # full cross-product cells per block the integer programme takes


def reconstruct_table(marginals: Sequence[tuple[Sequence[str], Any]],
                      sizes: Mapping[str, int], *, time_limit: float = 20.0) -> np.ndarray:
    """The non-negative integer table over ``sizes`` (all its columns, in ``sizes`` order)
    whose marginals are closest in L1 to the given ``(columns, counts)``; counts are arrays of
    each marginal's shape (NaN: no constraint). Solved exactly by ``scipy.optimize.milp``."""
    from scipy import sparse
    from scipy.optimize import Bounds, LinearConstraint, milp

    cols = list(sizes)
    shape = tuple(int(sizes[c]) for c in cols)
    n_cells = int(np.prod(shape, dtype=np.int64))
    if n_cells > MAX_CELLS:
        raise ParameterError(
            f"reconstruction: {n_cells} cells per block is more than {MAX_CELLS}; pass a finer "
            "'block' (e.g. a geography column) or fewer table columns")
    cell = np.arange(n_cells).reshape(shape)
    rows, cols_idx, b = [], [], []
    r = 0
    for mcols, counts in marginals:
        mcols = list(mcols)
        y = np.asarray(counts, dtype=np.float64).reshape([shape[cols.index(c)] for c in mcols])
        axes = [cols.index(c) for c in mcols]
        # marginal cell of every full cell
        idx = np.ravel_multi_index(
            tuple(np.moveaxis(np.indices(shape), 0, -1)[..., a].ravel() for a in axes),
            y.shape) if mcols else np.zeros(n_cells, dtype=np.int64)
        flat = y.ravel()
        keep = ~np.isnan(flat)
        remap = -np.ones(flat.size, dtype=np.int64)
        remap[keep] = np.arange(int(keep.sum())) + r
        use = remap[idx] >= 0
        rows.append(remap[idx][use])
        cols_idx.append(cell.ravel()[use])
        b.append(flat[keep])
        r += int(keep.sum())
    if r == 0:
        return np.zeros(shape, dtype=np.int64)
    A = sparse.csr_matrix((np.ones(sum(x.size for x in rows)),
                           (np.concatenate(rows), np.concatenate(cols_idx))), shape=(r, n_cells))
    eye = sparse.identity(r, format="csr")
    # variables: x (cells, integer), s+ and s- (slack of each constraint)
    M = sparse.hstack([A, -eye, eye], format="csr")
    rhs = np.concatenate(b)
    c = np.concatenate([np.zeros(n_cells), np.ones(2 * r)])
    integrality = np.concatenate([np.ones(n_cells), np.zeros(2 * r)])
    res = milp(c, constraints=LinearConstraint(M, rhs, rhs), integrality=integrality,
               bounds=Bounds(0, np.inf), options={"time_limit": float(time_limit)})
    if res.x is None:  # pragma: no cover - a feasible L1 problem always has a solution
        raise ParameterError("reconstruction: the integer programme found no solution in "
                             "its time limit; raise 'time_limit' or pass a finer 'block'")
    return np.rint(res.x[:n_cells]).astype(np.int64).reshape(shape)


@dataclass(frozen=True)
class ReconstructionResult:
    """Share of confidential records a reconstruction matches, from noisy and exact tables."""

    noisy: float
    exact: float
    baseline: float
    n_records: int
    n_blocks: int
    columns: tuple[str, ...]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"reconstructed_share": [self.noisy, self.exact, self.baseline]},
                            index=pd.Index(["noisy tables (release)", "exact tables",
                                            "random guess (one-way margins)"], name="from"))

    def __str__(self) -> str:
        return (f"reconstruction of {', '.join(self.columns)} ({self.n_blocks} block(s)): "
                f"{self.noisy:.1%} of records from the released tables, {self.exact:.1%} "
                f"from the same tables without noise, {self.baseline:.1%} by a random guess")


def _matched(true: np.ndarray, rec: np.ndarray) -> int:
    return int(np.minimum(true, rec).sum())


@conf_first("release")
def reconstruction_attack(conf: pd.DataFrame, release: Any, *, block: str | None = None,
                          time_limit: float = 20.0,
                          random_state: RandomState = None) -> ReconstructionResult:
    """Reconstruct records from a :func:`~synthguard.dp.tables.dp_tables` release (and from the
    same tables computed exactly) and score the share of ``conf``'s records matched.
    ``(conf, release)``, as every measure; the old ``(release, data)`` warns one release.

    ``block``: a column every table holds (a geography); the attack runs per block, as the
    Census's did. ``random_state`` seeds the random-guess baseline only.
    """
    tables = list(release.tables.values())
    cols = list(dict.fromkeys(c for t in tables for c in t.columns))
    if block is not None and any(block not in t.columns for t in tables):
        raise ParameterError(f"parameter 'block': column '{block}' must be in every table")
    dom = release.domain
    codes = _codes(dom, conf, cols)
    sizes = {c: len(dom.levels[c]) for c in cols}
    rng = check_random_state(random_state)
    inner = [c for c in cols if c != block]
    inner_sizes = {c: sizes[c] for c in inner}
    blocks = range(sizes[block]) if block is not None else [None]
    got = {"noisy": 0, "exact": 0, "baseline": 0}
    n = len(conf)
    for bl in blocks:
        mask = np.ones(n, dtype=bool) if block is None or bl is None else codes[block] == bl
        true = np.zeros(tuple(inner_sizes.values()), dtype=np.int64)
        np.add.at(true, tuple(codes[c][mask] for c in inner), 1)
        noisy, exact = [], []
        for t in tables:
            tcols = list(t.columns)
            shape = [sizes[c] for c in tcols]
            y = t.frame["count"].to_numpy(dtype=np.float64, na_value=np.nan).reshape(shape)
            if bl is not None:
                y = np.take(y, bl, axis=tcols.index(block))
            keep = [c for c in tcols if c != block]
            noisy.append((keep, y))
            axes = tuple(i for i, c in enumerate(inner) if c not in keep)
            m = true.sum(axis=axes) if axes else true
            order = [c for c in inner if c in keep]
            exact.append((order, m.astype(np.float64)))
        got["noisy"] += _matched(true, reconstruct_table(noisy, inner_sizes,
                                                         time_limit=time_limit))
        got["exact"] += _matched(true, reconstruct_table(exact, inner_sizes,
                                                         time_limit=time_limit))
        nb = int(true.sum())
        if nb:
            p = np.ones(true.shape)
            for i in range(true.ndim):
                axes = tuple(j for j in range(true.ndim) if j != i)
                margin = true.sum(axis=axes) / nb
                p = p * margin.reshape([-1 if j == i else 1 for j in range(true.ndim)])
            guess = rng.multinomial(nb, p.ravel() / p.sum()).reshape(true.shape)
            got["baseline"] += _matched(true, guess)
    return ReconstructionResult(got["noisy"] / n, got["exact"] / n, got["baseline"] / n, n,
                                len(blocks), tuple(cols))
