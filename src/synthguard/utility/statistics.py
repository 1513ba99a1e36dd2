"""Analysis-specific utility for summary statistics and user functions: means (t intervals),
medians and quantiles (bootstrap), and any function of the data — a microsimulation, a tax
calculator — compared on the confidential data and on the release (Hu, Savitsky & Williams,
Table 4; Urban Institute course, ch. 3, "Microsimulation results")."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema
from synthguard.data._backend import any_dask, dask_backend
from synthguard.errors import DataError, ParameterError
from synthguard.utility._compare import comparison_columns
from synthguard.utility._inputs import check_level, numeric_values, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["StatisticsComparison", "compare_statistics"]

StatSpec = str | tuple[str, str] | Callable[[pd.DataFrame], Any]
_QUANTILE = re.compile(r"^q(\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class StatisticsComparison(ResultDisplay, Summarized):
    """Point estimates and intervals of statistics on the confidential data and the release.

    Attributes
    ----------
    table : one row per (statistic, variable): ``conf_estimate``, ``conf_se``, ``conf_lower``,
        ``conf_upper``, combined synthetic ``syn_estimate``, ``syn_se``, ``syn_df``,
        ``syn_lower``, ``syn_upper``, ``rule``, both overlaps, SSO parts, ``std_difference``
        and ``interval`` (how the confidential interval was computed: ``"t"`` or
        ``"bootstrap"``).
    mean_overlap : mean Snoke overlap over rows.
    level, n_boot, seed : settings.
    """

    table: pd.DataFrame
    mean_overlap: float
    level: float
    n_boot: int
    seed: int | None = None

    goal: ClassVar[str] = "maximize"
    min_value: ClassVar[float] = -np.inf
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "mean_overlap": MetricInfo("mean_overlap", "maximize", -np.inf, 1.0,
                                   description="mean CI overlap (Snoke et al. 2018)"),
    }

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> str:
        return (
            f"{len(self.table)} statistics compared: mean CI overlap {self.mean_overlap:.3f} "
            f"({self.level:.0%} intervals)"
        )


def _quantile_p(name: str) -> float | None:
    if name == "median":
        return 0.5
    mt = _QUANTILE.match(name)
    if mt:
        p = float(mt.group(1)) / 100.0
        if not 0.0 < p < 1.0:
            raise ParameterError(f"statistic '{name}': the quantile must lie between q0 and q100")
        return p
    return None


def _bootstrap(
    x: np.ndarray, fn: Callable[[np.ndarray], np.ndarray], n_boot: int, rng: np.random.Generator
) -> np.ndarray:
    """``n_boot`` values of ``fn`` on row resamples of ``x``; ``fn`` maps (B, n) to (B,)."""
    n = x.size
    out = np.empty(n_boot)
    chunk = max(1, min(n_boot, 4_000_000 // max(n, 1)))
    for s in range(0, n_boot, chunk):
        b = min(chunk, n_boot - s)
        out[s : s + b] = fn(x[rng.integers(0, n, size=(b, n))])
    return out


def mean_interval(mean: float, sd: Any, n: int, level: float) -> tuple[float, float, float, float]:
    """(estimate, se, lower, upper) of a mean ``x̄`` of ``n`` values with standard deviation
    ``s`` (ddof 1): ``se = s/√n`` and the t interval ``x̄ ± t_{n-1} se``."""
    from scipy import stats

    se = float(sd / np.sqrt(n))
    t = float(stats.t.ppf(0.5 + level / 2, n - 1))
    return mean, se, mean - t * se, mean + t * se


def _column_stat(
    kind: str, p: float | None, x: np.ndarray, n_boot: int, rng: np.random.Generator,
    level: float,
) -> tuple[float, float, float, float]:
    """(estimate, se, lower, upper) of a statistic of one column's non-missing values."""
    x = x[~np.isnan(x)]
    n = x.size
    if n < 2:
        raise DataError("compare_statistics: a column has fewer than 2 non-missing values")
    if kind == "mean":
        return mean_interval(float(x.mean()), x.std(ddof=1), n, level)
    assert p is not None
    est = float(np.quantile(x, p))
    boots = _bootstrap(x, lambda a: np.quantile(a, p, axis=1), n_boot, rng)
    lo, hi = np.quantile(boots, [0.5 - level / 2, 0.5 + level / 2])
    return est, float(boots.std(ddof=1)), float(lo), float(hi)


def _function_stat(
    fn: Callable[[pd.DataFrame], Any], df: pd.DataFrame, n_boot: int, rng: np.random.Generator,
    level: float,
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """User function: estimates, output names, bootstrap se, lower, upper."""
    first = fn(df)
    est = pd.Series([first], dtype=float) if np.isscalar(first) else pd.Series(first, dtype=float)
    names = [str(i) for i in est.index] if len(est) > 1 else [""]
    n = len(df)
    boots = np.empty((n_boot, len(est)))
    for b in range(n_boot):
        res = fn(df.iloc[rng.integers(0, n, size=n)])
        boots[b] = np.atleast_1d(np.asarray(res, dtype=float))
    lo, hi = np.quantile(boots, [0.5 - level / 2, 0.5 + level / 2], axis=0)
    return est.to_numpy(), names, boots.std(axis=0, ddof=1), lo, hi


@dask_backend
def compare_statistics(
    conf: Any,
    synthetic: Any,
    statistics: Sequence[str] | Mapping[str, StatSpec] = ("mean", "median", "q90"),
    *,
    columns: Sequence[str] | None = None,
    schema: Schema | None = None,
    method: Literal["partial", "full", "proper", "none"] = "partial",
    level: float = 0.95,
    n_boot: int = 500,
    random_state: RandomState = None,
) -> StatisticsComparison:
    """Compare statistics of the confidential data and the release, with intervals.

    Statistics (Hu, Savitsky & Williams, Table 4: mean, median, 90% quantile):

    * ``"mean"``: ``x̄`` with variance ``s²/n`` and the t interval ``x̄ ± t_{n-1} s/√n``;
    * ``"median"`` and ``"qNN"`` (``"q90"``, ``"q2.5"``): the sample quantile (linear
      interpolation, R's type 7) with a bootstrap variance and percentile interval
      (``n_boot`` resamples of the rows);
    * a callable ``f(DataFrame) -> float | Series`` (a microsimulation, a tax calculator): its
      outputs, with bootstrap variances and percentile intervals.

    On the release, each implicate gives ``q^(l)`` and ``v^(l)`` (variance as above), combined
    with :func:`synthguard.utility.combine` (``method``; one implicate: the ``"simple"``
    rule unless ``method="proper"``). Each row then carries both interval overlaps, the SSO match and the standardised
    difference ``(q̄_m - q_conf)/se_conf``.

    Parameters
    ----------
    conf, synthetic : confidential DataFrame and the release.
    statistics : names applied to every column of ``columns`` (default: all numeric columns),
        or a mapping ``label -> name | (name, column) | callable``.
    columns : numeric columns for the named statistics.
    schema : column kinds (default: inferred from ``conf``).
    method : combining rule for the implicates, ``"partial"``, ``"full"`` or ``"proper"``
        (:func:`synthguard.utility.combine`).
    level : confidence level.
    n_boot : bootstrap resamples.
    random_state : seed or Generator for the bootstrap.

    Notes
    -----
    ``conf`` and ``synthetic`` may be Dask DataFrames for the statistic ``"mean"``: every
    partition returns its count, mean and sum of squared deviations per column, merged by
    Chan, Golub & LeVeque's update (:func:`synthguard.utility.blocks.merge_moments`); the
    figures equal the pandas ones to floating-point rounding.

    Returns
    -------
    StatisticsComparison
    """
    level = check_level(level)
    if method not in ("partial", "full", "proper", "none"):
        raise ParameterError(
            f"parameter 'method': expected 'partial', 'full', 'proper' or 'none', got {method!r}"
        )
    if n_boot < 10:
        raise ParameterError("parameter 'n_boot': expected at least 10 bootstrap resamples")
    rng, seed = resolve_seed(random_state)
    specs: list[tuple[str, StatSpec]] = (
        list(statistics.items()) if isinstance(statistics, Mapping)
        else [(s, s) for s in statistics]
    )
    if any_dask(conf, synthetic):  # means from per-partition sums
        if any(spec != "mean" for _, spec in specs):
            raise ParameterError(
                "parameter 'statistics': on Dask data only 'mean' is computed (quantiles and "
                "functions need the records); pass statistics=['mean'] or pandas frames"
            )
        from synthguard.utility._on_dask.means import mean_parts

        conf_arr, q, v, num, n_conf, n_syn = mean_parts(conf, synthetic, columns=columns,
                                                        schema=schema, level=level)
        labels = [label for label, _ in specs]
        rows = [{"statistic": label, "variable": c, "interval": "t"}
                for label in labels for c in num]
        conf_arr = np.vstack([conf_arr] * len(labels))
        q, v = np.hstack([q] * len(labels)), np.hstack([v] * len(labels))  # implicates x rows
    else:
        rows, conf_arr, q, v, n_conf, n_syn = _pandas_parts(
            conf, synthetic, specs, columns, schema, level, n_boot, rng)
    if not rows:
        raise DataError("compare_statistics: nothing to compare; give statistics and columns")
    table = comparison_columns(
        conf_arr[:, 0], conf_arr[:, 1], conf_arr[:, 2], conf_arr[:, 3], q, v, method,
        n_conf, n_syn, level,
    )
    table.insert(0, "interval", [r["interval"] for r in rows])
    table.insert(0, "variable", [r["variable"] for r in rows])
    table.insert(0, "statistic", [r["statistic"] for r in rows])
    return StatisticsComparison(table, float(np.nanmean(table["overlap_snoke"])), level, n_boot,
                                seed)


def _pandas_parts(
    conf: Any, synthetic: Any, specs: list[tuple[str, StatSpec]], columns: Sequence[str] | None,
    schema: Schema | None, level: float, n_boot: int, rng: np.random.Generator,
) -> tuple[list[dict[str, Any]], np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Rows, the confidential (estimate, se, lower, upper) per row, the implicates' estimates
    and variances (implicates x rows) and the record counts, on pandas data."""
    conf, imps, schema, cols = resolve(conf, synthetic, schema, None)
    num_cols = list(columns) if columns is not None else schema.subset(cols).numeric()
    for c in num_cols:
        if c not in cols or not schema[c].is_numeric:
            raise DataError(f"column '{c}': not a numeric column shared by conf and synthetic")
    rows: list[dict[str, Any]] = []
    q_rows: list[np.ndarray] = []
    v_rows: list[np.ndarray] = []
    for label, spec in specs:
        if callable(spec):
            est, names, se, lo, hi = _function_stat(spec, conf, n_boot, rng, level)
            per = [_function_stat(spec, df, n_boot, rng, level) for df in imps]
            for j, nm in enumerate(names):
                rows.append({"statistic": label, "variable": nm, "interval": "bootstrap",
                             "conf": (est[j], se[j], lo[j], hi[j])})
                q_rows.append(np.array([r[0][j] for r in per]))
                v_rows.append(np.array([r[2][j] ** 2 for r in per]))
            continue
        if isinstance(spec, tuple):
            name, targets = spec[0], [spec[1]]
            for t in targets:
                if t not in cols or not schema[t].is_numeric:
                    raise DataError(f"column '{t}': not a numeric column shared by both data sets")
        else:
            name, targets = spec, num_cols
        p = _quantile_p(name)
        if name != "mean" and p is None:
            raise ParameterError(
                f"statistic '{name}': expected 'mean', 'median', 'qNN' (e.g. 'q90') or a callable"
            )
        kind = "mean" if name == "mean" else "quantile"
        for c in targets:
            cst = _column_stat(kind, p, numeric_values(conf[c], c), n_boot, rng, level)
            syn = [_column_stat(kind, p, numeric_values(df[c], c), n_boot, rng, level)
                   for df in imps]
            rows.append({"statistic": label, "variable": c,
                         "interval": "t" if kind == "mean" else "bootstrap", "conf": cst})
            q_rows.append(np.array([s[0] for s in syn]))
            v_rows.append(np.array([s[1] ** 2 for s in syn]))
    if not rows:
        return rows, np.empty((0, 4)), np.empty((0, 1)), np.empty((0, 1)), 0, 0
    conf_arr = np.array([r["conf"] for r in rows], dtype=float)
    return (rows, conf_arr, np.column_stack(q_rows), np.column_stack(v_rows), len(conf),
            int(np.mean([len(df) for df in imps])))
