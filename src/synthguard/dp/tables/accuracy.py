"""Accuracy of a DP table against the confidential one, as the Census Bureau reports it.

For estimates x̂ and true counts x over n cells (the metrics of the Census Bureau's
"Disclosure Avoidance and the 2020 Census" detailed summary metrics; Abowd et al. 2022, §9):

* mean absolute error  MAE = Σ|x̂ − x| / n;
* mean numeric error  MNE = Σ(x̂ − x) / n, signed: the bias of the release, positive when
  the cells are overstated on average (post-processing to non-negative integers, for one,
  lifts small cells: MAE alone cannot show it);
* root mean squared error  RMSE = √(Σ(x̂ − x)² / n);
* mean absolute percentage error  MAPE = 100 · mean over cells with x > 0 of |x̂ − x| / x;
* coefficient of variation  CV = 100 · RMSE / mean(x) (the error relative to the typical cell);
* total absolute error of shares  TAES = mean over units u of Σ_cells |x̂_c/Σx̂ − x_c/Σx|
  (how far each unit's distribution over the attribute cells moves; 0 to 2 for non-negative
  estimates — raw noisy measurements with negative cells can exceed 2).

These numbers compare the release with the **confidential** table: they are for the data
steward and are **not** covered by the privacy ledger (publishing them spends privacy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard._compat import conf_first
from synthguard.dp.synthesizers._domain import Domain, build_domain
from synthguard.errors import ParameterError

__all__ = ["METRICS", "accuracy_metrics", "tables_accuracy", "topdown_accuracy"]

METRICS = ("cells", "mae", "mne", "rmse", "mape", "cv", "taes")


def accuracy_metrics(estimate: Any, truth: Any, units: Any = None) -> dict[str, Any]:
    """MAE, MNE, RMSE, MAPE (%), CV (%) and TAES of ``estimate`` against ``truth``.

    ``units`` labels each cell's unit for TAES (default: one unit, the whole table).
    Cells where the estimate is missing (suppressed) are left out.

    Examples
    --------
    >>> m = accuracy_metrics([1, 4, 5], [2, 4, 8])
    >>> m["mae"], m["mne"], round(m["rmse"], 4), round(m["mape"], 4)
    (1.3333333333333333, -1.3333333333333333, 1.8257, 29.1667)
    """
    est = pd.to_numeric(pd.Series(np.asarray(estimate, dtype=object)), errors="coerce"
                        ).to_numpy(dtype=np.float64, na_value=np.nan)
    tru = np.asarray(truth, dtype=np.float64).ravel()
    if est.shape != tru.shape:
        raise ParameterError("accuracy: 'estimate' and 'truth' need the same number of cells")
    u = np.zeros(tru.size, dtype=np.int64) if units is None else pd.factorize(
        pd.Series(np.asarray(units, dtype=object)))[0]
    ok = ~np.isnan(est)
    e, t, u = est[ok], tru[ok], u[ok]
    if e.size == 0:
        return dict.fromkeys(METRICS, float("nan")) | {"cells": 0}
    err = e - t
    pos = t > 0
    mean_t = float(t.mean())
    se = np.bincount(u, weights=e)
    st = np.bincount(u, weights=t)
    share_e = np.divide(e, se[u], out=np.zeros_like(e), where=se[u] > 0)
    share_t = np.divide(t, st[u], out=np.zeros_like(t), where=st[u] > 0)
    taes_u = np.bincount(u, weights=np.abs(share_e - share_t))
    present = np.bincount(u) > 0
    return {
        "cells": int(e.size),
        "mae": float(np.abs(err).mean()),
        "mne": float(err.mean()),
        "rmse": float(np.sqrt((err ** 2).mean())),
        "mape": float(100 * (np.abs(err[pos]) / t[pos]).mean()) if pos.any() else float("nan"),
        "cv": float(100 * np.sqrt((err ** 2).mean()) / mean_t) if mean_t > 0 else float("nan"),
        "taes": float(taes_u[present].mean()),
    }


def _codes(domain: Domain, data: pd.DataFrame, columns: list[str]) -> dict[str, np.ndarray]:
    cats = {c: list(domain.levels[c]) for c in columns if c not in domain.edges}
    bns = {c: list(domain.edges[c]) for c in columns if c in domain.edges}
    _, codes = build_domain(data, columns=columns, categories=cats, bins=bns,
                            owner="accuracy")
    return codes


@conf_first("release")
def tables_accuracy(conf: pd.DataFrame, release: Any) -> pd.DataFrame:
    """Accuracy of every table of a :func:`~synthguard.dp.tables.dp_tables` release against
    the confidential data (one row per table; TAES over the cells of the table's first
    column's units). ``(conf, release)``, as every measure; the old ``(release, data)`` warns
    one release."""
    rows = []
    cols = list(dict.fromkeys(c for t in release.tables.values() for c in t.columns))
    codes = _codes(release.domain, conf, cols)
    for t in release.tables.values():
        sizes = tuple(len(release.domain.levels[c]) for c in t.columns)
        flat = np.ravel_multi_index(tuple(codes[c] for c in t.columns), sizes)
        truth = np.bincount(flat, minlength=int(np.prod(sizes, dtype=np.int64)))
        units = t.frame[t.columns[0]] if len(t.columns) > 1 else None
        rows.append({"table": t.name, **accuracy_metrics(t.frame["count"], truth, units)})
    return pd.DataFrame(rows)


@conf_first("result")
def topdown_accuracy(conf: pd.DataFrame, result: Any) -> pd.DataFrame:
    """Accuracy by level of a :func:`~synthguard.dp.tables.topdown` result against the
    confidential data: the consistent counts (``estimate="topdown"``) and the raw noisy
    measurements (``"measured"``), TAES over each level's units. ``(conf, result)``; the old
    ``(result, data)`` warns one release."""
    data = conf
    hier, attrs = list(result.hierarchy), list(result.attributes)
    leaf = pd.MultiIndex.from_frame(result.units[hier])
    rec = leaf.get_indexer(pd.MultiIndex.from_frame(data[hier].astype(str)))
    if attrs:
        codes = _codes(result.domain, data, attrs)
        sizes = tuple(len(result.domain.levels[c]) for c in attrs)
        cell = np.ravel_multi_index(tuple(codes[c] for c in attrs), sizes)
        m = int(np.prod(sizes, dtype=np.int64))
    else:
        cell, m = np.zeros(len(data), dtype=np.int64), 1
    ok = rec >= 0
    rows = []
    for lvl, lv in enumerate(result.levels):
        cols = hier[:lvl]
        if cols:
            units = result.units[cols].drop_duplicates().reset_index(drop=True)
            unit_of_leaf = pd.MultiIndex.from_frame(units).get_indexer(
                pd.MultiIndex.from_frame(result.units[cols]))
            unit = unit_of_leaf[rec[ok]]
            n_units = len(units)
        else:
            unit, n_units = np.zeros(int(ok.sum()), dtype=np.int64), 1
        truth = np.bincount(unit * m + cell[ok], minlength=n_units * m)
        labels = np.repeat(np.arange(n_units), m)
        for est in ("topdown", "measured"):
            col = "count" if est == "topdown" else "measured"
            rows.append({"level": lv.name, "estimate": est,
                         **accuracy_metrics(lv.frame[col], truth, labels)})
    return pd.DataFrame(rows)
