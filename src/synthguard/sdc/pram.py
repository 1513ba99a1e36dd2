"""PRAM: the post-randomisation method for a categorical variable.

Gouweleeuw, Kooiman, Willenborg & de Wolf (1998); sdcMicro's ``pram``. Each record's
level :math:`a` is released as level :math:`b` with probability :math:`p_{ab}`, the
entries of a known transition matrix :math:`P` (rows: true level, columns: released
level, rows sum to one), independently across records. Because :math:`P` is published,
analysts can undo the perturbation on average: with :math:`f` the vector of true level
counts and :math:`\\tilde f` the released counts,

.. math:: E[\\tilde f \\mid f] = P^\\top f, \\qquad
          \\hat f = (P^\\top)^{-1} \\tilde f

is an unbiased estimator of :math:`f` (Gouweleeuw et al. 1998, eq. (3); Kooiman,
Willenborg & Gouweleeuw 1997). :func:`pram_frequencies` computes it.

**Invariant PRAM** (Gouweleeuw et al. 1998, sec. 3; sdcMicro's default): from a basic
matrix :math:`P` and the observed level shares :math:`\\pi`, the matrix
:math:`R = P Q` with :math:`Q_{jk} = p_{kj} \\pi_k / \\sum_l p_{lj} \\pi_l` satisfies
:math:`\\pi^\\top R = \\pi^\\top`, so the released frequencies are unbiased for the true ones
as they stand (:func:`invariant_transition_matrix`). :math:`R` is built from confidential
frequencies: publish that PRAM was applied and the retention level, not :math:`R` itself.

Missing values are released missing. Drawing is done level by level with one
``searchsorted`` on the cumulative row of :math:`P`: O(n log K) for K levels.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard._random import RandomState, resolve_seed
from synthguard.data._backend import dask_backend, is_dask_collection
from synthguard.errors import DataError, ParameterError
from synthguard.sdc._common import check_columns, check_frame, codes
from synthguard.sdc.result import ProtectedData

__all__ = ["invariant_transition_matrix", "pram", "pram_frequencies"]


def _matrix(
    transition_matrix: Any, levels: Sequence[Hashable] | None
) -> tuple[np.ndarray, list[Hashable]]:
    if isinstance(transition_matrix, pd.DataFrame):
        if levels is not None:
            raise ParameterError(
                "parameter 'levels': not used when 'transition_matrix' is a labelled DataFrame"
            )
        idx = list(transition_matrix.index)
        cols = list(transition_matrix.columns)
        if set(idx) != set(cols) or len(idx) != len(cols):
            raise ParameterError(
                "parameter 'transition_matrix': its index (true levels) and columns (released "
                "levels) must list the same levels"
            )
        p = transition_matrix.loc[idx, idx].to_numpy(dtype=float)
        lv: list[Hashable] = idx
    else:
        try:
            p = np.asarray(transition_matrix, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(
                "parameter 'transition_matrix': expected a square matrix of probabilities"
            ) from None
        if levels is None:
            raise ParameterError(
                "parameter 'levels': give the levels in the order of the matrix rows, or pass "
                "the matrix as a DataFrame labelled by level"
            )
        lv = list(levels)
    if p.ndim != 2 or p.shape[0] != p.shape[1] or p.shape[0] != len(lv) or len(lv) < 2:
        raise ParameterError(
            "parameter 'transition_matrix': expected a square matrix with one row and one "
            "column per level (at least two levels)"
        )
    if len(set(lv)) != len(lv):
        raise ParameterError("parameter 'levels': a level is listed twice")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
        raise ParameterError(
            "parameter 'transition_matrix': entries must be probabilities and every row "
            "(true level) must sum to 1"
        )
    return p, lv


@dask_backend
def pram(
    data: pd.DataFrame,
    column: str,
    transition_matrix: pd.DataFrame | np.ndarray,
    *,
    levels: Sequence[Hashable] | None = None,
    random_state: RandomState = None,
) -> ProtectedData:
    """Post-randomise a categorical column with a transition matrix.

    Parameters
    ----------
    data : confidential DataFrame (not mutated), pandas or Dask. On Dask every partition is
        post-randomised by this function with its own generator
        (``SeedSequence(seed, spawn_key=(partition number,))``): equal in distribution to the
        pandas release, the same for the same seed; ``data`` and ``changes`` are Dask frames
        and ``params`` holds no ``n_changed`` (count the changes yourself).
    column : the categorical column.
    transition_matrix : :math:`P`, :math:`p_{ab} = \\Pr(\\text{released } b \\mid
        \\text{true } a)`; a DataFrame with the levels as index (true) and columns
        (released), or an array with ``levels`` giving their order.
    levels : the levels of an array ``transition_matrix``, in row order.
    random_state : seed or Generator.

    Returns
    -------
    ProtectedData
        ``params`` holds ``levels`` and the ``transition_matrix`` (public: analysts need
        it for :func:`pram_frequencies`) and ``n_changed``.

    Raises
    ------
    ParameterError
        A matrix that is not square, has negative entries or rows not summing to one; a
        column holding levels the matrix does not list (count only).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"race": ["a", "b", "a", "c"] * 25})
    >>> P = np.full((3, 3), 0.1) + np.eye(3) * 0.7
    >>> out = pram(df, "race", P, levels=["a", "b", "c"], random_state=3)
    >>> sorted(out.data["race"].unique().tolist())
    ['a', 'b', 'c']
    """
    if is_dask_collection(data):  # the pandas step per partition, each with its own seed
        from synthguard.sdc._on_dask.steps import prammed

        p, lv = _matrix(transition_matrix, levels)
        return prammed(pram, data, column, {"transition_matrix": p, "levels": lv},
                       {"column": column, "levels": lv, "transition_matrix": p.tolist()},
                       random_state)
    data = check_frame(data)
    (column,) = check_columns(data, [column], "column")
    p, lv = _matrix(transition_matrix, levels)
    s = data[column]
    obs = s.notna().to_numpy()
    cc, uniques = codes(s)
    lookup = {v: i for i, v in enumerate(lv)}
    uniq_to_level = np.array([lookup.get(_plain(u), -1) for u in uniques], dtype=np.int64)
    if uniq_to_level.size and (uniq_to_level < 0).any():
        bad = int(np.isin(cc, np.flatnonzero(uniq_to_level < 0)).sum())
        raise ParameterError(
            f"parameter 'transition_matrix': {bad} records of column '{column}' hold levels "
            f"the matrix does not list; add rows and columns for every level"
        )
    true_code = np.full(s.size, -1, dtype=np.int64)
    true_code[obs] = uniq_to_level[cc[obs]]
    rng, seed = resolve_seed(random_state)
    u = rng.random(s.size)
    released = true_code.copy()
    cum = np.cumsum(p, axis=1)
    cum[:, -1] = 1.0
    order = np.argsort(true_code, kind="stable")
    bounds = np.searchsorted(true_code[order], np.arange(len(lv) + 1))
    for a in range(len(lv)):  # loop over levels, not records
        idx = order[bounds[a] : bounds[a + 1]]
        released[idx] = np.searchsorted(cum[a], u[idx], side="right")
    released = np.minimum(released, len(lv) - 1)
    released[~obs] = -1
    values = np.empty(len(lv) + 1, dtype=object)
    values[: len(lv)] = lv
    values[-1] = None
    new: pd.Series[Any] = pd.Series(
        values[np.where(released < 0, len(lv), released)], index=s.index, name=column
    )
    if all(isinstance(v, str) for v in lv):
        new = new.astype("str")
    elif isinstance(s.dtype, pd.CategoricalDtype):
        new = new.astype(s.dtype)
    else:
        new = new.infer_objects()
    out = data.copy()
    out[column] = new
    changes = pd.DataFrame(False, index=out.index, columns=out.columns)
    changed = obs & (released != true_code)
    changes[column] = changed
    params: dict[str, Any] = {
        "column": column,
        "levels": lv,
        "transition_matrix": p.tolist(),
        "n_changed": int(changed.sum()),
    }
    return ProtectedData(data=out, changes=changes, method="pram", params=params, seed=seed)


def pram_frequencies(
    released: Any,
    transition_matrix: pd.DataFrame | np.ndarray | None = None,
    *,
    column: str | None = None,
    levels: Sequence[Hashable] | None = None,
) -> pd.Series:
    """Unbiased estimate of the true level counts from a PRAM release.

    :math:`\\hat f = (P^\\top)^{-1} \\tilde f` (Gouweleeuw et al. 1998), where
    :math:`\\tilde f` counts the released levels. Estimates can be negative for rare
    levels (the estimator is unbiased, not constrained).

    Parameters
    ----------
    released : a ProtectedData returned by :func:`pram` (matrix, levels and column are
        taken from it), a DataFrame (give ``column``) or a Series of released values.
    transition_matrix : :math:`P`, unless ``released`` is a ProtectedData.
    column : the column of a DataFrame release.
    levels : the levels of an array matrix.

    Returns
    -------
    pandas.Series
        Estimated counts indexed by level.

    Raises
    ------
    ParameterError
        A singular matrix, or inputs that do not say which column and matrix to use.
    """
    if isinstance(released, ProtectedData):
        if released.method != "pram":
            raise ParameterError("parameter 'released': expected the result of pram()")
        column = released.params["column"]
        lv = list(released.params["levels"])
        p = np.asarray(released.params["transition_matrix"], dtype=float)
        series = released.data[column]
    else:
        if transition_matrix is None:
            raise ParameterError(
                "parameter 'transition_matrix': needed unless 'released' is a pram() result"
            )
        p, lv = _matrix(transition_matrix, levels)
        if isinstance(released, pd.DataFrame):
            if column is None or column not in released.columns:
                raise ParameterError("parameter 'column': name the released column")
            series = released[column]
        elif isinstance(released, pd.Series):
            series = released
        else:
            raise ParameterError(
                "parameter 'released': expected a pram() result, a DataFrame or a Series"
            )
    counts = series.value_counts(dropna=True)
    unknown = [v for v in counts.index if _plain(v) not in set(lv)]
    if unknown:
        raise DataError(
            f"released values: {int(counts.loc[unknown].sum())} records hold levels the "
            f"transition matrix does not list"
        )
    f_tilde = np.array([float(counts.get(v, 0)) for v in lv])
    try:
        f_hat = np.linalg.solve(p.T, f_tilde)
    except np.linalg.LinAlgError:
        raise ParameterError(
            "parameter 'transition_matrix': singular, so the released counts cannot be "
            "inverted; use a matrix with a dominant diagonal"
        ) from None
    return pd.Series(f_hat, index=pd.Index(lv), name="estimated_count")


def invariant_transition_matrix(
    data: pd.DataFrame, column: str, retain: float = 0.8
) -> pd.DataFrame:
    """An invariant PRAM matrix for ``column`` (Gouweleeuw et al. 1998).

    The basic matrix keeps a level with probability ``retain`` and moves it to each other
    level with probability :math:`(1 - \\text{retain})/(K - 1)`; the returned
    :math:`R = P Q` leaves the observed level shares invariant in expectation
    (:math:`\\pi^\\top R = \\pi^\\top`). Pass it to :func:`pram`; the released frequencies are
    then unbiased as they are.

    Parameters
    ----------
    data : confidential DataFrame (not mutated).
    column : the categorical column.
    retain : diagonal of the basic matrix, in (1/K, 1].

    Returns
    -------
    pandas.DataFrame
        :math:`R`, indexed (true level) and labelled (released level) by the observed levels.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 3 + ["c"]})
    >>> R = invariant_transition_matrix(df, "g", retain=0.8)
    >>> (df["g"].value_counts(normalize=True).reindex(R.index) @ R).round(6).tolist()
    [0.6, 0.3, 0.1]
    """
    data = check_frame(data)
    (column,) = check_columns(data, [column], "column")
    counts = data[column].value_counts(dropna=True, sort=False)
    levels = sorted(counts.index.tolist(), key=lambda v: (str(type(v)), v))
    k = len(levels)
    if k < 2:
        raise DataError(f"column '{column}': PRAM needs at least two observed levels")
    if isinstance(retain, bool) or not isinstance(retain, int | float) or not (
        1.0 / k < float(retain) <= 1.0
    ):
        raise ParameterError(
            f"parameter 'retain': expected a probability above 1/{k} (the number of levels) "
            f"and at most 1"
        )
    pi = counts.reindex(levels).to_numpy(dtype=float)
    pi = pi / pi.sum()
    p = np.full((k, k), (1.0 - float(retain)) / (k - 1))
    np.fill_diagonal(p, float(retain))
    # Q_jk = p_kj pi_k / sum_l p_lj pi_l  (the backward matrix), R = P Q
    joint = p * pi[:, None]  # joint[k, j] = pi_k p_kj
    q = (joint / joint.sum(axis=0, keepdims=True)).T
    r = p @ q
    r = r / r.sum(axis=1, keepdims=True)
    return pd.DataFrame(r, index=pd.Index(levels), columns=pd.Index(levels))


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v
