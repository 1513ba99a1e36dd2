"""Table utility of every 1-, 2- (and 3-) way table of a release: synthpop's
``utility.tables``.

Each combination of ``order`` columns is cross-tabulated and scored by
:func:`~synthguard.utility.tab.utility_tab` (Raab, Nowok & Dibben 2021); the result lists
every table with every statistic, the worst tables by a chosen statistic, each column's mean
score over the tables it is in (synthpop's ``var.scores``), and for two-way tables the
column-by-column matrix synthpop's ``utility.tables`` plots as a heat map.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import ParameterError
from synthguard.utility._inputs import check_conf
from synthguard.utility._metric import MetricInfo, ResultDisplay
from synthguard.utility.tab import STATISTICS, group_columns, mean_statistics, table_rows

__all__ = ["UtilityTables", "utility_tables"]


@dataclass(frozen=True)
class UtilityTables(ResultDisplay, Summarized):
    """Table utility of every table of some orders.

    Attributes
    ----------
    tables : one row per table: ``order``, ``vars`` (joined by ``:``) and every statistic of
        :data:`~synthguard.utility.tab.STATISTICS` (means over implicates).
    stat : the statistic that ranks tables (default ``S_pMSE``; higher is worse).
    columns : the columns compared, in data order.
    """

    tables: pd.DataFrame
    stat: str
    columns: tuple[str, ...]

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "max_stat": MetricInfo("max_stat", "minimize", 0.0, math.inf,
                               description="worst table's statistic"),
    }

    @property
    def max_stat(self) -> float:
        return float(self.tables[self.stat].max())

    def to_frame(self) -> pd.DataFrame:
        return self.tables.copy()

    def worst(self, n: int = 5, order: int | None = None) -> pd.DataFrame:
        """The ``n`` tables with the highest ``stat`` (of one order, or all)."""
        t = self.tables if order is None else self.tables[self.tables["order"] == order]
        return t.sort_values(self.stat, ascending=False, kind="stable").head(n)

    def var_scores(self, order: int = 2) -> pd.Series:
        """Each column's mean ``stat`` over the tables of ``order`` it is in, worst first."""
        t = self.tables[self.tables["order"] == order]
        parts = t["vars"].str.split(":")
        out = {c: float(t.loc[parts.apply(lambda p, c=c: c in p), self.stat].mean())
               for c in self.columns}
        return pd.Series(out, name=self.stat).sort_values(ascending=False)

    def matrix(self, order: int = 2, third: str | None = None) -> pd.DataFrame:
        """Column-by-column ``stat`` of the two-way tables (symmetric, diagonal empty), or
        (``order=3``) of the three-way tables holding column ``third`` (synthpop's
        ``third.var``; by default the column with the worst three-way :meth:`var_scores`)."""
        t = self.tables[self.tables["order"] == order]
        if order == 3 and third is None:
            third = str(self.var_scores(3).index[0])
        cols = [c for c in self.columns if c != third]
        out = pd.DataFrame(np.nan, index=cols, columns=cols)
        for vars_, val in zip(t["vars"], t[self.stat], strict=True):
            parts = vars_.split(":")
            if order == 3:
                if third not in parts:
                    continue
                parts = [p for p in parts if p != third]
            a, b = parts
            out.loc[a, b] = out.loc[b, a] = val
        return out

    def summary(self) -> str:
        lines = [f"Table utility ({self.stat}) of {len(self.tables)} tables"]
        for order, t in self.tables.groupby("order"):
            lines.append(f"  {order}-way: median {t[self.stat].median():.4g}, max "
                         f"{t[self.stat].max():.4g} ({len(t)} tables)")
        lines.append("Worst tables: " + ", ".join(
            f"{r.vars} {getattr(r, self.stat):.4g}" for r in self.worst(5).itertuples()))
        return "\n".join(lines)


def utility_tables(
    conf: Any,
    synthetic: Any,
    *,
    max_order: int = 2,
    vars: Sequence[str] | None = None,
    ngroups: int = 5,
    cont_na: Mapping[str, Sequence[float]] | None = None,
    stat: str = "S_pMSE",
    k_syn: bool = False,
    orders: Sequence[int] | None = None,
) -> UtilityTables:
    """Score every table of 1 to ``max_order`` columns (synthpop's ``utility.tables``).

    Parameters
    ----------
    conf : confidential DataFrame.
    synthetic : SyntheticData, a DataFrame or a list of DataFrames (implicates).
    max_order : tables of 1, 2, ... ``max_order`` columns (1 to 3).
    vars : columns to use (default: those in the data and every implicate).
    ngroups, cont_na, k_syn : as :func:`~synthguard.utility.tab.utility_tab`.
    stat : statistic that ranks the tables (synthpop's ``plot.stat``), one of
        :data:`~synthguard.utility.tab.STATISTICS`.
    orders : the orders to compute instead of ``1..max_order`` (e.g. ``[2]``).

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"a": list("xxyy") * 5, "b": list("pqpq") * 5})
    >>> syn = pd.DataFrame({"a": list("xyxy") * 5, "b": list("pqpq") * 5})
    >>> u = utility_tables(conf, syn)
    >>> u.worst(1)["vars"].tolist()
    ['a:b']
    """
    conf = check_conf(conf)
    imps = as_implicates(synthetic)
    if stat not in STATISTICS:
        raise ParameterError(f"parameter 'stat': expected one of {', '.join(STATISTICS)}")
    chosen = list(orders) if orders is not None else list(range(1, int(max_order) + 1))
    if not chosen or any(o not in (1, 2, 3) for o in chosen):
        raise ParameterError("parameter 'max_order' (or 'orders'): tables of 1, 2 or 3 columns")
    if vars is None:
        vars = [c for c in conf.columns if all(c in df.columns for df in imps)]
    cols = list(dict.fromkeys(vars))
    grouped = group_columns(conf, imps, cols, ngroups=ngroups, cont_na=cont_na)
    rows = []
    for order in chosen:
        for combo in combinations(cols, order):
            stats = mean_statistics(table_rows(grouped, combo, len(imps), k_syn))
            rows.append({"order": order, "vars": ":".join(combo), **stats})
    tables = pd.DataFrame(rows, columns=["order", "vars", *STATISTICS])
    return UtilityTables(tables=tables, stat=stat, columns=tuple(cols))
