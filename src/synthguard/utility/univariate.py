"""Univariate comparison of a release with the confidential data: level counts and shares of
categorical variables; moments, percentiles, zeros and missing values of numeric variables
(Urban Institute course, ch. 3, "Univariate")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from synthguard._display import Summarized
from synthguard.data import Schema
from synthguard.utility._inputs import category_codes, numeric_values, resolve
from synthguard.utility._metric import MetricInfo, ResultDisplay

__all__ = ["PERCENTILES", "UnivariateComparison", "univariate"]

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass(frozen=True)
class UnivariateComparison(ResultDisplay, Summarized):
    """Per-variable summaries of the confidential data and the release.

    Attributes
    ----------
    numeric : rows ``(variable, statistic)`` with statistics n, mean, sd, skewness, kurtosis
        (excess, bias-corrected as pandas computes them), p1 ... p99, share_zero,
        share_missing; columns ``confidential``, ``synthetic`` (mean over implicates) and
        ``difference`` (synthetic - confidential).
    categorical : rows ``(variable, level)`` (missing values as level ``<missing>``), columns
        ``count_conf``, ``share_conf``, ``count_syn`` (mean over implicates), ``share_syn`` and
        ``difference`` (share_syn - share_conf).
    max_share_difference : largest absolute share difference over all categorical levels.
    """

    numeric: pd.DataFrame
    categorical: pd.DataFrame
    max_share_difference: float

    goal: ClassVar[str] = "minimize"
    min_value: ClassVar[float] = 0.0
    max_value: ClassVar[float] = 1.0
    metrics: ClassVar[dict[str, MetricInfo]] = {
        "max_share_difference": MetricInfo(
            "max_share_difference", "minimize", 0.0, 1.0,
            description="largest absolute difference in a category's share",
        ),
    }

    def to_frame(self) -> pd.DataFrame:
        """Both tables stacked long: variable, kind, statistic, confidential, synthetic,
        difference (categorical rows use ``share:<level>`` and ``count:<level>``)."""
        num = self.numeric.reset_index()
        num.insert(1, "kind", "numeric")
        parts = [num]
        if len(self.categorical):
            cat = self.categorical.reset_index()
            for what, c, s in (("share", "share_conf", "share_syn"),
                               ("count", "count_conf", "count_syn")):
                part = pd.DataFrame({
                    "variable": cat["variable"],
                    "kind": "categorical",
                    "statistic": [f"{what}:{lv}" for lv in cat["level"]],
                    "confidential": cat[c].astype(float),
                    "synthetic": cat[s].astype(float),
                })
                part["difference"] = part["synthetic"] - part["confidential"]
                parts.append(part)
        return pd.concat(parts, ignore_index=True)

    def summary(self) -> str:
        nv = self.numeric.index.get_level_values(0).nunique() if len(self.numeric) else 0
        cv = self.categorical.index.get_level_values(0).nunique() if len(self.categorical) else 0
        return (
            f"Univariate comparison of {nv} numeric and {cv} categorical variables; largest "
            f"share difference {self.max_share_difference:.4g}"
        )


def _numeric_stats(v: np.ndarray) -> dict[str, float]:
    s = pd.Series(v)
    x = v[~np.isnan(v)]
    out = {
        "n": float(x.size),
        "mean": float(s.mean()) if x.size else np.nan,
        "sd": float(s.std()) if x.size > 1 else np.nan,
        "skewness": float(np.asarray(s.skew())) if x.size > 2 else np.nan,
        "kurtosis": float(np.asarray(s.kurt())) if x.size > 3 else np.nan,
    }
    q = np.quantile(x, np.array(PERCENTILES) / 100.0) if x.size else np.full(len(PERCENTILES), np.nan)
    for p, val in zip(PERCENTILES, q):
        out[f"p{p}"] = float(val)
    out["share_zero"] = float(np.mean(x == 0)) if x.size else np.nan
    out["share_missing"] = float(np.mean(np.isnan(v))) if v.size else np.nan
    return out


def univariate(
    conf: Any,
    synth: Any,
    *,
    schema: Schema | None = None,
    columns: list[str] | None = None,
) -> UnivariateComparison:
    """Compare every variable's distribution in the release with the confidential data.

    Categorical, ordinal and binary columns: count and share of every level (missing values
    as a level). Numeric and count columns: number of non-missing values, mean, standard
    deviation, skewness and excess kurtosis (the bias-corrected sample estimators G1 and G2),
    percentiles 1, 5, 10, 25, 50, 75, 90, 95, 99 (linear interpolation), share of zeros among
    non-missing values and share missing. Synthetic figures are averaged over implicates.

    Parameters
    ----------
    conf, synth : confidential DataFrame and the release.
    schema : column kinds (default: inferred from ``conf``).
    columns : variables to compare (default: all shared columns).

    Returns
    -------
    UnivariateComparison
    """
    conf, imps, schema, cols = resolve(conf, synth, schema, columns)
    num_rows = []
    cat_rows = []
    for c in cols:
        col = schema[c]
        if col.is_numeric:
            sc = _numeric_stats(numeric_values(conf[c], c))
            ss = pd.DataFrame([_numeric_stats(numeric_values(df[c], c)) for df in imps]).mean()
            for stat, val in sc.items():
                num_rows.append((c, stat, val, float(ss[stat])))
        else:
            codes, nl, levels = category_codes([conf[c], *[df[c] for df in imps]], col.levels)
            labels = [*levels, "<missing>"]
            cc = np.bincount(codes[0], minlength=nl).astype(float)
            cs = np.mean([np.bincount(k, minlength=nl) for k in codes[1:]], axis=0)
            shs = np.mean([np.bincount(k, minlength=nl) / k.size for k in codes[1:]], axis=0)
            for i, lab in enumerate(labels):
                if i == nl - 1 and cc[i] == 0 and cs[i] == 0:
                    continue
                cat_rows.append((c, str(lab), cc[i], cc[i] / codes[0].size, cs[i], shs[i]))
    numeric = pd.DataFrame(num_rows, columns=["variable", "statistic", "confidential", "synthetic"])
    numeric["difference"] = numeric["synthetic"] - numeric["confidential"]
    numeric = numeric.set_index(["variable", "statistic"])
    categorical = pd.DataFrame(
        cat_rows,
        columns=["variable", "level", "count_conf", "share_conf", "count_syn", "share_syn"],
    )
    categorical["difference"] = categorical["share_syn"] - categorical["share_conf"]
    categorical = categorical.set_index(["variable", "level"])
    msd = float(categorical["difference"].abs().max()) if len(categorical) else np.nan
    return UnivariateComparison(numeric, categorical, msd)
