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
change against a baseline with the propagated interval of
:func:`~synthguard.dp.tables.percent_change` (post-processing, no budget). The baseline is
one period, or — as in Google's COVID-19 Community Mobility Reports (Aktay et al. 2020; the
Urban Institute course, §8.7) — the median of the same weekday over a window of baseline
periods (Google: the five weeks from 3 January to 6 February 2020).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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


def _weekday_of(weekday: Mapping[Any, Any] | Callable[[Any], Any] | None
                ) -> Callable[[Any], Any]:
    if weekday is None:
        def day_name(p: Any) -> Any:
            try:
                return pd.Timestamp(p).day_name()
            except (ValueError, TypeError):
                raise ParameterError(
                    "period_changes: a weekday baseline needs periods that read as dates, or "
                    "'weekday=' (a mapping or function from period to weekday)") from None
        return day_name
    if callable(weekday):
        return weekday
    lookup = dict(weekday)

    def from_mapping(p: Any) -> Any:
        if p not in lookup:
            raise ParameterError("parameter 'weekday': a period has no weekday in the mapping")
        return lookup[p]
    return from_mapping


def _counts(t: Any) -> np.ndarray:
    return t.frame["count"].astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)


def period_changes(results: dict[Any, DPTables], baseline: Any, *,
                   confidence: float = 0.95, max_margin: float | None = 20.0,
                   weekday: Mapping[Any, Any] | Callable[[Any], Any] | None = None
                   ) -> dict[str, pd.DataFrame]:
    """Per table: every period's cells with ``change`` (% against the baseline's noisy
    count), its interval and reliability; suppressed cells give no change.

    ``baseline`` is one released period, or a list of released periods: then each period is
    compared with the median, cell by cell, of the baseline periods on the same weekday
    (Google's baseline, Aktay et al. 2020). ``weekday`` maps a period to its weekday (a
    mapping or a function); by default periods are read as dates. The median's interval
    holds jointly over its K counts (see :func:`~synthguard.dp.tables.percent_change`'s
    ``baseline_periods``); a cell suppressed in any of them gives no change.
    """
    if isinstance(baseline, list | tuple):
        return _weekday_changes(results, list(baseline), confidence=confidence,
                                max_margin=max_margin, weekday=_weekday_of(weekday))
    if baseline not in results:
        raise ParameterError("parameter 'baseline': expected one of the periods released")
    base = results[baseline]
    out: dict[str, pd.DataFrame] = {}
    for name, bt in base.tables.items():
        b = _counts(bt)
        out[name] = pd.concat(
            [_changed(p, res.tables[name], b, bt.noise["count"], 1, confidence, max_margin)
             for p, res in results.items()], ignore_index=True)
    return out


def _changed(period: Any, t: Any, b: np.ndarray, b_noise: Any, k: int, confidence: float,
             max_margin: float | None) -> pd.DataFrame:
    """One period's table with its change against the baseline counts ``b``."""
    cur = _counts(t)
    ch = percent_change(cur, b, current_noise=t.noise["count"], baseline_noise=b_noise,
                        confidence=confidence, max_margin=max_margin, baseline_periods=k)
    bad = np.isnan(cur) | np.isnan(b)
    ch.loc[bad, ["change", "lower", "upper"]] = np.nan
    ch.loc[bad, "reliable"] = False
    f = t.frame[list(t.columns)].copy()
    f.insert(0, "period", period)
    f["count"] = t.frame["count"]
    f["change_percent"] = ch["change"].to_numpy()
    f["change_lower"] = ch["lower"].to_numpy()
    f["change_upper"] = ch["upper"].to_numpy()
    f["change_reliable"] = ch["reliable"].to_numpy()
    return f


def _weekday_changes(results: dict[Any, DPTables], window: list[Any], *, confidence: float,
                     max_margin: float | None, weekday: Callable[[Any], Any]
                     ) -> dict[str, pd.DataFrame]:
    missing = [p for p in window if p not in results]
    if not window or missing:
        raise ParameterError("parameter 'baseline': expected released periods (the baseline "
                             "window)")
    by_day: dict[Any, list[Any]] = {}
    for p in window:
        by_day.setdefault(weekday(p), []).append(p)
    out: dict[str, pd.DataFrame] = {}
    first = results[window[0]]
    for name in first.tables:
        medians: dict[Any, tuple[np.ndarray, Any, int]] = {}
        for day, periods in by_day.items():
            stack = np.vstack([_counts(results[p].tables[name]) for p in periods])
            med = np.median(stack, axis=0)  # NaN where any baseline cell is suppressed
            noise = max((results[p].tables[name].noise["count"] for p in periods),
                        key=lambda nm: nm.sd)
            medians[day] = (med, noise, len(periods))
        frames = []
        for p, res in results.items():
            day = weekday(p)
            if day not in medians:
                raise ParameterError("parameter 'baseline': the window has no period on the "
                                     "weekday of a released period; use a window of whole "
                                     "weeks")
            med, noise, k = medians[day]
            frames.append(_changed(p, res.tables[name], med, noise, k, confidence,
                                   max_margin))
        out[name] = pd.concat(frames, ignore_index=True)
    return out
