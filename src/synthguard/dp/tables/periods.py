"""Per-period releases (daily, weekly) charging one ledger, and change against a baseline period.

A mobility-report style release publishes the same tables for every period. Each period's
tables are measured by :func:`~synthguard.dp.tables.dp_tables` on that period's records with
``epsilon`` (the budget **per period**) and charged to the same ledger, one line per period,
table and statistic. Charges of different periods add up (sequential composition) — the
conservative rule: a person who contributes a record to every period is protected over all
of them, ε × periods in all. (Under record-level neighbours the periods are disjoint and
parallel composition would charge ε once; the ledger cannot know that persons do not recur,
so it charges each period. Aktay et al. 2020 likewise account per day.)

The periods are public levels; an empty period is tabulated like any other (refusing it would
tell that it is empty). :func:`period_changes` turns each period's counts into a percent
change against a baseline period with the propagated interval of
:func:`~synthguard.dp.tables.percent_change` (post-processing, no budget).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from synthguard.dp.accountant import PrivacyLedger
from synthguard.dp.tables.change import percent_change
from synthguard.dp.tables.measure import dp_tables
from synthguard.dp.tables.result import DPTables
from synthguard.dp.tables.spec import TableSpec
from synthguard.errors import DataError, ParameterError

__all__ = ["dp_tables_by_period", "period_changes"]


def dp_tables_by_period(
    data: pd.DataFrame,
    tables: Sequence[str | Sequence[str] | TableSpec],
    *,
    period: str,
    periods: Sequence[Any],
    epsilon: float,
    delta: float = 0.0,
    ledger: Any = None,
    **kwargs: Any,
) -> dict[Any, DPTables]:
    """The tables of every public period, each period with budget ``epsilon`` (and δ) on one
    ledger (default: a new ledger of ``epsilon × len(periods)``). Other keywords go to
    :func:`~synthguard.dp.tables.dp_tables`; a period's ledger lines read
    ``"dp table [<period>=<level>] <table>: <statistic>"``."""
    levels = list(periods)
    if not levels or len({str(p) for p in levels}) != len(levels):
        raise ParameterError("parameter 'periods': expected distinct public period levels")
    if period not in data.columns:
        raise DataError(f"dp_tables_by_period: column '{period}' not in the data")
    values = data[period].astype(str)
    if not values.isin([str(p) for p in levels]).all():
        raise DataError(f"dp_tables_by_period: column '{period}' holds values outside the "
                        "declared 'periods' (or missing values); declare or recode them first")
    if ledger is None:
        ledger = PrivacyLedger(epsilon=float(epsilon) * len(levels),
                               delta=min(0.5, float(delta) * len(levels)))
    out: dict[Any, DPTables] = {}
    for p in levels:
        out[p] = dp_tables(data, tables, epsilon=epsilon, delta=delta, ledger=ledger,
                           where=(values == str(p)).to_numpy(),
                           label=f"dp table [{period}={p}]", **kwargs)
    return out


def period_changes(results: dict[Any, DPTables], baseline: Any, *,
                   confidence: float = 0.95, max_margin: float | None = 20.0
                   ) -> dict[str, pd.DataFrame]:
    """Per table: every period's cells with ``change`` (% against the baseline period's noisy
    count), its interval and reliability; suppressed cells give no change."""
    if baseline not in results:
        raise ParameterError("parameter 'baseline': expected one of the periods released")
    base = results[baseline]
    out: dict[str, pd.DataFrame] = {}
    for name, bt in base.tables.items():
        frames = []
        b = bt.frame["count"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        for p, res in results.items():
            t = res.tables[name]
            cur = t.frame["count"].astype("Float64").to_numpy(dtype=np.float64,
                                                               na_value=np.nan)
            ch = percent_change(cur, b, current_noise=t.noise["count"],
                                baseline_noise=bt.noise["count"], confidence=confidence,
                                max_margin=max_margin)
            bad = np.isnan(cur) | np.isnan(b)
            ch.loc[bad, ["change", "lower", "upper"]] = np.nan
            ch.loc[bad, "reliable"] = False
            f = t.frame[list(t.columns)].copy()
            f.insert(0, "period", p)
            f["count"] = t.frame["count"]
            f["change_percent"] = ch["change"].to_numpy()
            f["change_lower"] = ch["lower"].to_numpy()
            f["change_upper"] = ch["upper"].to_numpy()
            f["change_reliable"] = ch["reliable"].to_numpy()
            frames.append(f)
        out[name] = pd.concat(frames, ignore_index=True)
    return out
