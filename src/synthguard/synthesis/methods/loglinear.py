"""``catall`` and ``ipf``: a block of categorical columns from one log-linear model.

synthpop's ``catall`` synthesizes a block of categorical variables from their (smoothed)
saturated cross-table and ``ipf`` from a log-linear model that keeps only chosen margins,
fitted by iterative proportional fitting (Deming & Stephan 1940; Bishop, Fienberg & Holland
1975, ch. 3; Nowok, Raab & Dibben 2016). Here each column of the block gets the method; every
one fits the same joint table ``P`` over the block and draws its column from the conditional
``P(target | block columns visited before it)``. Drawn in visit order, the block's columns
are then a draw from ``P`` itself:

    P(a, b, c) = P(a) P(b | a) P(c | a, b).

Tables are over the levels observed in the data (a missing value is one more level), so no
unobserved level is invented; combinations that never occur are (with ``priorn > 0``).
"""

from __future__ import annotations

import itertools
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._random import check_random_state
from synthguard.errors import MethodError
from synthguard.synthesis.methods.base import check_weights
from synthguard.synthesis.methods.columns import ColumnsMethod, split_names
from synthguard.synthesis.registry import register_method

__all__ = ["CatAllMethod", "IPFMethod", "ipf", "link_blocks"]

#: largest table (cells) a block may span
MAX_CELLS = 10_000_000


def ipf(
    shape: Sequence[int],
    margins: Sequence[tuple[int, ...]],
    targets: Sequence[np.ndarray],
    *,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> tuple[np.ndarray, int]:
    """Iterative proportional fitting of a table of ``shape`` to the given margins.

    Starting from a table of ones, each sweep rescales the table so that its margin over the
    axes ``margins[k]`` equals ``targets[k]``, for every ``k`` in turn:
    ``m <- m * targets[k] / margin_k(m)`` (Deming & Stephan 1940). The limit is the maximum
    likelihood fit of the log-linear model with exactly these margins as its sufficient
    statistics (Bishop, Fienberg & Holland 1975, sec. 3.5). Stops when every margin is within
    ``tol`` (relative to the total) of its target. Returns the table and the sweeps used.
    """
    m = np.ones(tuple(int(s) for s in shape))
    total = float(np.sum(targets[0])) if targets else 1.0
    axes_all = tuple(range(m.ndim))
    for it in range(1, max_iter + 1):
        for ax, tgt in zip(margins, targets):
            other = tuple(a for a in axes_all if a not in ax)
            cur = m.sum(axis=other, keepdims=True)
            t = np.asarray(tgt, dtype=float).reshape(cur.shape)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(cur > 0, t / cur, 0.0)
            m = m * ratio
        worst = 0.0
        for ax, tgt in zip(margins, targets):
            other = tuple(a for a in axes_all if a not in ax)
            cur = m.sum(axis=other)
            worst = max(worst, float(np.max(np.abs(cur - np.asarray(tgt).reshape(cur.shape)))))
        if worst <= tol * max(total, 1.0):
            return m, it
    raise MethodError(
        f"method 'ipf': the fit did not converge in {max_iter} sweeps; raise max_iter or use "
        f"fewer margins"
    )


def _margin_axes(spec: Any, block: Sequence[str]) -> list[tuple[int, ...]]:
    """Margins as axis tuples: ``"oneway"``, ``"twoway"``, ``"threeway"``, or explicit
    ``"a*b+b*c"`` text or a list of column lists."""
    k = {"oneway": 1, "twoway": 2, "threeway": 3}.get(spec) if isinstance(spec, str) else None
    if k is not None:
        return [tuple(c) for c in itertools.combinations(range(len(block)), min(k, len(block)))]
    if isinstance(spec, str):
        groups = [[c.strip() for c in g.split("*")] for g in spec.split("+")]
    else:
        groups = [[str(c) for c in ([g] if isinstance(g, str) else g)] for g in spec]
    out = []
    for g in groups:
        bad = [c for c in g if c not in block]
        if bad or not g:
            raise MethodError(
                f"method 'ipf': margins name columns outside the block ({', '.join(bad)}); "
                f"write margins as 'a*b+b*c' over the block's columns, or 'twoway'"
            )
        out.append(tuple(sorted(block.index(c) for c in g)))
    missed = sorted(set(range(len(block))) - {a for ax in out for a in ax})
    if missed:
        raise MethodError(
            f"method 'ipf': margins leave out {', '.join(block[i] for i in missed)}; every "
            f"column of the block needs a margin"
        )
    return out


class _LogLinear(ColumnsMethod):
    """Shared fit and draw of ``catall`` and ``ipf`` (see the module docstring)."""

    supports_weights = True
    target_kinds = frozenset({"categorical"})
    #: the synthesizer sets ``block`` to every column given this method when it is None
    block_method: ClassVar[bool] = True

    def __init__(self, *, block: str | list[str] | None = None, priorn: float = 1.0) -> None:
        self.block = block
        self.priorn = priorn

    @property
    def fit_columns(self) -> list[str]:
        """Columns the fit reads besides the predictors: the whole block."""
        return [] if self.block is None else split_names(self.block, "block", self.name)

    @abstractmethod
    def _joint(self, counts: np.ndarray, block: list[str]) -> np.ndarray:
        """The fitted joint table of the block from its observed counts."""

    def fit(
        self, X: Any, y: np.ndarray, weights: np.ndarray | None = None,
        *, rng: np.random.Generator | None = None,
    ) -> _LogLinear:
        """Fit the joint table of the block; keep the target's conditional on earlier columns."""
        if self.block is None:
            raise MethodError(
                f"method '{self.name}': name the block of columns, e.g. "
                f"'{self.name}:block=a+b+c' (the Synthesizer does so for every column given "
                f"'{self.name}')"
            )
        if not isinstance(self.priorn, int | float) or isinstance(self.priorn, bool) or (
            self.priorn < 0
        ):
            raise MethodError(f"method '{self.name}': 'priorn' must be a number >= 0")
        block = split_names(self.block, "block", self.name)
        X = self._check_frame(X, [])
        y = np.asarray(y, dtype=np.int64)
        w = check_weights(self.name, weights, len(y), self.supports_weights)
        weight = np.ones(len(y)) if w is None else w
        # the target is the block column not in the frame
        targets = [c for c in block if c not in X.columns]
        if len(targets) != 1:
            raise MethodError(
                f"method '{self.name}': the fit needs every other column of the block "
                f"({', '.join(block)}); the column itself must be one of them"
            )
        target = targets[0]
        codes: list[np.ndarray] = []
        self.level_codes_: dict[str, np.ndarray] = {}
        for c in block:
            raw = y if c == target else X[c].cat.codes.to_numpy(dtype=np.int64) \
                if isinstance(X[c].dtype, pd.CategoricalDtype) else None
            if raw is None:
                raise MethodError(
                    f"method '{self.name}': column '{c}' of the block is not categorical; "
                    f"a block holds categorical columns only"
                )
            observed, inv = np.unique(raw, return_inverse=True)
            self.level_codes_[c] = observed
            codes.append(inv.reshape(-1))
        shape = tuple(len(self.level_codes_[c]) for c in block)
        cells = float(np.prod([float(s) for s in shape]))
        if cells > MAX_CELLS:
            raise MethodError(
                f"method '{self.name}': the block's table has more than {MAX_CELLS:,} cells; "
                f"use fewer or coarser columns"
            )
        flat = np.ravel_multi_index(tuple(codes), shape) if codes else np.zeros(0, np.int64)
        counts = np.bincount(flat, weights=weight, minlength=int(cells)).reshape(shape)
        joint = self._joint(counts, block)
        self.table_ = joint / joint.sum()
        j = block.index(target)
        self.earlier_ = block[:j]
        cond = self.table_.sum(axis=tuple(range(j + 1, len(block)))) if j + 1 < len(block) \
            else self.table_
        cond = cond.reshape(-1, shape[j])
        mass = cond.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.conditional_ = np.where(mass > 0, cond / mass, 0.0)
        self.earlier_shape_ = shape[:j]
        self.target_levels_ = self.level_codes_[target]
        self.block_ = block
        return self

    def draw(self, X: Any, rng: np.random.Generator) -> np.ndarray:
        """The target given the block columns drawn before it, from the fitted table."""
        self._check_fitted("conditional_")
        X = self._check_frame(X, self.earlier_)
        rng = check_random_state(rng)
        n = len(X)
        row = np.zeros(n, dtype=np.int64)
        for c, size in zip(self.earlier_, self.earlier_shape_):
            codes = X[c].cat.codes.to_numpy(dtype=np.int64)
            observed = self.level_codes_[c]
            pos = np.minimum(np.searchsorted(observed, codes), len(observed) - 1)
            if n and not np.all(observed[pos] == codes):
                raise MethodError(
                    f"method '{self.name}': column '{c}' was drawn with a level the block's "
                    f"table does not hold; synthesize the whole block with '{self.name}'"
                )
            row = row * size + pos
        cdf = np.cumsum(self.conditional_[row], axis=1)
        if n and np.any(cdf[:, -1] <= 0):
            raise MethodError(
                f"method '{self.name}': a combination drawn before this column has no "
                f"probability in the table (raise 'priorn' above 0)"
            )
        u = rng.random(n) * (cdf[:, -1] if n else 1.0)
        idx = np.minimum((cdf <= u[:, None]).sum(axis=1), cdf.shape[1] - 1) if n else \
            np.zeros(0, dtype=np.int64)
        return self.target_levels_[idx].astype(np.int64)


@register_method("catall")
class CatAllMethod(_LogLinear):
    """The block's saturated cross-table, smoothed: ``n_cell + priorn / cells`` (synthpop's
    ``catall``, Dirichlet prior of total ``priorn`` spread over the cells).

    With ``priorn=0`` the release draws from the confidential cross-table itself (every
    synthetic combination occurs in the data, with its frequency); ``priorn > 0`` gives
    unseen combinations of observed levels a little mass. Weighted, a record counts with
    its weight: 0 drops it and an integer weight counts it as copies would.

    Parameters
    ----------
    block : str or list of str, optional
        The block's columns (``"a+b+c"``); set by the synthesizer from the columns given
        this method.
    priorn : float, default 1
        Total prior count spread evenly over the table's cells.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthguard.synthesis.methods import CatAllMethod
    >>> X = pd.DataFrame({"a": pd.Categorical(["x", "x", "y", "y"])})
    >>> m = CatAllMethod(block="a+b", priorn=0).fit(X, np.array([0, 0, 1, 1]))
    >>> m.conditional_.round(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def _joint(self, counts: np.ndarray, block: list[str]) -> np.ndarray:
        return counts + float(self.priorn) / counts.size


@register_method("ipf")
class IPFMethod(_LogLinear):
    """A log-linear model with only the chosen margins, fitted by IPF (synthpop's ``ipf``).

    Each margin's table gets ``priorn / cells of the margin`` added (synthpop's rule; the
    margins stay consistent with each other), and :func:`ipf` finds the table with exactly
    those margins and no other interaction (the maximum-likelihood fit). ``margins="twoway"``
    (default, synthpop's ``gmargins``) keeps every pair's cross-table, ``"oneway"`` only the
    marginals (independent columns), ``"threeway"`` every triple; or name them,
    ``"a*b+c"``.

    Parameters
    ----------
    block : str or list of str, optional
        As ``catall``.
    priorn : float, default 1
    margins : str or list, default "twoway"
    tol : float, default 1e-10
        Convergence: every margin within ``tol`` x total of its target.
    max_iter : int, default 1000

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from synthguard.synthesis.methods import IPFMethod
    >>> X = pd.DataFrame({"a": pd.Categorical(["x", "x", "y", "y"])})
    >>> m = IPFMethod(block="a+b", margins="oneway", priorn=0).fit(X, np.array([0, 1, 1, 1]))
    >>> m.table_.round(3).tolist()   # independence: P(a) P(b)
    [[0.125, 0.375], [0.125, 0.375]]
    """

    def __init__(
        self,
        *,
        block: str | list[str] | None = None,
        priorn: float = 1.0,
        margins: str | list[Any] = "twoway",
        tol: float = 1e-10,
        max_iter: int = 1000,
    ) -> None:
        super().__init__(block=block, priorn=priorn)
        self.margins = margins
        self.tol = tol
        self.max_iter = max_iter

    def _joint(self, counts: np.ndarray, block: list[str]) -> np.ndarray:
        axes = _margin_axes(self.margins, block)
        all_axes = tuple(range(counts.ndim))
        targets = []
        for ax in axes:
            marg = counts.sum(axis=tuple(a for a in all_axes if a not in ax))
            targets.append(marg + float(self.priorn) / marg.size)
        self.margins_ = [tuple(block[a] for a in ax) for ax in axes]
        table, self.n_iter_ = ipf(counts.shape, axes, targets, tol=float(self.tol),
                                  max_iter=int(self.max_iter))
        self.margin_targets_ = targets
        return table


def link_blocks(methods: dict[str, Any]) -> None:
    """Give every block method (``catall``, ``ipf``) without a ``block`` the columns that
    share its method name, in the order given (the visit order), in place."""
    groups: dict[str, list[str]] = {}
    for col, m in methods.items():
        if getattr(type(m), "block_method", False) and getattr(m, "block", None) is None:
            groups.setdefault(m.name, []).append(col)
    for m in methods.values():
        if getattr(type(m), "block_method", False) and getattr(m, "block", None) is None:
            m.block = list(groups[m.name])
