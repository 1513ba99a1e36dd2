"""Utility from a cross-table of confidential and synthetic counts: synthpop's ``utility.tab``.

For the columns ``vars`` the confidential and each synthetic implicate are cross-tabulated
(numeric columns first cut into ``ngroups`` groups) and the tables compared with the measures
of Raab, Nowok & Dibben (2021, "Assessing, visualizing and improving the utility of synthetic
data", Table 5), as synthpop 1.9 computes them. With the counts ``o_j`` (confidential) and
``s_j`` (synthetic) of the ``K`` cells that are not empty in both, ``N = Σ(o_j + s_j)``,
``c = Σs_j / N`` and ``d_j = s_j - o_j c / (1 - c)`` (``df = K - 1``, ``K`` with ``k_syn``):

* ``VW = Σ d_j² / ((o_j + s_j) c)`` (the table's propensity-score chi-square), ``S_VW =
  S_pMSE = VW / df``, ``pMSE = VW c (1 - c)² / N``;
* ``FT = 4 Σ (√s_j - √(o_j c / (1 - c)))²`` (Freeman-Tukey), ``S_FT = FT / df``;
* ``JSD``: Jensen-Shannon divergence (base 2) of the proportions ``o_j / Σo`` and
  ``s_j / Σs``; ``S_JSD = 2 N JSD / (df ln 2)``;
* ``G = 2 Σ s_j ln((s_j / Σs) / (o_j / Σo))`` over cells where both are positive
  (likelihood-ratio chi-square), ``dfG`` = those cells - 1, ``S_G = G / dfG``;
* ``SPECKS``: Kolmogorov-Smirnov distance between the propensity scores ``s_j / (o_j +
  s_j)`` of the synthetic and the confidential records; ``U``: the Mann-Whitney (Wilcoxon)
  statistic of the same scores (synthetic first); ``PO50``: percentage of records whose table
  cell predicts their origin correctly, minus 50;
* ``MabsDD = Σ|d_j| / Σs``, ``WMabsDD = Σ |d_j| / √((o_j + s_j) c) / √(2/π)``, ``S_WMabsDD =
  WMabsDD / df``; ``dBhatt = √(1 - Σ √(p_o p_s))`` (Bhattacharyya / Hellinger distance);
* ``nempty``: cells of the full cross-table empty in both.

Numeric columns are cut as synthpop's ``group_num``: breaks at the quantiles (R type 7) of the
confidential and all synthetic values together, ``ngroups`` groups, intervals closed on the
left (the last on both sides), falling back to equal-width groups when fewer than three groups
result; values listed in ``cont_na`` (e.g. a code -8 for "refused") are groups of their own and
missing values a group of their own (synthpop's ``useNA = TRUE``). Categorical levels are those
seen in either data set. With several implicates each is compared with the confidential data
and ``to_frame()`` lists them; the attributes are the means over implicates (as synthpop's
``utility.tables`` reports).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import as_implicates
from synthguard.errors import DataError, ParameterError
from synthguard.utility._inputs import check_conf
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["STATISTICS", "UtilityTab", "group_columns", "tab_from_groups", "table_statistics",
           "utility_tab"]

#: every statistic, in synthpop's order
STATISTICS = ("VW", "FT", "JSD", "SPECKS", "WMabsDD", "U", "G", "pMSE", "PO50", "MabsDD",
              "dBhatt", "S_VW", "S_FT", "S_JSD", "S_WMabsDD", "S_G", "S_pMSE", "df", "dfG",
              "nempty")


def _ks_and_u(score: np.ndarray, ts: np.ndarray, td: np.ndarray) -> tuple[float, float]:
    """Two-sample KS distance and Mann-Whitney U (pairs syn > conf, ties count ½) of a score
    held by ``ts`` synthetic and ``td`` confidential records per cell."""
    order = np.argsort(score, kind="stable")
    sc, s, d = score[order], ts[order], td[order]
    starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
    s_g = np.add.reduceat(s, starts)
    d_g = np.add.reduceat(d, starts)
    ks = float(np.max(np.abs(np.cumsum(s_g) / s_g.sum() - np.cumsum(d_g) / d_g.sum())))
    below = np.cumsum(d_g) - d_g  # confidential records with a strictly lower score
    u = float(np.sum(s_g * (below + 0.5 * d_g)))
    return ks, u


def table_statistics(td: np.ndarray, ts: np.ndarray, n_cells: int, k_syn: bool = False
                     ) -> dict[str, float]:
    """Every statistic of :data:`STATISTICS` from the counts of the non-empty cells
    (``td`` confidential, ``ts`` synthetic) of a table of ``n_cells`` cells."""
    td = np.asarray(td, dtype=float)
    ts = np.asarray(ts, dtype=float)
    k = len(td)
    df = k if k_syn else k - 1
    n = float((ts + td).sum())
    cc = ts.sum() / n
    expect = (ts + td) * cc
    diff = ts - td * cc / (1 - cc)
    with np.errstate(divide="ignore", invalid="ignore"):
        vw = float(np.sum(diff**2 / expect))
        ft = float(4 * np.sum((np.sqrt(ts) - np.sqrt(cc / (1 - cc) * td)) ** 2))
        pd_, ps = td / td.sum(), ts / ts.sum()
        half = (pd_ + ps) / 2
        jsd = float(np.sum(np.where(pd_ > 0, pd_ * np.log2(pd_ / half), 0.0)) / 2
                    + np.sum(np.where(ps > 0, ps * np.log2(ps / half), 0.0)) / 2)
        both = (ts > 1e-8) & (td > 1e-8)
        sok, dok = ts[both], td[both]
        dfg = len(dok) if k_syn else len(dok) - 1
        g = float(2 * np.sum(sok * np.log(sok / sok.sum() / dok * dok.sum())))
        ks, u = _ks_and_u(ts / (ts + td), ts, td)
        predsyn = ps > pd_
        po50 = float((ts[predsyn].sum() + td[~predsyn].sum()) / n * 100 - 50)
        mabsdd = float(np.sum(np.abs(diff)) / ts.sum())
        wmabsdd = float(np.sum(np.abs(diff) / np.sqrt(expect)) / math.sqrt(2 / math.pi))
        dbhatt = float(math.sqrt(max(0.0, 1 - float(np.sum(np.sqrt(pd_ * ps))))))

        def per(x: float, d: int) -> float:
            return x / d if d > 0 else float("nan")

    return {
        "VW": vw, "FT": ft, "JSD": jsd, "SPECKS": ks, "WMabsDD": wmabsdd, "U": u, "G": g,
        "pMSE": vw * cc * (1 - cc) ** 2 / n, "PO50": po50, "MabsDD": mabsdd, "dBhatt": dbhatt,
        "S_VW": per(vw, df), "S_FT": per(ft, df), "S_JSD": per(jsd * 2 * n / math.log(2), df),
        "S_WMabsDD": per(wmabsdd, df), "S_G": per(g, dfg), "S_pMSE": per(vw, df),
        "df": float(df), "dfG": float(dfg), "nempty": float(n_cells - k),
    }


def _quantile_breaks(values: np.ndarray, ngroups: int, style: str) -> np.ndarray:
    if style == "quantile":
        brks = np.quantile(values, np.linspace(0, 1, ngroups + 1))  # R type 7
    else:
        lo, hi = float(values.min()), float(values.max())
        brks = lo + (hi - lo) * np.arange(ngroups + 1) / ngroups
    return np.unique(brks)


def _cut(x: np.ndarray, brks: np.ndarray) -> np.ndarray:
    """Group of each value: ``[b_i, b_{i+1})``, the last interval closed (R's ``cut(right =
    FALSE, include.lowest = TRUE)``)."""
    g = np.searchsorted(brks, x, side="right") - 1
    return np.clip(g, 0, max(len(brks) - 2, 0))


def _group_numeric(conf: np.ndarray, syns: list[np.ndarray], special: Sequence[float],
                   ngroups: int) -> tuple[list[np.ndarray], int]:
    """Group codes of the confidential and synthetic values (synthpop's ``group_num``):
    intervals, then one code per ``cont_na`` value, then missing. Returns codes and the
    number of groups."""
    special_arr = np.asarray(list(special), dtype=float)

    def plain(v: np.ndarray) -> np.ndarray:
        return ~np.isnan(v) & ~np.isin(v, special_arr)

    pool = np.concatenate([conf[plain(conf)]] + [s[plain(s)] for s in syns])
    if len(pool) == 0:
        raise DataError("a numeric column to tabulate has only missing values")
    brks = _quantile_breaks(pool, ngroups, "quantile")
    if len(brks) - 1 + len(special_arr) < 3:
        brks = _quantile_breaks(pool, ngroups, "equal")
    n_int = max(len(brks) - 1, 1)
    out = []
    for v in [conf, *syns]:
        code = np.full(len(v), n_int + len(special_arr), dtype=np.int64)  # missing
        ok = plain(v)
        code[ok] = _cut(v[ok], brks)
        for i, sv in enumerate(special_arr):
            code[v == sv] = n_int + i
        out.append(code)
    return out, n_int + len(special_arr) + 1


def _codes(conf: pd.Series, syns: list[pd.Series], special: Sequence[float], ngroups: int
           ) -> tuple[list[np.ndarray], int]:
    if pd.api.types.is_numeric_dtype(conf.dtype) and not pd.api.types.is_bool_dtype(conf.dtype):
        try:
            vals = [pd.to_numeric(s, errors="raise").to_numpy(dtype=float, na_value=np.nan)
                    for s in [conf, *syns]]
        except (TypeError, ValueError):
            raise DataError(
                f"column '{conf.name}': numbers in the confidential data but not in a synthetic "
                "implicate; give both the same type"
            ) from None
        return _group_numeric(vals[0], vals[1:], special, ngroups)
    # levels: the text of the values in order of first appearance over the confidential data
    # and then each implicate; one factorisation of them all
    every = pd.concat([conf, *syns], ignore_index=True).astype("object")
    seen = every.notna().to_numpy()
    found, levels = pd.factorize(every[seen].astype(str), sort=False)
    code = np.full(len(every), len(levels), dtype=np.int64)  # missing
    code[seen] = found
    ends = np.cumsum([len(conf), *(len(s) for s in syns)])
    return list(np.split(code, ends[:-1])), len(levels) + 1


@dataclass(frozen=True)
class UtilityTab(ResultDisplay, Summarized):
    """Table-based utility of a release for some columns (synthpop's ``utility.tab``).

    Attributes are the statistics of the module docstring, means over implicates: ``pMSE``,
    ``S_pMSE``, ``df``, ``FT``, ``S_FT``, ``JSD``, ``S_JSD``, ``SPECKS``, ``WMabsDD``,
    ``S_WMabsDD``, ``U``, ``G``, ``S_G``, ``dfG``, ``MabsDD``, ``dBhatt``, ``VW``, ``S_VW``,
    ``PO50``, ``nempty``. ``per_implicate``: one row per implicate. ``vars``: the columns.
    """

    vars: tuple[str, ...]
    per_implicate: pd.DataFrame
    VW: float
    FT: float
    JSD: float
    SPECKS: float
    WMabsDD: float
    U: float
    G: float
    pMSE: float
    PO50: float
    MabsDD: float
    dBhatt: float
    S_VW: float
    S_FT: float
    S_JSD: float
    S_WMabsDD: float
    S_G: float
    S_pMSE: float
    df: float
    dfG: float
    nempty: float

    metrics: ClassVar[dict[str, MetricInfo]] = {
        "pMSE": MetricInfo("pMSE", "minimize", 0.0, 0.25, description="table pMSE"),
        "S_pMSE": MetricInfo("S_pMSE", "minimize", 0.0, math.inf,
                             description="pMSE / its null expectation (1 if the synthesis "
                                         "is correct)"),
        "S_FT": MetricInfo("S_FT", "minimize", 0.0, math.inf, description="Freeman-Tukey / df"),
        "JSD": MetricInfo("JSD", "minimize", 0.0, 1.0, description="Jensen-Shannon divergence"),
        "SPECKS": MetricInfo("SPECKS", "minimize", 0.0, 1.0, description="KS of the scores"),
        "dBhatt": MetricInfo("dBhatt", "minimize", 0.0, 1.0,
                             description="Bhattacharyya distance"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.per_implicate.copy()

    def summary(self) -> str:
        return (f"Table utility of {', '.join(self.vars)}: pMSE {self.pMSE:.4g}, S_pMSE "
                f"{self.S_pMSE:.4g} on {self.df:.0f} df, S_FT {self.S_FT:.4g}, JSD "
                f"{self.JSD:.4g}, SPECKS {self.SPECKS:.4g}")


def utility_tab(
    conf: Any,
    synthetic: Any,
    vars: Sequence[str],
    *,
    ngroups: int = 5,
    cont_na: Mapping[str, Sequence[float]] | None = None,
    k_syn: bool = False,
) -> UtilityTab:
    """Compare the cross-table of ``vars`` in the confidential data and the release.

    See the module docstring for the statistics (Raab, Nowok & Dibben 2021; synthpop's
    ``utility.tab``).

    Parameters
    ----------
    conf : confidential DataFrame.
    synthetic : SyntheticData, a DataFrame or a list of DataFrames (implicates).
    vars : columns to cross-tabulate (one, two, three, ...).
    ngroups : groups numeric columns are cut into (synthpop's ``ngroups``).
    cont_na : per numeric column, special values kept as groups of their own (synthpop's
        ``cont.na``), e.g. ``{"income": [-8]}``.
    k_syn : ``df = K`` instead of ``K - 1`` (synthpop's ``k.syn``: the synthetic size was
        not fixed in advance).

    Examples
    --------
    >>> import pandas as pd
    >>> conf = pd.DataFrame({"a": ["x"] * 6 + ["y"] * 4})
    >>> syn = pd.DataFrame({"a": ["x"] * 5 + ["y"] * 5})
    >>> round(utility_tab(conf, syn, ["a"]).S_pMSE, 4)  # VW = 1/5.5 + 1/4.5, df = 1
    0.404
    """
    conf = check_conf(conf)
    imps = as_implicates(synthetic)
    vars = list(dict.fromkeys(vars))
    if not vars:
        raise ParameterError("parameter 'vars': give at least one column to tabulate")
    grouped = group_columns(conf, imps, vars, ngroups=ngroups, cont_na=cont_na)
    return tab_from_groups(grouped, vars, len(imps), k_syn)


def group_columns(
    conf: pd.DataFrame,
    imps: list[pd.DataFrame],
    vars: Sequence[str],
    *,
    ngroups: int = 5,
    cont_na: Mapping[str, Sequence[float]] | None = None,
) -> dict[str, tuple[list[np.ndarray], int]]:
    """Per column: group codes of the confidential data and each implicate, and the number
    of codes (see the module docstring)."""
    if int(ngroups) < 2:
        raise ParameterError("parameter 'ngroups': must be at least 2")
    problems = [f"column '{v}' is not in the confidential data" for v in vars
                if v not in conf.columns]
    problems += [f"column '{v}' is not in synthetic implicate {i}" for i, df in enumerate(imps)
                 for v in vars if v not in df.columns]
    if problems:
        raise DataError("columns to tabulate are missing", problems)
    cont_na = dict(cont_na or {})
    for k in cont_na:
        if k not in conf.columns:
            raise ParameterError(f"parameter 'cont_na': column '{k}' is not in the data")
    return {v: _codes(conf[v], [df[v] for df in imps], cont_na.get(v, ()), int(ngroups))
            for v in vars}


def tab_from_groups(grouped: Mapping[str, tuple[list[np.ndarray], int]], vars: Sequence[str],
                    m: int, k_syn: bool = False) -> UtilityTab:
    """:func:`utility_tab` of ``vars`` from :func:`group_columns`' codes."""
    rows = table_rows(grouped, vars, m, k_syn)
    per = pd.DataFrame(rows, columns=list(STATISTICS))
    per.insert(0, "implicate", range(m))
    return UtilityTab(vars=tuple(vars), per_implicate=per, **mean_statistics(rows))


def mean_statistics(rows: list[dict[str, float]]) -> dict[str, float]:
    """Each statistic's mean over implicates (the rows of :func:`table_rows`)."""
    return {k: float(np.mean([r[k] for r in rows])) for k in STATISTICS}


def table_rows(grouped: Mapping[str, tuple[list[np.ndarray], int]], vars: Sequence[str],
               m: int, k_syn: bool = False) -> list[dict[str, float]]:
    """:func:`table_statistics` of each implicate's table of ``vars`` (from
    :func:`group_columns`' codes; cells counted by ``bincount`` over the codes' product space
    when it is not much larger than the data)."""
    codes = [grouped[v][0] for v in vars]
    sizes = [grouped[v][1] for v in vars]

    def cell_ids(which: int) -> np.ndarray:
        key = np.zeros(len(codes[0][which]), dtype=np.int64)
        for c, k in zip(codes, sizes, strict=True):
            key = key * k + c[which]
        return key

    conf_key = cell_ids(0)
    n_keys = math.prod(sizes)
    rows = []
    for i in range(m):
        syn_key = cell_ids(i + 1)
        if n_keys <= 4 * (len(conf_key) + len(syn_key)) + 1024:
            # counts over every cell, then the cells held by either (in key order, as unique)
            td = np.bincount(conf_key, minlength=n_keys)
            ts = np.bincount(syn_key, minlength=n_keys)
            held = (td + ts) > 0
            td, ts = td[held], ts[held]
        else:
            cells, inv = np.unique(np.r_[conf_key, syn_key], return_inverse=True)
            td = np.bincount(inv[: len(conf_key)], minlength=len(cells))
            ts = np.bincount(inv[len(conf_key):], minlength=len(cells))
        rows.append(table_statistics(td, ts, _n_cells(codes, sizes, i), k_syn))
    return rows


def _n_cells(codes: list[list[np.ndarray]], sizes: list[int], i: int) -> int:
    """Cells of the full table: the product of the levels present in the confidential data or
    implicate ``i`` per column (a missing group only when some value is missing)."""
    total = 1
    for c, k in zip(codes, sizes, strict=True):
        missing_code = k - 1
        n_levels = k - 1 + int(bool((c[0] == missing_code).any()
                                    or (c[i + 1] == missing_code).any()))
        total *= n_levels
    return total
