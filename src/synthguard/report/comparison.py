"""Confidential vs synthetic summary statistics for a terminal or a CSV, under the report's rules.

:func:`comparison_table` is what ``synthguard demo`` prints and writes beside each release
(``metadata/comparison.csv``). It shows no confidential figure that the HTML report would
not print (:mod:`synthguard.report.safety`):

* means and standard deviations of a numeric column are **winsorised**, of the values
  clipped at the rounded tail quantiles of the confidential column with at least
  ``min_cell`` records beyond each (:func:`~synthguard.report.safety.tail_bounds`), the
  same bounds for the data and the release, as the report's variable table
  (:func:`synthguard.report.sections.univariate_table`); an extreme record therefore
  changes no printed figure;
* every number is rounded to 3 significant figures
  (:func:`~synthguard.report.safety.format_number`);
* a category level held by fewer than ``min_cell`` confidential records is not named: such
  levels are pooled into one ``(suppressed)`` row, and a share of fewer than ``min_cell``
  records (``min_cell × m`` over ``m`` pooled implicates) is shown only as ``< bound``.

:func:`winsorised_correlation` is the Pearson correlation of two columns clipped the same
way (Dixon 1960's winsorisation; the report's rule for moments applied to a product moment).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from synthguard.data.schema import Schema, infer_schema
from synthguard.report.safety import SUPPRESSED, Redactor, format_number, tail_bounds
from synthguard.report.sections import _numeric_stats, _share_text

__all__ = ["comparison_table", "winsorised_correlation"]

_NUMERIC_ROWS = (("mean", "mean (winsorised)"), ("sd", "sd (winsorised)"))


def _numbers(s: pd.Series) -> np.ndarray:
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def comparison_table(
    conf: pd.DataFrame,
    implicates: Sequence[pd.DataFrame],
    *,
    kept: Iterable[str] = (),
    schema: Schema | None = None,
    min_cell: int = 10,
) -> pd.DataFrame:
    """Winsorised means and sds of numeric columns and shares of category levels, confidential
    vs synthetic (implicates pooled), as text under the report's rules (module docstring).

    Returns one row per statistic with columns ``column``, ``role`` (``kept`` or
    ``synthesized``), ``statistic``, ``confidential`` and ``synthetic`` (strings).
    """
    schema = schema if schema is not None else infer_schema(conf)
    kept_set = set(kept)
    m = max(len(implicates), 1)
    syn = pd.concat(list(implicates), ignore_index=True)
    redactor = Redactor.from_data([conf], schema, min_cell=min_cell)
    rows: list[dict[str, str]] = []

    def add(column: str, statistic: str, c: str, s: str) -> None:
        rows.append({"column": column,
                     "role": "kept" if column in kept_set else "synthesized",
                     "statistic": statistic, "confidential": c, "synthetic": s})

    for col in syn.columns:
        if col not in conf.columns:
            continue
        if col in schema and schema[col].is_numeric:
            conf_v = _numbers(conf[col])
            lo, hi, _ = tail_bounds(conf_v, min_cell)
            c_st = _numeric_stats(conf[col], min_cell, (lo, hi), 1)
            s_st = _numeric_stats(syn[col], min_cell, (lo, hi), m)
            for key, label in _NUMERIC_ROWS:
                add(col, label, c_st[key], s_st[key])
            if conf[col].isna().any() or syn[col].isna().any():
                add(col, "share missing", c_st["missing"], s_st["missing"])
            continue
        c_counts = conf[col].astype("object").value_counts(dropna=False)
        s_counts = syn[col].astype("object").value_counts(dropna=False)
        levels = [v for v in c_counts.index if not pd.isna(v)]
        safe = [v for v in levels if redactor.is_safe(v)]
        for level in sorted(safe, key=str):
            add(col, f"share {level}",
                _share_text(int(c_counts.get(level, 0)), len(conf), min_cell),
                _share_text(int(s_counts.get(level, 0)), len(syn), min_cell * m))
        small = [v for v in levels if not redactor.is_safe(v)]
        if small:
            # synthetic levels not among the safe confidential ones are pooled with them
            present = syn[col].dropna().astype("object")
            s_other = int((~present.isin(safe)).sum())
            add(col, f"share of levels {SUPPRESSED}",
                _share_text(int(c_counts[small].sum()), len(conf), min_cell),
                _share_text(s_other, len(syn), min_cell * m))
        c_na, s_na = int(conf[col].isna().sum()), int(syn[col].isna().sum())
        if c_na or s_na:
            add(col, "share missing", _share_text(c_na, len(conf), min_cell),
                _share_text(s_na, len(syn), min_cell * m))
    return pd.DataFrame(rows, columns=["column", "role", "statistic", "confidential",
                                       "synthetic"])


def winsorised_correlation(conf: pd.DataFrame, frames: Iterable[pd.DataFrame], x: str, y: str,
                           *, min_cell: int = 10) -> list[str]:
    """Pearson correlation of ``x`` and ``y`` in each of ``frames``, both clipped at the tail
    bounds of the confidential columns (:func:`~synthguard.report.safety.tail_bounds`),
    rounded to 3 significant figures; ``"–"`` where the bounds are undefined (too few
    records) or a column is constant. Rows with a missing value are left out."""
    bounds = [tail_bounds(_numbers(conf[c]), min_cell)[:2] for c in (x, y)]
    out = []
    for df in frames:
        a, b = _numbers(df[x]), _numbers(df[y])
        ok = np.isfinite(a) & np.isfinite(b)
        if not all(np.isfinite(v) for v in np.ravel(bounds)) or ok.sum() < 2 * min_cell:
            out.append("–")
            continue
        a = np.clip(a[ok], *bounds[0])
        b = np.clip(b[ok], *bounds[1])
        if a.std() == 0 or b.std() == 0:
            out.append("–")
            continue
        out.append(format_number(float(np.corrcoef(a, b)[0, 1]), 3))
    return out
