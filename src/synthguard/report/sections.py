"""Tables behind the report's sections, built from an :class:`Evaluation` under the safety rules.

Each function returns plain data (DataFrames or lists) with confidential numbers
already rounded and labels already redacted, so the template only lays them out.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from synthguard.evaluation import Evaluation
from synthguard.report.safety import Redactor, format_number, tail_bounds, winsorised_moments

__all__ = [
    "attribute_table",
    "correlation_differences",
    "detail_table",
    "disclosure_table",
    "importance_of",
    "regression_table",
    "univariate_table",
]

_STATS = ("mean", "sd", "p10", "median", "p90", "zeros", "missing")


def _share_text(count: int, n: int, min_cell: int) -> str:
    """A share for print; a share of fewer than ``min_cell`` records (but not none) is shown
    only as below ``min_cell / n``, so that it does not count a few records exactly."""
    if n <= 0:
        return "–"
    if 0 < count < min_cell:
        return f"< {format_number(min_cell / n, 2)}"
    return format_number(count / n, 3)


def _numeric_stats(s: pd.Series, min_cell: int, bounds: tuple[float, float],
                   implicates: int = 1) -> dict[str, str]:
    """Winsorised mean and sd, 10/50/90% quantiles, shares of zeros and missing values, for print.

    * mean and sd are of the values clipped to ``bounds`` — the rounded tail quantiles of the
      *confidential* column (:func:`~synthguard.report.safety.tail_bounds`, at least
      ``min_cell`` records beyond each), the same for the data and every release — so that a
      dominant record cannot be recovered as sd × √n (:func:`winsorised_moments`);
    * a quantile q is shown only when at least ``min_cell`` values lie on each side of it
      (n·q ≥ min_cell and n·(1−q) ≥ min_cell), so a printed p10 or p90 never sits among the
      few most extreme records;
    * shares of zeros and of missing values held by fewer than ``min_cell`` records are shown
      as ``"< min_cell / n"``.

    ``implicates`` pooled implicates multiply the cell threshold. With fewer than
    ``2 * min_cell`` values (or no bounds) nothing but the missing share is shown.
    """
    cell = min_cell * implicates
    raw = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    finite = np.isfinite(raw)
    miss = _share_text(int((~finite).sum()), raw.size, cell)
    v = raw[finite]
    n = v.size
    lo, hi = bounds
    if n < max(2 * min_cell, 2) or not (np.isfinite(lo) and np.isfinite(hi)):
        return dict.fromkeys(_STATS, "–") | {"missing": miss}
    p10, p50, p90 = np.quantile(v, [0.1, 0.5, 0.9])

    def q(value: float, prob: float) -> str:
        ok = n * prob >= cell and n * (1 - prob) >= cell
        return format_number(value, 3) if ok else "–"

    mean, sd = winsorised_moments(v, lo, hi)
    return {
        "mean": format_number(mean, 3), "sd": format_number(sd, 3),
        "p10": q(p10, 0.1), "median": q(p50, 0.5), "p90": q(p90, 0.9),
        "zeros": _share_text(int(np.sum(v == 0)), n, cell), "missing": miss,
    }


def univariate_table(ev: Evaluation, redactor: Redactor, max_columns: int = 20) -> dict[str, Any]:
    """Winsorised mean and sd, 10/50/90% quantiles, share of zeros and missing of each numeric
    column, for the data and each release (implicates pooled), under the rules of
    :func:`_numeric_stats`. No minimum or maximum is shown."""
    numeric = [c for c in ev.conf.columns if c in ev.schema and ev.schema[c].is_numeric]
    rows = []
    for c in numeric[:max_columns]:
        conf_v = pd.to_numeric(ev.conf[c], errors="coerce").to_numpy(dtype=float,
                                                                     na_value=np.nan)
        lo, hi, _ = tail_bounds(conf_v, redactor.min_cell)
        sources: dict[str, tuple[pd.Series, int]] = {"data": (ev.conf[c], 1)}
        for name, impl in ev.implicates.items():
            if c in impl[0].columns:
                sources[name] = (pd.concat([df[c] for df in impl], ignore_index=True), len(impl))
        for src, (s, k) in sources.items():
            st = _numeric_stats(s, redactor.min_cell, (lo, hi), implicates=k)
            rows.append({
                "column": redactor.label(c), "source": src,
                "cells": [st[k_] for k_ in _STATS],
            })
    return {"header": ["mean (winsorised)", "sd (winsorised)", "p10", "median", "p90",
                       "zeros", "missing"], "rows": rows}


def _corr(df: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    x = df[cols].apply(pd.to_numeric, errors="coerce")
    return x.corr()


def correlation_differences(ev: Evaluation, max_columns: int = 15,
                            attr: str = "difference") -> dict[str, pd.DataFrame]:
    """Release-minus-data correlation differences (implicates averaged), by release.

    Read from each release's utility result (``correlation.difference``, or
    ``correlation.cramers_v_difference`` with ``attr``) so the figure shows what the table's
    correlation MAE summarises; Pearson correlations of the numeric columns are computed here
    only for a release whose utility result lacks them.
    """
    cols = [c for c in ev.conf.columns if c in ev.schema and ev.schema[c].is_numeric][:max_columns]
    base = _corr(ev.conf, cols) if len(cols) >= 2 and attr == "difference" else None
    out = {}
    for name, impl in ev.implicates.items():
        corr = getattr(ev.releases[name].utility, "correlation", None)
        diff = getattr(corr, attr, None)
        if isinstance(diff, pd.DataFrame) and diff.shape[0] >= 2:
            out[name] = diff.iloc[:max_columns, :max_columns].astype(float).round(2)
        elif base is not None and all(c in impl[0].columns for c in cols):
            rel = sum(_corr(df, cols) for df in impl) / len(impl)
            out[name] = (rel - base).round(2)
    return out


def importance_of(utility: Any, redactor: Redactor) -> pd.Series | None:
    """Variable importance of the discriminating model in a utility result, labels redacted."""
    if utility is None:
        return None
    for holder in ("pmse", "discriminant"):
        res = getattr(utility, holder, None)
        for attr in ("importance", "variable_importance"):
            imp = getattr(res, attr, None) if res is not None else None
            if isinstance(imp, pd.DataFrame) and imp.shape[1] >= 1:
                imp = imp.iloc[:, 0]
            if isinstance(imp, pd.Series) and len(imp):
                s = pd.to_numeric(imp, errors="coerce").dropna()
                s.index = pd.Index(redactor.labels(s.index))
                return s.groupby(level=0).sum()
            if isinstance(imp, dict) and imp:
                return importance_of_dict(imp, redactor)
    return None


def importance_of_dict(imp: dict[Any, Any], redactor: Redactor) -> pd.Series:
    s = pd.Series({redactor.label(k): float(v) for k, v in imp.items()})
    return s.groupby(level=0).sum()


_EST = ("estimate", "coef", "est")


def _pick(cols: list[str], *needles: str, avoid: tuple[str, ...] = ()) -> str | None:
    for c in cols:
        lc = c.lower()
        if all(n in lc for n in needles) and not any(a in lc for a in avoid):
            return c
    return None


def regression_table(ev: Evaluation, redactor: Redactor) -> pd.DataFrame | None:
    """Long table ``term, release, estimate, lower, upper`` (release ``"data"``: confidential fit)
    from each release's regression comparison, for the Figure 10 style plot."""
    rows: list[dict[str, Any]] = []
    have_data: set[str] = set()
    for name, r in ev.releases.items():
        reg = getattr(r.utility, "regressions", None) if r.utility is not None else None
        if reg is None:
            continue
        items = reg if isinstance(reg, list | tuple) else list(reg.values()) if isinstance(
            reg, dict) else [reg]
        for k, item in enumerate(items):
            frame = item.to_frame() if hasattr(item, "to_frame") else item
            if not isinstance(frame, pd.DataFrame) or frame.empty:
                continue
            frame = frame.reset_index()
            cols = [str(c) for c in frame.columns]
            frame.columns = pd.Index(cols)
            term_col = _pick(cols, "term") or cols[0]
            ce = _pick(cols, "conf", "est") or _pick(cols, "conf", "coef")
            cl = _pick(cols, "conf", "low")
            cu = _pick(cols, "conf", "up")
            se = _pick(cols, "syn", "est") or _pick(cols, "syn", "coef")
            sl = _pick(cols, "syn", "low")
            su = _pick(cols, "syn", "up")
            if ce is None or cl is None or cu is None or se is None or sl is None or su is None:
                continue
            prefix = f"[{k + 1}] " if len(items) > 1 else ""
            for _, row in frame.iterrows():
                term = prefix + redactor.label(row[term_col])
                if term not in have_data:
                    rows.append({"term": term, "release": "data", "estimate": row[ce],
                                 "lower": row[cl], "upper": row[cu]})
                    have_data.add(term)
                rows.append({"term": term, "release": name, "estimate": row[se],
                             "lower": row[sl], "upper": row[su]})
    if not rows:
        return None
    out = pd.DataFrame(rows)
    for c in ("estimate", "lower", "upper"):
        out[c] = pd.to_numeric(out[c], errors="coerce")
    return out.dropna(subset=["estimate", "lower", "upper"])


def _scalars(obj: Any, prefix: str, depth: int = 0) -> dict[str, float]:
    """The measures of a result (and of its result-valued attributes), by path.

    A result class that declares its measures (``metrics``, a mapping of attribute name to
    its description, as the utility results do) shows exactly those. Otherwise only numeric
    attributes in [0, 1] are shown (shares, probabilities, risks): a result's other numbers
    may be statistics in the data's units (a threshold, a distance), which the report does not
    print without knowing what they are.
    """
    import dataclasses

    out: dict[str, float] = {}
    if obj is None or depth > 2 or not dataclasses.is_dataclass(obj):
        return out
    declared = getattr(type(obj), "metrics", None)
    declared = set(declared) if isinstance(declared, dict) else None
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name, None)
        if isinstance(v, bool | np.bool_):
            continue
        if isinstance(v, int | float | np.integer | np.floating):
            x = float(v)
            ok = (f.name in declared) if declared is not None else (0.0 <= x <= 1.0)
            if ok and np.isfinite(x):
                out[f"{prefix}{f.name}"] = x
        elif isinstance(v, dict):
            for k, item in v.items():
                out.update(_scalars(item, f"{prefix}{f.name}[{k}].", depth + 1))
        else:
            out.update(_scalars(v, f"{prefix}{f.name}.", depth + 1))
    return out


def detail_table(ev: Evaluation, section: str, redactor: Redactor,
                 max_rows: int = 80) -> dict[str, Any]:
    """Every numeric scalar of each release's utility or risk result (rows) by release
    (columns), rounded to 3 significant figures; labels redacted."""
    per = {name: _scalars(getattr(r, section), "") for name, r in ev.releases.items()}
    keys: list[str] = []
    for d in per.values():
        keys.extend(k for k in d if k not in keys)
    rows = [{"name": redactor.label(k),
             "cells": [format_number(per[n].get(k), 3) for n in per]} for k in keys[:max_rows]]
    return {"columns": list(per), "rows": rows, "truncated": max(len(keys) - max_rows, 0)}


_DATA_UNITS = frozenset({"rmse", "mae", "mse"})


def attribute_table(ev: Evaluation, redactor: Redactor) -> dict[str, Any] | None:
    """The attribute-disclosure attack of each release (target, measure, release, marginal,
    holdout, excess), rounded to 3 significant figures, labels redacted.

    A measure in the target's units (RMSE) is printed relative to the RMSE of guessing from the
    release's marginal (``"rmse ÷ marginal"``: release, 1, holdout and excess divided by it):
    the marginal guess's RMSE is about the target's standard deviation, which with ``n``
    printed recovers a dominant record (sd × √n).
    """
    rows = []
    header: list[str] = []
    for name, r in ev.releases.items():
        att = getattr(r.risk, "attribute", None) if r.risk is not None else None
        table = getattr(att, "table", None)
        if not isinstance(table, pd.DataFrame) or table.empty:
            continue
        cols = [c for c in table.columns if c != "target"]
        header = header or ["target", *map(str, cols)]
        for _, row in table.iterrows():
            row = row.copy()
            measure = str(row.get("measure", ""))
            if measure in _DATA_UNITS and "marginal" in row.index:
                scale = pd.to_numeric(pd.Series([row["marginal"]]), errors="coerce").iloc[0]
                for c in cols:
                    if c != "measure":
                        v = pd.to_numeric(pd.Series([row[c]]), errors="coerce").iloc[0]
                        row[c] = v / scale if np.isfinite(scale) and scale > 0 else np.nan
                row["measure"] = f"{measure} ÷ marginal"
            cells = [redactor.label(row.get("target", ""))]
            cells += [format_number(v, 3) if isinstance(v, int | float | np.number)
                      and not isinstance(v, bool) else redactor.label(v) for v in row[cols]]
            rows.append({"release": name, "cells": cells})
    if not rows:
        return None
    return {"header": header, "rows": rows}


def disclosure_table(ev: Evaluation, redactor: Redactor) -> dict[str, Any] | None:
    """synthpop's disclosure measures of each release and target (Raab, Nowok & Dibben): UiO
    and repU for the keys, Dorig and DiSCO per target, and the replicated uniques on all
    released columns, as shares of the confidential records.

    A share that stands for fewer than ``min_cell`` records (but not none) is printed only as
    below ``min_cell / n``, so the table never counts a few confidential records exactly.
    """
    rows = []
    n = ev.n_records
    for name, r in ev.releases.items():
        disc = getattr(r.risk, "disclosure", None) if r.risk is not None else None
        if disc is None:
            continue
        frame = disc.to_frame()
        for target, row in frame.iterrows():
            def share(x: float) -> str:
                if not np.isfinite(x):
                    return "–"
                return _share_text(round(float(x) * n), n, redactor.min_cell)

            rows.append({
                "release": name,
                "cells": [redactor.label(str(target)), share(row["uio"]), share(row["repu"]),
                          share(row["dorig"]), share(row["disco"]),
                          share(disc.replicated_uniques),
                          "check levels" if bool(row.get("check1_flagged")) else ""],
            })  # fmt: skip
    if not rows:
        return None
    return {
        "header": ["target", "UiO", "repU", "Dorig", "DiSCO", "replicated uniques (all columns)",
                   "1-way check"],
        "rows": rows,
    }
