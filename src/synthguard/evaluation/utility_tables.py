"""Two-way table utility of each release for the report's figure: every pair of (at most
``max_columns``) columns cross-tabulated in the data and the release (numeric columns in 5
groups) and scored by ``S_pMSE`` (:func:`synthguard.utility.utility_tables`; Raab, Nowok &
Dibben 2021, synthpop's ``utility.tables``). The report draws the matrices
(:mod:`synthguard.report.utility_tables_section`); only statistics of whole tables are kept."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from synthguard.utility import utility_tables

__all__ = ["utility_tables_matrices"]


def utility_tables_matrices(conf: pd.DataFrame, implicates: Mapping[str, list[pd.DataFrame]],
                            max_columns: int = 12) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Per release: the two-way ``S_pMSE`` matrix and its worst 3 tables."""
    out: dict[str, tuple[pd.DataFrame, pd.DataFrame]] = {}
    for name, imps in implicates.items():
        cols = [c for c in conf.columns if all(c in df.columns for df in imps)][:max_columns]
        if len(cols) < 2:
            continue
        try:
            u = utility_tables(conf, imps, orders=[2], vars=cols)
        except Exception:  # a column that cannot be tabulated leaves the figure out
            continue
        out[name] = (u.matrix(), u.worst(3, order=2)[["vars", "S_pMSE"]])
    return out
