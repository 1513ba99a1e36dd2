"""Design matrices for propensity models: confidential and synthetic rows stacked, numeric
columns standardised (missing values at the mean plus an indicator), categorical columns
one-hot encoded with the first observed level as reference (missing values a level)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthguard.data import Schema
from synthguard.errors import ParameterError
from synthguard.utility._inputs import category_codes, numeric_values

__all__: list[str] = []


@dataclass(frozen=True)
class Design:
    X: np.ndarray  # (N, p) without intercept
    groups: np.ndarray  # (p,) index into ``variables`` of each column
    variables: list[str]
    y: np.ndarray  # (N,) 1 for synthetic rows, 0 for confidential
    categorical: np.ndarray | None = None  # (p,) bool: integer-coded categorical columns


def stacked_design(
    conf: pd.DataFrame,
    syn: pd.DataFrame,
    schema: Schema,
    columns: list[str],
    *,
    interactions: bool = False,
    dtype: type = np.float64,
    encoding: str = "onehot",
) -> Design:
    """``encoding="onehot"``: indicators with the first observed level as reference (for the
    logistic model); ``"codes"``: one column of integer level codes per categorical variable
    (for trees, which order the levels themselves), flagged in ``Design.categorical``."""
    n0, n1 = len(conf), len(syn)
    blocks: list[np.ndarray] = []
    groups: list[int] = []
    is_cat: list[bool] = []
    for gi, c in enumerate(columns):
        col = schema[c]
        if col.is_numeric:
            v = np.concatenate([numeric_values(conf[c], c), numeric_values(syn[c], c)])
            miss = np.isnan(v)
            if miss.all():
                continue
            mu = float(np.nanmean(v))
            sd = float(np.nanstd(v))
            z = np.where(miss, 0.0, (v - mu) / sd if sd > 0 else 0.0)
            if sd > 0:
                blocks.append(z[:, None])
                groups.append(gi)
                is_cat.append(False)
            if miss.any() and not miss.all():
                blocks.append(miss[:, None].astype(float))
                groups.append(gi)
                is_cat.append(False)
        else:
            (c0, c1), n_levels, _ = category_codes([conf[c], syn[c]], col.levels)
            codes = np.concatenate([c0, c1])
            present = np.flatnonzero(np.bincount(codes, minlength=n_levels))
            if present.size < 2:
                continue
            if encoding == "codes":
                blocks.append(codes[:, None].astype(dtype))
                groups.append(gi)
                is_cat.append(True)
                continue
            is_cat.extend([False] * (present.size - 1))
            onehot = (codes[:, None] == present[None, 1:]).astype(dtype)
            blocks.append(onehot)
            groups.extend([gi] * onehot.shape[1])
    X: np.ndarray
    if not blocks:
        X = np.zeros((n0 + n1, 0), dtype=dtype)
    else:
        X = np.hstack(blocks).astype(dtype, copy=False)
    g = np.asarray(groups, dtype=np.int64)
    variables = list(columns)
    if interactions and X.shape[1] > 1:
        n_pairs = X.shape[1] * (X.shape[1] - 1) // 2
        if n_pairs * X.shape[0] > 250_000_000:
            raise ParameterError(
                f"parameter 'interactions': {n_pairs} interaction columns on {X.shape[0]} rows "
                "would need too much memory; pass fewer columns= or interactions=False"
            )
        extra, eg = [], []
        for a in range(X.shape[1]):
            for b in range(a):
                if g[a] != g[b]:
                    extra.append(X[:, a] * X[:, b])
                    eg.append((int(g[b]), int(g[a])))
        if extra:
            names = {pair: f"{columns[pair[0]]}:{columns[pair[1]]}" for pair in set(eg)}
            order = sorted(names)
            index = {pair: len(variables) + i for i, pair in enumerate(order)}
            variables += [names[p] for p in order]
            X = np.hstack([X, np.column_stack(extra).astype(dtype, copy=False)])
            g = np.concatenate([g, [index[p] for p in eg]]).astype(np.int64)
    y = np.concatenate([np.zeros(n0), np.ones(n1)])
    return Design(X, g, variables, y, np.asarray(is_cat, dtype=bool) if encoding == "codes" else None)
