"""One call for the whole utility evaluation of a release: univariate comparison, ECDF utility
of every numeric variable, correlation fit, pMSE, k-way marginals and, when formulas are given,
regression comparisons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard._random import RandomState, resolve_seed
from synthguard.data import Schema, infer_schema
from synthguard.data.implicates import release_kind
from synthguard.errors import DataError
from synthguard.utility._inputs import (
    case_weights,
    check_weights_column,
    numeric_values,
    resolve,
)
from synthguard.utility._metric import MetricInfo, ResultDisplay
from synthguard.utility.correlation import CorrelationFit, correlation_fit
from synthguard.utility.discriminant import PMSEResult, pmse
from synthguard.utility.ecdf import ECDFUtility, ecdf_utility
from synthguard.utility.marginals import KWayMarginalScore, kway_marginal_score
from synthguard.utility.regression import RegressionComparison, compare_regression
from synthguard.utility.statistics import StatisticsComparison, compare_statistics
from synthguard.utility.univariate import UnivariateComparison, univariate

__all__ = ["UtilityEvaluation", "evaluate_utility"]


@dataclass(frozen=True)
class UtilityEvaluation(ResultDisplay, Summarized):
    """All utility measures of one release.

    Attributes
    ----------
    univariate : :class:`UnivariateComparison`.
    ecdf : per numeric variable, :class:`ECDFUtility`.
    correlation : :class:`CorrelationFit` (None with fewer than two comparable columns).
    pmse : :class:`PMSEResult`.
    kway : :class:`KWayMarginalScore` (None with fewer than ``k`` columns).
    regressions : per formula, :class:`RegressionComparison`.
    statistics : :class:`StatisticsComparison` of the requested statistics (None when no
        statistic was requested or there is no numeric column).
    seed : the seed used for the random parts.
    """

    univariate: UnivariateComparison
    ecdf: dict[str, ECDFUtility]
    correlation: CorrelationFit | None
    pmse: PMSEResult
    kway: KWayMarginalScore | None
    regressions: dict[str, RegressionComparison] = field(default_factory=dict)
    statistics: StatisticsComparison | None = None
    seed: int | None = None

    def to_frame(self) -> pd.DataFrame:
        """Tidy table of every headline number: ``measure``, ``subject`` (variable, formula or
        "all"), ``metric``, ``value``, ``goal``, ``min_value``, ``max_value``, ``target``."""
        rows: list[dict[str, Any]] = []

        def add(measure: str, subject: str, obj: Any, info: Mapping[str, MetricInfo]) -> None:
            for name, mi in info.items():
                val = getattr(obj, name)
                if val is None or (isinstance(val, float) and np.isnan(val)):
                    continue
                rows.append({
                    "measure": measure, "subject": subject, "metric": name,
                    "value": float(val), "goal": mi.goal, "min_value": mi.min_value,
                    "max_value": mi.max_value, "target": mi.target,
                })

        add("univariate", "all", self.univariate, self.univariate.metrics)
        for var, e in self.ecdf.items():
            add("ecdf", var, e, e.metrics)
        if self.correlation is not None:
            add("correlation", "all", self.correlation, self.correlation.metrics)
        add("pmse", "all", self.pmse, self.pmse.metrics)
        if self.kway is not None:
            add("kway_marginals", "all", self.kway, self.kway.metrics)
        for f, r in self.regressions.items():
            add("regression", f, r, r.metrics)
        if self.statistics is not None:
            add("statistics", "all", self.statistics, self.statistics.metrics)
        return pd.DataFrame(rows)

    def summary(self) -> str:
        parts = [self.univariate.summary()]
        if self.ecdf:
            worst = max(self.ecdf.items(), key=lambda kv: kv[1].u_max)
            parts.append(f"ECDF: largest U_m {worst[1].u_max:.4g} ({worst[0]})")
        if self.correlation is not None:
            parts.append(self.correlation.summary())
        parts.append(self.pmse.summary())
        if self.kway is not None:
            parts.append(self.kway.summary())
        parts.extend(r.summary() for r in self.regressions.values())
        if self.statistics is not None:
            parts.append(self.statistics.summary())
        return "\n".join(parts)


def evaluate_utility(
    conf: Any,
    synthetic: Any,
    formulas: Sequence[str] | Mapping[str, str] | None = None,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
    pmse_model: Literal["logistic", "cart", "boosting", "rf"] = "logistic",
    pmse_options: Mapping[str, Any] | None = None,
    k: int = 3,
    n_draws: int = 100,
    method: Literal["partial", "full", "proper", "none"] | None = None,
    statistics: Sequence[str] | Mapping[str, Any] | None = ("mean",),
    random_state: RandomState = None,
    weights: str | None = None,
) -> UtilityEvaluation:
    """Evaluate the general and analysis-specific utility of a release.

    Runs :func:`univariate`, :func:`ecdf_utility` on every numeric column,
    :func:`correlation_fit`, :func:`pmse` (``pmse_model``, ``pmse_options``),
    :func:`kway_marginal_score` (``k``, ``n_draws``), :func:`compare_regression` for each
    formula (gaussian family; pass a mapping ``formula -> family`` for others) and
    :func:`compare_statistics` of ``statistics`` on every numeric column (default: the mean,
    with t intervals; quantiles add a bootstrap).

    Parameters
    ----------
    conf, synthetic : confidential DataFrame and the release (SyntheticData, list of
        DataFrames or one DataFrame).
    formulas : regression formulas of the analysts, or ``{formula: family}``.
    schema, columns : column kinds (default inferred from ``conf``) and columns to use.
    method : combining rule for regressions and statistics (``"partial"``, ``"full"``,
        ``"proper"`` or ``"none"`` for one SDC-protected file analysed as the data, see
        :func:`combine`); default: the release's ``kind`` when it says, else ``"partial"``.
    random_state : seed or Generator (pMSE permutations and trees, marginal draws).
    weights : sampling-weight column of the data: the univariate comparison, the ECDF
        distances and the pMSE family are then survey-weighted (estimates for the population
        the weights stand for; the propensity model takes them as case weights), see
        :func:`univariate`, :func:`ecdf_utility` and :func:`pmse`. The correlation fit,
        k-way marginals, regressions and statistics stay unweighted (use
        :func:`domain_estimates` for weighted estimates with design-based intervals). The
        weight column is left out of the compared columns unless ``columns`` names it.

    Returns
    -------
    UtilityEvaluation
    """
    rng, seed = resolve_seed(random_state)
    if schema is None and isinstance(conf, pd.DataFrame):
        schema = infer_schema(conf)
    kind = release_kind(synthetic)
    if weights is not None and isinstance(conf, pd.DataFrame):
        check_weights_column(conf, weights)
        if columns is None:
            columns = [c for c in conf.columns if c != weights]
    conf, imps, schema, cols = resolve(conf, synthetic, schema, columns)
    uni = univariate(conf, imps, schema=schema, columns=cols, weights=weights)
    cw = case_weights(conf, weights, "confidential data")
    iws = [case_weights(df, weights, f"synthetic implicate {i}") for i, df in enumerate(imps)]
    ecdf = {}
    for c in cols:
        if schema[c].is_numeric:
            cv = numeric_values(conf[c], c)
            if np.isnan(cv).all():
                continue
            ecdf[c] = ecdf_utility(cv, [numeric_values(df[c], c) for df in imps],
                                   conf_weights=cw,
                                   synthetic_weights=None if weights is None else iws)
    try:
        corr: CorrelationFit | None = correlation_fit(conf, imps, schema=schema, columns=cols)
    except DataError:
        corr = None
    pm = pmse(conf, imps, pmse_model, schema=schema, columns=cols, random_state=rng,
              weights=weights, **dict(pmse_options or {}))
    kw = (
        kway_marginal_score(conf, imps, k=k, n_draws=n_draws, schema=schema, columns=cols,
                            random_state=rng)
        if len(cols) >= k else None
    )
    regs: dict[str, RegressionComparison] = {}
    fams = (dict(formulas) if isinstance(formulas, Mapping)
            else dict.fromkeys(formulas or [], "gaussian"))
    rule = method or (kind if kind in ("partial", "full") else "partial")
    for f, fam in fams.items():
        regs[f] = compare_regression(f, conf, imps, family=fam, method=rule)  # type: ignore[arg-type]
    stats_cmp = None
    if statistics and schema.subset(cols).numeric():
        stats_cmp = compare_statistics(conf, imps, statistics, schema=schema, method=rule,  # type: ignore[arg-type]
                                       random_state=rng)
    return UtilityEvaluation(uni, ecdf, corr, pm, kw, regs, stats_cmp, seed)
